"""Helpers for the everyday-use tests (import, mail, orders, status, html).

Importing this module makes sure the everyday commands are part of the
``pbem`` group the CLI fixtures invoke (``register`` adds only what is
missing, so it is harmless once the commands are wired in).
"""

from __future__ import annotations

import html
import shutil
from email.message import EmailMessage
from pathlib import Path

from conftest import Player, last_line

from pbem.cli import main
from pbem.cli.everyday import register

register(main)

EXAMPLES = Path(__file__).parent.parent / "examples"

ROLL = '[[order]]\ntype = "roll"\ndice = "2d6"\nnote = "charge"\n'
SEAL = '[[order]]\ntype = "seal"\nslot = "plan"\ntext = "the real attack goes in at dawn"\n'


def play(player: Player, tmp_path: Path, orders: str = "") -> Path:
    """``player`` plays ``orders``; the message file written."""
    path = tmp_path / f"orders-{player.name}-{len(list(tmp_path.glob('orders-*')))}.toml"
    path.write_text(orders)
    r = player.run("play", player.game, "--orders", path)
    assert r.exit_code == 0, r.output
    return last_line(r.output)


def mail(player: Player, *args: str) -> Path:
    """``pbem mail GAME ARGS``; the .eml written."""
    r = player.run("mail", player.game, *args)
    assert r.exit_code == 0, r.output
    return last_line(r.output)


def copy_of(player: Player, where: Path) -> Player:
    """The same player with a copy of the game directory (another machine)."""
    shutil.copytree(player.game, where)
    return Player(player.name, player.home, where, player.passphrase)


def email_with(text: str, how: str, subject: str = "pbem turn") -> bytes:
    """An email carrying the turn file ``text`` in one of the ways mail
    clients do it."""
    msg = EmailMessage()
    msg["From"] = "Ann <ann@example.org>"
    msg["To"] = "bob@example.org"
    msg["Subject"] = subject
    if how == "attachment-base64":
        msg.set_content("My turn is attached.\n")
        msg.add_attachment(text.encode(), maintype="application", subtype="octet-stream", filename="turn.pbem")
    elif how == "attachment-7bit":
        msg.set_content("My turn is attached.\n")
        msg.add_attachment(text, subtype="plain", filename="turn.pbem", cte="7bit")
    elif how == "body-qp":
        msg.set_content("Here is my turn:\n\n" + text, cte="quoted-printable")
    elif how == "body-base64":
        msg.set_content("Here is my turn:\n\n" + text, cte="base64")
    elif how == "quoted-reply":
        quoted = "".join(f"> {line}\r\n" for line in text.splitlines())
        msg.set_content("Got it, thanks.\r\n\r\nOn Monday Ann wrote:\r\n" + quoted, cte="quoted-printable")
    elif how == "html":
        msg.set_content("(this mail has an HTML part)\n")
        markup = "<html><body><p>My turn:</p><p>" + html.escape(text).replace("\n", "<br>\n") + "</p></body></html>"
        msg.add_alternative(markup, subtype="html")
    else:  # pragma: no cover
        raise ValueError(how)
    return msg.as_bytes()


def ambon_opening(players, tmp_path):
    """Ann (Japanese) and Bob (Allied): messages 0-2 of examples/ambon;
    Bob, to move, owes the reveals the landings demand."""
    j, a = players
    r = j.run("new", j.game, "--game", "ambon", "--as", "japanese", "--opponent", a.pub())
    assert r.exit_code == 0, r.output
    r = a.run("join", last_line(r.output), "--dir", a.game, "--orders", EXAMPLES / "ambon" / "1-allied-setup.toml")
    assert r.exit_code == 0, r.output
    assert j.run("receive", j.game, last_line(r.output)).exit_code == 0
    r = j.run("play", j.game, "--orders", EXAMPLES / "ambon" / "2-japanese-setup-and-landings.toml")
    assert r.exit_code == 0, r.output
    r = a.run("receive", a.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    return j, a
