"""One game's directory of messages: verify, replay, receive, play (docs/architecture.md)."""
