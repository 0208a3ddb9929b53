"""The example Allied secret of ``scenario-historical.toml`` (``[secret]``):
test data only.  The game never reads it (``AmbonData.scenario`` leaves it
out); tests that want the historical setup with 15.0's identities -- the
dummies south of Liang, the detachments on the Laha beach, 2 real mines and
1 dummy in the Laha box -- give them explicitly, as a player would."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pbem.games.ambon

SCENARIO = Path(pbem.games.ambon.__file__).parent / "data" / "scenario-historical.toml"
SECRET = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))["secret"]
IDENTITIES: dict[str, str] = dict(SECRET["concealed"])  # X1.. -> dummy | detachment
MINES: dict[str, str] = dict(SECRET["mines"])  # M1.. -> real | dummy
#: the Allied ``setup = "historical"`` order with the example's identities
HISTORICAL_ALLIED = {"setup": "historical", "identities": IDENTITIES, "mines": MINES}
