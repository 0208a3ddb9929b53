"""The unsigned summary of a turn file (docs/protocol.md §2.3): the ``| `` lines above
the armoured block, for the reader.  Only the block is signed; anyone who
handles the file can write anything there.

So pbem writes every summary itself: for a message it plays, and for one it
imports (receive, import from mail, join, a restore) -- the summary the
sender's pbem wrote for that message, computed again from the verified body
by the one function both use, :func:`message_summary`.  What the sender's
file said instead is a :class:`Finding`: a warning, never an error.

Why both ends compute the same text: a message's events are those its
replay lists under its seq -- the dice of the message before it, completed
by its chain value, and what its own actions do -- and the messages up to
it fix them all.  The dice the message keys itself are rolled with the
reply's chain value: a recipient keys them provisionally with the value it
will reveal next (:func:`pbem.match.replay.extend`) and lists them under
the next seq, so they never enter this message's summary.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from pbem.engine import contract
from pbem.engine.history import newest
from pbem.errors import HiddenInfoError, IntegrityError, PbemError
from pbem.match.directory import GameDirectory, message_name
from pbem.protocol import scan, sealed
from pbem.protocol.message import BEGIN, SignedMessage, clean_lines
from pbem.protocol.scan import summary_above

SHOWN = 160  # characters of a line quoted in a warning, at most


# --------------------------------------------------------------------------- what pbem writes


def summary_lines(game: str, seq: int, side: str, extra: Iterable[str] = ()) -> str:
    return "\n".join([f"{game} game, message {seq:04d} from {side}", *extra])


def message_summary(game: Any, transcript: Any, seq: int, events: Iterable[Any] = ()) -> str:
    """The summary pbem writes for message ``seq`` of ``transcript``: the
    game, seq and side; for message 0 the proposal (whom to, the game id,
    the rulings it declares),
    for message 1 the acceptance; then a sentence for each of ``events``,
    the message's events (:func:`events_of`).  Message 0's are not listed."""
    msg = transcript.messages[seq]
    side = msg.side
    if seq == 0:
        other = transcript.opponent(side)
        extra = [f"proposal to {other} ({transcript.keys[other].fingerprint})", f"game id {transcript.game}"]
        options = transcript.setup.get("options") or {}
        if "rulings" in options:  # a proposal that declares its rulings lists them (one made before names none)
            extra += [f"ruling {r.line()}" for r in contract.declared_rulings(game, options)]
    else:
        extra = (["accepts the proposal"] if seq == 1 else []) + [e.sentence() for e in events]
    return summary_lines(game.name, seq, side, extra)


def events_of(replay: Any, seq: int) -> list[Any]:
    """The events ``replay`` lists under message ``seq``, read from the end
    (those of a recent message unpickle nothing).  The dice of the last
    message keyed provisionally are listed under the next seq: not these."""
    return [e for s, e in newest(replay.events, lambda item: item[0] >= seq) if s == seq]


def summary_of(replay: Any, seq: int) -> str:
    """:func:`message_summary` of message ``seq`` of ``replay``'s transcript."""
    return message_summary(replay.game, replay.transcript, seq, events_of(replay, seq))


def every_summary(replay: Any) -> list[str]:
    """:func:`summary_of` every message of ``replay``, in one pass over its events."""
    events: list[list[Any]] = [[] for _ in range(len(replay.transcript))]
    for s, e in replay.events:
        if s < len(events):
            events[s].append(e)
    return [message_summary(replay.game, replay.transcript, seq, found) for seq, found in enumerate(events)]


# --------------------------------------------------------------------------- what the sender's file said


def claimed_in(paths: Iterable[str | Path], read: Mapping[Path, bytes] | None = None) -> dict[bytes, tuple[Path, str]]:
    """The unsigned summary above each armoured block in ``paths`` (turn
    files, pasted text, emails, mbox files), by the block's body bytes, with
    the file it is in: what its sender's file said.  The first copy of a
    body wins; a file that cannot be read has nothing to say.  ``read``:
    files' bytes already read, by path."""
    found: dict[bytes, tuple[Path, str]] = {}
    for path in paths:
        path = Path(path)
        try:
            data = read[path] if read and path in read else path.read_bytes()
        except OSError:
            continue
        try:
            blocks = _blocks_in(data, path.name)
        except PbemError:
            continue
        for msg, summary in blocks:
            found.setdefault(msg.body_bytes, (path, summary))
    return found


def _blocks_in(data: bytes, name: str) -> list[tuple[Any, str]]:
    """(message, the summary above it) of each armoured block in ``data``,
    read as :func:`pbem.match.session.read_messages` reads it: mail by the
    mail scanner, text (a turn file) by the armour reader, whose bodies
    stay undecoded."""
    if scan.looks_like_mail(data) or scan.looks_like_mbox(data):
        return [(item.message, item.summary) for item in scan.scan_bytes(data, name).found]
    text = data.decode("utf-8", errors="replace")
    lines = clean_lines(text)
    begins = [i for i, line in enumerate(lines) if line == BEGIN]
    return [(msg, scan.summary_above(lines, i)) for msg, i in zip(SignedMessage.all_from_text(text, source=name), begins, strict=False)]


