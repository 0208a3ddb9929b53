"""Small utilities every layer may use: atomic file writes, TOML files."""
