"""Known-answer vectors (tests/vectors/*.json) for dice, chains and sealed
secrets, and an independent verifier of whole games.

(a) pbem's own functions reproduce every vector;
(b) an independent implementation, written from docs/protocol.md alone with
    hashlib/hmac/json/re (plus the Ed25519 and ChaCha20-Poly1305 primitives
    of ``cryptography``, never pbem), reproduces every vector too, and
    verifies whole games: the armour, the body and its fields, the limits of
    section 12, signatures, chains, commitments and reveals, file names and
    equivocation (sections 2, 3, 5, 8), the shipped games' sides and ruleset
    hashes (3.4), the closing rule (7.6) and the whole dice game (6.5) -- the
    proof that the document is precise enough to re-implement verification;
(c) the chain vectors link: SHA256(label || x_i) == x_{i-1};
(d) hostile bodies, one per limit or rule, signed with the worked example's
    keys by the independent signer: the independent verifier refuses each,
    pbem refuses each too, and both accept what is just within a limit.

pbem is imported only by the tests that check pbem itself, and to produce
inputs (the shipped games' demos); never by the independent implementation.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature

VECTORS = Path(__file__).parent / "vectors"
DICE = json.loads((VECTORS / "dice.json").read_text(encoding="utf-8"))
COMMIT = json.loads((VECTORS / "commitments.json").read_text(encoding="utf-8"))
EXAMPLE = DICE["worked_example"]

h = bytes.fromhex


def _ids(items, *keys):
    return [":".join(str(item[k])[:24] for k in keys) for item in items]


# =============================================================================
# (b) the independent implementation: docs/protocol.md, nothing from pbem
# =============================================================================


def lp(data: bytes) -> bytes:  # §1: u32be(len(x)) || x
    return len(data).to_bytes(4, "big") + data


def hmac256(key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, hashlib.sha256).digest()


def ind_hkdf(salt: bytes, ikm: bytes, info: bytes) -> bytes:  # §6.1, L = 32: one block
    prk = hmac256(salt, ikm)
    return hmac256(prk, info + b"\x01")


def ind_dice_key(game: str, m: int, body_sha256: bytes, author_value: bytes, recipient_value: bytes) -> bytes:
    info = game.encode("ascii") + b"\x00" + m.to_bytes(8, "big") + body_sha256
    return ind_hkdf(b"pbem-dice-v1", author_value + recipient_value, info)


class IndStream:
    """§6.2: one substream; below / die / dice / shuffle / draw."""

    def __init__(self, key: bytes, label: str):
        self.k = hmac256(key, b"pbem-roll-v1\x00" + label.encode("utf-8"))
        self.stream = b""
        self.blocks = 0
        self.words = 0

    def word(self) -> int:
        start = self.words * 8
        while len(self.stream) < start + 8:
            self.stream += hmac256(self.k, self.blocks.to_bytes(4, "big"))
            self.blocks += 1
        self.words += 1
        return int.from_bytes(self.stream[start : start + 8], "big")

    def below(self, n: int) -> int:
        assert 1 <= n <= 2**64
        limit = 2**64 - (2**64 % n)
        while True:
            w = self.word()
            if w < limit:
                return w % n

    def dice(self, count: int, sides: int) -> list[int]:
        return [self.below(sides) + 1 for _ in range(count)]

    def shuffle(self, items: list) -> list:
        items = list(items)
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


CHAIN_LABEL = b"pbem-chain-v1"


def ind_chain(seed: bytes, n: int) -> list[bytes]:  # §4.3: [x_0 .. x_n], x_n = seed
    values = [seed]
    for _ in range(n):
        values.append(hashlib.sha256(CHAIN_LABEL + values[-1]).digest())
    return values[::-1]


def ind_chain_seed(secret: bytes) -> bytes:
    return hmac256(secret, b"pbem-chain-seed-v1")


def ind_pad(value: str) -> bytes:  # §7.2
    data = value.encode("utf-8") + b"\x80"
    while len(data) % 32:
        data += b"\x00"
    return data


def ind_commitment(game: str, owner: str, slot: str, salt: bytes, value: str) -> bytes:  # §7.3
    parts = [b"pbem-commit-v1", game.encode("utf-8"), owner.encode("utf-8"), slot.encode("utf-8"), salt, ind_pad(value)]
    return hashlib.sha256(b"".join(lp(p) for p in parts)).digest()


def ind_salt(secret: bytes, slot: str) -> bytes:
    return hmac256(secret, b"pbem-salt-v1\x00" + slot.encode("utf-8"))


def ind_seal_key(secret: bytes) -> bytes:
    return hmac256(secret, b"pbem-seal-key-v1")


def ind_canonical(value) -> bytes:  # §3.1
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def ind_fingerprint(key_line: str) -> tuple[str, bytes]:  # §4.1: (fingerprint, 32-byte key)
    parts = key_line.split(None, 2)
    need(len(parts) >= 2 and parts[0] == "ssh-ed25519", "§4.1: not an ssh-ed25519 key line")
    blob = _b64(parts[1], "key")
    need(blob[:15] == lp(b"ssh-ed25519") and blob[15:19] == (32).to_bytes(4, "big") and len(blob) == 51,
         "§4.1: not an Ed25519 public key blob")
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
    return "SHA256:" + digest, blob[19:]


def ind_key_line(line: str) -> None:  # §3.3, the key line: one line, a comment of printable text
    match = re.fullmatch(r"ssh-ed25519 ([A-Za-z0-9+/]+=*)(?: (.*))?", line, re.DOTALL)
    need(match, "§3.3: the key line is not 'ssh-ed25519 BASE64 COMMENT' with single spaces")
    b64, comment = match.group(1), match.group(2) or ""
    need(base64.b64encode(base64.b64decode(b64)).decode() == b64, "§3.3: the key's base64 is not standard padded")
    need(match.group(2) is None or comment, "§3.3: the key line ends with a space")
    need(len(comment) <= 100, "§3.3: the key's comment is over 100 characters")
    need(all(c == " " or unicodedata.category(c)[0] not in "CZ" for c in comment),
         "§3.3: the key's comment holds a character that is not printable")
    need(comment == comment.strip(" "), "§3.3: the key's comment starts or ends with a space")


def ind_game_secret(key_seed: bytes, game: str, side: str, joined: bytes = b"") -> tuple[bytes, bytes]:  # §7.1
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    if joined:  # the joiner: SHA256(message 0's body) || fresh
        context = b"pbem-game-secret-v2\x00" + game.encode("utf-8") + b"\x00" + side.encode("utf-8") + b"\x00" + joined
    else:
        context = b"pbem-game-secret-v1\x00" + game.encode("utf-8") + b"\x00" + side.encode("utf-8")
    signed = b"pbem-secret-v1\x00" + context
    sig = Ed25519PrivateKey.from_private_bytes(key_seed).sign(signed)
    return hashlib.sha256(b"pbem-derived-secret-v1" + sig).digest(), signed


def ind_seal(secret: bytes, game: str, owner: str, seq: int, values: dict) -> tuple[bytes, bytes, bytes, bytes]:
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    plain = ind_canonical(values)
    plain += b" " * ((4096 - len(plain) % 4096) % 4096)
    nonce = b"\x00" * 4 + seq.to_bytes(8, "big")
    aad = game.encode("utf-8") + b"\x00" + seq.to_bytes(8, "big") + owner.encode("utf-8")
    return ChaCha20Poly1305(ind_seal_key(secret)).encrypt(nonce, plain, aad), plain, nonce, aad


# --- refusals -----------------------------------------------------------------


class Refused(Exception):
    """The independent verifier refuses; the text cites docs/protocol.md."""


class Equivocation(Refused):
    """§8: two different bodies for one seq, one author, one prev, both signed."""


def need(ok: object, why: str) -> None:
    if not ok:
        raise Refused(why)


# --- §12: the limits -----------------------------------------------------------

MAX_BODY = 1_048_576  # 1
MAX_BODY_B64, MAX_SIG_B64 = 1_398_168, 4_096  # 2
MAX_ORDERS, MAX_COMMITMENTS, MAX_GAME_COMMITMENTS, MAX_REVEALS = 500, 256, 2_048, 256  # 3-6
MAX_SEALED_BYTES, MAX_SEALED_CHARS = 524_288, 699_052  # 7
MAX_STRING, MAX_DEPTH = 16_384, 16  # 8, 9
MAX_INT, MAX_INT_DIGITS = 2**53 - 1, 16  # 10
MAX_MESSAGES = 8192  # 11
MAX_INPUT = 32 * 2**20  # 13
CHAIN_N = 4096  # §4.3

HEX64 = re.compile(r"[0-9a-f]{64}")
HEX32 = re.compile(r"[0-9a-f]{32}")
SLOT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")  # §7.2
SIDE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")  # §3.3
FILE_NAME = re.compile(r"([0-9]{4})-([A-Za-z][A-Za-z0-9_-]*)\.pbem")  # §2.1
B64 = re.compile(r"[A-Za-z0-9+/=]*")

# §3.2: the eleven fields of every message, and their JSON types
EVERY = {"pbem": int, "game": str, "seq": int, "side": str, "author": str, "prev": str, "chain": str,
         "orders": list, "commitments": dict, "reveals": list, "sealed": str}
SETUP = {"module": str, "module_version": str, "ruleset": str, "options": dict, "keys": dict}  # §3.3

# §3.4: the shipped games' sides, and where their ruleset files come from
SHIPPED_SIDES = {"dice": {"first", "second"}, "ambon": {"japanese", "allied"},
                 "calumpit": {"american", "japanese"}, "asl": {"allied", "axis"}}
GAMES_DIR = Path(__file__).parents[1] / "pbem" / "games"


def is_a(value, kind) -> bool:
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def ind_read(path: Path) -> str:
    """§12 limit 13: a file read for turn files, refused unread over 32 MiB."""
    size = path.stat().st_size
    need(size <= MAX_INPUT, f"§12 limit 13: {path.name} is {size} bytes, over 32 MiB")
    return path.read_bytes().decode("utf-8", errors="replace")


def _b64(text: str, what: str) -> bytes:  # §2.2 step 6
    need(B64.fullmatch(text), f"§2.2: the {what} is not base64")
    try:
        return base64.b64decode(text, validate=True)
    except ValueError as err:
        raise Refused(f"§2.2: the {what} is not strict base64 ({err})") from None


# --- armour and signatures (§2.2, §4.2) ---------------------------------------

_QUOTE = re.compile(r"^(?:[ \t]*>[ \t]?)+")
BEGIN, END = "-----BEGIN PBEM MESSAGE-----", "-----END PBEM MESSAGE-----"
SIG_BEGIN, SIG_END = "-----BEGIN SSH SIGNATURE-----", "-----END SSH SIGNATURE-----"


def ind_dearmour(text: str) -> list[tuple[bytes, bytes]]:
    lines = [_QUOTE.sub("", ln).strip() for ln in re.split(r"\r\n|\r|\n", text)]
    out, i = [], 0
    while i < len(lines):
        if lines[i] != BEGIN:
            i += 1
            continue
        body, sig, state, counted = [], [], "body", {"body": 0, "sig": 0}
        i += 1
        while True:
            need(i < len(lines), "§2.2: no END line (truncated)")
            line = lines[i]
            if line == END:
                break
            need(line != BEGIN, "§2.2: a BEGIN line before the END line (truncated)")
            if state == "body" and line == SIG_BEGIN:
                state = "sig"
            elif state == "sig" and line == SIG_END:
                state = "after"
            elif state == "after":
                need(not line, "§2.2: text after the signature")
            else:
                (body if state == "body" else sig).append(line)
                counted[state] += len(line)
                need(counted["body"] <= MAX_BODY_B64, "§12 limit 2: the body's base64 is over 1,398,168 characters")
                need(counted["sig"] <= MAX_SIG_B64, "§12 limit 2: the signature block is over 4,096 characters")
            i += 1
        need(state == "after", "§2.2: the SSH SIGNATURE block is missing or unterminated")
        body_bytes = _b64("".join(body), "body")
        need(body_bytes, "§2.2: the body is empty")
        out.append((body_bytes, _b64("".join(sig), "signature")))
        i += 1
    return out


def ind_armour(body: bytes, blob: bytes, summary: tuple[str, ...] = ()) -> str:  # §2.1
    b64, s64 = base64.b64encode(body).decode(), base64.b64encode(blob).decode()
    lines = ["pbem turn file -- the summary below is NOT signed; only the block counts."]
    lines += [f"| {line}" for line in summary] + [BEGIN]
    lines += [b64[i : i + 64] for i in range(0, len(b64), 64)] + [SIG_BEGIN]
    lines += [s64[i : i + 70] for i in range(0, len(s64), 70)] + [SIG_END, END]
    return "\n".join(lines) + "\n"


class Wire:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def fixed(self, n: int) -> bytes:
        need(self.pos + n <= len(self.data), "§4.2: a length out of range in the SSHSIG blob")
        self.pos += n
        return self.data[self.pos - n : self.pos]

    def string(self) -> bytes:
        return self.fixed(int.from_bytes(self.fixed(4), "big"))

    def done(self) -> None:
        need(self.pos == len(self.data), "§4.2: bytes trail in the SSHSIG blob")


def ind_sshsig_parse(blob: bytes) -> tuple[bytes, bytes, bytes]:
    """§4.2: ``(key, hash name, raw signature)`` of an SSHSIG blob, parsed strictly."""
    r = Wire(blob)
    need(r.fixed(6) == b"SSHSIG" and int.from_bytes(r.fixed(4), "big") == 1, "§4.2: not SSHSIG version 1")
    pub, namespace, reserved, hash_alg, sigfield = r.string(), r.string(), r.string(), r.string(), r.string()
    r.done()
    need(namespace == b"pbem-turn-v1" and reserved == b"" and hash_alg in (b"sha512", b"sha256"),
         "§4.2: wrong namespace, reserved field or hash")
    pk = Wire(pub)
    need(pk.string() == b"ssh-ed25519", "§4.2: not an ssh-ed25519 key")
    key = pk.string()
    pk.done()
    need(len(key) == 32, "§4.2: the key is not 32 bytes")
    sg = Wire(sigfield)
    need(sg.string() == b"ssh-ed25519", "§4.2: not an ssh-ed25519 signature")
    raw = sg.string()
    sg.done()
    need(len(raw) == 64, "§4.2: the signature is not 64 bytes")
    return key, hash_alg, raw


def ind_sshsig_verify(blob: bytes, body: bytes, expected_key: bytes) -> None:
    """§4.2; raises Refused for a malformed blob or another key, InvalidSignature for a bad signature."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key, hash_alg, raw = ind_sshsig_parse(blob)
    need(key == expected_key, "§4.2: signed by another key")
    digest = (hashlib.sha512 if hash_alg == b"sha512" else hashlib.sha256)(body).digest()
    signed = b"SSHSIG" + lp(b"pbem-turn-v1") + lp(b"") + lp(hash_alg) + lp(digest)
    Ed25519PublicKey.from_public_bytes(key).verify(raw, signed)


