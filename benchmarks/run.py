"""pbem's performance figures, each a ratio measured in the same run.

    python benchmarks/run.py              # everything; writes docs/performance.md
    python benchmarks/run.py --quick      # fewer repetitions, smaller scaling grid
    python benchmarks/run.py --out -      # print the report instead of writing it

See benchmarks/README.md for what is measured and why.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import hmac
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# --------------------------------------------------------------------------- helpers


# In-process figures are CPU times of this process (time.process_time): a
# busy machine delays a run without making it cost more CPU, so CPU time is
# what stays comparable between runs.  Start-up figures are wall times (what
# a user waits for), with the children's CPU time alongside.
clock = time.process_time


def interleaved(runs: int, *calls: Callable[[], Any]) -> list[float]:
    """The best CPU time of each call, the calls taking turns (same conditions for all)."""
    best = [math.inf] * len(calls)
    for _ in range(runs):
        for i, call in enumerate(calls):
            start = clock()
            call()
            best[i] = min(best[i], clock() - start)
    return best


def best_within(call: Callable[[], Any], budget: float = 0.25, least: int = 3) -> float:
    """Best CPU time over at least ``least`` calls and about ``budget`` seconds."""
    times: list[float] = []
    deadline = time.perf_counter() + budget
    while len(times) < least or time.perf_counter() < deadline:
        start = clock()
        call()
        times.append(clock() - start)
    return min(times)


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x: the growth exponent."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum((a - mx) ** 2 for a in lx)


def fmt_s(seconds: float) -> str:
    if seconds < 0.001:
        return f"{seconds * 1e6:.0f} µs"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


@dataclass
class Figure:
    section: str
    name: str
    measured: str
    reference: str
    ratio: float | None
    goal: str
    ok: bool | None
    note: str = ""

    def row(self) -> str:
        ratio = "" if self.ratio is None else f"{self.ratio:.2f}"
        verdict = {True: "meets", False: "**misses**", None: ""}[self.ok]
        return f"| {self.name} | {self.measured} | {self.reference} | {ratio} | {self.goal} | {verdict} |"


FIGURES: list[Figure] = []


def figure(*args: Any, **kwargs: Any) -> Figure:
    f = Figure(*args, **kwargs)
    FIGURES.append(f)
    print(f"  {f.name}: {f.measured} vs {f.reference}" + (f" = {f.ratio:.2f}" if f.ratio is not None else "")
          + (f" (goal {f.goal}: {'ok' if f.ok else 'MISSES'})" if f.ok is not None else ""), flush=True)
    return f


# --------------------------------------------------------------------------- demo games


def demo_games(where: Path) -> dict[str, Path]:
    from pbem.app import demo

    demo.run(where / "ambon", "ambon")
    demo.run(where / "dice", "dice")
    return {"ambon": where / "ambon", "dice": where / "dice"}


# --------------------------------------------------------------------------- 1. start-up


def pbem_command() -> list[str]:
    script = Path(sys.executable).parent / "pbem"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from pbem.cli import main; sys.argv[0] = 'pbem'; main()"]


def startup(games: dict[str, Path], runs: int, cache: Path) -> None:
    print("start-up (subprocess wall time, best of %d interleaved rounds)" % runs, flush=True)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache)  # a warm bytecode cache, outside the source tree
    env["COLUMNS"] = "120"
    py, pbem = sys.executable, pbem_command()
    ambon, dice = games["ambon"] / "kenji", games["dice"] / "ann"
    commands = {
        "bare": ([py, "-c", "pass"], None),
        "click": ([py, "-c", "import click"], None),
        "needed": ([py, "-c", "import click, rich.console, cryptography.hazmat.primitives.asymmetric.ed25519"], None),
        "help": (pbem + ["--help"], None),
        "show dice": (pbem + ["show", str(dice / "game")], dice / "keystore"),
        "show ambon": (pbem + ["show", str(ambon / "game")], ambon / "keystore"),
        "show ambon fresh": (pbem + ["show", "--fresh", str(ambon / "game")], ambon / "keystore"),
        "verify ambon": (pbem + ["verify", str(ambon / "game")], None),
    }

    def once(cmd: list[str], home: Path | None) -> tuple[float, float]:
        """Wall time and CPU time (user + system) of one run of ``cmd``."""
        e = dict(env, PBEM_HOME=str(home)) if home else env
        before = os.times()
        start = time.perf_counter()
        done = subprocess.run(cmd, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        elapsed = time.perf_counter() - start
        after = os.times()
        if done.returncode:
            raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        return elapsed, cpu

    for cmd, home in commands.values():
        once(cmd, home)  # warm the bytecode cache and the file system cache
    best = {name: math.inf for name in commands}
    cpu = {name: math.inf for name in commands}
    for _ in range(runs):  # round robin: every command sees the same machine load
        for name, (cmd, home) in commands.items():
            wall, used = once(cmd, home)
            best[name], cpu[name] = min(best[name], wall), min(cpu[name], used)

    def cpu_note(name: str, reference: str) -> str:
        return f"CPU time {fmt_s(cpu[name])} vs {fmt_s(cpu[reference])}: {cpu[name] / cpu[reference]:.2f}"

    t_click, t_needed = best["click"], best["needed"]
    figure("start-up", "`pbem --help`", fmt_s(best["help"]), f"`python -c 'import click'` {fmt_s(t_click)}",
           best["help"] / t_click, "<= 1.5", best["help"] / t_click <= 1.5, cpu_note("help", "click"))
    for game in ("dice", "ambon"):
        n = len(list(games[game].glob("*/game/*.pbem"))) // 2
        t_show = best[f"show {game}"]
        figure("start-up", f"`pbem show` ({game}, {n} messages)", fmt_s(t_show),
               f"`python -c 'import click'` {fmt_s(t_click)}", t_show / t_click, "<= 1.5", t_show / t_click <= 1.5,
               cpu_note(f"show {game}", "click") + "; the view kept from the last show (nothing changed since)")
    t_fresh = best["show ambon fresh"]
    figure("start-up", "`pbem show --fresh` (ambon): a show with no view kept", fmt_s(t_fresh),
           f"`import click, rich, cryptography` {fmt_s(t_needed)}", t_fresh / t_needed, "", None,
           cpu_note("show ambon fresh", "needed") + "; verifies, replays and draws the whole game")
    figure("start-up", "`pbem show --fresh` (ambon) vs `pbem verify` (ambon)", fmt_s(t_fresh),
           f"`pbem verify` {fmt_s(best['verify ambon'])}", t_fresh / best["verify ambon"], "", None,
           "the same load and replay, plus rich and the drawing")
    t_verify = best["verify ambon"]
    figure("start-up", "`pbem verify` (ambon), whole process", fmt_s(t_verify), "1 s", t_verify, "< 1 s",
           t_verify < 1, f"CPU time {fmt_s(cpu['verify ambon'])}")
    figure("start-up", "bare interpreter", fmt_s(best["bare"]), f"`import click` {fmt_s(t_click)}",
           best["bare"] / t_click, "", None, "for scale: the interpreter alone")


# --------------------------------------------------------------------------- 2. verify vs the crypto floor


def verify_floor(games: dict[str, Path], runs: int) -> None:
    print("verify vs the crypto floor (in process, best of %d)" % runs, flush=True)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from pbem.match import session
    from pbem.match.replay import replay
    from pbem.protocol import sshsig
    from pbem.protocol.transcript import Transcript

    directory = games["ambon"] / "kenji" / "game"
    session.verify([directory])  # load the game module and its data once
    messages = session.collect([directory])
    transcript = Transcript()
    for msg in messages:
        transcript.add(msg)
    game = session._game_for(transcript)
    # the floor: per message one Ed25519 verification of the SSHSIG signed
    # data (which needs SHA-512 of the body) and SHA-256 of the body (the
    # next message's prev); the keys and raw signatures extracted beforehand
    work = []
    for msg in messages:
        sig = sshsig.SshSignature.from_bytes(msg.signature)
        raw = sshsig._parse_signature(sig.signature)
        key = Ed25519PublicKey.from_public_bytes(sshsig._parse_public_key(sig.public_key).raw)
        work.append((key, raw, msg.body_bytes, sig.hash_algorithm))

    def floor() -> None:
        for key, raw, body, algorithm in work:
            key.verify(raw, sshsig._signed_data(sshsig.TURN_NAMESPACE, algorithm, body))
            hashlib.sha256(body).digest()

    def transcript_only() -> None:
        t = Transcript()
        for msg in session.collect([directory]):
            t.add(msg)

    t_verify, t_floor, t_replay, t_transcript = interleaved(
        runs, lambda: session.verify([directory]), floor, lambda: replay(game, transcript), transcript_only
    )
    size = sum(len(m.body_bytes) + len(m.signature) for m in messages)
    ratio = t_verify / (t_floor + t_replay)
    figure("verify", f"`session.verify` (ambon, {len(messages)} messages, {size // 1024} KiB)", fmt_s(t_verify),
           f"floor {fmt_s(t_floor)} + replay {fmt_s(t_replay)}", ratio, "<= 5", ratio <= 5)
    figure("verify", "read, parse and check the transcript (no replay)", fmt_s(t_transcript),
           f"crypto floor {fmt_s(t_floor)}", t_transcript / t_floor, "", None)
    figure("verify", "replay share of verify", fmt_s(t_replay), f"verify {fmt_s(t_verify)}",
           t_replay / t_verify, "", None)


# --------------------------------------------------------------------------- 3. adjudication scaling


class SynthData:
    """An AmbonData look-alike over a synthetic map: what
    pbem.games.ambon.movement and .supply read (map, charts, spec, zoc_reach)."""

    def __init__(self, gmap: Any, charts: Any, spec: Any):
        from pbem.games.ambon.data import AmbonData

        self.map, self.charts, self._spec, self._reach = gmap, charts, spec, {}
        self.movement_costs: dict[str, Any] = {}  # what AmbonData caches the movement callbacks in, if it does
        self.zoc_reach = AmbonData.zoc_reach.__get__(self)  # the real method

    def spec(self, piece: Any) -> Any:
        return self._spec


def synthetic_world(hexes: int, units: int, seed: int) -> tuple[Any, Any, list[str]]:
    """A square-ish map of ``hexes`` hexes (terrain, roads every 5th row and
    column, some rivers), ``units`` pieces split between the sides at random
    land hexes, and three beachheads on roads."""
    from fractions import Fraction

    from pbem.engine.hexes import Grid, Hexside, Layout
    from pbem.engine.mapdata import HEXSIDE_FEATURES, Charts, GameMap, TerrainType
    from pbem.games.ambon.data import Spec
    from pbem.games.ambon.state import ALLIED, JAPANESE, AmbonState, Piece

    rng = random.Random(seed)
    cols = max(2, round(math.sqrt(hexes)))
    rows = max(2, hexes // cols)
    grid = Grid(Layout("odd-q", 3, 3), (1, cols), (1, rows))
    terrain = {}
    for h in grid.hexes():
        terrain[h] = rng.choices(["clear", "forest", "mountain", "sea"], [70, 20, 7, 3])[0]
    sides: dict[str, set] = {f: set() for f in HEXSIDE_FEATURES}
    lay = grid.layout
    for r in range(1, rows + 1, 5):
        line = [lay.to_hex(c, r) for c in range(1, cols + 1)]
        for a, b in zip(line, line[1:], strict=False):
            if a.is_adjacent(b):
                sides["road"].add(Hexside(a, b))
    for c in range(1, cols + 1, 5):
        line = [lay.to_hex(c, r) for r in range(1, rows + 1)]
        for a, b in zip(line, line[1:], strict=False):
            sides["road"].add(Hexside(a, b))
    hexlist = list(grid.hexes())
    for h in rng.sample(hexlist, len(hexlist) // 10):
        n = rng.choice(h.neighbours())
        if grid.contains(n):
            sides["river"].add(Hexside(h, n))
    on_road = {h for side in sides["road"] for h in side.hexes}
    for h in on_road:
        if terrain[h] == "sea":
            terrain[h] = "clear"  # roads run on land
    gmap = GameMap(
        "synthetic", grid,
        {t: TerrainType(t, t, "#ffffff", t[0]) for t in ("clear", "forest", "mountain", "sea")},
        terrain, frozenset(), frozenset(), {}, {f: frozenset(s) for f, s in sides.items()}, {}, {}, {},
    )
    charts = Charts({"clear": 2, "forest": 4, "mountain": 6, "sea": None},
                    {"road": 1, "trail": 2, "river": 2, "leave_zoc": 2, "enter_zoc": 2}, {}, {})
    data = SynthData(gmap, charts, Spec("infantry", Fraction(3), 8))
    land = [h for h in hexlist if terrain[h] != "sea"]
    pieces = tuple(
        Piece(f"u{i}", JAPANESE if i % 2 == 0 else ALLIED, grid.label(rng.choice(land)))
        for i in range(units)
    )
    road_hexes = sorted(on_road)
    beachheads = tuple(grid.label(h) for h in rng.sample(road_hexes, 3))
    state = AmbonState(turn=3, phase="japanese-movement", pieces=pieces, beachheads=beachheads)
    return data, state, land


def scaling(hex_sizes: list[int], unit_sizes: list[int], runs: int, budget: float) -> None:
    print("adjudication scaling (best of >= %d runs and %.2f s per point)" % (runs, budget), flush=True)
    from pbem.engine.paths import reachable, validate_path
    from pbem.errors import IllegalOrderError
    from pbem.games.ambon import movement, supply
    from dataclasses import replace

    from pbem.games.ambon.state import JAPANESE

    def walk(data: Any, start: Any, cost: Any, rng: random.Random, steps: int = 3) -> list[Any]:
        path = [start]
        for _ in range(steps):
            options = [n for n in path[-1].neighbours() if n not in path and data.map.contains(n)
                       and cost(path[-1], n).halves is not None]
            if not options:
                break
            path.append(rng.choice(options))
        return path

    ops = ("ZOC", "movement validation", "reachable sets", "supply tracing", "Ambon movement phase")
    table: dict[str, dict[tuple[int, int], float]] = {op: {} for op in ops}

    def measure(hexes: int, units: int) -> None:
        """One cell of the table (a function, so the calls timed close over its own names)."""
        data, state, _ = synthetic_world(hexes, units, seed=hexes * 7919 + units)
        gmap, grid = data.map, data.map.grid
        movers = state.on_map(JAPANESE)
        rng = random.Random(1)
        cost = movement.movement_cost(data, state, JAPANESE)
        paths = [walk(data, gmap.hex(p.where), cost, rng) for p in movers]

        def zoc() -> None:
            movement.zoc_of(data, state, "allied")  # AmbonData keeps each hex's reach: warm, as in play

        def validate() -> None:
            c = movement.movement_cost(data, state, JAPANESE)  # once per phase: the callback
            for p, path in zip(movers, paths, strict=True):
                if len(path) > 1:
                    try:
                        validate_path(p.id, path, 8, c, grid=grid)
                    except IllegalOrderError:
                        pass

        def reach() -> None:
            c = movement.movement_cost(data, state, JAPANESE)
            for p in movers:
                reachable(gmap.hex(p.where), 8, c)

        def supplied() -> None:
            supply.supplied_hexes(data, state)

        def phase() -> None:
            # what order.move.Move.effect does for each order of a movement phase:
            # the cost callback of the current state, the path checked,
            # the piece moved hex by hex in the state
            s = state
            for p, path in zip(movers, paths, strict=True):
                if len(path) < 2:
                    continue
                c = movement.movement_cost(data, s, JAPANESE)
                try:
                    route = validate_path(p.id, path, 8, c, grid=grid)
                except IllegalOrderError:
                    continue
                spent = 0
                for h, paid in zip(route.hexes[1:], route.steps, strict=True):
                    spent += paid
                    s = s.with_piece(replace(s.piece(p.id), where=grid.label(h), spent=spent, moved=True))

        for op, call in zip(ops, (zoc, validate, reach, supplied, phase), strict=True):
            table[op][(hexes, units)] = best_within(call, budget, runs)
        print(f"  {hexes} hexes, {units} units: "
              + ", ".join(f"{op} {fmt_s(table[op][(hexes, units)])}" for op in ops), flush=True)

    for hexes in hex_sizes:
        for units in unit_sizes:
            measure(hexes, units)
    # Along the diagonal both grow tenfold at each step (one unit per ten
    # hexes throughout); the units exponent is taken on the largest map.
    # (Hexes alone, with the units fixed, would mix size with crowding: ten
    # units on 100 hexes block roads that they leave free on 10^4.)
    diagonal = [(h, u) for h, u in zip(sorted(hex_sizes), sorted(unit_sizes), strict=False)]
    big_h = max(hex_sizes)

    def decades(xs: list[int], ys: list[float]) -> str:
        steps = [f"{slope(xs[i:i + 2], ys[i:i + 2]):.2f}" for i in range(len(xs) - 1)]
        return "exponent per tenfold step: " + ", ".join(steps)

    for op in ops:
        ys = [table[op][point] for point in diagonal]
        xs = [h for h, _ in diagonal]
        exponent = slope(xs, ys)
        figure("scaling", f"{op}: hexes and units together ({', '.join(f'{h}/{u}' for h, u in diagonal)})",
               " / ".join(map(fmt_s, ys)), "linear = 1.0", exponent, "<= 1.2", exponent <= 1.2, decades(xs, ys))
        ys = [table[op][(big_h, u)] for u in unit_sizes]
        exponent = slope(unit_sizes, ys)
        figure("scaling", f"{op}: units alone ({big_h} hexes; {'/'.join(map(str, unit_sizes))} units)",
               " / ".join(map(fmt_s, ys)), "linear = 1.0", exponent, "<= 1.2", exponent <= 1.2,
               decades(unit_sizes, ys) + ("; independent of the number of units" if abs(exponent) < 0.3 else ""))
    SCALING_TABLE.update(table)


SCALING_TABLE: dict[str, dict[tuple[int, int], float]] = {}


# --------------------------------------------------------------------------- 4. dice


def dice_throughput(seconds: float) -> None:
    print("dice throughput", flush=True)
    from pbem.protocol.dice import DiceStream, roll

    key = hashlib.sha256(b"benchmark").digest()

    labels = [f"12.{i}/0" for i in range(100_000)]
    msg = [i.to_bytes(4, "big") for i in range(100_000)]
    stream = DiceStream(key, "bulk")
    candidates = {
        "hmac": (lambda i: hmac.new(key, msg[i % 100_000], hashlib.sha256).digest(), 20_000),
        "oneshot": (lambda i: hmac.digest(key, msg[i % 100_000], "sha256"), 20_000),
        "roll": (lambda i: roll(key, labels[i % 100_000], 1, 6), 5_000),
        "stream": (lambda i: stream.die(6), 20_000),
    }
    best = dict.fromkeys(candidates, 0.0)
    deadline = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < deadline:  # round robin: the same conditions for every candidate
        for name, (call, batch) in candidates.items():
            start = clock()
            for _ in range(batch):
                call(i)
                i += 1
            best[name] = max(best[name], batch / max(clock() - start, 1e-9))
    raw, raw_oneshot, single, bulk = best["hmac"], best["oneshot"], best["roll"], best["stream"]
    figure("dice", "one labelled d6 roll (`roll(key, label, 1, 6)`)", f"{single:,.0f} rolls/s",
           f"HMAC-SHA256 {raw:,.0f}/s", single / raw, f"ideal 0.5 ({single / raw / 0.5:.0%} of it)", None,
           "a fresh label costs two HMACs (the substream key and one block), so at most half as many rolls as HMACs")
    figure("dice", "d6 from one stream (`DiceStream.die(6)`)", f"{bulk:,.0f} rolls/s",
           f"HMAC-SHA256 {raw:,.0f}/s", bulk / raw, f"ideal 4 ({bulk / raw / 4:.0%} of it)", None,
           "one HMAC block gives four 64-bit words, so at most four dice per HMAC")
    figure("dice", "one-shot `hmac.digest` vs `hmac.new().digest()`", f"{raw_oneshot:,.0f}/s",
           f"{raw:,.0f}/s", raw_oneshot / raw, "", None, "the one-shot C call, for comparison: no faster here")


# --------------------------------------------------------------------------- 5. long games


def long_game(root: Path, sizes: list[int], step_at: tuple[int, int], runs: int) -> None:
    """A dice game built with pbem's own commands -- `session.play` by one
    player, `session.receive` by the other, two keystores, four rolls a
    message -- up to the largest of ``sizes``.  Figures: the CPU time of one
    receive + play at the two sizes of ``step_at`` -- copies of the game and
    both keystores as they stood then, played on in turns, one step each,
    ``runs`` times (the median; taking turns cancels the machine's drift) --
    and `verify` of a copy of the game at each of ``sizes`` (its growth
    exponent)."""
    import shutil

    from pbem.match import session
    from pbem.protocol.keystore import Keystore

    print(f"long game: a dice game of {max(sizes)} messages with pbem's own commands", flush=True)
    started = time.perf_counter()
    Keystore(root / "ann").load_or_create("Ann")
    Keystore(root / "bob").load_or_create("Bob")
    orders = {"order": [{"type": "roll", "dice": "2d6+1", "note": f"fire {i}"} for i in range(4)]}

    class Game:
        """The game and both keystores under ``where``, played one step (a play and its receive) at a time."""

        def __init__(self, where: Path):
            self.ann, self.bob = Keystore(where / "ann").load(lambda: None), Keystore(where / "bob").load(lambda: None)
            self.a, self.b = where / "a", where / "b"
            self.seq = len(list(self.a.glob("*.pbem")))

        def step(self) -> None:
            mine, me, theirs, them = ((self.a, self.ann, self.b, self.bob) if self.seq % 2 == 0
                                      else (self.b, self.bob, self.a, self.ann))
            result = session.play(mine, me, orders)
            session.receive(theirs, [result.path], them)
            self.seq += 1

    game = Game(root)
    first = session.new_game(game.a, "dice", "first", game.bob.public, game.ann)
    path, _ = session.join_game(first, game.b, game.bob)
    session.receive(game.a, [path], game.ann)
    game.seq = 2
    snapshots: dict[int, Path] = {}
    for seq in range(2, max(sizes) + 1):
        if seq in sizes:  # the game as it stands: seq messages
            snapshots[seq] = root / f"at-{seq}"
            shutil.copytree(game.a, snapshots[seq])
        if seq in step_at:  # and everything, to play on from here
            for name in ("a", "b", "ann", "bob"):
                shutil.copytree(root / name, root / f"step-{seq}" / name)
        if seq == max(sizes):
            break
        game.step()
    built = time.perf_counter() - started
    games = [Game(root / f"step-{n}") for n in step_at]
    for copy in games:  # a copy is a new directory: its first commands keep checkpoints for it
        copy.step(), copy.step()
    steps: list[list[float]] = [[] for _ in games]
    for _ in range(runs):
        for copy, times in zip(games, steps, strict=True):
            start = clock()
            copy.step()
            times.append(clock() - start)
    small, large = (statistics.median(times) for times in steps)  # a chunk merge now and then included
    figure("long", f"receive + play at {step_at[1]} messages / at {step_at[0]}", fmt_s(large), fmt_s(small),
           large / small, "<= 1.3 (flat)", large / small <= 1.3,
           f"the game of {max(sizes)} messages built in {built:.0f} s of wall time")
    from pbem.match.checkpoint import Stamps
    from pbem.match.directory import GameDirectory

    def listing(n: int) -> float:  # what receive and play each do once: list and stat the files, stamp them
        entries = GameDirectory(root / f"step-{n}" / "a").message_entries()
        return Stamps.of_entries(entries).hexdigest()

    few, many = (best_within(lambda n=n: listing(n), budget=0.2, least=5) for n in step_at)
    figure("long", f"of which listing the directory (twice a step) at {step_at[1]} / at {step_at[0]}",
           fmt_s(2 * many), fmt_s(2 * few), many / few, "", None,
           f"at least {2 * (many - few) / (large - small):.0%} of the growth of a step: one `stat` a message file, "
           f"which keeps a checkpoint from being trusted over the files")
    rest = (large - 2 * many) / (small - 2 * few)
    figure("long", f"receive + play at {step_at[1]} / at {step_at[0]}, less the listing", fmt_s(large - 2 * many),
           fmt_s(small - 2 * few), rest, "<= 1.3 (flat)", rest <= 1.3,
           "what a step costs besides the one stat a file: the verifying, replaying and writing of what is new")
    times = []
    for n in sizes:
        times.append(best_within(lambda n=n: session.verify([snapshots[n]]), budget=0.2, least=2))
    exponent = slope([float(n) for n in sizes], times)
    figure("long", f"`verify` of the dice game at {'/'.join(map(str, sizes))} messages",
           " / ".join(map(fmt_s, times)), "linear = 1.0", exponent, "<= 1.1", exponent <= 1.1,
           f"{max(sizes)} messages verified in {fmt_s(times[-1])} (goal: under 2 s at 1,000)")


def demo_wall(root: Path, runs: int) -> None:
    """`pbem demo` (Ambon, the whole game with the audit) as a player runs
    it, with the replay checkpoints and with ``PBEM_NO_CHECKPOINTS=1`` (every
    command replays the game from message 0, as before issue 15), in turns:
    the median wall time of each."""
    print(f"pbem demo with and without checkpoints ({runs} rounds)", flush=True)
    env = dict(os.environ, COLUMNS="120")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    walls: dict[bool, list[float]] = {True: [], False: []}
    for i in range(runs):
        for kept in (True, False):
            e = dict(env) if kept else dict(env, PBEM_NO_CHECKPOINTS="1")
            start = time.perf_counter()
            done = subprocess.run(pbem_command() + ["demo", "--dir", str(root / f"demo-{i}-{kept}")], env=e,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            walls[kept].append(time.perf_counter() - start)
            if done.returncode:
                raise SystemExit(f"pbem demo failed ({done.returncode}):\n{done.stderr}")
    kept, replayed = statistics.median(walls[True]), statistics.median(walls[False])
    figure("long", "`pbem demo` (Ambon) wall time: checkpoints / every command replaying from message 0",
           fmt_s(kept), fmt_s(replayed), kept / replayed, "", None,
           f"median of {runs}, in turns.  Not from this run: the code before issue 15 (7cb4b46) against "
           f"e029463, paired A/B of the whole process, 5 pairs, 2026-12-01: 10.4 s vs 2.3 s median wall")


def watch_turns(root: Path, games: int) -> None:
    """Issue 19: the messages of an Ambon game turn a player writes by hand,
    with `pbem watch` answering every message that decides nothing
    (:func:`pbem.app.watch.decisions_of`, what watch itself asks) and
    without it (every message by hand), over ``games`` demo games played by
    the bot: with the demo's standing instructions, and with every routine
    question answered in advance.  (tests/test_watch_imap.py plays such a
    game through real IMAP and SMTP servers with watch on both sides and
    checks that watch writes exactly the others.)"""
    from pbem.app import demo
    from pbem.games.ambon.bot import EVERY_STANDING, STANDING

    print(f"pbem watch: {games} Ambon demo games with each set of standing instructions", flush=True)
    for label, standing in (("the demo's standing instructions", STANDING),
                            ("every standing instruction set", EVERY_STANDING)):
        messages = by_hand = turns = 0
        for i in range(games):
            report = demo.play_by_email(root / f"{label[:8]}-{i}", "ambon", demo.script_of("ambon", standing=standing))
            messages, by_hand = messages + report.messages, by_hand + report.by_hand
            turns += report.final.replay.state.turn
        figure("watch", f"messages a player writes per Ambon game turn, with watch / without ({label})",
               f"{by_hand / turns:.2f}", f"{messages / turns:.2f}", by_hand / messages, "", None,
               f"{games} games, {turns} game turns, {messages} messages: {messages - by_hand} written and sent "
               f"by the other player's watch")


def dice_latency(root: Path, rolls: int) -> None:
    """Issue 30: a roll sent by `pbem mail --send` comes back keyed by the
    opponent's `pbem watch` (key-rolls = "auto") and is shown by the
    roller's watch -- both watches on a real IMAP server with IDLE, the
    mail through a real SMTP server, all on loopback
    (:mod:`benchmarks.latency`); against plain mail's round trip."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import latency

    why = latency.available()
    if why is not None:
        print(f"dice latency: skipped: {why}", flush=True)
        return
    print(f"dice latency: {rolls} rolls through dovecot and aiosmtpd on loopback, watch on both sides", flush=True)
    times, floor = latency.measure(root, rolls)
    median, reference = statistics.median(times), statistics.median(floor)
    figure("latency", "a roll: `pbem mail --send` to its result shown by the roller's watch, keyed by the "
           "opponent's watch", f"{median:.2f} s", f"{reference:.2f} s", median / reference, "median <= 5 s",
           median <= 5.0, f"{latency.summary(times)}; reference: plain mail's round trip, ann -> bob -> ann, "
           f"each leg seen by IMAP IDLE ({latency.summary(floor).replace('rolls', 'round trips')})")


# --------------------------------------------------------------------------- 7. the Ambon bot

BOT_PAIRINGS = (  # (Japanese, Allied)
    ("new", "baseline"), ("baseline", "new"), ("new", "pass"), ("baseline", "baseline"), ("new", "new"))


def _bot_game(job: tuple[str, str, int, str]) -> tuple[str, str, int, int, list[float], list[float]]:
    """One real-protocol game (a worker process): (J, A, seed, VP, think times J, A)."""
    from pbem.games.ambon import GAME
    from pbem.games.ambon.bot.arena import BaselinePlayer, PassPlayer, play
    from pbem.games.ambon.bot.house import HouseBot
    from pbem.match import session

    j, a, seed, root = job
    kinds = {"new": HouseBot, "baseline": BaselinePlayer, "pass": PassPlayer}
    players = {"japanese": kinds[j](GAME, "japanese", seed=b"bench j %d" % seed),
               "allied": kinds[a](GAME, "allied", seed=b"bench a %d" % seed)}
    sub = Path(root) / f"{j}-{a}-{os.getpid()}"
    sub.mkdir(parents=True, exist_ok=True)
    g = play(GAME, players, seed, sub, session=session)
    if not g.finished:
        raise SystemExit(f"bot game {j} vs {a} seed {seed} did not finish")
    return j, a, seed, g.vp, g.think["japanese"], g.think["allied"]


BOT_TABLE: list[str] = []


def bot_games(root: Path, games: int) -> None:
    """The Ambon bot (pbem/games/ambon/bot, docs/bot.md) against the simple
    baseline and a pass-only Allied player: ``games`` whole games a pairing,
    seeds 0..games-1 (the same each run), through the real protocol, two
    worker processes."""
    import multiprocessing

    print(f"the Ambon bot ({games} games a pairing, real protocol)", flush=True)
    jobs = [(j, a, seed, str(root)) for j, a in BOT_PAIRINGS for seed in range(games)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(_bot_game, jobs, chunksize=1)
    by: dict[tuple[str, str], list[tuple[int, list[float], list[float]]]] = {}
    for j, a, _seed, vp, tj, ta in results:
        by.setdefault((j, a), []).append((vp, tj, ta))
    BOT_TABLE[:] = ["| Japanese | Allied | games | mean VP | Japanese wins (>= 31) | draws | Allied wins (<= 20) |",
                    "|---|---|---|---|---|---|---|"]
    mean = {}
    for (j, a), rows in by.items():
        vps = [r[0] for r in rows]
        mean[(j, a)] = statistics.fmean(vps)
        wins, allied = sum(v >= 31 for v in vps), sum(v <= 20 for v in vps)
        BOT_TABLE.append(f"| {j} | {a} | {len(vps)} | {mean[(j, a)]:+.1f} | {wins} | {len(vps) - wins - allied} | {allied} |")
    base = mean[("baseline", "baseline")]
    d = mean[("new", "baseline")] - base
    figure("bot", "new Japanese vs baseline Allied: mean VP", f"{mean[('new', 'baseline')]:+.1f}",
           f"baseline vs baseline {base:+.1f}", None, ">= +20 above", d >= 20, f"difference {d:+.1f} VP")
    d = mean[("baseline", "new")] - base
    figure("bot", "baseline Japanese vs new Allied: mean VP", f"{mean[('baseline', 'new')]:+.1f}",
           f"baseline vs baseline {base:+.1f}", None, ">= 10 below", d <= -10, f"difference {d:+.1f} VP")
    vps = [r[0] for r in by[("new", "pass")]]
    share = sum(v >= 31 for v in vps) / len(vps)
    figure("bot", "new Japanese vs pass-only Allied: Japanese victories", f"{share:.0%}", f"{len(vps)} games",
           None, ">= 90%", share >= 0.9)
    vps = [r[0] for r in by[("new", "new")]]
    both = 0 < sum(v >= 31 for v in vps) < len(vps) and 0 < sum(v <= 20 for v in vps) < len(vps)
    figure("bot", "new vs new: neither side wins every game",
           f"{sum(v >= 31 for v in vps)} Japanese, {sum(v <= 20 for v in vps)} Allied wins", f"{len(vps)} games",
           None, "neither all", both or (sum(v >= 31 for v in vps) < len(vps) and sum(v <= 20 for v in vps) < len(vps)))
    think = [t for (j, a), rows in by.items() for r in rows
             for side, ts in (("j", r[1]), ("a", r[2])) if (j if side == "j" else a) == "new" for t in ts]
    med, top = statistics.median(think), max(think)
    figure("bot", "new bot thinking a message (CPU, default level): median", fmt_s(med), "2 s", med / 2, "<= 2 s",
           med <= 2, f"{len(think)} messages")
    figure("bot", "new bot thinking a message (CPU, default level): max", fmt_s(top), "15 s", top / 15, "<= 15 s",
           top <= 15)
    try:
        import calumpit_house  # another game's house bot, when present (benchmarks/calumpit_house.py)
    except ImportError:
        calumpit_house = None
    if calumpit_house is not None:
        BOT_TABLE.extend(["", "Calumpit Bridge: the house's Japanese (`pbem solo calumpit`), whole solo games "
                              "through the real loop:", "", *calumpit_house.run(games)])


# --------------------------------------------------------------------------- 8. whole commands: the goals


#: the imports every ``pbem verify`` makes before it reads a file: the command line, the report's drawing, Ed25519
STACK_IMPORTS = "import click, rich.console, cryptography.hazmat.primitives.asymmetric.ed25519"


def timing_goals(root: Path, sizes: tuple[int, int], runs: int) -> None:
    """Issue 29's goals, each on whole processes (benchmarks/goals.py): the
    child's CPU time and its wall time, at a pseudo-terminal and in a pipe,
    bytecode compiled and warm; ``runs`` interleaved rounds, the median of the
    ratios round by round (the least times' in the note)."""
    import goals

    small, large = sizes
    mode_names = {True: "terminal", False: "pipe"}
    pycache = root / "pycache"
    print(f"timing goals: dice games of {small} and {large} messages through the real protocol...", flush=True)
    built = {n: goals.build_dice_game(root / f"dice-{n}", n) for n in sizes}
    print("  built in " + ", ".join(f"{fmt_s(g.seconds)} ({n})" for n, g in built.items()), flush=True)
    print("  the Ambon demo...", flush=True)
    from pbem.app import demo

    demo.run(root / "ambon", "ambon")
    ambon, home = root / "ambon" / "kenji" / "game", root / "ambon" / "kenji" / "keystore"
    extract = root / "ambon-extract"
    done = subprocess.run(goals.pbem_command() + ["verify", str(ambon), "--extract", str(extract)],
                          env=goals.child_env(pycache), capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"pbem verify --extract failed:\n{done.stdout}{done.stderr}")
    keygen = goals.Batch([
        (["ssh-keygen", "-Y", "verify", "-f", str(extract / "allowed_signers"), "-I", f"{side}@pbem",
          "-n", "pbem-turn-v1", "-s", str(extract / f"{seq}.sig")], extract / f"{seq}.body")
        for seq, side in (path.stem.split("-", 1) for path in sorted(ambon.glob("[0-9][0-9][0-9][0-9]-*.pbem")))
    ])
    messages = len(keygen.commands)

    def note(t: goals.Times, ref: goals.Times) -> str:
        return (f"median CPU {fmt_s(t.median_cpu)} vs {fmt_s(ref.median_cpu)} ({t.median_cpu / ref.median_cpu:.2f}); "
                f"wall min {fmt_s(t.min_wall)} vs {fmt_s(ref.min_wall)} ({t.min_wall / ref.min_wall:.2f}), "
                f"median {fmt_s(t.median_wall)} vs {fmt_s(ref.median_wall)} "
                f"({t.median_wall / ref.median_wall:.2f})")

    def row(name: str, t: goals.Times, ref_label: str, ref: goals.Times, goal: float) -> None:
        ratio = goals.paired_median(t, ref)
        figure("goals", name, fmt_s(t.median_cpu), f"{ref_label} {fmt_s(ref.median_cpu)}", ratio, f"<= {goal}",
               ratio <= goal, f"least CPU {fmt_s(t.min_cpu)} vs {fmt_s(ref.min_cpu)} ({t.min_cpu / ref.min_cpu:.2f}); "
               + note(t, ref))

    for tty in (True, False):
        mode = mode_names[tty]
        print(f"  {mode}: {runs} rounds", flush=True)
        scenes: dict[str, goals.Scene | goals.Batch] = {
            "help": goals.pbem_scene(["--help"]),
            "click": goals.python_scene("import click"),
            "show ambon": goals.pbem_scene(["show", str(ambon)], home),
            "click rich": goals.python_scene("import click, rich.console"),
            "verify ambon": goals.pbem_scene(["verify", str(ambon)]),
            "ssh-keygen": keygen,
            # what any pbem verify costs before it reads a file: the interpreter and the libraries it is built on
            "stack": goals.python_scene(STACK_IMPORTS),
        }
        for n, game in built.items():
            scenes.update({f"{command} {n}": scene for command, scene in game.scenes().items()})
            scenes[f"verify {n}"] = goals.pbem_scene(["verify", str(game.look)])
        # warm twice: the bytecode, then a show that finds the view the first one kept
        times = goals.measure(scenes, runs, tty, pycache, warm=2)
        for command in ("receive", "play", "show", "log", "orders", "status"):
            row(f"`pbem {command}` ({mode}): {large:,} messages / {small}", times[f"{command} {large}"],
                f"{small} messages", times[f"{command} {small}"], 1.2)
        t_small, t_large = times[f"verify {small}"], times[f"verify {large}"]
        per = goals.paired_median(t_large, t_small, lambda x, y: (x - y) / (large - small))
        per_least = (t_large.min_cpu - t_small.min_cpu) / (large - small)
        figure("goals", f"`pbem verify` ({mode}): CPU a message, {small} to {large:,} messages", fmt_s(per),
               "1.5 ms", per / 0.0015, "<= 1.5 ms", per <= 0.0015,
               f"median CPU {fmt_s(t_small.median_cpu)} at {small}, {fmt_s(t_large.median_cpu)} at {large:,}; "
               f"from the least CPU times {fmt_s(per_least)} a message")
        row(f"`pbem verify` of the Ambon demo ({mode}) / `ssh-keygen -Y verify` of each of its {messages} messages",
            times["verify ambon"], f"{messages} ssh-keygen processes", times["ssh-keygen"], 0.6)
        ratio = goals.paired_median(times["stack"], times["ssh-keygen"])
        figure("goals", f"the floor ({mode}): `python -c '{STACK_IMPORTS}'` / the same {messages} ssh-keygen processes",
               fmt_s(times["stack"].median_cpu), f"{messages} ssh-keygen processes {fmt_s(times['ssh-keygen'].median_cpu)}",
               ratio, "", None, "what the verify goal leaves for reading, checking and replaying the game: "
               f"{max(0.0, 0.6 - ratio):.2f}x ssh-keygen's time")
        row(f"`pbem --help` ({mode})", times["help"], "`python -c 'import click'`", times["click"], 1.5)
        row(f"warm `pbem show` of the Ambon demo ({mode})", times["show ambon"],
            "`python -c 'import click, rich.console'`", times["click rich"], 1.5)


# --------------------------------------------------------------------------- the report


def machine() -> str:
    load = ""
    if hasattr(os, "getloadavg"):
        load = ", load average %.2f %.2f %.2f" % os.getloadavg()
    return (f"{platform.machine()} ({os.cpu_count()} CPUs{load}), {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()} ({platform.python_implementation()}), "
            f"{datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}")


def report(command: str, seconds: float) -> str:
    lines = [
        "# Performance",
        "",
        "Figures from `python benchmarks/run.py` (generated; do not edit by hand).",
        "Each figure is a ratio of two times measured in the same run on the same",
        "machine, so that the ratios, not the absolute times, carry over to other",
        "machines.  Start-up figures are wall times (the children's CPU times in the",
        "notes); the others are CPU times of the benchmark process, which a busy",
        "machine delays but does not inflate.  What is measured and why:",
        "`benchmarks/README.md`.",
        "",
        f"- machine: {machine()}",
        f"- command: `{command}` ({seconds:.0f} s)",
        "",
    ]
    titles = {
        "start-up": "## Start-up: the CLI against bare imports",
        "verify": "## `verify` against the cryptographic floor",
        "scaling": "## Adjudication scaling (growth exponent = log-log slope; 1 = linear)",
        "dice": "## Dice derivation against raw HMAC-SHA256",
        "long": "## Long games: a command works on what is new",
        "watch": "## `pbem watch`: the messages a player writes",
        "latency": "## Dice latency by real mail: a roll keyed by the opponent's watch",
        "bot": "## The Ambon bot: whole games through the real protocol",
        "goals": "## Whole commands: timing goals at a terminal and in a pipe",
    }
    for section, title in titles.items():
        rows = [f for f in FIGURES if f.section == section]
        if not rows:
            continue
        lines += [title, "", "| figure | measured | reference | ratio | goal | verdict |", "|---|---|---|---|---|---|"]
        lines += [f.row() for f in rows]
        notes = [f"- {f.name}: {f.note}" for f in rows if f.note]
        lines += [""] + notes + ([""] if notes else [])
        if section == "start-up":
            lines += [
                "Reading these: `pbem show` keeps the text it drew in the keystore",
                "(`pbem/match/viewcache.py`), and `receive` and `play` at a terminal draw",
                "and keep it too; while no message, terminal setting or pbem file",
                "changes, `show` reads the message files, checks their digest and prints",
                "the kept text, so it needs neither rich nor the game module (nor",
                "`cryptography` when the key has no passphrase).  `show --fresh` is what",
                "a show costs when no view is kept (a message imported by a script, a",
                "new terminal size): it verifies and replays the game like `verify`,",
                "then draws it with rich.",
                "",
            ]
        if section == "scaling":
            lines += [
                "Reading these: ZOC, movement validation and reachable sets cost per unit",
                "and do not depend on the map; supply tracing walks the road net, so it",
                "grows with the map and not with the units.  On small maps a 4-MP reach is",
                "cut by the map edge (on 10x10 every hex is within 4 of an edge), so",
                "reachable sets cost less per unit there: their exponent along the",
                "diagonal overstates the growth; the units-alone line on the 10^4-hex map",
                "is the clean one.  The Ambon movement phase is the game's own loop",
                "(`order.move.Move.effect` for every order).",
                "",
            ]
        if section == "long":
            lines += [
                "Reading these: each command lists the message files, and the replay",
                "checkpoint kept in the keystore (`pbem/match/checkpoint.py`) gives the",
                "verified transcript and the replay of those it covers; only the messages",
                "since are verified and applied.  The checkpoint itself does not grow",
                "with the game: it holds the messages as digests (any older one is read",
                "again from its file when asked for) and the replay's base, and the",
                "histories' large chunks are files of their own, written once",
                "(`pbem/engine/history.py`).  What still grows is the listing: one",
                "`stat` a message file, so that a file changed since the checkpoint is",
                "read and compared instead of trusted (the second row).  `verify` uses",
                "no checkpoint: it replays everything, once.",
                "",
            ]
        if section == "goals":
            lines += GOALS_READING
        if section == "bot" and BOT_TABLE:
            lines += BOT_TABLE + ["", "VP is the Japanese score (3.0). The bot: `docs/bot.md`; the games are",
                                  "played by `pbem/games/ambon/bot/arena.py`, seeds 0.. (the same each run).", ""]
        if section == "scaling" and SCALING_TABLE:
            keys = sorted(next(iter(SCALING_TABLE.values())))
            lines += ["Times per operation (best of the runs):", "",
                      "| hexes | units | " + " | ".join(SCALING_TABLE) + " |",
                      "|---|---|" + "---|" * len(SCALING_TABLE)]
            for h, u in keys:
                lines.append(f"| {h} | {u} | " + " | ".join(fmt_s(SCALING_TABLE[op][(h, u)]) for op in SCALING_TABLE) + " |")
            lines.append("")
    lines += [
        "## How to reproduce",
        "",
        "```",
        "pip install -e .",
        "python benchmarks/run.py            # writes docs/performance.md",
        "python benchmarks/run.py --quick    # a faster, rougher run",
        "```",
        "",
    ]
    return "\n".join(lines)


#: the sections ``--only`` rewrites alone, keeping the rest of the report: the title each starts with
SPLICED = {"bot": "## The Ambon bot", "goals": "## Whole commands: timing goals",
           "latency": "## Dice latency by real mail"}

GOALS_READING = [
    "Reading these: each figure is a whole process as a user starts it (the",
    "installed `pbem` script, bytecode compiled and warm), measured",
    "`benchmarks/goals.py`'s way: the child's CPU time (user + system, from",
    "`getrusage(RUSAGE_CHILDREN)` around it) and its wall time, at a",
    "pseudo-terminal of 120x40 (Python's `pty` pair: the child's stdin, stdout",
    "and stderr are the terminal, no `script` process in between, so the CPU",
    "counted is pbem's alone) and with stdout on a pipe.  The rounds are",
    "interleaved (every command takes its turn each round, so all see the same",
    "machine); the verdict is the median over the rounds of the two commands'",
    "ratio in the same round (their CPU times side by side), which one lucky",
    "or slow run does not move; the medians, the least CPU times and the wall",
    "times are in the notes.  The dice",
    "games are built through the real protocol with two keystores",
    "(`goals.build_dice_game`); each everyday command runs as the player to",
    "move with the replay checkpoint current, `receive` taking the opponent's",
    "last message and `play` writing four rolls, each put back as it was",
    "after every run (its new files removed, its keystore copied back), so",
    "every run does the same work.  `show` is warm: the view the previous run",
    "kept is current.  The `ssh-keygen` reference runs one `ssh-keygen -Y",
    "verify` process per message file of the Ambon demo, on the bodies and",
    "signatures `pbem verify --extract` wrote beforehand, their CPU times summed.",
    "The floor is a Python process that imports what every `pbem verify` is",
    "built on -- click, rich's console, cryptography's Ed25519 -- and does",
    "nothing else: set against the same ssh-keygen processes, it shows how",
    "much of the verify goal's 0.6x is left for pbem's own work.",
    "",
]


def splice_section(old: str, new: str, title: str) -> str:
    """``old`` with its section ``title`` replaced by ``new``'s (added before
    "How to reproduce" when it has none)."""
    def cut(text: str) -> tuple[int, int]:
        start = text.find(title)
        if start < 0:
            return -1, -1
        end = text.find("\n## ", start + len(title))
        return start, (len(text) if end < 0 else end + 1)

    s, e = cut(new)
    section = new[s:e]
    a, b = cut(old)
    if a >= 0:
        return old[:a] + section + old[b:]
    at = old.find("## How to reproduce")
    return old[:at] + section + old[at:] if at >= 0 else old + "\n" + section


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and a smaller scaling grid")
    parser.add_argument("--out", default=str(ROOT / "docs" / "performance.md"), help="report file, or - for stdout")
    parser.add_argument("--only", choices=["start-up", "verify", "scaling", "dice", "long", "watch", "latency", "bot",
                                           "goals"],
                        help="run one section (with --out -: a quick look, not a report to keep)")
    args = parser.parse_args()
    started = time.perf_counter()
    runs = 3 if args.quick else 7
    with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp:
        def wanted(section: str) -> bool:
            return args.only in (None, section)

        if wanted("start-up") or wanted("verify"):
            print("playing the demo games...", flush=True)
            games = demo_games(Path(tmp) / "games")
        if wanted("start-up"):
            startup(games, runs * 2, Path(tmp) / "pycache")
        if wanted("verify"):
            verify_floor(games, runs * 3)
        if wanted("scaling") and args.quick:
            scaling([100, 1000], [10, 100], 2, 0.05)
        elif wanted("scaling"):
            scaling([100, 1000, 10_000], [10, 100, 1000], 3, 0.3)
        if wanted("dice"):
            dice_throughput(0.5 if args.quick else 2.0)
        if wanted("long") and args.quick:
            long_game(Path(tmp) / "long", [50, 100, 200], (50, 200), 9)
        elif wanted("long"):
            long_game(Path(tmp) / "long", [100, 200, 400, 1000], (50, 400), 15)
        if wanted("long"):
            demo_wall(Path(tmp) / "demo", 1 if args.quick else 3)
        if wanted("watch"):
            watch_turns(Path(tmp) / "watch", 2 if args.quick else 6)
        if wanted("latency"):
            dice_latency(Path(tmp) / "latency", 5 if args.quick else 11)
        if wanted("bot"):
            bot_games(Path(tmp) / "bot", 10 if args.quick else 50)
        if wanted("goals"):
            # 15 rounds, the verdict their paired median: with 7 and the ratio of minima, two runs on a quiet
            # 2-core machine put the same command 0.2x apart
            timing_goals(Path(tmp) / "goals", (50, 500) if args.quick else (50, 2000), 3 if args.quick else 15)
    command = "python benchmarks/run.py" + (" --quick" if args.quick else "")
    text = report(command, time.perf_counter() - started)
    if args.out == "-":
        print(text)
    elif args.only in SPLICED and Path(args.out).exists():  # one section: the rest of the report is kept as it is
        Path(args.out).write_text(splice_section(Path(args.out).read_text(encoding="utf-8"), text,
                                                 SPLICED[args.only]), encoding="utf-8")
        print(f"updated the {args.only} section of {args.out}")
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