def lines_of(summary: str) -> list[str]:
    """A summary's lines as compared: mail quoting, surrounding blanks and
    empty lines are not part of what it says."""
    return [line for line in clean_lines(summary) if line]


def quoted(line: str) -> str:
    """``line`` in double quotes for a warning: control and other unprintable
    characters escaped (a hostile summary cannot drive the terminal), a long
    line cut at :data:`SHOWN` characters."""
    shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in line)
    if len(shown) > SHOWN:
        shown = shown[: SHOWN - 3] + "..."
    return f'"{shown}"'


@dataclass(frozen=True)
class Finding:
    """A turn file whose unsigned summary said something else than its
    signed message: the first difference.  ``claimed`` is the sender's line
    (None: its summary stops short), ``signed`` pbem's line there (None:
    the sender's adds one); ``replaced``: pbem wrote its own in its place."""

    where: str
    seq: int
    claimed: str | None
    signed: str | None
    replaced: bool

    def __str__(self) -> str:
        if self.claimed is None:
            said = f"the unsigned summary leaves out {quoted(self.signed or '')}, which the signed message says"
        elif self.signed is None:
            said = f"the unsigned summary adds {quoted(self.claimed)}, which the signed message does not say"
        else:
            said = f"the unsigned summary says {quoted(self.claimed)} where the signed message says {quoted(self.signed)}"
        return f"{self.where}: {said} ({'pbem wrote its own' if self.replaced else 'only the signed message counts'})"

    def to_json(self) -> dict[str, Any]:
        return {"file": self.where, "seq": self.seq, "unsigned": self.claimed, "signed": self.signed,
                "replaced": self.replaced, "warning": str(self)}


def compare(where: str, seq: int, claimed: str, signed: str, *, replaced: bool) -> Finding | None:
    """The first difference between the summary a file came with and the one
    pbem writes (:func:`message_summary`); None when they agree or the file
    had no summary at all."""
    theirs, ours = lines_of(claimed), lines_of(signed)
    if not theirs:
        return None
    for a, b in zip(theirs, ours, strict=False):
        if a != b:
            return Finding(where, seq, a, b, replaced)
    if len(theirs) > len(ours):
        return Finding(where, seq, theirs[len(ours)], None, replaced)
    if len(theirs) < len(ours):
        return Finding(where, seq, None, ours[len(theirs)], replaced)
    return None


def check_files(paths: Iterable[str | Path], replay: Any, read: Mapping[Path, bytes] | None = None) -> list[Finding]:
    """``pbem verify``: each file's summary against what its message says,
    for every message of ``replay`` in ``paths`` (directories or files).  A
    game directory's file holds the message its name gives (verify has
    checked): only its head is read.  ``read``: files' bytes already read,
    by path (the others are read now)."""
    read = read or {}
    by_seq: dict[int, tuple[Path, str]] = {}
    loose: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for seq, _, path in GameDirectory(p).message_files():
                by_seq.setdefault(seq, (path, _summary_at_head(path, read.get(path))))
        else:
            loose.append(p)
    by_body = claimed_in(loose, read) if loose else {}
    written = every_summary(replay)
    findings = []
    for seq, msg in enumerate(replay.transcript.messages):
        claim = by_seq.get(seq) or by_body.get(msg.body_bytes)
        if claim is None:
            continue
        path, claimed = claim
        where = path.name if path.name == message_name(seq, msg.side) else f"{path.name} (message {seq:04d})"
        found = compare(where, seq, claimed, written[seq], replaced=False)
        if found is not None:
            findings.append(found)
    return findings


def _summary_at_head(path: Path, data: bytes | None = None) -> str:
    """The summary above the first armoured block of the file ``path``
    (whose bytes are ``data`` when already read)."""
    try:
        text = (path.read_bytes() if data is None else data).decode("utf-8", errors="replace")
    except OSError:
        return ""
    end = text.find(BEGIN)
    head = text[: end + len(BEGIN)] if end >= 0 else ""
    lines = clean_lines(head)
    return summary_above(lines, len(lines) - 1) if lines[-1] == BEGIN else ""


__all__ = [
    "Finding",
    "check_files",
    "claimed_in",
    "compare",
    "events_of",
    "every_summary",
    "message_summary",
    "summary_lines",
    "summary_of",
]


def revealed_at_end(transcript: Any) -> dict[tuple[str, str], str]:
    """(side, slot) -> the value of every sealed slot that a side's per-game
    secret, published in its closing message, opens (issue 30): a sealed
    note nobody revealed during the game is known to all once the game is
    over.  Empty for a side whose secret is not published; a store that
    does not open is left out (``verify --audit`` reports it)."""
    found: dict[tuple[str, str], str] = {}
    for m, msg in enumerate(transcript.messages):
        side, blob = msg.side, msg.body.get("sealed")
        if not blob or side not in transcript.secrets:
            continue
        try:
            store = sealed.open_store(transcript.secrets[side], transcript.game, msg.author, m, base64.b64decode(blob))
        except (HiddenInfoError, IntegrityError, ValueError):
            continue
        for slot, value in store.items():
            found.setdefault((side, slot), value)
    return found