def ind_sign(key_seed: bytes, body: bytes) -> bytes:
    """An SSHSIG blob over ``body`` (§4.2), as ssh-keygen -Y sign writes it."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    private = Ed25519PrivateKey.from_private_bytes(key_seed)
    pk = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    digest = hashlib.sha512(body).digest()
    sig = private.sign(b"SSHSIG" + lp(b"pbem-turn-v1") + lp(b"") + lp(b"sha512") + lp(digest))
    return (b"SSHSIG" + (1).to_bytes(4, "big") + lp(lp(b"ssh-ed25519") + lp(pk)) + lp(b"pbem-turn-v1") + lp(b"")
            + lp(b"sha512") + lp(lp(b"ssh-ed25519") + lp(sig)))


# --- the body (§3.1, §3.2, §12) ------------------------------------------------

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def ind_depth(text: str) -> int:
    """§12 (2): how deep the arrays and objects of ``text`` nest (the body object is 1)."""
    depth = deepest = 0
    for ch in re.findall(r"[\[\]{}]", _STRING.sub("", text)):
        depth += 1 if ch in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _integer(literal: str) -> int:
    need(len(literal.lstrip("-")) <= MAX_INT_DIGITS, f"§12 limit 10: an integer literal of {len(literal)} digits")
    return int(literal)


def _not_an_integer(literal: str):
    raise Refused(f"§3.1: {literal[:20]} is not an integer")


def _unique(pairs):
    keys = [k for k, _ in pairs]
    need(len(set(keys)) == len(keys), "§3.1: a key appears twice")
    return dict(pairs)


def _bounded(value, where: str, depth: int) -> None:
    """§3.1 and §12 limits 8-10 on a parsed value."""
    if isinstance(value, str):
        need(where == "$.sealed" or len(value) <= MAX_STRING,
             f"§12 limit 8: a string of {len(value)} characters at {where}")
        need(not any(0xD800 <= ord(c) <= 0xDFFF for c in value), f"§3.1: a lone surrogate at {where}")
    elif is_a(value, int):
        need(-MAX_INT <= value <= MAX_INT, f"§3.1: the integer at {where} is out of range")
    elif isinstance(value, (list, dict)):
        need(depth <= MAX_DEPTH, f"§12 limit 9: nested {depth} deep at {where}")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(key, str):
                need(len(key) <= MAX_STRING, f"§12 limit 8: a key of {len(key)} characters at {where}")
            _bounded(item, f"{where}.{key}" if isinstance(key, str) else f"{where}[{key}]", depth + 1)


def ind_parse(data: bytes) -> dict:
    """§3.1 strictly, and §12 limits 1 and 8-10: the body object."""
    need(len(data) <= MAX_BODY, f"§12 limit 1: a body of {len(data)} bytes")
    need(data.isascii(), "§3.1: the body is not ASCII")
    text = data.decode("ascii")
    need(ind_depth(text) <= MAX_DEPTH, f"§12 limit 9: nested {ind_depth(text)} deep")
    try:
        value = json.loads(text, parse_int=_integer, parse_float=_not_an_integer, parse_constant=_not_an_integer,
                           object_pairs_hook=_unique)
    except ValueError as err:
        raise Refused(f"§3.1: not JSON ({err})") from None
    need(isinstance(value, dict), "§3.1: the body is not an object")
    _bounded(value, "$", 1)
    need(ind_canonical(value) == data, "§3.1: not in canonical form")
    return value


def ind_limits(body: dict, m: int, committed_before: int = 0) -> None:
    """§12 limits 3-7 and 11, right after the parse, before anything of ``body`` is used."""
    counted = (("orders", MAX_ORDERS, 3), ("commitments", MAX_COMMITMENTS, 4), ("reveals", MAX_REVEALS, 6))
    for name, limit, no in counted:
        value = body.get(name)
        if isinstance(value, (list, dict)):
            need(len(value) <= limit, f"§12 limit {no}: {len(value)} {name} in one message")
    commitments = body.get("commitments")
    if isinstance(commitments, dict):
        need(committed_before + len(commitments) <= MAX_GAME_COMMITMENTS,
             f"§12 limit 5: {committed_before + len(commitments)} commitments of one side in a game")
    sealed = body.get("sealed")
    if isinstance(sealed, str):
        need(len(sealed) <= MAX_SEALED_CHARS, f"§12 limit 7: a sealed store of {len(sealed)} base64 characters")
    need(m < MAX_MESSAGES, f"§12 limit 11: message {m} of a game")
    need(m // 2 < CHAIN_N, f"§4.3: message {m} needs chain value {m // 2}; the chain is exhausted")


def ind_fields(body: dict, m: int) -> None:
    """§3.2 and §5 step 1: exactly the fields, each of its type."""
    for name, kind in EVERY.items():
        need(name in body, f"§3.2: field {name!r} is missing")
        need(is_a(body[name], kind), f"§3.2: field {name!r} is not a {kind.__name__}")
    allowed = set(EVERY) | {"secret"} | ({"setup"} if m == 0 else set()) | ({"fresh"} if m == 1 else set())
    need(set(body) <= allowed, f"§3.2: field(s) {sorted(set(body) - allowed)} not allowed in message {m}")
    need(m > 0 or "setup" in body, "§3.2: message 0 without setup")
    need(body["pbem"] == 1, "§3.2: format version is not 1")
    need(HEX64.fullmatch(body["chain"]), "§3.2: chain is not 64 lowercase hex digits")
    need("fresh" not in body or (isinstance(body["fresh"], str) and HEX32.fullmatch(body["fresh"])),
         "§3.2: fresh is not 32 lowercase hex digits")
    need("secret" not in body or (isinstance(body["secret"], str) and HEX64.fullmatch(body["secret"])),
         "§3.2: secret is not 64 lowercase hex digits")
    need(all(isinstance(order, dict) for order in body["orders"]), "§3.2: an order is not an object")
    need(m > 0 or not body["orders"] and not body["reveals"], "§5 step 1: message 0 carries orders or reveals")


# --- §5: a game's messages, one by one ----------------------------------------


class IndGame:
    """§5 steps 1-9, §12 and §7.6 over the messages of one game, in order."""

    def __init__(self):
        self.bodies: list[dict] = []
        self.raw: list[bytes] = []
        self.keys: dict[str, tuple[str, bytes]] = {}  # side -> (fingerprint, key)
        self.proposer = ""
        self.anchors: dict[str, bytes] = {}
        self.last_chain: dict[str, bytes] = {}
        self.commitments: dict[tuple[str, str], bytes] = {}
        self.revealed: set[tuple[str, str]] = set()
        self.secrets: dict[str, bytes] = {}

    def add(self, body_bytes: bytes, sig: bytes) -> dict:
        m = len(self.bodies)
        if m > 0:  # order of work: the signature first, by one of the two keys
            need(ind_sshsig_parse(sig)[0] in {key for _, key in self.keys.values()}, "§5: not signed by a player")
            need(len(self.secrets) < 2, "§5: the game is closed; nothing may follow")
        body = ind_parse(body_bytes)
        side = body.get("side")
        ind_limits(body, m, sum(1 for owner, _ in self.commitments if owner == side))  # limits first
        ind_fields(body, m)  # step 1
        if m == 0:
            self._setup(body)
        else:
            need(body["game"] == self.bodies[0]["game"], "§5 step 2: spliced from another game")
            need(body["seq"] == m, f"§5 step 3: seq {body['seq']} where {m} is expected")
        need(body["prev"] == (hashlib.sha256(self.raw[-1]).hexdigest() if m else ""), "§5 step 4: prev")
        need(side in self.keys and (m == 0 or (side == self.proposer) == (m % 2 == 0)), "§5 step 5: alternation")
        fingerprint, key = self.keys[side]  # step 6
        need(body["author"] == fingerprint, "§5 step 6: author")
        try:
            ind_sshsig_verify(sig, body_bytes, key)
        except InvalidSignature:
            raise Refused("§5 step 6: the signature does not verify") from None
        value = h(body["chain"])  # step 7
        if m in (0, 1):
            self.anchors[side] = value
        else:
            need(hashlib.sha256(CHAIN_LABEL + value).digest() == self.last_chain[side], "§5 step 7: chain link")
        if self.secrets:  # §7.6: after the first secret, reveals only
            need(body["orders"] == [] and body["commitments"] == {}, "§7.6: a closing message carries reveals only")
        self._hidden(body, side)  # step 8
        if "secret" in body:  # step 9
            need(ind_chain(ind_chain_seed(h(body["secret"])), CHAIN_N)[0] == self.anchors[side], "§5 step 9: secret")
            self.secrets[side] = h(body["secret"])
        self.last_chain[side] = value
        self.bodies.append(body)
        self.raw.append(body_bytes)
        return body

    def _setup(self, body: dict) -> None:
        setup = body["setup"]
        need(HEX32.fullmatch(body["game"]) and body["seq"] == 0 and body["prev"] == "", "§5 step 1: message 0")
        need(is_a(setup, dict), "§3.3: setup is not an object")
        for name, kind in SETUP.items():
            need(is_a(setup.get(name), kind), f"§3.3: setup field {name!r} missing or mistyped")
        need(len(setup["keys"]) == 2, "§3.3: not two keys")
        for side, line in setup["keys"].items():
            need(SIDE.fullmatch(side) and isinstance(line, str), f"§3.3: side {side[:40]!r}")
            ind_key_line(line)
            self.keys[side] = ind_fingerprint(line)
        need(len({fp for fp, _ in self.keys.values()}) == 2, "§3.3: both sides name one key")
        sides = SHIPPED_SIDES.get(setup["module"])
        if setup["module"] == "dice" and isinstance(setup["options"].get("sides"), list):
            sides = set(setup["options"]["sides"])  # §3.4, §6.5: the sides message 0 names
        if sides is not None:
            need(set(self.keys) == sides, "§3.4: not the game's sides")
        self.proposer = body["side"]

    def _hidden(self, body: dict, side: str) -> None:
        for slot, hexvalue in body["commitments"].items():
            need(SLOT.fullmatch(slot), f"§7.2: slot name {slot[:70]!r}")
            need((side, slot) not in self.commitments, f"§5 step 8: slot {slot!r} committed twice")
            need(isinstance(hexvalue, str) and HEX64.fullmatch(hexvalue), "§7.3: commitment not 64 lowercase hex")
        for slot, hexvalue in body["commitments"].items():
            self.commitments[(side, slot)] = h(hexvalue)
        for item in body["reveals"]:
            need(isinstance(item, dict) and set(item) == {"slot", "value", "salt"}, "§7.5: a reveal's keys")
            need(all(isinstance(item[k], str) for k in item), "§7.5: a reveal's fields are strings")
            key = (side, item["slot"])
            need(key in self.commitments and key not in self.revealed, f"§5 step 8: reveal of {item['slot']!r}")
            need(HEX64.fullmatch(item["salt"]), "§7.5: the salt is not 64 lowercase hex digits")
            opened = ind_commitment(body["game"], body["author"], item["slot"], h(item["salt"]), item["value"])
            need(opened == self.commitments[key], f"§5 step 8: the reveal of {item['slot']!r} does not open")
            self.revealed.add(key)
        if body["sealed"]:
            need(len(_b64(body["sealed"], "sealed store")) <= MAX_SEALED_BYTES,
                 "§12 limit 7: the sealed store is over 524,288 bytes")


def ind_verify(files: list[str]) -> list[dict]:
    """§5 over a list of armoured messages, in order; returns the bodies."""
    game = IndGame()
    for text in files:
        blocks = ind_dearmour(text)
        need(len(blocks) == 1, f"§2.1: {len(blocks)} blocks where one message is expected")
        game.add(*blocks[0])
    return game.bodies


def ind_verify_dir(directory: Path) -> IndGame:
    """§2.1 and §8: a game directory's message files."""
    found: dict[int, list[tuple[str, bytes, bytes]]] = {}
    for path in sorted(directory.iterdir()):
        named = FILE_NAME.fullmatch(path.name)
        if not named or not path.is_file():
            continue  # not a message file: ignored
        blocks = ind_dearmour(ind_read(path))
        need(len(blocks) == 1, f"§2.1: {path.name} holds {len(blocks)} blocks")
        found.setdefault(int(named.group(1)), []).append((path.name, *blocks[0]))
    game = IndGame()
    for seq in sorted(found):
        files = found[seq]
        if len(files) > 1:  # §8 first: the names cannot both be true
            ind_equivocation(game, [(body, sig) for _, body, sig in files])
            raise Refused(f"§2.1: two files for message {seq:04d}")
        name, body_bytes, sig = files[0]
        body = game.add(body_bytes, sig)
        need(FILE_NAME.fullmatch(name).groups() == (f"{body['seq']:04d}", body["side"]),
             f"§2.1: {name} holds message {body['seq']:04d} by {body['side']} (renamed or swapped)")
    return game


