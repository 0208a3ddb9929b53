"""Whole-process timing: what a user waits for, at a terminal and in a pipe.

Used by ``benchmarks/run.py --only goals`` (the figures of issue 29) and by
``tests/test_timing_goals.py`` (the start-up goals as a test).  A command is
run as a child process, with its output either on a pseudo-terminal (Python's
:mod:`pty` pair: the child's stdin, stdout and stderr are the terminal, so
rich draws for a terminal; no ``script`` process in between, so the CPU time
counted is the command's alone) or on a pipe the parent drains.  Each run
gives the child's CPU time (user + system, the delta of
``getrusage(RUSAGE_CHILDREN)`` around it) and its wall time.

Games are built through the real protocol (:func:`build_dice_game`) with two
keystores; a command that writes (``receive``, ``play``) runs in a copy of
its own that is put back as it was after each run (:class:`Scene`), so
every run does the same work.
"""

from __future__ import annotations

import fcntl
import os
import resource
import select
import shutil
import operator
import statistics
import struct
import subprocess
import sys
import termios
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

#: the terminal every run sees: a pty of this size, and the same COLUMNS/LINES in a pipe
COLUMNS, LINES = 120, 40
#: dice orders for every message of a built game, and for ``pbem play``
ROLLS = {"order": [{"type": "roll", "dice": "2d6+1", "note": f"fire {i}"} for i in range(4)]}
ROLLS_TOML = "".join(f'[[order]]\ntype = "roll"\ndice = "2d6+1"\nnote = "fire {i}"\n\n' for i in range(4))


def pbem_command() -> list[str]:
    """How to start pbem: the installed script when there is one."""
    script = Path(sys.executable).parent / "pbem"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "pbem"]


def child_env(pycache: Path, home: Path | None = None) -> dict[str, str]:
    """The environment of a timed child: bytecode written and read (in
    ``pycache``, outside the source tree), a fixed terminal size, no colour
    choices inherited, and ``PBEM_HOME`` when given."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "NO_COLOR", "FORCE_COLOR")}
    env.update(PYTHONPYCACHEPREFIX=str(pycache), COLUMNS=str(COLUMNS), LINES=str(LINES),
               TERM="xterm-256color", PYTHONUNBUFFERED="1")
    env.pop("PBEM_HOME", None)
    if home is not None:
        env["PBEM_HOME"] = str(home)
    return env


@dataclass
class Run:
    cpu: float  # seconds of the child's CPU, user + system
    wall: float  # seconds from start to exit
    output: bytes


class CommandFailed(RuntimeError):
    pass


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(cmd: Sequence[str], env: dict[str, str], tty: bool, stdin: Path | None = None,
             timeout: float = 120.0) -> Run:
    """One run of ``cmd``, its output on a pseudo-terminal (``tty``) or a
    pipe, fully read; its input the terminal too, or nothing, or the file
    ``stdin``.  No other child may run meanwhile: the CPU time is the
    difference of what this process's waited-for children used."""
    source = open(stdin, "rb") if stdin is not None else None  # noqa: SIM115 - closed below
    try:
        return _run(cmd, env, tty, source, timeout)
    finally:
        if source is not None:
            source.close()


def _run(cmd: Sequence[str], env: dict[str, str], tty: bool, source: Any, timeout: float) -> Run:
    before = _children_cpu()
    start = time.perf_counter()
    if tty:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        try:
            proc = subprocess.Popen(list(cmd), env=env, stdin=source or slave, stdout=slave, stderr=slave,
                                    start_new_session=True)
        finally:
            os.close(slave)
        chunks = []
        deadline = start + timeout
        try:
            while True:
                ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.perf_counter()))
                if not ready:
                    proc.kill()
                    proc.wait()
                    raise CommandFailed(f"{' '.join(cmd)}: no end after {timeout:.0f} s (waiting for input?)")
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: every holder of the terminal's other end has closed it
                    break
                if not data:
                    break
                chunks.append(data)
        finally:
            os.close(master)
        code = proc.wait()
        output = b"".join(chunks)
    else:
        done = subprocess.run(list(cmd), env=env, stdin=source or subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout)
        code, output = done.returncode, done.stdout
    wall = time.perf_counter() - start
    cpu = _children_cpu() - before
    if code:
        raise CommandFailed(f"{' '.join(cmd)} failed ({code}):\n{output.decode(errors='replace')[-2000:]}")
    return Run(cpu, wall, output)


