"""DESIGN 4.1: first use of a key is trust-on-first-use, shown to the user
to confirm; a new key under a known name is the mark of a key swapped in
the mail and is refused unless accepted by its fingerprint."""

from __future__ import annotations

import pytest
from conftest import Player, last_line

from pbem.protocol.keystore import Keystore


def propose(proposer: Player, to: Player, where) -> str:
    proposer.game = where
    r = proposer.run("new", where, "--game", "dice", "--as", "first", "--opponent", to.pub())
    assert r.exit_code == 0, r.output
    return str(last_line(r.output))


def known(player: Player) -> list[str]:
    return [k.fingerprint for k in Keystore(player.home).known()]


def fingerprint(player: Player) -> str:
    return Keystore(player.home).public().fingerprint


def test_4_1_the_first_proposal_of_a_key_is_shown_and_remembered(players, tmp_path):
    a, b = players
    proposal = propose(a, b, tmp_path / "g1")
    assert known(a) == [fingerprint(b)]  # the key ann chose with --opponent
    r = b.run("join", proposal, "--dir", tmp_path / "b1")
    assert r.exit_code == 0, r.output
    assert f"first game with the key {fingerprint(a)} (ann): trusted on first use" in r.stderr
    assert "proposal: dice game" in r.stderr and "no optional rules" in r.stderr
    assert str(last_line(r.stdout)).endswith("0001-second.pbem")  # the notes go to stderr: the last line is the file
    assert known(b) == [fingerprint(a)]
    again = propose(a, b, tmp_path / "g2")
    r = b.run("join", again, "--dir", tmp_path / "b2")
    assert r.exit_code == 0 and "first game with the key" not in r.stderr


def test_4_1_a_new_key_under_a_known_name_is_refused_unless_accepted_by_fingerprint(players, tmp_path):
    a, b = players
    b.run("join", propose(a, b, tmp_path / "g1"), "--dir", tmp_path / "b1")
    mallory = Player("ann", tmp_path / "mallory-home", tmp_path / "m")  # calls itself ann
    assert mallory.run("key", "new", "--name", "ann", "--no-passphrase").exit_code == 0
    proposal = propose(mallory, b, tmp_path / "g2")
    r = b.run("join", proposal, "--dir", tmp_path / "b2")
    assert r.exit_code == 2 and "is not the 'ann' key you know" in r.output
    assert not (tmp_path / "b2").exists() and fingerprint(mallory) not in known(b)
    r = b.run("join", proposal, "--dir", tmp_path / "b2", "--accept-key", fingerprint(a))  # the wrong one
    assert r.exit_code == 2 and f"the proposer's key is {fingerprint(mallory)}" in r.output
    r = b.run("join", proposal, "--dir", tmp_path / "b2", "--accept-key", fingerprint(mallory))
    assert r.exit_code == 0, r.output
    assert fingerprint(mallory) in known(b)


@pytest.mark.parametrize("answer, joined", [("y\n", True), ("n\n", False)])
def test_4_1_at_a_terminal_the_first_key_is_confirmed(players, tmp_path, monkeypatch, answer, joined):
    import pbem.cli

    a, b = players
    monkeypatch.setattr(pbem.cli, "interactive", lambda: True)
    r = b.run("join", propose(a, b, tmp_path / "g1"), "--dir", tmp_path / "b1", input=answer)
    assert f"First game with the key {fingerprint(a)} (ann). Is this your opponent's key?" in r.output
    assert (r.exit_code == 0) == joined and (tmp_path / "b1").exists() == joined
    assert (fingerprint(a) in known(b)) == joined
