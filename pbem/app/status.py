"""All my games at a glance (``pbem status``): for each game directory, the
game, the opponent, the turn and phase, whose move it is and how old the
last message is.

Every game is loaded and verified as a spectator would (no passphrase is
needed: the player's side is found from the public key), so a directory
whose files do not verify shows the problem instead of a status.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from pbem.errors import PbemError, UsageError, VerificationError
from pbem.mail.outbox import GameMail
from pbem.match import session
from pbem.match.directory import GameDirectory
from pbem.protocol.keystore import Keystore, home_dir


@dataclass
class GameStatus:
    directory: Path
    module: str = ""
    game: str = ""
    you: str | None = None
    opponent: str = ""  # side
    opponent_key: str = ""  # fingerprint
    opponent_address: str = ""
    messages: int = 0
    turn: int | None = None
    phase: str = ""
    next_seq: int | None = None
    next_side: str | None = None
    your_move: bool = False
    over: bool = False
    closed: bool = False
    last_file: str = ""
    last_age: float | None = None  # seconds since the last message file was written
    pending_dice: int = 0
    error: str = ""
    fails_verification: bool = False  # the files are a game that fails verification (else: not a readable game)

    @property
    def whose_move(self) -> str:
        if self.error:
            return "?"
        if self.closed:
            return "closed"
        who = self.next_side or "?"
        if self.over:
            return f"closing: {'you' if self.your_move else who}"
        return "YOU" if self.your_move else who

    def to_json(self) -> dict[str, Any]:
        return {
            "directory": str(self.directory),
            "module": self.module,
            "game": self.game,
            "you": self.you,
            "opponent": {"side": self.opponent, "fingerprint": self.opponent_key, "address": self.opponent_address},
            "messages": self.messages,
            "turn": self.turn,
            "phase": self.phase,
            "next": None if self.next_seq is None else {"seq": self.next_seq, "side": self.next_side},
            "your_move": self.your_move,
            "over": self.over,
            "closed": self.closed,
            "last_message": self.last_file,
            "last_message_age_seconds": None if self.last_age is None else int(self.last_age),
            "pending_dice": self.pending_dice,
            "error": self.error,
            "fails_verification": self.fails_verification,
        }


def game_dirs(paths: Iterable[str | Path] = (), home: str | Path | None = None) -> list[Path]:
    """The directories to look at: ``paths`` if any, else every
    subdirectory of the keystore's games folder holding message files, and
    every game created or joined with this keystore's key wherever it is
    (:meth:`~pbem.protocol.keystore.Keystore.record_game`; one moved or
    removed since is left out)."""
    given = [Path(p) for p in paths]
    if given:
        return given

    store = Keystore(Path(home) if home else home_dir())
    root = store.games_dir
    candidates = sorted(root.iterdir()) if root.is_dir() else []
    candidates += store.game_places()
    found, seen = [], set()
    for entry in candidates:
        key = entry.resolve()
        if key in seen:
            continue
        seen.add(key)
        try:
            if entry.is_dir() and GameDirectory(entry).exists():
                found.append(entry)
        except PbemError:
            found.append(entry)  # two files for one seq: show it with its error
    return found


def game_status(
    directory: str | Path, fingerprint: str | None = None, *, identity: Any = None, now: float | None = None
) -> GameStatus:
    """The status of one game directory for the player with key
    ``fingerprint``.  With the player's ``identity`` the dice keyed by the
    opponent's last message are computed as on receipt (the phase is then
    the one the player is in); without it, as any spectator sees it."""
    directory = Path(directory)
    status = GameStatus(directory)
    try:
        try:
            match = session.load(directory, identity)
        except UsageError:
            if identity is None:
                raise
            match = session.load(directory, None)  # not one of this game's players
    except PbemError as err:
        status.error = str(err)
        status.fails_verification = isinstance(err, VerificationError)
        return status
    transcript, replay = match.transcript, match.replay
    status.module = transcript.setup["module"]
    status.game = transcript.game
    status.messages = len(transcript)
    status.you = transcript.side_for_key(fingerprint) if fingerprint else None
    if status.you is not None:
        status.opponent = transcript.opponent(status.you)
    else:
        status.opponent = " / ".join(transcript.sides)
    if status.you is not None:
        status.opponent_key = transcript.keys[status.opponent].fingerprint
    try:
        status.opponent_address = GameMail.load(directory).to
    except PbemError:
        status.opponent_address = ""
    view = match.game.view(replay.state, None)
    status.turn = view.get("turn")
    status.phase = str(view.get("phase") or "")
    status.over = replay.over
    status.closed = match.closed
    if not status.closed:
        status.next_seq, status.next_side = replay.next_seq, replay.next_side
        status.your_move = status.you is not None and replay.next_side == status.you
    status.pending_dice = len(replay.pending)
    last = match.last_file()
    status.last_file = last.name
    status.last_age = max(0.0, (now if now is not None else time.time()) - last.stat().st_mtime)
    return status


def statuses(
    paths: Iterable[str | Path] = (),
    fingerprint: str | None = None,
    *,
    identity: Any = None,
    home: str | Path | None = None,
    progress: Callable[[int, int, str], Any] | None = None,
) -> list[GameStatus]:
    """The status of every game (see :func:`game_dirs`), yours to move first,
    then by age of the last message (oldest first)."""
    dirs = game_dirs(paths, home)
    found = []
    for i, directory in enumerate(dirs):
        if progress:
            progress(i, len(dirs), str(directory))
        found.append(game_status(directory, fingerprint, identity=identity))
    if progress:
        progress(len(dirs), len(dirs), "done")
    return sorted(found, key=lambda s: (bool(s.error), not s.your_move, s.closed, -(s.last_age or 0), str(s.directory)))


def age(seconds: float | None) -> str:
    """``95 -> "1m"``, ``7200 -> "2h"``, ``200000 -> "2d"``."""
    if seconds is None:
        return "?"
    seconds = int(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


__all__ = ["GameStatus", "age", "game_dirs", "game_status", "statuses"]