@dataclass
class Times:
    """The runs of one command: CPU and wall time of each."""

    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)

    def add(self, run: Run) -> None:
        self.cpu.append(run.cpu)
        self.wall.append(run.wall)

    @property
    def min_cpu(self) -> float:
        return min(self.cpu)

    @property
    def median_cpu(self) -> float:
        return statistics.median(self.cpu)

    @property
    def min_wall(self) -> float:
        return min(self.wall)

    @property
    def median_wall(self) -> float:
        return statistics.median(self.wall)


def paired_median(a: Times, b: Times, combine: Callable[[float, float], float] = operator.truediv) -> float:
    """The median over the rounds of ``combine(a's CPU, b's CPU)`` in the same
    round (their ratio by default): each round's two runs saw the same
    machine, and one lucky or slow run moves neither the median nor its pair."""
    return statistics.median(combine(x, y) for x, y in zip(a.cpu, b.cpu, strict=True))


# --------------------------------------------------------------------------- scenes


@dataclass
class Scene:
    """A command as a user runs it: its whole argument list, the keystore it
    runs with, and -- for a command that writes -- the game directory and
    keystore to put back after each run (``restore``)."""

    argv: list[str]
    home: Path | None
    directory: Path | None = None  # a game directory the command adds files to
    snapshot: Path | None = None  # the keystore as it was, copied back after each run
    _names: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.directory is not None:
            self._names = set(os.listdir(self.directory))
            assert self.home is not None and self.snapshot is not None

    def run(self, tty: bool, pycache: Path) -> Run:
        try:
            return run_once(self.argv, child_env(pycache, self.home), tty)
        finally:
            self.restore()

    def restore(self) -> None:
        """Put the game directory and the keystore back as they were before
        the run: the files it added to the directory removed (the others are
        untouched, so the replay checkpoint still matches their stamps), the
        keystore copied back (checkpoints and kept views as they were)."""
        if self.directory is None:
            return
        assert self.home is not None and self.snapshot is not None
        for name in set(os.listdir(self.directory)) - self._names:
            path = self.directory / name
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
        shutil.rmtree(self.home)
        shutil.copytree(self.snapshot, self.home, symlinks=True)


@dataclass
class Batch:
    """Several processes run one after the other, timed together (one
    ``ssh-keygen -Y verify`` a message): each command with its input file."""

    commands: list[tuple[list[str], Path]]

    def run(self, tty: bool, pycache: Path) -> Run:
        env = child_env(pycache)
        runs = [run_once(cmd, env, tty, stdin) for cmd, stdin in self.commands]
        return Run(sum(r.cpu for r in runs), sum(r.wall for r in runs), b"".join(r.output for r in runs))


def pbem_scene(args: Sequence[str], home: Path | None = None, directory: Path | None = None,
               snapshot: Path | None = None) -> Scene:
    """``pbem ARGS`` with the keystore ``home``."""
    return Scene([*pbem_command(), *args], home, directory, snapshot)


def python_scene(code: str) -> Scene:
    """``python -c CODE``: a reference process."""
    return Scene([sys.executable, "-c", code], None)


def measure(scenes: dict[str, Scene | Batch], runs: int, tty: bool, pycache: Path, warm: int = 1) -> dict[str, Times]:
    """Every scene ``warm`` times untimed (bytecode, file cache, kept views),
    then ``runs`` rounds in which each takes its turn, so that all see the
    same machine: the times of each."""
    for _ in range(warm):
        for scene in scenes.values():
            scene.run(tty, pycache)
    times = {name: Times() for name in scenes}
    for _ in range(runs):
        for name, scene in scenes.items():
            times[name].add(scene.run(tty, pycache))
    return times


# --------------------------------------------------------------------------- games


@dataclass
class DiceGame:
    """A dice game of ``count`` messages played by two keystores, set out for
    the everyday commands:

    - ``look``: the game directory of the player to move, holding ``count``
      messages, with its keystore (the replay checkpoint and kept views
      current): for show, log, orders, status and play;
    - ``recv``: the same player one message earlier, with its keystore, and
      ``incoming``, the opponent's message ``count - 1`` to receive.
    """

    root: Path
    count: int
    look: Path
    look_home: Path
    recv: Path
    recv_home: Path
    incoming: Path
    seconds: float  # wall time of the build

    def scenes(self) -> dict[str, Scene]:
        """One scene per everyday command; receive and play put back after each run."""
        if not self.recv.exists():
            raise ValueError("built without the copy receive runs in (for_receive=False)")
        orders = self.root / "orders.toml"
        orders.write_text(ROLLS_TOML)
        play = self.root / "play"
        if not play.exists():
            shutil.copytree(self.root / "look", play, symlinks=True)
            _checkpoint(play / "game", play / "home")
            shutil.copytree(play / "home", play / "home.kept", symlinks=True)
        recv_kept = self.recv_home.with_name("home.kept")
        if not recv_kept.exists():
            shutil.copytree(self.recv_home, recv_kept, symlinks=True)
        return {
            "receive": pbem_scene(["receive", str(self.recv), str(self.incoming)], self.recv_home, self.recv,
                                  recv_kept),
            "play": pbem_scene(["play", str(play / "game"), "--orders", str(orders), "--yes"], play / "home",
                               play / "game", play / "home.kept"),
            "show": pbem_scene(["show", str(self.look)], self.look_home),
            "log": pbem_scene(["log", str(self.look)], self.look_home),
            "orders": pbem_scene(["orders", str(self.look)], self.look_home),
            "status": pbem_scene(["status", str(self.look)], self.look_home),
        }


