"""Limits pbem enforces on what a message may hold, in one place: the
protocol refuses a turn file over them before any expensive work, and a
game's orders parser refuses an orders file over them with the field named."""

MAX_ORDERS = 500  # per message: more is a mistake or an attack on the opponent's pbem
