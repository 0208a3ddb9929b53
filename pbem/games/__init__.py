"""The games pbem ships: each a package of its own (rules, data, frontend),
registered by its entry points in pyproject.toml and found through
:mod:`pbem.engine.registry`, exactly as a third-party game is."""

#: the shipped game ``pbem demo`` plays when none is named
DEFAULT_DEMO = "ambon"