def ind_equivocation(game: IndGame, versions: list[tuple[bytes, bytes]]) -> None:
    """§8: raise Equivocation if two of ``versions`` prove it (message 0 already in ``game``)."""
    if not game.keys:
        return  # without message 0 nobody can say whose key signed
    for i, (a, sig_a) in enumerate(versions):
        for b, sig_b in versions[i + 1 :]:
            try:
                x, y = ind_parse(a), ind_parse(b)
            except Refused:
                continue
            same = all(x.get(k) == y.get(k) for k in ("game", "seq", "side", "author", "prev"))
            if a == b or not same or x.get("side") not in game.keys:
                continue
            key = game.keys[x["side"]][1]
            try:
                ind_sshsig_verify(sig_a, a, key)
                ind_sshsig_verify(sig_b, b, key)
            except (Refused, InvalidSignature):
                continue
            raise Equivocation(f"§8: two messages {x['seq']:04d} signed by {x['side']}: proof of equivocation")


# --- §3.4: ruleset files ------------------------------------------------------


def ind_ruleset(files: list[tuple[str, bytes]]) -> str:  # §3.3
    out = hashlib.sha256()
    names = [name for name, _ in files]
    need(len(set(names)) == len(names), "§3.3: a ruleset file named twice")
    for name, data in sorted(files):
        raw = name.encode("utf-8")
        out.update(len(raw).to_bytes(4, "big") + raw + len(data).to_bytes(8, "big") + data)
    return out.hexdigest()


def ind_ruleset_files(module: str, module_version: str) -> list[tuple[str, bytes]]:
    """§3.4: a shipped game's ruleset files, from its data directory."""
    data = GAMES_DIR / module / "data"
    if module == "dice":
        return [("dice/version", module_version.encode("utf-8"))]
    if module == "asl":
        return [("asl/version", module_version.encode("utf-8"))] + [
            (f"asl/{name}", (data / name).read_bytes()) for name in ("nationalities.toml", "notes.toml", "rules.toml")]
    found = []
    for path in sorted(data.rglob("*.toml")):
        rel = path.relative_to(data)
        if module == "ambon" and rel.as_posix() == "rulings.toml":
            continue  # not data: message 0 pins the readings (options.rulings)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            found.append((rel.as_posix(), path.read_bytes()))
    return found


# --- §6.5: the dice game -------------------------------------------------------

_WS = r"[ \t\r\n\x0b\x0c]*"
# rules 1: dice = [digits] "d" digits; rules 2: dice = [digits] "d" (digits ["k" ("h" / "l") digits] / "%")
_ATOMS = {"1": r"(?:[0-9]*[dD][0-9]+|[0-9]+)", "2": r"(?:[0-9]*[dD](?:%|[0-9]+(?:[kK][hHlL][0-9]+)?)|[0-9]+)"}
DICE_EXPRESSIONS_BY_RULES = {rules: re.compile(rf"{_WS}[+-]?{_WS}{atom}(?:{_WS}[+-]{_WS}{atom})*{_WS}")
                             for rules, atom in _ATOMS.items()}
DICE_TERM = re.compile(rf"([+-]?){_WS}(?:([0-9]*)[dD](?:(%)|([0-9]+)(?:[kK]([hHlL])([0-9]+))?)|([0-9]+))")


@dataclass
class IndTerm:
    """§6.5: one term -- its sign, count N, faces, kind and keep suffix."""

    sign: int
    count: int
    faces: int
    kind: str = "plain"  # "plain", "d66", "percentile"
    keep: tuple[str, int] | None = None

    def drawn(self) -> tuple[int, int]:
        """(how many dice, of how many faces) the term draws: the table's 'dice drawn'."""
        return {"plain": (self.count, self.faces), "d66": (2 * self.count, 6),
                "percentile": (2 * self.count, 10)}[self.kind]

    def results(self, v: list[int]) -> list[int]:
        if self.kind == "plain":
            return list(v)
        if self.kind == "d66":
            return [10 * v[2 * i] + v[2 * i + 1] for i in range(self.count)]
        return [10 * (v[2 * i] % 10) + v[2 * i + 1] % 10 or 100 for i in range(self.count)]

    def kept(self, v: list[int]) -> list[bool]:
        r = self.results(v)
        if self.keep is None:
            return [True] * len(r)
        how, k = self.keep
        by = sorted(range(len(r)), key=lambda i: (-r[i], i) if how == "h" else (r[i], i))[:k]
        return [i in by for i in range(len(r))]

    def value(self, v: list[int]) -> int:
        return sum(r for r, keep in zip(self.results(v), self.kept(v), strict=True) if keep)