def _identity(home: Path) -> Any:
    from pbem.protocol.keystore import Keystore

    return Keystore(home).load(lambda: None)


def _checkpoint(directory: Path, home: Path) -> None:
    """A load that keeps the replay checkpoint for ``directory`` (a copy is a
    new directory: its checkpoint is its own)."""
    from pbem.match import session

    session.load(directory, _identity(home))


def build_dice_game(root: Path, count: int, *, for_receive: bool = True,
                    orders: dict[str, Any] | None = None) -> DiceGame:
    """A dice game of ``count`` messages (at least 4) between two fresh
    keystores, four rolls a message (or ``orders``), under ``root``
    (``for_receive``: with the copy ``receive`` runs in; else ``recv`` is
    left unmade).

    Messages 0 and 1 are written by ``pbem new`` and ``join``'s functions,
    the last one by ``session.play`` and received with ``session.receive``
    (which keep the replay checkpoints, as the commands do).  Those between
    are written the way ``session.play`` writes them -- ``session.compose``
    signs the message and checks it on the game, the mover stores it with
    its summary -- and the opponent stores it as ``session.receive`` does
    (the transcript extended, which verifies it, the replay extended, the
    summary computed again), but in memory: neither reloads the game from
    its files for each message, which is what makes a long game slow to
    build, not the protocol."""
    from pbem.match import session
    from pbem.match.replay import extend
    from pbem.match.summary import events_of, message_summary, summary_of
    from pbem.protocol.keystore import Keystore

    if count < 4:
        raise ValueError("a built dice game has at least 4 messages")
    started = time.perf_counter()
    homes = {"first": root / "first-home", "second": root / "second-home"}
    dirs = {"first": root / "first-game", "second": root / "second-game"}
    ids = {side: Keystore(home).load_or_create(side.title()) for side, home in homes.items()}
    proposal = session.new_game(dirs["first"], "dice", "first", ids["second"].public, ids["first"])
    joined, _ = session.join_game(proposal, dirs["second"], ids["second"])
    session.receive(dirs["first"], [joined], ids["first"])
    matches = {side: session.load(dirs[side], ids[side], keep=False) for side in dirs}
    for seq in range(2, count - 1):
        side = "first" if seq % 2 == 0 else "second"
        other = "second" if side == "first" else "first"
        mine, theirs = matches[side], matches[other]
        draft, result = session.compose(mine, ROLLS if orders is None else orders)
        text = message_summary(mine.game, result.transcript, seq, events_of(result, seq))
        mine.directory.write_message(seq, side, draft.armored(text))
        trial = theirs.transcript.extended(draft)
        value = theirs.me.next_value(len(trial)) if trial.side_of(len(trial)) == other else None
        received = extend(theirs.replay, trial, next_value=value)
        theirs.directory.write_message(seq, side, draft.armored(summary_of(received, seq)))
        matches[side] = replace(mine, transcript=result.transcript, replay=result)
        matches[other] = replace(theirs, transcript=trial, replay=received)
    last = count - 1
    mover = "first" if last % 2 == 0 else "second"
    waiting = "second" if mover == "first" else "first"
    incoming = session.play(dirs[mover], ids[mover], ROLLS).path  # keeps the mover's checkpoint
    # the player to move next, one message before (receive) and with all of them (the rest)
    if for_receive:
        shutil.copytree(dirs[waiting], root / "recv" / "game")
        shutil.copytree(homes[waiting], root / "recv" / "home", symlinks=True)
        _checkpoint(root / "recv" / "game", root / "recv" / "home")
    shutil.copytree(dirs[waiting], root / "look" / "game")
    shutil.copytree(homes[waiting], root / "look" / "home", symlinks=True)
    session.receive(root / "look" / "game", [incoming], _identity(root / "look" / "home"))
    return DiceGame(root, count, root / "look" / "game", root / "look" / "home", root / "recv" / "game",
                    root / "recv" / "home", incoming, time.perf_counter() - started)
