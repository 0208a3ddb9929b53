"""``pbem receive`` for a whole mailbox (:func:`import_sources`): every
message of *this* game, in order, each verified and imported by
:func:`pbem.match.session.receive`; a message already held is skipped (not an
error, as it is for a single file); messages of other games are reported and
left alone; a message that cannot be imported yet (a gap in the sequence)
waits for the next run.  What is in the mail is :mod:`pbem.protocol.scan`'s.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from pbem.errors import AuthenticityError, InputError, IntegrityError, UsageError, VerificationError
from pbem.match import session
from pbem.match.directory import GameDirectory
from pbem.protocol import sshsig
from pbem.protocol.scan import Found, Progress, Scan, nothing_in, scan_sources

# --------------------------------------------------------------------------- importing


@dataclass
class ImportReport:
    """What :func:`import_sources` did."""

    imported: list[Path] = field(default_factory=list)
    already: list[Found] = field(default_factory=list)  # held already: skipped
    other_games: list[Found] = field(default_factory=list)  # left alone
    waiting: list[Found] = field(default_factory=list)  # a gap before them
    restored: Found | None = None  # message 0 this directory was begun again from
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    match: Any = None  # the game after the import (pbem.match.session.Match)
    first_new: int | None = None
    findings: list[Any] = field(default_factory=list)  # unsigned summaries that said something else (summary.Finding)

    def to_json(self) -> dict[str, Any]:
        def item(f: Found) -> dict[str, Any]:
            return {"origin": f.origin, "game": f.message.game, "seq": f.message.seq, "side": f.message.side}

        return {
            "imported": [str(p) for p in self.imported],
            "already_imported": [item(f) for f in self.already],
            "other_games": [item(f) for f in self.other_games],
            "waiting": [item(f) for f in self.waiting],
            "restored_from": item(self.restored) if self.restored else None,
            "unreadable": [{"origin": o, "error": why} for o, why in self.unreadable],
            "warnings": [f.to_json() for f in self.findings],
        }


def _check_waiting_signatures(transcript: Any, waiting: list[Found]) -> None:
    """Turn files that wait for a message before them are kept (in watch's
    spool: until it arrives) only when the player of their side signed
    them: a stranger's -- or a forger's -- is refused now, not kept for ever
    unchecked (issue 27 m2)."""
    for item in waiting:
        msg = item.message
        key = transcript.keys.get(msg.side) if isinstance(msg.side, str) else None
        if key is None:
            raise AuthenticityError(f"{item.label}: message {msg.seq:04d} names the side {msg.side!r}, not a side of "
                                    f"this game ({', '.join(transcript.keys)})")
        try:
            sshsig.verify(msg.signature, msg.body_bytes, "pbem-turn-v1", expected=key)
        except VerificationError as err:
            raise AuthenticityError(f"{item.label}: message {msg.seq:04d}, which waits for message "
                                    f"{len(transcript):04d} before it, is not signed by {msg.side}'s key "
                                    f"{key.fingerprint}: {err}") from err


def import_sources(
    directory: str | Path,
    sources: Iterable[str | Path],
    identity: Any,
    *,
    stdin: bytes | None = None,
    progress: Progress | None = None,
    game: str | None = None,
) -> ImportReport:
    """Verify and import every message of this game found in ``sources``, in
    order (see the module docstring).  Each import is
    :func:`pbem.match.session.receive` of one message: verified against all
    that precedes it and written atomically; an import that fails raises,
    keeping those before it.

    Into an empty (or new) ``directory`` the game is begun again from its
    message 0 in ``sources`` -- the one game there with your key, or the one
    whose id starts with ``game`` -- and your own messages are imported with
    your opponent's: a whole game restored from a mailbox and your key."""
    sources = list(sources)
    scan = scan_sources(sources, stdin=stdin)
    if not scan.found:
        nothing_in(scan, ", ".join(str(s) for s in sources))
    restored = None
    findings: list[Any] = []
    if not GameDirectory(directory).message_files():
        restored = _first_message(scan, identity, game)
        match = session.start_from(directory, restored.message, identity, restored.summary, warn=findings.append)
    else:
        match = session.load(directory, identity)
    game_id = match.transcript.game
    report = ImportReport(unreadable=list(scan.unreadable), match=match, restored=restored, findings=findings)
    ours: list[Found] = []
    copies: set[bytes] = set()
    for item in scan.found:
        if item.message.game != game_id:
            report.other_games.append(item)
        elif item.message.body_bytes not in copies:
            copies.add(item.message.body_bytes)
            ours.append(item)
    ours.sort(key=lambda f: f.message.seq)
    held = match.transcript.messages
    todo = []
    for item in ours:
        seq = item.message.seq
        if seq < len(held) and held[seq].body_bytes == item.message.body_bytes:
            if not (restored is not None and seq == 0):  # the message 0 the restore began from is not "already held"
                report.already.append(item)
        else:
            todo.append(item)

    with tempfile.TemporaryDirectory(prefix="pbem-import-") as tmp:
        for done, item in enumerate(todo):
            length = len(match.transcript)
            if item.message.seq > length:
                report.waiting = todo[done:]
                _check_waiting_signatures(match.transcript, report.waiting)
                break
            if progress:
                progress(done, len(todo), item.label)
            path = Path(tmp) / f"{done:04d}-{item.message.seq:04d}.pbem"
            path.write_text(item.message.armored(item.summary), encoding="utf-8")
            result = session.receive(directory, [path], identity)
            report.imported += result.imported
            report.findings += result.findings
            if report.first_new is None:
                report.first_new = item.message.seq
            match = result.match
        if progress:
            progress(len(todo) - len(report.waiting), len(todo), "done")
    report.match = match
    return report


def _first_message(scan: Scan, identity: Any, game: str | None) -> Found:
    """Message 0 of the one game in ``scan`` that has ``identity``'s key (or whose id starts with ``game``)."""
    mine = identity.public.openssh().split()[1]
    firsts: dict[str, Found] = {}
    for item in scan.found:
        msg = item.message
        if msg.seq != 0 or (game and not msg.game.startswith(game)):
            continue
        keys = ((msg.body.get("setup") or {}).get("keys") or {}).values()
        if any(isinstance(k, str) and mine in k.split() for k in keys):
            kept = firsts.setdefault(msg.game, item)
            if kept.message.body_bytes != msg.body_bytes:
                raise IntegrityError(
                    f"two different messages 0000 of game {msg.game[:12]}... ({kept.origin}; {item.origin}): "
                    f"one is not the proposal you joined (a re-sent or forged one); restore from sources "
                    f"that hold only the right one"
                )
    if not firsts:
        which = f"game {game}..." if game else "a game with your key"
        raise InputError(f"no message 0000 of {which} in what was read; to restore a game its first message is needed")
    if len(firsts) > 1:
        ids = ", ".join(sorted(g[:12] for g in firsts))
        raise UsageError(f"messages 0000 of several games with your key were found ({ids}); choose one with --game ID")
    return next(iter(firsts.values()))


__all__ = ["ImportReport", "import_sources"]