def ind_dice_expression(text: str, rules: str = "1") -> tuple[list[IndTerm], int]:
    """§6.5: ``([term, ...], modifier)`` of a dice expression under dice rules ``rules``."""
    need(rules in _ATOMS, f"§6.5: dice rules {rules!r} are neither 1 nor 2")
    need(isinstance(text, str) and 1 <= len(text) <= 100 and text.strip(" \t\r\n\x0b\x0c"),
         "§6.5: an expression has 1 to 100 characters, not only white space")
    need(DICE_EXPRESSIONS_BY_RULES[rules].fullmatch(text), f"§6.5: {text!r} is not a dice expression")
    terms, modifier = [], 0
    for sign, count, percent, faces, keep_how, keep, constant in DICE_TERM.findall(text):
        sign = -1 if sign == "-" else 1
        if constant:
            need(int(constant) <= 1_000_000, f"§6.5: the constant {constant} is out of range")
            modifier += sign * int(constant)
            continue
        n, f = int(count or "1"), 100 if percent else int(faces)
        need(1 <= n <= 100 and 2 <= f <= 1000, f"§6.5: {n}d{f} is out of range")
        kind = "plain" if rules == "1" else {66: "d66", 100: "percentile"}.get(f, "plain")
        term = IndTerm(sign, n, f, kind)
        if keep_how:
            need(kind == "plain", "§6.5: only a plain term keeps the highest or lowest")
            need(1 <= int(keep) <= n, f"§6.5: keeps {keep} of {n}")
            term.keep = (keep_how.lower(), int(keep))
        terms.append(term)
    need(terms, f"§6.5: {text!r} rolls no dice")
    need(sum(t.drawn()[0] for t in terms) <= 100, f"§6.5: {text!r} draws more than 100 dice")
    return terms, modifier


def ind_dice_game(game: IndGame) -> list[dict]:
    """§6.5: a verified dice game replayed; every roll whose key is complete."""
    bodies, rolls, ending, over = game.bodies, [], None, False
    setup = bodies[0]["setup"]
    rules = setup["module_version"]
    need(rules in ("1", "2"), f"§6.5: dice rules {rules!r}")
    sides = setup["options"].get("sides", ["first", "second"])
    need(isinstance(sides, list) and len(sides) == 2 and all(isinstance(s, str) and SIDE.fullmatch(s) for s in sides)
         and sides[0].lower() != sides[1].lower(), "§6.5: options.sides")
    need(set(game.keys) == set(sides), "§6.5: setup.keys are not the sides")
    need(not setup["options"].get("rules"), "§6.5: the dice game has no optional rules")
    for m, body in enumerate(bodies):
        need(not over, "§6.5: the game is over")
        side = body["side"]
        if ending is not None:  # the closing message: reveals only (also §7.6)
            need(not body["orders"] and not body["commitments"], "§6.5 dice.end: the closing message")
        for index, order in enumerate(body["orders"]):
            need(ending is None, "§6.5 dice.end: no order may follow 'end'")
            if order == {"type": "end"}:
                ending = side
                continue
            if order.get("type") == "standing":  # the author's instruction to its machine: no effect on the game
                need(set(order) == {"type", "key-rolls"} and order["key-rolls"] in ("auto", "off"),
                     f"§6.5 dice.standing: {order!r}")
                continue
            need(set(order) == {"type", "dice", "note"} and order["type"] == "roll", f"§6.5 dice.orders: {order!r}")
            need(isinstance(order["dice"], str) and isinstance(order["note"], str), "§6.5 dice.roll: mistyped")
            terms, modifier = ind_dice_expression(order["dice"], rules)
            if m + 1 < len(bodies):  # keyed by D_m, complete once m+1 is here
                digest = hashlib.sha256(game.raw[m]).digest()
                key = ind_dice_key(body["game"], m, digest, h(body["chain"]), h(bodies[m + 1]["chain"]))
                values = [IndStream(key, f"{m}.{index}/{t}").dice(*term.drawn()) for t, term in enumerate(terms)]
                total = sum(term.sign * term.value(v) for term, v in zip(terms, values, strict=True)) + modifier
                rolls.append({"label": f"{m}.{index}", "key_seq": m, "values": values, "total": total,
                              "results": [term.results(v) for term, v in zip(terms, values, strict=True)]})
        if "secret" in body:
            need(ending is not None, "§7.6: a secret while the game goes on")
        if ending is not None and ending != side:
            over = True
    return rolls


# =============================================================================
# (a) pbem reproduces every vector
# =============================================================================


@pytest.mark.parametrize("case", DICE["dice_keys"], ids=_ids(DICE["dice_keys"], "game", "seq"))
def test_pbem_dice_key(case):
    from pbem.protocol.dice import dice_key

    key = dice_key(case["game"], case["seq"], h(case["body_sha256"]), h(case["author_value"]), h(case["recipient_value"]))
    assert key.hex() == case["D"]


@pytest.mark.parametrize("case", DICE["substreams"], ids=_ids(DICE["substreams"], "label"))
def test_pbem_substream(case):
    from pbem.protocol.dice import DiceStream

    stream = DiceStream(h(case["key"]), case["label"])
    assert [f"{stream._u64():016x}" for _ in case["first_u64"]] == case["first_u64"]


@pytest.mark.parametrize("case", DICE["rolls"], ids=_ids(DICE["rolls"], "label", "count", "sides"))
def test_pbem_rolls(case):
    from pbem.protocol.dice import roll

    assert list(roll(h(case["key"]), case["label"], case["count"], case["sides"])) == case["values"]


@pytest.mark.parametrize("case", DICE["below"], ids=_ids(DICE["below"], "n"))
def test_pbem_below(case):
    from pbem.protocol.dice import DiceStream

    stream = DiceStream(h(case["key"]), case["label"])
    n = int(case["n"])
    assert [str(stream.below(n)) for _ in case["values"]] == case["values"]


def test_below_vectors_exercise_rejection():
    assert any(case["words_consumed"] > len(case["values"]) for case in DICE["below"])


@pytest.mark.parametrize("case", DICE["shuffles"], ids=_ids(DICE["shuffles"], "label"))
def test_pbem_shuffle(case):
    from pbem.protocol.dice import DiceStream

    items = list(case["items"])
    DiceStream(h(case["key"]), case["label"]).shuffle(items)
    assert items == case["shuffled"]


@pytest.mark.parametrize("case", DICE["draws"], ids=_ids(DICE["draws"], "label"))
def test_pbem_lazy_draw(case):
    from pbem.protocol.dice import DiceStream

    stream, deck, drawn = DiceStream(h(case["key"]), case["label"]), list(case["deck"]), []
    for left, index in zip(case["cards_left"], case["indices"], strict=False):
        assert len(deck) == left
        assert stream.draw(left) == index
        drawn.append(deck.pop(index))
    assert drawn == case["drawn"]


@pytest.mark.parametrize("case", DICE["chains"], ids=_ids(DICE["chains"], "seed"))
def test_pbem_chain(case):
    from pbem.protocol.chain import HashChain

    chain = HashChain(h(case["seed"]), length=case["length"])
    assert [chain.value(i).hex() for i in range(case["length"])] == case["values"][:-1]
    assert HashChain(h(case["seed"])).anchor.hex() == case["anchor_4096"]


def test_pbem_chain_seed():
    from pbem.protocol.chain import HashChain, chain_seed

    case = DICE["chain_seed"]
    assert chain_seed(h(case["game_secret"])).hex() == case["seed"]
    assert HashChain(h(case["seed"])).anchor.hex() == case["anchor_4096"]


@pytest.mark.parametrize("case", COMMIT["commitments"], ids=_ids(COMMIT["commitments"], "slot", "value"))
def test_pbem_commitment(case):
    from pbem.protocol import sealed

    assert sealed.pad(case["value"]).hex() == case["padded"]
    got = sealed.commitment(case["game"], case["owner"], case["slot"], h(case["salt"]), case["value"])
    assert got.hex() == case["commitment"]
    sealed.check_opening(case["game"], case["owner"], case["slot"], case["value"], h(case["salt"]), got)


def test_pbem_salts_and_seal_key():
    from pbem.protocol import sealed

    for case in COMMIT["salts"]:
        assert sealed.salt_for(h(case["game_secret"]), case["slot"]).hex() == case["salt"]
    case = COMMIT["seal_key"]
    assert sealed.seal_key(h(case["game_secret"])).hex() == case["seal_key"]


@pytest.mark.parametrize("case", COMMIT["stores"], ids=_ids(COMMIT["stores"], "seq"))
def test_pbem_sealed_store(case):
    from pbem.protocol import sealed

    secret = h(case["game_secret"])
    blob = sealed.seal_store(secret, case["game"], case["owner"], case["seq"], case["values"])
    assert blob.hex() == case["sealed"]
    assert sealed.open_store(secret, case["game"], case["owner"], case["seq"], blob) == case["values"]


@pytest.mark.parametrize("case", COMMIT["game_secrets"], ids=_ids(COMMIT["game_secrets"], "game", "side"))
def test_pbem_game_secret(case):
    from pbem.match.session import game_secret
    from pbem.protocol.keys import Identity

    identity = Identity.from_seed(h(case["key_seed"]))
    assert identity.public.fingerprint == case["fingerprint"]
    assert identity.sign_raw(h(case["signed_message"])).hex() == case["signature"]
    joined = h(case["joined"]) if case.get("joined") else None
    assert game_secret(identity, case["game"], case["side"], joined).hex() == case["game_secret"]


