"""Identity commands, ssh-keygen interop on a real turn file, email-pasted
messages, and the demo."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess

import pytest
from click.testing import CliRunner
from conftest import Player, exchange

from pbem.cli import main

ssh_keygen = shutil.which("ssh-keygen")


def test_key_new_show_json_and_modes(tmp_path):
    p = Player("dora", tmp_path / "home", tmp_path / "g", passphrase="pw")
    r = p.run("key", "new", "--name", "Dora")
    assert r.exit_code == 0, r.output
    assert "(encrypted)" in r.output and "NOT encrypted" not in r.output  # (a fingerprint may hold "NOT")
    for name in ("identity", "identity.pub"):
        assert stat.S_IMODE(os.stat(p.home / name).st_mode) == 0o600
    r = p.run("key", "show")
    line = r.output.strip()
    assert line.startswith("ssh-ed25519 AAAA") and line.endswith("Dora")
    r = p.run("key", "show", "--json")
    assert json.loads(r.output)["public_key"] == line
    r = p.run("key", "new", "--name", "Again")
    assert r.exit_code == 2 and "already exists" in r.output


def test_key_new_prompts_for_a_passphrase_twice(tmp_path):
    env = {"PBEM_HOME": str(tmp_path / "h")}
    r = CliRunner().invoke(main, ["key", "new", "--name", "Eli"], env=env, input="s3cret\ns3cret\n")
    assert r.exit_code == 0, r.output
    assert b"BEGIN OPENSSH PRIVATE KEY" in (tmp_path / "h" / "identity").read_bytes()


def test_key_show_without_a_key(tmp_path):
    r = Player("x", tmp_path / "empty", tmp_path / "g").run("key", "show")
    assert r.exit_code == 2 and "pbem key new" in r.output


@pytest.mark.skipif(ssh_keygen is None, reason="ssh-keygen is not installed")
@pytest.mark.parametrize("passphrase", ["", "open sesame"])
def test_key_import_an_openssh_key(tmp_path, passphrase):
    key = tmp_path / "id_ed25519"
    subprocess.run([ssh_keygen, "-q", "-t", "ed25519", "-N", passphrase, "-C", "fred@host", "-f", key], check=True)
    p = Player("fred", tmp_path / "home", tmp_path / "g", passphrase=passphrase or None)
    r = p.run("key", "import", key)
    assert r.exit_code == 0, r.output
    assert p.run("key", "show").output.split()[1] == key.with_suffix(".pub").read_text().split()[1]


def test_importing_an_unencrypted_key_says_so_and_encrypts_it_on_request(tmp_path):
    """Issue 17: an unencrypted key is not taken silently: pbem says its copy
    is unencrypted and how to encrypt it; --encrypt (PBEM_PASSPHRASE) does."""
    from pbem.protocol.keys import Identity
    from pbem.protocol.sshwire import is_encrypted

    key = tmp_path / "id_ed25519"
    key.write_bytes(Identity.from_seed(bytes(range(32)), "fred@host").to_openssh_private())
    plain = Player("fred", tmp_path / "plain", tmp_path / "g")
    r = plain.run("key", "import", key)
    assert r.exit_code == 0 and "is NOT encrypted, and neither is pbem's copy" in r.output
    assert f"To encrypt it: pbem key import {key} --encrypt" in r.output
    assert not is_encrypted((tmp_path / "plain" / "identity").read_bytes())
    sealed = Player("fred", tmp_path / "sealed", tmp_path / "g", passphrase="open sesame")
    r = sealed.run("key", "import", key, "--encrypt")
    assert r.exit_code == 0 and "stored encrypted with the passphrase given" in r.output
    assert is_encrypted((tmp_path / "sealed" / "identity").read_bytes())
    assert sealed.run("key", "show").output == plain.run("key", "show").output  # the same key
    r = Player("fred", tmp_path / "none", tmp_path / "g").run("key", "import", key, "--encrypt")
    assert r.exit_code == 2 and "--encrypt: set PBEM_PASSPHRASE" in r.output and not (tmp_path / "none" / "identity").exists()


@pytest.mark.skipif(ssh_keygen is None, reason="ssh-keygen is not installed")
def test_ssh_keygen_verifies_a_real_turn_file(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, '[[order]]\ntype = "roll"\ndice = "2d6"\n')
    out = tmp_path / "extract"
    r = b.run("verify", b.game, "--extract", out)
    assert r.exit_code == 0, r.output
    with open(out / "0002.body", "rb") as body:
        done = subprocess.run(
            [ssh_keygen, "-Y", "verify", "-f", out / "allowed_signers", "-I", "first@pbem",
             "-n", "pbem-turn-v1", "-s", out / "0002.sig"],
            stdin=body, capture_output=True, text=True,
        )
    assert done.returncode == 0, done.stderr
    assert "Good \"pbem-turn-v1\" signature for first@pbem" in done.stdout + done.stderr
    with open(out / "0002.body", "rb") as body:  # and it is really checking: wrong identity fails
        done = subprocess.run(
            [ssh_keygen, "-Y", "verify", "-f", out / "allowed_signers", "-I", "second@pbem",
             "-n", "pbem-turn-v1", "-s", out / "0002.sig"],
            stdin=body, capture_output=True, text=True,
        )
    assert done.returncode != 0


def test_verify_help_explains_ssh_keygen():
    r = CliRunner().invoke(main, ["verify", "--help"])
    assert "ssh-keygen -Y verify" in r.output and "pbem-turn-v1" in r.output


def test_message_pasted_into_a_quoted_crlf_email_reply_is_received(started, tmp_path):
    a, b = started
    orders = tmp_path / "o.toml"
    orders.write_text('[[order]]\ntype = "roll"\ndice = "d6"\n')
    r = a.run("play", a.game, "--orders", orders)
    sent = a.game / "0002-first.pbem"
    quoted = "".join(f"> {line}   \r\n" for line in sent.read_text().splitlines())
    mail = tmp_path / "reply.txt"
    mail.write_text("Hi Bob,\r\nmy move below.\r\n\r\nOn Monday Ann wrote:\r\n" + quoted + "\r\n-- \r\nAnn\r\n", newline="")
    r = b.run("receive", b.game, mail)
    assert r.exit_code == 0, r.output
    assert (b.game / "0002-first.pbem").exists()
    assert "first rolled d6" in r.output


def test_demo_runs_and_keeps_its_directory(tmp_path):
    target = tmp_path / "demo"
    r = CliRunner().invoke(main, ["demo", "dice", "--dir", str(target)], env={"COLUMNS": "120"})
    assert r.exit_code == 0, r.output
    assert "VERIFIED" in r.output and "audit: every commitment" in r.output
    for player in ("ann", "bob"):
        assert (target / player / "keystore" / "identity").exists()
        assert len(list((target / player / "game").glob("*.pbem"))) >= 6
    r = CliRunner().invoke(main, ["verify", str(target / "bob" / "game"), "--audit"])
    assert r.exit_code == 0, r.output


def test_dice_demo_in_a_temporary_directory():
    r = CliRunner().invoke(main, ["demo", "dice"], env={"COLUMNS": "120"})
    assert r.exit_code == 0, r.output
    assert "Rolls in the demo game" in r.output


def test_demo_of_a_game_without_one_names_the_demos(tmp_path):
    r = CliRunner().invoke(main, ["demo", "chess", "--dir", str(tmp_path / "d")])
    assert r.exit_code == 2 and "no demo for the game 'chess'; demos: ambon, asl, calumpit, dice" in r.output
    assert not (tmp_path / "d").exists()


def test_demo_help_lists_every_installed_games_demo():
    r = CliRunner().invoke(main, ["demo", "--help"], env={"COLUMNS": "120"})
    assert r.exit_code == 0
    for name in ("ambon", "asl", "calumpit", "dice"):
        assert f"pbem demo {name}" in r.output
    assert "(the default)" in " ".join(r.output.split())


def test_ambon_demo_plays_a_whole_game_and_audits_it(tmp_path):
    """pbem demo (Ambon by default): setup to the end of turn 10 (or a
    surrender), every message verified, the audit checks the hidden setup."""
    r = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path / "a")], env={"COLUMNS": "140"})
    assert r.exit_code == 0, r.output
    assert "VERIFIED" in r.output and "audit: every commitment" in r.output
    assert "Order of battle" in r.output
    # issue 17: it says what it does and where, and the VP tally is a table (3.0)
    assert r.output.startswith(f"pbem demo ambon: Kenji (Japanese, demo) and Jack (Allied, demo), each with a key of "
                               f"their own, play a whole game by email in {tmp_path / 'a'}")
    lines = r.output.splitlines()
    table = lines.index(next(line for line in lines if line.startswith("VP item")))
    total = next(line for line in lines[table:] if line.startswith("total"))
    items = [int(line.rsplit(None, 1)[1]) for line in lines[table + 1:lines.index(total)]]
    assert items and sum(items) == int(total.split()[-1])
    files = sorted((tmp_path / "a" / "jack" / "game").glob("*.pbem"))
    assert len(files) > 20
    r = CliRunner().invoke(main, ["verify", str(tmp_path / "a" / "kenji" / "game"), "--audit", "--json"])
    assert r.exit_code == 0 and '"over": true' in r.output


@pytest.mark.parametrize("game", ["calumpit", "asl"])
def test_demo_of_the_referee_and_assistant_games(tmp_path, game):
    """the CLI: pbem demo [G] -- a complete game by email, verified with --audit."""
    target = tmp_path / game
    r = CliRunner().invoke(main, ["demo", game, "--dir", str(target)], env={"COLUMNS": "120"})
    assert r.exit_code == 0, r.output
    assert "VERIFIED" in r.output and "audit: every commitment" in r.output
