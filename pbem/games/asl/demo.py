"""``pbem demo asl``: the ASL game of examples/asl/ (the Dare-Death Example)
by email between two fresh identities (:class:`pbem.engine.contract.DemoScript`):
Sato (axis, Japanese) proposes, Wei (allied, Chinese) joins with the
Chinese setup and its sealed Dare-Death designations; A goes Berserk (its
designation revealed), the 4-4-8 First Fires, A takes its 1MC, the game
ends.  None of the orders depends on a die.  --audit then checks every
designation against 8.5.2."""

from __future__ import annotations

from typing import Any, Sequence

from pbem.engine.contract import DemoPlayer, DemoScript
from pbem.engine.machine import Event
from pbem.util import tomlfile

#: examples/asl/1-allied-setup.toml ... 7-allied-closing.toml (tests/test_demos.py
#: checks that they say the same): (side, orders file)
SCRIPT: list[tuple[str, str]] = [
    ("allied", '''# Message 1 (allied, joins the game with it): the Chinese setup.  8.5.2: of
# the 11 eligible squads, 2 are Dare-Death -- sealed, one designation each.
[[order]]
type = "setup"
nationality = "chinese"
squads = { A = "3-3-7", B = "3-3-7", C = "3-3-7", D = "3-3-7", E = "4-4-7", F = "3-3-7", G = "3-3-7", H = "3-3-7", I = "3-3-6", K = "3-3-6", M = "4-4-7", L = "5-3-7", N = "5-3-7" }
dare_death = ["A", "C"]
'''),
    ("axis", '''# Message 2 (axis): the Japanese side declares its nationality.
[[order]]
type = "setup"
nationality = "japanese"
'''),
    ("allied", '''# Message 3 (allied): squad A goes Berserk against the 4-4-8; pbem checks 8.5.2
# against the position and reveals A's sealed designation in this message.
[position]
nationality = "chinese"
phase = "MPh"
los = [["Z0", "X2"], ["Z1", "X2"], ["Z2", "X2"], ["AA2", "X2"], ["X3", "X2"]]
no_los = [["AA1", "X2"]]
unit = [
  { id = "A", type = "3-3-7", hex = "Z0", markers = ["CX"] },
  { id = "8-0", type = "8-0", hex = "Z0" },
  { id = "B", type = "3-3-7", hex = "Z1", markers = ["Prep Fire"] },
  { id = "C", type = "3-3-7", hex = "Z2" },
  { id = "7-0", type = "7-0", hex = "AA2", markers = ["Prep Fire"] },
  { id = "D", type = "3-3-7", hex = "AA1" },
  { id = "E", type = "4-4-7", hex = "X3" },
  { id = "J", type = "4-4-8", hex = "X2", enemy = true },
]
entry_cost = { default = 1, X1 = 2, Z1 = 2 }

[[order]]
type = "phase"            # where the turn record stands: the DR/dr that follow are stamped with it
player_turn = "allied"    # "It is the Chinese MPh"
phase = "MPh"

[[order]]
type = "berserk"
units = ["A"]
target = "J"
'''),
    ("axis", '''# Message 4 (axis): the 4-4-8 First Fires at squad A entering Y1 -- 4 FP, -2 DRM.
# No phase named: the DR is stamped with the game's, allied Player Turn, MPh.
[[order]]
type = "DR"
purpose = "First Fire on A in Y1: 4 FP IFT"
drm = -2
'''),
    ("allied", '''# Message 5 (allied): Berserk A takes the 1MC; then an ambush dr.
[[order]]
type = "DR"
purpose = "1MC for Berserk A (Morale Level 10)"
drm = 1

[[order]]
type = "dr"
purpose = "ambush: Chinese +3 (+1 ATTACKER in jungle, +2 Berserk)"
drm = 3
phase = "CCPh"            # the CC that the Charge brings: the game moves on to the CCPh
'''),
    ("axis", '''# Message 6 (axis): the players stop here; the reply closes the game.
[[order]]
type = "end"
'''),
    ("allied", '''# Message 7 (allied): the closing message; it carries no orders.
'''),
]


def _events(match: Any, events: Sequence[Event]) -> str:
    return "".join(f"\n  {e.sentence()}" for e in events)


def _orders(match: Any, side: str, seq: int) -> tuple[dict[str, Any], str]:
    want, text = SCRIPT[seq - 1]
    if want != side:
        raise AssertionError(f"ASL demo: message {seq:04d} is {side}'s, the script has it {want}'s")
    return tomlfile.parse(text.encode(), f"ASL demo message {seq:04d}")[1], text


def script(**options: Any) -> DemoScript:
    if options:
        raise TypeError(f"the ASL demo takes no options: {', '.join(options)}")
    return DemoScript("the ASL Dare-Death Example of examples/asl/",
                      DemoPlayer("sato", "Sato (axis, Japanese, demo)", "axis"),
                      DemoPlayer("wei", "Wei (allied, Chinese, demo)", "allied"), _orders, _events)