def test_pbem_worked_example():
    from pbem.games.dice import GAME
    from pbem.match.replay import replay
    from pbem.match.session import game_secret
    from pbem.protocol.chain import HashChain, chain_seed
    from pbem.protocol.dice import dice_key, roll
    from pbem.protocol.keys import Identity
    from pbem.protocol.message import SignedMessage
    from pbem.protocol.transcript import Transcript

    transcript = Transcript()
    for text, body, digest in zip(EXAMPLE["files"], EXAMPLE["bodies"], EXAMPLE["body_sha256"], strict=False):
        msg = SignedMessage.from_text(text)
        assert msg.body_bytes == body.encode("ascii") and msg.digest.hex() == digest
        transcript.add(msg)
    assert [v.hex() for v in transcript.chain_values] == EXAMPLE["chain_values"]
    for side, player in EXAMPLE["players"].items():
        identity = Identity.from_seed(h(player["key_seed"]))
        assert identity.public.fingerprint == player["fingerprint"]
        secret = game_secret(identity, EXAMPLE["game"], side)
        assert secret.hex() == EXAMPLE["game_secret"][side]
        assert HashChain(chain_seed(secret)).anchor == transcript.anchors[side]
    for seq, expected in EXAMPLE["dice_keys"].items():
        m = int(seq)
        key = dice_key(EXAMPLE["game"], m, transcript.messages[m].digest, transcript.chain_values[m], transcript.chain_values[m + 1])
        assert key.hex() == expected
    for r in EXAMPLE["rolls"]:
        key = h(EXAMPLE["dice_keys"][str(r["key_seq"])])
        assert list(roll(key, r["label"], r["count"], r["sides"])) == r["values"]
    records = {rec.label: rec for rec in replay(GAME, transcript).rolls}
    for r in EXAMPLE["rolls"]:
        assert list(records[r["label"]].values) == r["values"] and records[r["label"]].key_seq == r["key_seq"]
    c = EXAMPLE["commitment"]
    assert transcript.messages[c["seq"]].body["commitments"][c["slot"]] == c["commitment"]


# =============================================================================
# (b) the independent implementation reproduces every vector
# =============================================================================


@pytest.mark.parametrize("case", DICE["dice_keys"], ids=_ids(DICE["dice_keys"], "game", "seq"))
def test_independent_dice_key(case):
    info = case["game"].encode("ascii") + b"\x00" + case["seq"].to_bytes(8, "big") + h(case["body_sha256"])
    assert info.hex() == case["hkdf_info"]
    assert hmac256(b"pbem-dice-v1", h(case["author_value"]) + h(case["recipient_value"])).hex() == case["hkdf_prk"]
    key = ind_dice_key(case["game"], case["seq"], h(case["body_sha256"]), h(case["author_value"]), h(case["recipient_value"]))
    assert key.hex() == case["D"]


@pytest.mark.parametrize("case", DICE["substreams"], ids=_ids(DICE["substreams"], "label"))
def test_independent_substream(case):
    stream = IndStream(h(case["key"]), case["label"])
    assert stream.k.hex() == case["K_label"]
    assert [f"{stream.word():016x}" for _ in case["first_u64"]] == case["first_u64"]


@pytest.mark.parametrize("case", DICE["rolls"], ids=_ids(DICE["rolls"], "label", "count", "sides"))
def test_independent_rolls(case):
    assert IndStream(h(case["key"]), case["label"]).dice(case["count"], case["sides"]) == case["values"]


@pytest.mark.parametrize("case", DICE["below"], ids=_ids(DICE["below"], "n"))
def test_independent_below(case):
    stream, n = IndStream(h(case["key"]), case["label"]), int(case["n"])
    assert [str(stream.below(n)) for _ in case["values"]] == case["values"]
    assert stream.words == case["words_consumed"]


@pytest.mark.parametrize("case", DICE["shuffles"], ids=_ids(DICE["shuffles"], "label"))
def test_independent_shuffle(case):
    assert IndStream(h(case["key"]), case["label"]).shuffle(case["items"]) == case["shuffled"]


@pytest.mark.parametrize("case", DICE["draws"], ids=_ids(DICE["draws"], "label"))
def test_independent_lazy_draw(case):
    stream, deck, drawn, indices = IndStream(h(case["key"]), case["label"]), list(case["deck"]), [], []
    for _ in case["cards_left"]:
        index = stream.below(len(deck))
        indices.append(index)
        drawn.append(deck.pop(index))
    assert indices == case["indices"] and drawn == case["drawn"]


@pytest.mark.parametrize("case", DICE["chains"], ids=_ids(DICE["chains"], "seed"))
def test_independent_chain(case):
    assert [v.hex() for v in ind_chain(h(case["seed"]), case["length"])] == case["values"]
    assert ind_chain(h(case["seed"]), 4096)[0].hex() == case["anchor_4096"]


def test_independent_chain_seed():
    case = DICE["chain_seed"]
    seed = ind_chain_seed(h(case["game_secret"]))
    assert seed.hex() == case["seed"]
    assert ind_chain(seed, 4096)[0].hex() == case["anchor_4096"]


@pytest.mark.parametrize("case", COMMIT["commitments"], ids=_ids(COMMIT["commitments"], "slot", "value"))
def test_independent_commitment(case):
    assert ind_pad(case["value"]).hex() == case["padded"]
    got = ind_commitment(case["game"], case["owner"], case["slot"], h(case["salt"]), case["value"])
    assert got.hex() == case["commitment"]


def test_independent_salts_and_seal_key():
    for case in COMMIT["salts"]:
        assert ind_salt(h(case["game_secret"]), case["slot"]).hex() == case["salt"]
    case = COMMIT["seal_key"]
    assert ind_seal_key(h(case["game_secret"])).hex() == case["seal_key"]


@pytest.mark.parametrize("case", COMMIT["stores"], ids=_ids(COMMIT["stores"], "seq"))
def test_independent_sealed_store(case):
    blob, plain, nonce, aad = ind_seal(h(case["game_secret"]), case["game"], case["owner"], case["seq"], case["values"])
    assert (plain.hex(), nonce.hex(), aad.hex()) == (case["plaintext"], case["nonce"], case["aad"])
    assert blob.hex() == case["sealed"]
    assert base64.b64encode(blob).decode() == case["sealed_base64"]


@pytest.mark.parametrize("case", COMMIT["game_secrets"], ids=_ids(COMMIT["game_secrets"], "game", "side"))
def test_independent_game_secret(case):
    secret, signed = ind_game_secret(h(case["key_seed"]), case["game"], case["side"], h(case.get("joined", "")))
    assert signed.hex() == case["signed_message"]
    assert secret.hex() == case["game_secret"]
    assert ind_fingerprint(case["public_key"])[0] == case["fingerprint"]


