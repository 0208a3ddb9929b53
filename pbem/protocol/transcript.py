"""Verification of a game's sequence of messages, knowing nothing of any game.

:class:`Transcript` takes messages one by one, in order, and checks, for
message *m* (the steps are numbered as in docs/protocol.md, section 5):

1. the body is canonical JSON with format version 1;
2. it belongs to this game (``game`` equals message 0's);
3. ``seq == m`` (a gap, a reorder or a replay fails here);
4. ``prev`` is the SHA-256 of message *m-1*'s body ("" for message 0);
5. sides alternate strictly, starting with the proposer;
6. ``author`` is the fingerprint of that side's key named in message 0, and
   the SSHSIG signature verifies under that key;
7. the chain value hashes to the author's previous one (messages 0 and 1
   anchor the two chains; no later message may re-anchor);
8. commitments name fresh slots; reveals open earlier commitments of their
   author;
9. a revealed per-game secret regenerates that side's chain anchor.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any

from pbem.errors import AuthenticityError, HiddenInfoError, IdentityError, IntegrityError, VerificationError
from pbem.protocol import limits, sealed, sshsig
from pbem.protocol.chain import HashChain, chain_seed, check_link
from pbem.protocol.keys import PublicKey
from pbem.protocol.message import FORMAT_VERSION, MAX_BODY_BYTES, NAMESPACE, SignedMessage

SETUP_FIELDS = {"module": str, "module_version": str, "ruleset": str, "options": dict, "keys": dict}
SIDE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")  # docs/protocol.md 3.3: it names the files (NNNN-SIDE.pbem)
BODY_FIELDS = {"pbem", "game", "seq", "side", "author", "prev", "chain", "orders", "commitments", "reveals", "sealed"}
OPTIONAL_FIELDS = {"secret", "setup", "fresh"}
FRESH = re.compile(r"^[0-9a-f]{32}$")
GAME_ID = re.compile(r"^[0-9a-f]{32}$")
SLOT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")  # docs/protocol.md 7.2: every game's slot names
HEX32 = re.compile(r"^[0-9a-f]{64}$")
NAMES_A_MESSAGE = re.compile(r"\bmessage \d{4}\b")


def _name(seq: int) -> str:
    return f"message {seq:04d}"


@dataclass(frozen=True)
class Reveal:
    side: str
    slot: str
    value: str
    seq: int


@dataclass
class Transcript:
    """The verified prefix of one game."""

    messages: list[SignedMessage] = field(default_factory=list)
    keys: dict[str, PublicKey] = field(default_factory=dict)
    sides: tuple[str, ...] = ()
    setup: dict[str, Any] = field(default_factory=dict)
    anchors: dict[str, bytes] = field(default_factory=dict)
    last_value: dict[str, tuple[int, bytes]] = field(default_factory=dict)  # side -> (index, value)
    chain_values: list[bytes] = field(default_factory=list)  # per message
    commitments: dict[tuple[str, str], tuple[bytes, int]] = field(default_factory=dict)
    reveals: dict[tuple[str, str], Reveal] = field(default_factory=dict)
    secrets: dict[str, bytes] = field(default_factory=dict)

    # ------------------------------------------------------------------ accessors

    @property
    def game(self) -> str:
        return self.messages[0].game

    def __len__(self) -> int:
        return len(self.messages)

    def side_of(self, seq: int) -> str:
        """Who writes message ``seq`` under strict alternation."""
        first = self.messages[0].side
        other = next(s for s in self.sides if s != first)
        return first if seq % 2 == 0 else other

    def chain_index(self, seq: int) -> int:
        """Index of the chain value message ``seq`` reveals (its author's n-th message)."""
        return seq // 2

    def opponent(self, side: str) -> str:
        return next(s for s in self.sides if s != side)

    def side_for_key(self, fingerprint: str) -> str | None:
        for side, key in self.keys.items():
            if key.fingerprint == fingerprint:
                return side
        return None

    # ------------------------------------------------------------------ verification

    def copy(self) -> "Transcript":
        """A copy to add to, leaving this one as it is (nothing is verified again)."""
        return Transcript(self.messages.copy(), dict(self.keys), self.sides, self.setup, dict(self.anchors),
                          dict(self.last_value), list(self.chain_values), dict(self.commitments), dict(self.reveals),
                          dict(self.secrets))

    def extended(self, msg: SignedMessage) -> "Transcript":
        """A copy of this transcript with ``msg`` verified as its next message."""
        copy = self.copy()
        copy.add(msg)
        return copy

    def add(self, msg: SignedMessage) -> None:
        """Verify ``msg`` as the next message; on success append it.  Every
        error names the message (by its place when its own number is unreadable)."""
        m = len(self.messages)
        try:
            self._add(msg, m)
        except VerificationError as err:
            if NAMES_A_MESSAGE.search(str(err)):
                raise
            raise type(err)(f"{_name(m)}: {err}") from err

    def _add(self, msg: SignedMessage, m: int) -> None:
        if m > 0:
            # Step 6 comes first in practice: the signature must verify, by
            # one of this game's two keys, before anything in the body is
            # believed.  The author/side match is checked once it is parsed.
            try:
                signer = sshsig.verify(msg.signature, msg.body_bytes, NAMESPACE)
            except (AuthenticityError, IntegrityError) as err:
                raise type(err)(f"{_name(m)}: signature check failed: {err}") from err
            if self.side_for_key(signer.fingerprint) is None:
                players = ", ".join(f"{s} {k.fingerprint}" for s, k in self.keys.items())
                raise AuthenticityError(
                    f"{_name(m)}: signed by {signer.fingerprint}, which is not a player of this game ({players})"
                )
        if len(self.secrets) == len(self.sides) and self.sides:
            raise IntegrityError(f"{_name(m)}: the game was closed by message {m - 1:04d}; nothing may follow it")
        if len(msg.body_bytes) > MAX_BODY_BYTES:
            raise IntegrityError(f"{_name(m)}: a body of {len(msg.body_bytes)} bytes; at most {MAX_BODY_BYTES}")
        try:
            body = msg.body  # step 1: canonical JSON
        except IntegrityError as err:
            raise IntegrityError(f"{_name(m)}: {err}") from err
        if m == 0 and body.get("seq") != 0 and isinstance(body.get("seq"), int):
            raise IntegrityError(
                f"message {body['seq']:04d} arrives where message 0000 is expected: the game's first message is missing"
            )
        if msg.field("pbem", int) != FORMAT_VERSION:
            raise IntegrityError(f"{_name(m)}: unsupported format version {body.get('pbem')!r}")
        missing = sorted(BODY_FIELDS - set(body))
        unknown = sorted(set(body) - BODY_FIELDS - OPTIONAL_FIELDS)
        if missing or unknown:
            what = ", ".join([f"missing field {f!r}" for f in missing] + [f"unknown field {f!r}" for f in unknown])
            raise IntegrityError(f"{_name(m)}: body {what}")
        if "fresh" in body and (m != 1 or not isinstance(body["fresh"], str) or not FRESH.match(body["fresh"])):
            raise IntegrityError(f"{_name(m)}: 'fresh' belongs in message 0001 only, as 32 lowercase hex digits")
        msg.field("orders", list, required=False)
        problem = limits.body_problem(body) or limits.message_count_problem(m)  # before anything of it is used
        if problem:
            raise IntegrityError(f"{_name(m)}: {problem}")
        if m == 0 and (msg.field("orders", list) or msg.field("reveals", list)):
            raise IntegrityError(
                "message 0000 may carry no orders or reveals: dice it declared would be keyed by the joiner's "
                "anchor, which the joiner chooses after seeing it"
            )
        seq = msg.seq
        if m == 0:
            self._read_setup(msg)
        else:
            if msg.game != self.game:  # step 2
                raise IntegrityError(
                    f"message {seq:04d} belongs to game {msg.game[:12]}..., not to this game "
                    f"{self.game[:12]}... (spliced from another game)"
                )
            if seq != m:  # step 3
                if seq < m:
                    if isinstance(seq, int) and 0 <= seq and self.messages[seq].body_bytes != msg.body_bytes:
                        raise IntegrityError(
                            f"message {seq:04d} arrives where message {m:04d} is expected, and it is not the "
                            f"{seq:04d} already here: a fork of the game at {seq:04d} (two versions; `pbem verify` "
                            f"of both files says whether one key signed both)"
                        )
                    raise IntegrityError(
                        f"message {seq:04d} arrives where message {m:04d} is expected: "
                        f"an old message replayed or out of order"
                    )
                raise IntegrityError(
                    f"message {seq:04d} arrives where message {m:04d} is expected: "
                    f"{seq - m} message(s) missing (dropped or out of order)"
                )
            if "setup" in body:
                raise IntegrityError(f"{_name(m)}: only message 0 may carry a setup")
        # protocol 7.6, for every game's engine -- after step 3, so that a message
        # replayed after the closing one is named for what it is
        if self.secrets and (body["orders"] or body["commitments"]):
            opened = ", ".join(sorted(self.secrets))
            raise IntegrityError(f"{_name(m)}: {opened} published its per-game secret, so the game is closing: a "
                                 f"closing message carries reveals only, no orders or commitments (protocol 7.6)")
        expected_prev = self.messages[-1].digest.hex() if self.messages else ""
        if msg.field("prev", str) != expected_prev:  # step 4
            raise IntegrityError(f"{_name(m)}: 'prev' does not name the previous message's body hash")
        side = msg.side  # step 5
        if side not in self.sides:
            raise IntegrityError(f"{_name(m)}: unknown side {side!r}; this game's sides are {', '.join(self.sides)}")
        if m > 0 and side != self.side_of(m):
            raise IntegrityError(f"{_name(m)}: written by {side}, but it is {self.side_of(m)}'s message (sides alternate)")
        key = self.keys[side]  # step 6
        if msg.author != key.fingerprint:
            raise AuthenticityError(
                f"{_name(m)}: claims author {msg.author}, but {side}'s key in message 0000 is {key.fingerprint}"
            )
        if m == 0:
            try:
                sshsig.verify(msg.signature, msg.body_bytes, NAMESPACE, expected=key)
            except (AuthenticityError, IntegrityError) as err:
                raise type(err)(f"{_name(m)}: signature check failed: {err}") from err
        elif signer != key:
            raise AuthenticityError(f"{_name(m)}: signed by {signer.fingerprint}, but its author is {side} ({key.fingerprint})")
        value = msg.hexfield("chain")  # step 7
        index = self.chain_index(m)
        if m in (0, 1):
            self.anchors[side] = value
        else:
            last_index, last = self.last_value[side]
            check_link(last, value, who=side, index=index)
        self._check_hidden(msg, m, side)  # step 8
        secret = msg.hexfield("secret", required=False)  # step 9
        if secret is not None:
            if HashChain(chain_seed(secret)).anchor != self.anchors[side]:
                raise HiddenInfoError(
                    f"{_name(m)}: the per-game secret {side} reveals does not regenerate {side}'s chain anchor"
                )
            self.secrets[side] = secret
        self.last_value[side] = (index, value)
        self.chain_values.append(value)
        self.messages.append(msg)

    def _read_setup(self, msg: SignedMessage) -> None:
        setup = msg.field("setup", dict)
        for name, kind in SETUP_FIELDS.items():
            if not isinstance(setup.get(name), kind):
                raise IntegrityError(f"message 0000: setup field {name!r} is missing or mistyped")
        if msg.seq != 0:
            raise IntegrityError(f"the first message has seq {msg.seq}, expected 0")
        if msg.field("prev", str) != "":
            raise IntegrityError("message 0000: 'prev' must be empty")
        if not GAME_ID.match(msg.game):
            raise IntegrityError(f"message 0000: game id {msg.game[:40]!r} is not 32 lowercase hex digits")
        if len(setup["keys"]) != 2:
            raise IntegrityError("message 0000: setup must name exactly two sides' keys")
        keys = {}
        for side, line in setup["keys"].items():
            if not SIDE_NAME.fullmatch(side):
                raise IntegrityError(f"message 0000: side name {side[:40]!r} is not 1-32 letters, digits, '_' or '-' "
                                     f"starting with a letter (it names the message files)")
            where = f"setup.keys.{side}"
            if not isinstance(line, str):
                raise IntegrityError(f"message 0000: {where}, the key of side {side!r}, is not a string", field=where)
            try:
                keys[side] = PublicKey.from_openssh(line)
            except IdentityError as err:
                raise IntegrityError(f"message 0000: {where}, the key of side {side!r}, is damaged: {err}",
                                     field=where) from err
            if keys[side].openssh() != line:  # docs/protocol.md 3.3: exactly the line pbem writes
                raise IntegrityError(f"message 0000: {where}, the key of side {side!r}, is not exactly one line "
                                     f"'ssh-ed25519 BASE64 COMMENT' (single spaces, nothing around it): "
                                     f"{line[:200]!r}", field=where)
        if len({k.fingerprint for k in keys.values()}) != 2:
            raise IntegrityError("message 0000: both sides name the same key")
        self.keys = keys
        self.sides = tuple(setup["keys"])
        self.setup = setup

    def _check_hidden(self, msg: SignedMessage, m: int, side: str) -> None:
        commitments = msg.field("commitments", dict)
        if commitments:
            before = sum(1 for owner, _ in self.commitments if owner == side)  # at most the limit: no history scan
            problem = limits.game_commitments_problem(side, before, len(commitments))
            if problem:
                raise IntegrityError(f"{_name(m)}: {problem}")
        for slot, hexvalue in commitments.items():
            if not SLOT.fullmatch(slot):  # docs/protocol.md 7.2: either side's, before anything is kept of it
                raise IntegrityError(f"{_name(m)}: slot name {slot[:80]!r} is not 1-64 characters of letters, digits, "
                                     f"'_', '.', '+' and '-', starting with a letter or digit (protocol 7.2)")
            if (side, slot) in self.commitments:
                raise IntegrityError(f"{_name(m)}: slot {slot!r} of {side} is already committed")
            if not isinstance(hexvalue, str) or not HEX32.match(hexvalue):
                raise IntegrityError(f"{_name(m)}: commitment of slot {slot!r} is not 64 lowercase hex digits")
        for slot, hexvalue in commitments.items():
            self.commitments[(side, slot)] = (bytes.fromhex(hexvalue), m)
        for item in msg.field("reveals", list):
            if not isinstance(item, dict) or set(item) != {"slot", "value", "salt"}:
                raise IntegrityError(f"{_name(m)}: a reveal must be {{slot, value, salt}}")
            slot, value, salt = item["slot"], item["value"], item["salt"]
            if not all(isinstance(x, str) for x in (slot, value, salt)):
                raise IntegrityError(f"{_name(m)}: reveal fields must be strings")
            if (side, slot) not in self.commitments:
                raise HiddenInfoError(f"{_name(m)}: {side} reveals slot {slot!r}, which {side} never committed")
            if (side, slot) in self.reveals:
                raise HiddenInfoError(f"{_name(m)}: slot {slot!r} of {side} was already revealed")
            if not HEX32.match(salt):
                raise HiddenInfoError(f"{_name(m)}: salt of slot {slot!r} is not 64 lowercase hex digits")
            salt_raw = bytes.fromhex(salt)
            committed, _ = self.commitments[(side, slot)]
            try:
                sealed.check_opening(self.game, msg.author, slot, value, salt_raw, committed)
            except HiddenInfoError as err:
                raise HiddenInfoError(f"{_name(m)}: {err}") from err
            self.reveals[(side, slot)] = Reveal(side, slot, value, m)
        blob = msg.field("sealed", str)
        if blob:
            try:
                base64.b64decode(blob, validate=True)
            except (binascii.Error, ValueError) as err:
                raise IntegrityError(f"{_name(m)}: sealed store is not base64") from err

    # ------------------------------------------------------------------ audit

    def audit(self) -> list[str]:
        """Problems found when every per-game secret is known (empty = all holds).

        Decrypts each side's sealed stores and rechecks every commitment
        against the value sealed in the same message (docs/protocol.md §7.5).
        """
        problems = []
        for side in self.sides:
            if side not in self.secrets:
                problems.append(f"missing reveal at audit: {side} never revealed its per-game secret")
        if problems:
            return problems
        for m, msg in enumerate(self.messages):
            side = msg.side
            commitments = msg.body["commitments"]
            blob = msg.body["sealed"]
            if not blob:
                if commitments:
                    problems.append(f"{_name(m)}: commitments without a sealed store")
                continue
            try:
                store = sealed.open_store(self.secrets[side], self.game, msg.author, m, base64.b64decode(blob))
            except (HiddenInfoError, IntegrityError) as err:
                problems.append(f"{_name(m)}: {err}")
                continue
            for slot in commitments:
                if slot not in store:
                    problems.append(f"{_name(m)}: slot {slot!r} committed but absent from the sealed store")
            # Every store must hold, for every slot committed so far, the
            # committed value: a later store cannot rewrite an earlier slot.
            for (owner, slot), (committed, since) in self.commitments.items():
                if owner != side or since > m or slot not in store:
                    continue
                salt = sealed.salt_for(self.secrets[side], slot)
                try:
                    sealed.check_opening(self.game, msg.author, slot, store[slot], salt, committed)
                except HiddenInfoError as err:
                    problems.append(f"{_name(m)}: sealed store: {err}")
        for (side, slot), reveal in self.reveals.items():
            expected = sealed.salt_for(self.secrets[side], slot)
            revealed_salt = next(
                r["salt"] for r in self.messages[reveal.seq].body["reveals"] if r["slot"] == slot
            )
            if revealed_salt != expected.hex():
                problems.append(f"{_name(reveal.seq)}: salt of slot {slot!r} is not the one {side}'s secret derives")
        return problems
