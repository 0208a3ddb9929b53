"""Mail, above the match layer: :mod:`pbem.mail.inbox` imports a
mailbox's messages into a game, :mod:`pbem.mail.outbox` writes and sends
the email of a turn file, and :mod:`pbem.mail.maildir` and
:mod:`pbem.mail.imap` are the mailboxes ``pbem watch`` reads.  Finding
turn files in whatever text or mail holds them is the protocol's own
(:mod:`pbem.protocol.scan`), so the match layer reads mail without
climbing to this one."""