def test_independent_worked_example():
    bodies = ind_verify(EXAMPLE["files"])
    assert [ind_canonical(b).decode("ascii") for b in bodies] == EXAMPLE["bodies"]
    digests = [hashlib.sha256(b.encode("ascii")).digest() for b in EXAMPLE["bodies"]]
    assert [d.hex() for d in digests] == EXAMPLE["body_sha256"]
    chain = [h(b["chain"]) for b in bodies]
    assert [c.hex() for c in chain] == EXAMPLE["chain_values"]
    for side, player in EXAMPLE["players"].items():
        secret, _ = ind_game_secret(h(player["key_seed"]), EXAMPLE["game"], side)
        assert secret.hex() == EXAMPLE["game_secret"][side]
        values = ind_chain(ind_chain_seed(secret), 4096)
        # message m of this side reveals x_{m // 2}
        own = [m for m, b in enumerate(bodies) if b["side"] == side]
        assert [chain[m] for m in own] == [values[m // 2] for m in own]
    for seq, expected in EXAMPLE["dice_keys"].items():
        m = int(seq)
        assert ind_dice_key(EXAMPLE["game"], m, digests[m], chain[m], chain[m + 1]).hex() == expected
    for r in EXAMPLE["rolls"]:
        m = r["key_seq"]
        seq, index, term = re.fullmatch(r"(\d+)\.(\d+)/(\d+)", r["label"]).groups()
        assert int(seq) == m and bodies[m]["orders"][int(index)]["type"] == "roll"
        key = ind_dice_key(EXAMPLE["game"], m, digests[m], chain[m], chain[m + 1])
        assert IndStream(key, r["label"]).dice(r["count"], r["sides"]) == r["values"]
    c = EXAMPLE["commitment"]
    assert ind_salt(h(EXAMPLE["game_secret"]["first"]), c["slot"]).hex() == c["salt"]
    author = bodies[c["seq"]]["author"]
    assert ind_commitment(EXAMPLE["game"], author, c["slot"], h(c["salt"]), c["value"]).hex() == c["commitment"]


def test_independent_verifier_rejects_a_flipped_byte():
    """The re-implementation is a verifier, not a pass-through."""
    from cryptography.exceptions import InvalidSignature

    text = EXAMPLE["files"][2]
    [(body, sig)] = ind_dearmour(text)
    tampered = body.replace(b'"dice":"2d6+1"', b'"dice":"2d6+2"')
    assert tampered != body
    key = ind_fingerprint(EXAMPLE["players"]["first"]["public_key"])[1]
    ind_sshsig_verify(sig, body, key)
    with pytest.raises(InvalidSignature):
        ind_sshsig_verify(sig, tampered, key)


def test_independent_armour_reading_is_tolerant():
    """§2.2: CRLF, quote prefixes, trailing spaces and chatter do not matter."""
    text = EXAMPLE["files"][3]
    mangled = "Hi, my move:\r\n" + "".join(f"> > {line}  \r\n" for line in text.splitlines()) + "cheers\r\n"
    assert ind_dearmour(mangled) == ind_dearmour(text)
    from pbem.protocol.message import SignedMessage

    msg = SignedMessage.from_text(mangled)
    assert [(msg.body_bytes, msg.signature)] == ind_dearmour(text)


# =============================================================================
# (c) the chain vectors link
# =============================================================================


@pytest.mark.parametrize("case", DICE["chains"], ids=_ids(DICE["chains"], "seed"))
def test_chain_vector_links(case):
    values = [h(v) for v in case["values"]]
    assert len(values) == case["length"] + 1 and values[-1] == h(case["seed"])
    for i in range(1, len(values)):
        assert hashlib.sha256(b"pbem-chain-v1" + values[i]).digest() == values[i - 1]


def test_worked_example_chains_link():
    chain = [h(v) for v in EXAMPLE["chain_values"]]
    for m in range(2, len(chain)):
        assert hashlib.sha256(b"pbem-chain-v1" + chain[m]).digest() == chain[m - 2]


# =============================================================================
# (d) hostile bodies: the independent verifier refuses each, and pbem with it
# =============================================================================
#
# Each case is a body signed with the worked example's real keys (by the
# independent signer above, never pbem's: pbem's own composing refuses what
# is over a limit), chained and linked, so that only what it attacks is wrong.

SEEDS = {side: h(player["key_seed"]) for side, player in EXAMPLE["players"].items()}
FINGERPRINTS = {side: player["fingerprint"] for side, player in EXAMPLE["players"].items()}
SECRETS = {side: h(EXAMPLE["game_secret"][side]) for side in SEEDS}
CHAINS = {side: ind_chain(ind_chain_seed(secret), CHAIN_N) for side, secret in SECRETS.items()}
ZERO = "00" * 32


class Forge:
    """The worked example's first ``keep`` messages, then forged ones, each
    signed by its side's key, with the right seq, side, author, prev and chain."""

    def __init__(self, keep: int = 2):
        self.files = list(EXAMPLE["files"][:keep])
        self.raw = [b.encode("ascii") for b in EXAMPLE["bodies"][:keep]]

    @property
    def side(self) -> str:
        return "first" if len(self.raw) % 2 == 0 else "second"

    def body(self, drop: tuple[str, ...] = (), **fields) -> dict:
        m, side = len(self.raw), self.side
        body = {"pbem": 1, "game": EXAMPLE["game"], "seq": m, "side": side, "author": FINGERPRINTS[side],
                "prev": hashlib.sha256(self.raw[-1]).hexdigest() if m else "", "chain": CHAINS[side][m // 2].hex(),
                "orders": [], "commitments": {}, "reveals": [], "sealed": ""}
        if m == 0:
            body = json.loads(EXAMPLE["bodies"][0])
        body.update(fields)
        for name in drop:
            del body[name]
        return body

    def add(self, body: dict | bytes) -> "Forge":
        data = body if isinstance(body, bytes) else ind_canonical(body)
        self.files.append(ind_armour(data, ind_sign(SEEDS[self.side], data), ("an honest-looking summary",)))
        self.raw.append(data)
        return self

    def next(self, drop: tuple[str, ...] = (), **fields) -> "Forge":
        return self.add(self.body(drop, **fields))


def ind_check(files: list[str]) -> IndGame:
    """Everything the independent verifier checks: §5, §12, §7.6 and the dice game (§6.5)."""
    game = IndGame()
    for text in files:
        blocks = ind_dearmour(text)
        need(len(blocks) == 1, "§2.1: one block a message")
        game.add(*blocks[0])
    ind_dice_game(game)
    return game


def pbem_check(files: list[str]) -> None:
    """pbem's own verification of the same files: the transcript, then the dice game's replay."""
    from pbem.games.dice import GAME
    from pbem.match.replay import replay
    from pbem.protocol.message import SignedMessage
    from pbem.protocol.transcript import Transcript

    transcript = Transcript()
    for text in files:
        transcript.add(SignedMessage.from_text(text))
    replay(GAME, transcript)


def nested(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


def roll(dice: str = "1d6", note: str = "") -> dict:
    return {"type": "roll", "dice": dice, "note": note}


def _body_of_size(size: int) -> Forge:
    """Message 2 of exactly ``size`` bytes, its notes each within limit 8."""
    forge = Forge()
    orders = [roll(note="x" * MAX_STRING) for _ in range(size // MAX_STRING + 1)]
    while (over := len(ind_canonical(forge.body(orders=orders))) - size) > MAX_STRING:
        orders.pop()
    orders[-1]["note"] = "x" * (MAX_STRING - over)
    forge.next(orders=orders)
    assert len(forge.raw[-1]) == size
    return forge


def _game_commitments() -> Forge:
    forge = Forge()
    for m in range(2, 18):  # first commits 8 x 256 = 2,048 slots in messages 2-16; second commits none
        forge.next(commitments={f"s{m}.{i}": ZERO for i in range(MAX_COMMITMENTS)} if m % 2 == 0 else {})
    return forge.next(commitments={"one-more": ZERO})


def _closing(**fields) -> Forge:
    """first ends the game in message 2; second's closing message 3 carries ``fields``."""
    forge = Forge().next(orders=[{"type": "end"}], secret=SECRETS["first"].hex())
    return forge.next(secret=SECRETS["second"].hex(), **fields)


def _reveal(salt: str) -> Forge:
    good = EXAMPLE["commitment"]["salt"]
    return Forge(keep=4).next(reveals=[{"slot": "ambush", "value": "dummy", "salt": salt or good}])


def _long_integer() -> Forge:
    forge = Forge(keep=0)
    data = ind_canonical(forge.body(setup={**json.loads(EXAMPLE["bodies"][0])["setup"], "options": {"n": 0}}))
    return forge.add(data.replace(b'"n":0', b'"n":1' + b"0" * 4999))


def _armour(body_chars: int, sig_chars: int) -> Forge:
    forge = Forge()
    body, sig = "A" * body_chars, "A" * sig_chars
    forge.files.append("\n".join([BEGIN, *(body[i : i + 64] for i in range(0, len(body), 64)), SIG_BEGIN,
                                  *(sig[i : i + 70] for i in range(0, len(sig), 70)), SIG_END, END]) + "\n")
    return forge


def _key_line(line: str) -> Forge:  # message 0 with the first side's key line replaced
    setup = json.loads(EXAMPLE["bodies"][0])["setup"]
    return Forge(keep=0).next(setup={**setup, "keys": {**setup["keys"], "first": line}})


KEY_B64 = EXAMPLE["players"]["first"]["public_key"].split()[1]


def _setup_options(options) -> Forge:
    forge = Forge(keep=0)
    return forge.next(setup={**json.loads(EXAMPLE["bodies"][0])["setup"], "options": options})


ATTACKS = {  # case id -> (forged messages, what the refusal cites)
    "armour-body-over-1398168-base64-characters": (lambda: _armour(MAX_BODY_B64 + 4, 400), "limit 2"),
    "armour-signature-over-4096-characters": (lambda: _armour(400, MAX_SIG_B64 + 4), "limit 2"),
    "body-of-1048577-bytes": (lambda: _body_of_size(MAX_BODY + 1), "limit 1"),
    "orders-501": (lambda: Forge().next(orders=[roll()] * 501), "limit 3"),
    "commitments-257-in-a-message": (lambda: Forge().next(commitments={f"s{i}": ZERO for i in range(257)}), "limit 4"),
    "commitments-2049-of-one-side": (_game_commitments, "limit 5"),
    "reveals-257-in-a-message": (
        lambda: Forge().next(reveals=[{"slot": f"s{i}", "value": "v", "salt": ZERO} for i in range(257)]), "limit 6"),
    "sealed-of-699056-base64-characters": (lambda: Forge().next(sealed="A" * (MAX_SEALED_CHARS + 4)), "limit 7"),
    "sealed-decoding-to-524289-bytes": (lambda: Forge().next(sealed="A" * MAX_SEALED_CHARS), "limit 7"),
    "string-of-16385-characters": (lambda: Forge().next(orders=[roll(note="x" * 16385)]), "limit 8"),
    "string-of-16385-escaped-characters": (lambda: Forge().next(orders=[roll(note="\u00e9" * 16385)]), "limit 8"),
    "key-of-16385-characters": (lambda: Forge().next(orders=[{"type": "end", "k" * 16385: 1}]), "limit 8"),
    "nesting-17-deep": (lambda: _setup_options({"x": nested(14)}), "limit 9"),
    "integer-of-17-digits": (lambda: _setup_options({"n": 10**16}), "limit 10"),
    "integer-of-5000-digits": (_long_integer, "limit 10"),
    "integer-2-to-the-53": (lambda: _setup_options({"n": 2**53}), "§3.1"),
    "key-comment-with-a-newline": (
        lambda: _key_line(f"ssh-ed25519 {KEY_B64} mallory\nssh-ed25519 {KEY_B64[:-4]}AAAA ann"), "§3.3"),
    "key-comment-with-a-carriage-return": (lambda: _key_line(f"ssh-ed25519 {KEY_B64} mallory\rann"), "§3.3"),
    "key-comment-with-a-tab": (lambda: _key_line(f"ssh-ed25519 {KEY_B64} mallory\tann"), "§3.3"),
    "key-comment-with-a-line-separator": (lambda: _key_line(f"ssh-ed25519 {KEY_B64} mallory\u2028ann"), "§3.3"),
    "key-comment-with-a-right-to-left-override": (lambda: _key_line(f"ssh-ed25519 {KEY_B64} \u202enna"), "§3.3"),
    "key-comment-of-101-characters": (lambda: _key_line(f"ssh-ed25519 {KEY_B64} {'m' * 101}"), "§3.3"),
    "key-line-with-two-spaces": (lambda: _key_line(f"ssh-ed25519  {KEY_B64} ann"), "§3.3"),
    "key-line-ending-in-a-newline": (lambda: _key_line(f"ssh-ed25519 {KEY_B64} ann\n"), "§3.3"),
    "message-0-with-orders": (lambda: Forge(keep=0).next(orders=[{"type": "end"}]), "§5 step 1"),
    "message-0-with-reveals": (
        lambda: Forge(keep=0).next(reveals=[{"slot": "a", "value": "v", "salt": ZERO}]), "§5 step 1"),
    "orders-missing": (lambda: Forge().next(drop=("orders",)), "'orders' is missing"),
    "commitments-missing": (lambda: Forge().next(drop=("commitments",)), "'commitments' is missing"),
    "reveals-missing": (lambda: Forge().next(drop=("reveals",)), "'reveals' is missing"),
    "sealed-missing": (lambda: Forge().next(drop=("sealed",)), "'sealed' is missing"),
    "orders-not-a-list": (lambda: Forge().next(orders={"type": "end"}), "§3.2"),
    "an-order-not-an-object": (lambda: Forge().next(orders=["end"]), "§3.2"),
    "fresh-in-message-2": (lambda: Forge().next(fresh="00" * 16), "§3.2"),
    "setup-in-message-2": (lambda: Forge().next(setup={}), "§3.2"),
    "salt-of-62-hex-digits": (lambda: _reveal(EXAMPLE["commitment"]["salt"][:62]), "§7.5"),
    "salt-in-uppercase": (lambda: _reveal(EXAMPLE["commitment"]["salt"].upper()), "§7.5"),
    "slot-name-a-path": (lambda: Forge().next(commitments={"../x": ZERO}), "§7.2"),
    "closing-message-with-an-order": (lambda: _closing(orders=[roll()]), "§7.6"),
    "closing-message-with-a-commitment": (lambda: _closing(commitments={"late": ZERO}), "§7.6"),
    "a-message-after-both-secrets": (lambda: _closing().next(), "closed"),
    "secret-while-the-game-goes-on": (lambda: Forge().next(secret=SECRETS["first"].hex()), "§7.6"),
    "order-after-end": (lambda: Forge().next(orders=[{"type": "end"}, roll()]), "dice.end"),
    "dice-expression-of-101-dice": (lambda: Forge().next(orders=[roll("50d6+51d6")]), "§6.5"),
    "dice-order-with-an-extra-key": (lambda: Forge().next(orders=[{**roll(), "x": 1}]), "dice.orders"),
}

WITHIN = {  # case id -> forged messages that are just within a limit: both verifiers accept them
    "key-comment-of-100-characters-with-spaces": lambda: _key_line(f"ssh-ed25519 {KEY_B64} {'Ann Smith ' * 9}Anne-Marie"),
    "key-line-without-a-comment": lambda: _key_line(f"ssh-ed25519 {KEY_B64}"),
    "message-0-with-commitments": lambda: Forge(keep=0).next(commitments={"early": ZERO}).next(),
    "orders-500": lambda: Forge().next(orders=[roll()] * 500),
    "commitments-256-then-256-reveals": lambda: Forge().next(
        commitments={f"s{i}": ind_commitment(EXAMPLE["game"], FINGERPRINTS["first"], f"s{i}", h(ZERO), "v").hex()
                     for i in range(256)}).next().next(reveals=[{"slot": f"s{i}", "value": "v", "salt": ZERO}
                                                                for i in range(256)]),
    "sealed-decoding-to-524287-bytes": lambda: Forge().next(sealed="A" * (MAX_SEALED_CHARS - 4) + "AA=="),
    "string-of-16384-characters": lambda: Forge().next(orders=[roll(note="\u00e9" * MAX_STRING)]),
    "nesting-16-deep": lambda: _setup_options({"x": nested(13)}),
    "integer-2-to-the-53-minus-1": lambda: _setup_options({"n": 2**53 - 1}),
    "closing-message-with-a-reveal": lambda: Forge(keep=3)
    .next(orders=[{"type": "end"}], secret=SECRETS["second"].hex())
    .next(reveals=[{"slot": "ambush", "value": "dummy", "salt": EXAMPLE["commitment"]["salt"]}],
          secret=SECRETS["first"].hex()),
}


@pytest.mark.parametrize("case", sorted(ATTACKS))
def test_independent_verifier_refuses(case):
    build, cites = ATTACKS[case]
    with pytest.raises(Refused, match=re.escape(cites)):
        ind_check(build().files)


@pytest.mark.parametrize("case", sorted(ATTACKS))
def test_pbem_refuses_what_the_independent_verifier_refuses(case):
    from pbem.errors import PbemError

    build, cites = ATTACKS[case]
    with pytest.raises(PbemError) as refused:
        pbem_check(build().files)
    said = str(refused.value)
    assert "Exceeds the limit" not in said and "codec" not in said  # in pbem's own words
    if cites.startswith("limit"):  # §12: an IntegrityError that names the limit
        assert type(refused.value).__name__ == "IntegrityError" and re.search(r"at most|is over", said), said


@pytest.mark.parametrize("case", sorted(WITHIN))
def test_both_verifiers_accept_what_is_within_the_limits(case):
    files = WITHIN[case]().files
    ind_check(files)
    pbem_check(files)


def test_independent_message_count_and_chain_limits():
    """§12 limit 11 and §4.3 coincide: message 8192 would need chain value
    4,096 of a 4,096-value chain.  No test plays that far, so the limit
    function is called where such a message would stand."""
    body = {"orders": [], "commitments": {}, "reveals": [], "sealed": ""}
    ind_limits(body, 8191)
    assert MAX_MESSAGES == 2 * CHAIN_N
    with pytest.raises(Refused, match="limit 11"):
        ind_limits(body, 8192)


def test_pbem_limits_are_the_documented_ones():
    from pbem.protocol import limits, message

    assert (message.MAX_BODY_BYTES, message.MAX_BODY_B64, message.MAX_SIGNATURE_B64) == (
        MAX_BODY, MAX_BODY_B64, MAX_SIG_B64)
    assert (limits.MAX_ORDERS, limits.MAX_COMMITMENTS, limits.MAX_GAME_COMMITMENTS, limits.MAX_REVEALS) == (
        MAX_ORDERS, MAX_COMMITMENTS, MAX_GAME_COMMITMENTS, MAX_REVEALS)
    assert (limits.MAX_SEALED_BYTES, limits.MAX_SEALED_CHARS, limits.MAX_STRING, limits.MAX_DEPTH) == (
        MAX_SEALED_BYTES, MAX_SEALED_CHARS, MAX_STRING, MAX_DEPTH)
    assert (limits.MAX_INT_DIGITS, limits.MAX_MESSAGES, limits.MAX_INPUT_BYTES) == (
        MAX_INT_DIGITS, MAX_MESSAGES, MAX_INPUT)


def test_a_file_over_32_mib_is_refused_unread(tmp_path):
    """§12 limit 13, by both verifiers: a sparse file, so nothing is written."""
    from pbem.errors import PbemError
    from pbem.match.session import read_messages

    path = tmp_path / "0002-first.pbem"
    with open(path, "wb") as handle:
        handle.truncate(MAX_INPUT + 1)
    with pytest.raises(Refused, match="limit 13"):
        ind_read(path)
    with pytest.raises(PbemError, match="32 MiB"):
        read_messages([path])


# --- §2.1 file names and §8 equivocation, in a game directory -----------------


def _directory(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    directory = tmp_path / "game"
    directory.mkdir()
    for m, text in enumerate(EXAMPLE["files"]):
        (directory / f"{m:04d}-{json.loads(EXAMPLE['bodies'][m])['side']}.pbem").write_text(text)
    for name, text in (files or {}).items():
        (directory / name).write_text(text)
    return directory


def test_both_verify_a_directory_and_ignore_other_names(tmp_path):
    from pbem.match.session import verify

    directory = _directory(tmp_path, {"notes.txt": "x", "0004-first.pbem~": "x", "00005-first.pbem": "x",
                                      "0005-1st.pbem": "x"})
    assert len(ind_verify_dir(directory).bodies) == 5
    assert len(verify([directory]).transcript) == 5


def test_both_refuse_a_renamed_file(tmp_path):
    from pbem.errors import IntegrityError
    from pbem.match.session import verify

    directory = _directory(tmp_path)
    (directory / "0003-second.pbem").rename(directory / "0003-first.pbem")
    with pytest.raises(Refused, match="renamed"):
        ind_verify_dir(directory)
    with pytest.raises(IntegrityError, match="renamed"):
        verify([directory])


def test_both_refuse_a_message_file_with_two_blocks(tmp_path):
    from pbem.errors import IntegrityError
    from pbem.match.session import load

    directory = _directory(tmp_path)
    path = directory / "0004-first.pbem"
    path.write_text(path.read_text() * 2)
    with pytest.raises(Refused, match="2 blocks"):
        ind_verify_dir(directory)
    with pytest.raises(IntegrityError):
        load(directory)


def _second_version(prev: str | None = None) -> str:
    """ann signs another message 0002: the same prev (or ``prev``), another roll."""
    forge = Forge()
    body = json.loads(EXAMPLE["bodies"][2])
    body["orders"][0]["dice"] = "2d6+2"
    if prev is not None:
        body["prev"] = prev
    return forge.add(body).files[-1]


def test_both_prove_equivocation_from_a_directory(tmp_path):
    """§8: the second version's name cannot be true, but the proof comes first."""
    from pbem.errors import EquivocationError
    from pbem.match.session import verify

    directory = _directory(tmp_path, {"0002-second.pbem": _second_version()})
    with pytest.raises(Equivocation):
        ind_verify_dir(directory)
    with pytest.raises(EquivocationError):
        verify([directory])


def test_two_answers_to_different_prevs_are_a_conflict_not_equivocation(tmp_path):
    from pbem.errors import EquivocationError, IntegrityError
    from pbem.match.session import verify

    directory = _directory(tmp_path, {"0002-second.pbem": _second_version(prev="ab" * 32)})
    with pytest.raises(Refused, match="two files") as refused:
        ind_verify_dir(directory)
    assert not isinstance(refused.value, Equivocation)
    with pytest.raises(IntegrityError) as raised:
        verify([directory])
    assert not isinstance(raised.value, EquivocationError)


# --- §3.4, §6.5, §7.6: the shipped games, played by their demos ---------------


@pytest.fixture(scope="module")
def demo_dirs(tmp_path_factory) -> dict[str, list[Path]]:
    """Each shipped game's demo, played once: every player's game directory."""
    from pbem.app import demo

    found = {}
    for module in sorted(SHIPPED_SIDES):
        root = tmp_path_factory.mktemp(f"{module}-demo")
        assert demo.run(root, module).verify.ok
        found[module] = sorted(p / "game" for p in root.iterdir() if (p / "game").is_dir())
    return found


@pytest.mark.parametrize("module", sorted(SHIPPED_SIDES))
def test_independent_verifier_checks_each_shipped_game(module, demo_dirs):
    """Everything §13 says a third party can check, on a whole game: the
    chain, the limits, the closing message, the sides and the ruleset hash."""
    for directory in demo_dirs[module]:
        game = ind_verify_dir(directory)
        setup = game.bodies[0]["setup"]
        assert setup["module"] == module and len(game.secrets) == 2
        assert setup["ruleset"] == ind_ruleset(ind_ruleset_files(module, setup["module_version"]))


@pytest.mark.parametrize("module", sorted(SHIPPED_SIDES))
def test_independent_ruleset_hash_is_pbems(module):
    from pbem.engine import registry
    from pbem.match.session import ruleset_hash

    game = registry.get(module)
    assert ind_ruleset(ind_ruleset_files(module, game.version)) == ruleset_hash(game)


def test_independent_dice_game_rolls_what_pbem_rolls(demo_dirs):
    """§6.5: the dice game replayed from this document alone."""
    from pbem.match.session import verify

    directory = demo_dirs["dice"][0]
    ours = ind_dice_game(ind_verify_dir(directory))
    theirs = verify([directory]).replay.rolls
    flat = [(f"{r['label']}/{t}", r["key_seq"], values) for r in ours for t, values in enumerate(r["values"])]
    assert flat == [(r.label, r.key_seq, list(r.values)) for r in theirs] and flat


def test_30_independent_dice_game_reads_a_standing_order_and_a_key_only_answer(tmp_path):
    """§6.5 (issue 30): a key-rolls standing order and the key-only answer
    it lets a machine write, checked from this document alone: the roll
    the answer keys is the one pbem rolled, and the answer declares nothing."""
    from pbem.match import session
    from pbem.protocol.keystore import Keystore

    ann, bob = (Keystore(tmp_path / f"home-{n}").load_or_create(n) for n in ("ann", "bob"))
    a, b = tmp_path / "ann", tmp_path / "bob"
    m0 = session.new_game(a, "dice", "first", bob.public, ann)
    m1, _ = session.join_game(m0, b, bob, {"standing": {"key-rolls": "auto"}})
    session.receive(a, [m1], ann)
    m2 = session.play(a, ann, {"order": [{"type": "roll", "dice": "2d6+1", "note": "fire"}]}).path
    session.receive(b, [m2], bob)
    m3 = session.play(b, bob, {}).path
    session.receive(a, [m3], ann)
    game = ind_verify_dir(a)
    assert game.bodies[1]["orders"] == [{"type": "standing", "key-rolls": "auto"}]
    assert game.bodies[3]["orders"] == [] and game.bodies[3]["reveals"] == [] and game.bodies[3]["commitments"] == {}
    ours = ind_dice_game(game)
    theirs = session.verify([a]).replay.rolls
    assert [(r["label"] + "/0", r["key_seq"], r["values"][0]) for r in ours] == [
        (r.label, r.key_seq, list(r.values)) for r in theirs] and len(ours) == 1


def test_independent_dice_game_rolls_the_worked_example():
    rolls = ind_dice_game(ind_check(EXAMPLE["files"]))
    assert [(f"{r['label']}/0", r["key_seq"], r["values"][0]) for r in rolls] == [
        (r["label"], r["key_seq"], r["values"]) for r in EXAMPLE["rolls"]]
    assert rolls[0]["total"] == 8  # 2d6+1 rolled 5 and 2


DICE_EXPRESSIONS = [
    "2d6+1", "d6", "D10", " 2D6 + 1 ", "+d6", "-1d6+3", "02d06", "1d20+1d4-2", "1d1000", "100d2", "1d6-5-5",
    "1d6+1000000", "50d6+50d6", "1d6+\t2", "2d6+-1", "1d1", "0d6", "1d1001", "101d2", "50d6+51d6", "1d6+1000001",
    "3", "d", "2 d6", "", "   ", "1d6" + " " * 97, "1d6" + " " * 98, "1d6*2", "1d6+", "x1d6", "1d6 1d6",
]


WARGAME_EXPRESSIONS = [
    "d66", "D66", "2d66", "d66+1", "50d66", "51d66", "50d66+1d6", "02d066", "d%", "D%", "2d%", "d100", "3d100-1",
    "50d%", "51d%", "4d6kh3", "4D6KH3", "4d6kl1", "2d20kh1+1d4", "1d6kh1", "4d6kh4", "4d6kh0", "4d6kh5", "d66kh1",
    "2d%kl1", "2d100kh1", "d%kh1", "100d6kh50", "101d6kh1", "4d6k3", "4d6kx3", "4d6kh", "d%%", "d%1", "%", "4d6 kh3",
]


@pytest.mark.parametrize("rules", ["1", "2"])
@pytest.mark.parametrize("text", DICE_EXPRESSIONS + WARGAME_EXPRESSIONS)
def test_independent_dice_expressions_are_pbems(text, rules):
    """§6.5's grammar and bounds under both dice rules, against the dice game's own parser."""
    from pbem.errors import InputError
    from pbem.games.dice.expression import DiceExpression

    try:
        parsed = DiceExpression.parse(text, rules=rules)
        theirs = ([(t.sign, t.count, t.sides, t.kind, t.keep, (t.dice, t.die)) for t in parsed.terms], parsed.modifier)
    except InputError:
        theirs = None
    try:
        terms, modifier = ind_dice_expression(text, rules)
        ours = ([(t.sign, t.count, t.faces, t.kind, t.keep, t.drawn()) for t in terms], modifier)
    except Refused:
        ours = None
    assert ours == theirs


def test_protocol_doc_lists_the_shipped_games():
    """docs/protocol.md §3.4 names each registered game with pbem's sides and ruleset files."""
    from pbem.engine import registry

    text = (Path(__file__).parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text[text.index("### 3.4 The shipped games") : text.index("## 4.")]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`") and cells[0] != "`module`":
            names = re.findall(r"`([\w./-]+)`", cells[2])
            rows[cells[0].strip("`")] = (set(re.findall(r"`(\w+)`", cells[1])),
                                         {n for n in names if n.endswith(".toml") or n.endswith("/version")})
    assert set(rows) == set(registry.available()) == set(SHIPPED_SIDES)
    for module, (sides, files) in rows.items():
        game = registry.get(module)
        assert sides == set(game.sides) == SHIPPED_SIDES[module]
        assert files == {name for name, _ in game.ruleset_files()}
    dice_hash = re.search(r"for version `1` it is\s+`([0-9a-f]{64})`", section).group(1)
    assert dice_hash == ind_ruleset(ind_ruleset_files("dice", "1")) == json.loads(EXAMPLE["bodies"][0])["setup"]["ruleset"]


# --- §6.5: the wargamers' dice (rules 2) and the games played with rules 1 ----

EXPRESSIONS = DICE["expressions"]["cases"]
RULES_1_GAME = DICE["rules_1_game"]


@pytest.mark.parametrize("case", EXPRESSIONS, ids=[f"rules{c['rules']}-{c['dice']}" for c in EXPRESSIONS])
def test_pbem_6_5_dice_expression_vectors(case):
    """§6.5: pbem's parser and substreams give each term's dice, results, kept marks and the total."""
    from pbem.games.dice.expression import DiceExpression
    from pbem.protocol.dice import roll

    expr = DiceExpression.parse(case["dice"], rules=case["rules"])
    values = []
    for t, (term, want) in enumerate(zip(expr.terms, case["terms"], strict=True)):
        assert want["label"] == f"{case['seq']}.{case['index']}/{t}"
        assert (term.dice, term.die) == (want["count"], want["sides"])
        v = roll(h(case["key"]), want["label"], term.dice, term.die)
        assert list(v) == want["values"]
        assert list(term.results(v)) == want["results"] and list(term.kept(v)) == want["kept"]
        assert term.sign * term.value(v) == want["value"]
        values.append(v)
    assert expr.modifier == case["modifier"] and expr.total(values) == case["total"]
    assert expr.shown(values) == case["shown"]


@pytest.mark.parametrize("case", EXPRESSIONS, ids=[f"rules{c['rules']}-{c['dice']}" for c in EXPRESSIONS])
def test_independent_6_5_dice_expression_vectors(case):
    """§6.5 from this document alone: the dice drawn, the results read from them, what is kept, the total."""
    terms, modifier = ind_dice_expression(case["dice"], case["rules"])
    total = modifier
    for t, (term, want) in enumerate(zip(terms, case["terms"], strict=True)):
        assert term.drawn() == (want["count"], want["sides"])
        v = IndStream(h(case["key"]), f"{case['seq']}.{case['index']}/{t}").dice(*term.drawn())
        assert v == want["values"]
        assert term.results(v) == want["results"] and term.kept(v) == want["kept"]
        assert term.sign * term.value(v) == want["value"]
        total += term.sign * term.value(v)
    assert modifier == case["modifier"] and total == case["total"]


def test_6_5_vectors_cover_every_wargame_form():
    """Every form of rules 2 has a vector: d66, d%, d100, kh, kl, the 00-and-0 reading, ties kept in draw order."""
    texts = [c["dice"].lower() for c in EXPRESSIONS if c["rules"] == "2"]
    assert any("d66" in t for t in texts) and any("d%" in t for t in texts) and any("d100" in t for t in texts)
    assert any("kh" in t for t in texts) and any("kl" in t for t in texts)
    results = [r for c in EXPRESSIONS for term in c["terms"] for r in term["results"]]
    assert 100 in results and any(r < 10 for c in EXPRESSIONS if "%" in c["dice"] for r in c["terms"][0]["results"])
    tied = [c for c in EXPRESSIONS if "k" in c["dice"].lower() and len(set(c["terms"][0]["values"])) < c["terms"][0]["count"]]
    assert tied
    old = {c["dice"]: c["terms"][0] for c in EXPRESSIONS if c["rules"] == "1"}
    assert old["d66"]["sides"] == 66 and old["d66"]["count"] == 1 and old["d100"]["sides"] == 100


def rolls_done(replay) -> list[dict]:
    """Each roll of a dice game the replay resolved, as its event says it
    (label, dice, values, total), in the order resolved."""
    return [e.data for _, e in replay.events if e.rule == "dice.roll" and "total" in e.data]


def _rules_1_game(tmp_path: Path) -> Path:
    import shutil

    directory = tmp_path / "rules-1"
    shutil.copytree(VECTORS / RULES_1_GAME["directory"], directory)
    return directory


def test_pbem_6_5_a_rules_1_game_verifies_with_its_old_rolls(tmp_path):
    """A game proposed before rules 2 (d66 one 66-sided die, d100 one
    100-sided die) verifies exactly as it was rolled."""
    from pbem.match.session import verify

    directory = _rules_1_game(tmp_path)
    result = verify([directory])
    assert result.ok and result.replay.game.version == "1"
    assert [(r["label"], r["dice"], r["values"], r["total"]) for r in rolls_done(result.replay)] == [
        (r["label"], r["dice"], r["values"], r["total"]) for r in RULES_1_GAME["rolls"]]


def test_independent_6_5_a_rules_1_game_keeps_its_old_reading(tmp_path):
    game = ind_verify_dir(_rules_1_game(tmp_path))
    assert game.bodies[0]["setup"]["module_version"] == "1"
    rolls = ind_dice_game(game)
    assert [(r["label"], r["values"], r["total"]) for r in rolls] == [
        (r["label"], r["values"], r["total"]) for r in RULES_1_GAME["rolls"]]


def _rules_2_game(root: Path, sides: list[str] | None = None) -> Path:
    """A game proposed now (rules 2), with every wargame form rolled, played to its end through the library."""
    from pbem.match import session
    from pbem.protocol.keys import Identity

    ann, bob = Identity.from_seed(SEEDS["first"], "ann"), Identity.from_seed(SEEDS["second"], "bob")
    names = sides or ["first", "second"]
    a, b = root / "ann", root / "bob"
    options = {"sides": sides} if sides else None
    reply, _ = session.join_game(session.new_game(a, "dice", names[0], bob.public, ann, options), b, bob)
    session.receive(a, [reply], ann)
    rolls = [{"type": "roll", "dice": d, "note": d} for d in ("d66", "d%", "d100", "4d6kh3", "3d20kl1+2", "2d66-d%+1")]
    session.receive(b, [session.play(a, ann, {"order": rolls}).path], bob)
    session.receive(a, [session.play(b, bob, {"order": [{"type": "roll", "dice": "2d6kh1", "note": ""},
                                                         {"type": "end"}]}).path], ann)
    session.receive(b, [session.play(a, ann, {}).path], bob)
    return a


@pytest.mark.parametrize("sides", [None, ["german", "soviet"]])
def test_independent_6_5_a_rules_2_game_rolls_what_pbem_rolls(tmp_path, sides, monkeypatch):
    """§6.5 rules 2, and named sides: the independent replay's dice, results and totals are pbem's."""
    from pbem.match.session import verify

    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    directory = _rules_2_game(tmp_path, sides)
    game = ind_verify_dir(directory)
    assert game.bodies[0]["setup"]["module_version"] == "2" and set(game.keys) == set(sides or ["first", "second"])
    ours = ind_dice_game(game)
    result = verify([directory])
    assert [(r["label"], r["values"], r["total"]) for r in ours] == [
        (r["label"], r["values"], r["total"]) for r in rolls_done(result.replay)]
    assert len(ours) == 7
    d66, percent = ours[0], ours[1]
    assert 11 <= d66["total"] <= 66 and d66["total"] == 10 * d66["values"][0][0] + d66["values"][0][1]
    assert len(percent["values"][0]) == 2 and 1 <= percent["total"] <= 100
