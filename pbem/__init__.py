"""pbem: a play-by-email adjudicator for board wargames.

Library first: :mod:`pbem.protocol` (keys, signed turn files, dice, sealed
secrets), :mod:`pbem.engine` (game-agnostic state machine and hex maps),
:mod:`pbem.games` (rules and data), :mod:`pbem.match` (one game's directory of
messages).  :mod:`pbem.cli` is a thin click layer on top.
"""

__version__ = "0.1.0"
