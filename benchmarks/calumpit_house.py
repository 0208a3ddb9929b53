"""How often the house's Japanese reach the bridge in ``pbem solo calumpit``.

    python benchmarks/calumpit_house.py            # 50 games each way
    python benchmarks/calumpit_house.py --games 10

Each game is a real solo game: two keystores (yours and the house's), every
message signed, sent and replayed through :mod:`pbem.match.session`.

* **passing American**: the solo loop itself (:func:`pbem.games.calumpit.solo.run`)
  with a scripted player who types ``done`` every turn and ``end`` after
  turn ``LAST_TURN``;
* **the demo bot's American**: the same two keystores and the house's
  messages (:func:`pbem.games.calumpit.solo.house_turn`), the American's
  orders by :class:`pbem.games.calumpit.bot.CalumpitBot` (the player of
  ``pbem demo calumpit``), which fires at the Japanese with the ranges it
  says and ends the game when the Japanese force is spent or after
  ``LAST_TURN``.

The dice come from fresh keys in every game, so the figure varies a little
from run to run.  :func:`run` returns markdown table lines.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: the American ends the game after this turn (no decision, unless a victory condition holds)
LAST_TURN = 30


def _keys(root: Path) -> Any:
    from pbem.protocol.keystore import Keystore

    return Keystore(root / "me").load_or_create("solo player (american)")


def passing_game(root: Path, last_turn: int = LAST_TURN) -> tuple[str, int]:
    """One solo game through the solo loop against a player who only passes:
    (the verdict, the last turn)."""
    from pbem.games.calumpit import solo
    from pbem.match import session

    human = _keys(root)

    def ask(prompt: str) -> str:
        turn = int(prompt.split()[1])
        return "end" if turn > last_turn else "done"

    solo.run(root / "solo", human, ask, lambda text: None)
    match = session.load(root / "solo" / "game", human)
    return match.replay.state.verdict, match.replay.state.turn


def bot_game(root: Path, last_turn: int = LAST_TURN) -> tuple[str, int]:
    """One solo game, the American played by the demo's bot."""
    from pbem.games.calumpit import GAME, solo
    from pbem.games.calumpit.bot import CalumpitBot
    from pbem.match import session

    human = _keys(root)
    directory = root / "solo"
    house = solo._house(directory)
    game_dir = directory / "game"
    solo._start(game_dir, human, house)
    bot = CalumpitBot(GAME, last_turn=last_turn)
    while True:
        match = session.load(game_dir, human)
        if match.closed:
            return match.replay.state.verdict, match.replay.state.turn
        if not match.my_turn:
            solo.house_turn(game_dir, house, lambda text: None)
            continue
        session.play(game_dir, human, {} if match.replay.over else bot.play(match))


def _figures(results: list[tuple[str, int]]) -> tuple[int, str, str]:
    reached = [turn for verdict, turn in results if "reached the bridge" in verdict]
    others = sorted({v.split(":")[0] for v, _ in results if "reached the bridge" not in v})
    mean = f"{statistics.fmean(reached):.1f}" if reached else "-"
    return len(reached), mean, ", ".join(others) or "-"


def run(games: int = 50) -> list[str]:
    """Markdown table lines: for each American, the games played, how many
    the house's Japanese reached the bridge in, and the mean turn they did."""
    os.environ.setdefault("PBEM_HOME", tempfile.mkdtemp(prefix="pbem-calumpit-house-home-"))
    lines = ["| American | games | Japanese reached the bridge | mean turn reached | other endings | time |",
             "|---|---|---|---|---|---|"]
    for name, play in (("passes every turn", passing_game), ("the demo bot", bot_game)):
        start = time.perf_counter()
        results = []
        for _ in range(games):
            with tempfile.TemporaryDirectory(prefix="pbem-calumpit-house-") as tmp:
                results.append(play(Path(tmp)))
        reached, mean, others = _figures(results)
        lines.append(f"| {name} | {games} | {reached} ({reached / games:.0%}) | {mean} | {others} | "
                     f"{time.perf_counter() - start:.0f} s |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50)
    args = parser.parse_args(argv)
    print("\n".join(run(args.games)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
