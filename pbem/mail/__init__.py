"""Mail, in two layers: :mod:`pbem.mail.scan` finds turn files in whatever
mail holds them (pure; the match layer reads with it), and above the match
layer :mod:`pbem.mail.inbox` imports a mailbox's messages into a game and
:mod:`pbem.mail.outbox` writes and sends the email of a turn file."""
