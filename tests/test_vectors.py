"""Known-answer vectors (tests/vectors/*.json) for dice, chains and sealed secrets.

(a) pbem's own functions reproduce every vector;
(b) an independent implementation, written from docs/protocol.md alone with
    hashlib/hmac (plus the Ed25519 and ChaCha20-Poly1305 primitives of
    ``cryptography``, never pbem), reproduces every vector too: the proof
    that the document is precise enough to re-implement verification;
(c) the chain vectors link: SHA256(label || x_i) == x_{i-1}.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from pathlib import Path

import pytest

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
    kind, b64 = key_line.split(None, 2)[:2]
    assert kind == "ssh-ed25519"
    blob = base64.b64decode(b64, validate=True)
    assert blob[:4] == (11).to_bytes(4, "big") and blob[4:15] == b"ssh-ed25519"
    assert blob[15:19] == (32).to_bytes(4, "big") and len(blob) == 51
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
    return "SHA256:" + digest, blob[19:]


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


# --- armour and signatures (§2.2, §4.2) ---------------------------------------

_QUOTE = re.compile(r"^(?:[ \t]*>[ \t]?)+")


def ind_dearmour(text: str) -> list[tuple[bytes, bytes]]:
    lines = [_QUOTE.sub("", ln).strip() for ln in re.split(r"\r\n|\r|\n", text)]
    out, i = [], 0
    while i < len(lines):
        if lines[i] != "-----BEGIN PBEM MESSAGE-----":
            i += 1
            continue
        body, sig, state = [], [], "body"
        i += 1
        while lines[i] != "-----END PBEM MESSAGE-----":
            line = lines[i]
            assert line != "-----BEGIN PBEM MESSAGE-----", "truncated"
            if state == "body" and line == "-----BEGIN SSH SIGNATURE-----":
                state = "sig"
            elif state == "sig" and line == "-----END SSH SIGNATURE-----":
                state = "after"
            elif state == "body":
                body.append(line)
            elif state == "sig":
                sig.append(line)
            else:
                assert not line, "text after the signature"
            i += 1
        assert state == "after"
        decoded = []
        for part in ("".join(body), "".join(sig)):
            assert re.fullmatch(r"[A-Za-z0-9+/=]*", part)
            decoded.append(base64.b64decode(part, validate=True))
        assert decoded[0]
        out.append((decoded[0], decoded[1]))
        i += 1
    return out


class Wire:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def fixed(self, n: int) -> bytes:
        assert self.pos + n <= len(self.data)
        self.pos += n
        return self.data[self.pos - n : self.pos]

    def string(self) -> bytes:
        return self.fixed(int.from_bytes(self.fixed(4), "big"))

    def done(self) -> None:
        assert self.pos == len(self.data)


def ind_sshsig_verify(blob: bytes, body: bytes, expected_key: bytes) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    r = Wire(blob)
    assert r.fixed(6) == b"SSHSIG" and int.from_bytes(r.fixed(4), "big") == 1
    pub, namespace, reserved, hash_alg, sigfield = r.string(), r.string(), r.string(), r.string(), r.string()
    r.done()
    assert namespace == b"pbem-turn-v1" and reserved == b"" and hash_alg in (b"sha512", b"sha256")
    pk = Wire(pub)
    assert pk.string() == b"ssh-ed25519"
    key = pk.string()
    pk.done()
    assert key == expected_key
    sg = Wire(sigfield)
    assert sg.string() == b"ssh-ed25519"
    raw = sg.string()
    sg.done()
    assert len(raw) == 64
    digest = (hashlib.sha512 if hash_alg == b"sha512" else hashlib.sha256)(body).digest()
    signed = b"SSHSIG" + lp(b"pbem-turn-v1") + lp(b"") + lp(hash_alg) + lp(digest)
    Ed25519PublicKey.from_public_bytes(key).verify(raw, signed)  # raises InvalidSignature


def ind_verify(files: list[str]) -> list[dict]:
    """§5 steps 1-9 over a list of armoured messages; returns the bodies."""
    bodies, raw_bodies = [], []
    keys: dict[str, tuple[str, bytes]] = {}
    last_chain: dict[str, bytes] = {}
    anchors: dict[str, bytes] = {}
    commitments: dict[tuple[str, str], bytes] = {}
    revealed: set[tuple[str, str]] = set()
    for m, text in enumerate(files):
        [(body_bytes, sig)] = ind_dearmour(text)
        body = json.loads(body_bytes.decode("ascii"))
        assert ind_canonical(body) == body_bytes and body["pbem"] == 1  # step 1
        if m == 0:
            setup = body["setup"]
            assert body["seq"] == 0 and body["prev"] == "" and len(setup["keys"]) == 2
            keys = {side: ind_fingerprint(line) for side, line in setup["keys"].items()}
            assert len({fp for fp, _ in keys.values()}) == 2
            proposer = body["side"]
        else:
            assert body["game"] == bodies[0]["game"]  # step 2
            assert body["seq"] == m and "setup" not in body  # step 3
        expected_prev = hashlib.sha256(raw_bodies[-1]).hexdigest() if m else ""
        assert body["prev"] == expected_prev  # step 4
        side = body["side"]  # step 5
        assert side in keys and (m == 0 or (side == proposer) == (m % 2 == 0))
        fingerprint, key = keys[side]  # step 6
        assert body["author"] == fingerprint
        ind_sshsig_verify(sig, body_bytes, key)
        value = h(body["chain"])  # step 7
        assert len(value) == 32
        if m in (0, 1):
            anchors[side] = value
        else:
            assert hashlib.sha256(CHAIN_LABEL + value).digest() == last_chain[side]
        last_chain[side] = value
        for slot, hexvalue in body["commitments"].items():  # step 8
            assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}", slot)  # §7.2: slot names
            assert (side, slot) not in commitments and len(h(hexvalue)) == 32
            commitments[(side, slot)] = h(hexvalue)
        for item in body["reveals"]:
            assert set(item) == {"slot", "value", "salt"}
            assert (side, item["slot"]) in commitments and (side, item["slot"]) not in revealed
            opened = ind_commitment(body["game"], body["author"], item["slot"], h(item["salt"]), item["value"])
            assert opened == commitments[(side, item["slot"])]
            revealed.add((side, item["slot"]))
        if body["sealed"]:
            base64.b64decode(body["sealed"], validate=True)
        if "secret" in body:  # step 9
            assert ind_chain(ind_chain_seed(h(body["secret"])), 4096)[0] == anchors[side]
        bodies.append(body)
        raw_bodies.append(body_bytes)
    return bodies


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
    for left, index in zip(case["cards_left"], case["indices"]):
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
    for text, body, digest in zip(EXAMPLE["files"], EXAMPLE["bodies"], EXAMPLE["body_sha256"]):
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
