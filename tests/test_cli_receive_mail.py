"""`pbem receive` takes what arrives by mail: an .eml written by `pbem mail`,
a Maildir folder, standard input; `join` takes an emailed proposal."""

from __future__ import annotations

import mailbox

from conftest import last_line


def test_receive_an_eml_a_maildir_and_stdin(started, tmp_path):
    a, b = started
    orders = tmp_path / "o.toml"
    orders.write_text('[[order]]\ntype = "roll"\ndice = "2d6"\nnote = "by mail"\n')
    assert a.run("play", a.game, "--orders", orders).exit_code == 0
    r = a.run("mail", a.game, "--to", "bob@example.org")
    assert r.exit_code == 0, r.output
    eml = last_line(r.output)
    assert eml.suffix == ".eml"
    r = b.run("receive", b.game, eml)
    assert r.exit_code == 0, r.output
    assert "first rolled 2d6 for 'by mail'" in r.output
    # bob replies; ann reads it from a Maildir holding it and an old message
    assert b.run("play", b.game, "--orders", tmp_path / "o.toml").exit_code == 0
    r = b.run("mail", b.game, "--to", "ann@example.org")
    box = mailbox.Maildir(tmp_path / "Maildir")
    for path in (eml, last_line(r.output)):
        box.add(path.read_bytes())
    r = a.run("receive", a.game, tmp_path / "Maildir")
    assert r.exit_code == 0, r.output
    assert (a.game / "0003-second.pbem").exists()
    # and from standard input
    assert a.run("play", a.game, "--orders", tmp_path / "o.toml").exit_code == 0
    r = b.run("receive", b.game, "-", input=(a.game / "0004-first.pbem").read_text())
    assert r.exit_code == 0, r.output
    assert (b.game / "0004-first.pbem").exists()


def test_join_from_an_emailed_proposal(players, tmp_path):
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    assert r.exit_code == 0
    r = a.run("mail", a.game, "--to", "bob@example.org")
    assert r.exit_code == 0, r.output
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert r.exit_code == 0, r.output
    assert (b.game / "0001-second.pbem").exists()
