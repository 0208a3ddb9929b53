"""Game-agnostic engine: hexes, map data, paths, the state machine contract."""
