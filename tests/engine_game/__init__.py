"""A tiny game under tests/ that exercises the engine end to end."""
