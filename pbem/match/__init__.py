"""One game's directory of messages: verify, replay, receive, play (DESIGN 3)."""
