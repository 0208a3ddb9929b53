"""protocol §4.1: first use of a key is trust-on-first-use, shown to the user
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


# --- issue 27, major 2: a key's comment cannot add a line -----------------------------
#
# known_keys keeps one key a line, so a comment holding a newline would add a
# key of the proposer's choosing under a name of its choosing, and defeat the
# check above.  Each attack is a message 0 the proposer signs with its own,
# real key -- one its pbem would never write.

import base64  # noqa: E402 - the section's own imports
import json  # noqa: E402
import struct  # noqa: E402

from pbem.protocol import sshsig  # noqa: E402
from pbem.protocol.keys import Identity, PublicKey  # noqa: E402
from pbem.protocol.message import NAMESPACE, SignedMessage  # noqa: E402


def key_line(player: Player) -> str:
    return Keystore(player.home).public().openssh()


def with_first_key(proposal: str, proposer: Player, line: str, tmp_path) -> str:
    """The proposal with ``setup.keys.first`` replaced by ``line``, signed again by the proposer's real key."""
    body = dict(SignedMessage.from_text(open(proposal).read()).body)
    body["setup"] = {**body["setup"], "keys": {**body["setup"]["keys"], "first": line}}
    data = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    identity = Keystore(proposer.home).load(lambda: None)
    path = tmp_path / "forged" / "0000-first.pbem"
    path.parent.mkdir(exist_ok=True)
    path.write_text(SignedMessage(data, sshsig.sign(identity, data, NAMESPACE)).armored("a game of dice"))
    return str(path)


def impostor(tmp_path, name: str, calls_itself: str) -> Player:
    player = Player(calls_itself, tmp_path / f"{name}-home", tmp_path / name)
    assert player.run("key", "new", "--name", calls_itself, "--no-passphrase").exit_code == 0
    return player


def a_file_snapshot(*roots) -> dict:
    return {str(p): p.read_bytes() for root in roots if root.exists() for p in sorted(root.rglob("*")) if p.is_file()}


HOSTILE_COMMENTS = {
    "newline": "mallory\nssh-ed25519 {other} ann",
    "carriage-return": "mallory\rssh-ed25519 {other} ann",
    "line-separator": "mallory\u2028ssh-ed25519 {other} ann",
    "tab": "mallory\tann",
    "nul": "mallory\x00",
    "escape": "mallory\x1b[2Jann",
    "right-to-left-override": "mallory\u202enna",
    "101-characters": "m" * 101,
}


@pytest.mark.parametrize("case", sorted(HOSTILE_COMMENTS))
def test_a_newline_in_the_proposers_key_comment_is_refused(players, tmp_path, case):
    a, b = players
    mallory, other = impostor(tmp_path, "mallory", "mallory"), impostor(tmp_path, "m2", "ann")
    b64 = key_line(mallory).split()[1]
    comment = HOSTILE_COMMENTS[case].format(other=key_line(other).split()[1])
    proposal = with_first_key(propose(mallory, b, tmp_path / "g"), mallory, f"ssh-ed25519 {b64} {comment}", tmp_path)
    before = a_file_snapshot(b.home)
    r = b.run("join", proposal, "--dir", tmp_path / "b")
    assert r.exit_code == 1, r.output
    assert "message 0000: setup.keys.first, the key of side 'first', is damaged: the key's comment" in r.output
    assert "Traceback" not in r.output
    assert a_file_snapshot(b.home) == before and not (tmp_path / "b").exists()  # nothing written, nothing trusted


@pytest.mark.parametrize("line", ["ssh-ed25519  {b64} mallory", "ssh-ed25519 {b64} mallory\n", " ssh-ed25519 {b64}",
                                  "ssh-ed25519 {b64}\nssh-ed25519 {b64} ann", "ssh-ed25519\t{b64} mallory"])
def test_a_key_line_that_is_not_exactly_one_line_is_refused(players, tmp_path, line):
    a, b = players
    mallory = impostor(tmp_path, "mallory", "mallory")
    forged = line.format(b64=key_line(mallory).split()[1])
    proposal = with_first_key(propose(mallory, b, tmp_path / "g"), mallory, forged, tmp_path)
    r = b.run("join", proposal, "--dir", tmp_path / "b")
    assert r.exit_code == 1, r.output
    assert "message 0000: setup.keys.first, the key of side 'first', is" in r.output
    assert known(b) == [] and not (tmp_path / "b").exists()


def test_the_key_swap_check_holds_after_a_hostile_comment(players, tmp_path):
    """bob knows ann.  mallory's proposal, whose comment would file the key
    m2 under "ann", is refused; m2's later proposal as "ann" is then the
    swapped key it is, and refused as one."""
    a, b = players
    assert b.run("join", propose(a, b, tmp_path / "g1"), "--dir", tmp_path / "b1").exit_code == 0
    mallory, m2 = impostor(tmp_path, "mallory", "mallory"), impostor(tmp_path, "m2", "ann")
    hostile = f"{key_line(mallory)}\n{key_line(m2)}"  # "ssh-ed25519 M mallory\nssh-ed25519 M2 ann"
    proposal = with_first_key(propose(mallory, b, tmp_path / "g2"), mallory, hostile, tmp_path)
    assert b.run("join", proposal, "--dir", tmp_path / "b2").exit_code == 1
    r = b.run("join", propose(m2, b, tmp_path / "g3"), "--dir", tmp_path / "b3")
    assert r.exit_code == 2 and "is not the 'ann' key you know" in r.output, r.output
    assert known(b) == [fingerprint(a)]
    assert Keystore(b.home).known_path.read_text().count("\n") == 1


def test_known_keys_cannot_gain_a_line_from_a_comment(players, tmp_path):
    """The one writer of known_keys refuses a key whose comment could add a
    line, even one made without the checks of PublicKey, and writes nothing."""
    from pbem.errors import IdentityError

    a, b = players
    store = Keystore(b.home)
    store.remember(store.public())  # known_keys holds one line
    before = store.known_path.read_bytes()
    key = Keystore(a.home).public()
    object.__setattr__(key, "comment", f"ann\n{key_line(impostor(tmp_path, 'm2', 'bob'))}")
    with pytest.raises(IdentityError, match=r"known_keys: the comment 'ann\\nssh-ed25519 .* nothing written"):
        store.remember(key)
    assert store.known_path.read_bytes() == before


def test_an_opponent_key_with_a_newline_in_its_comment_is_refused(players, tmp_path):
    a, b = players
    line = f"{key_line(b)}\n{key_line(impostor(tmp_path, 'm2', 'mallory'))}"
    r = a.run("new", tmp_path / "g", "--game", "dice", "--as", "first", "--opponent", line)
    assert r.exit_code == 2 and "the key's comment 'bob\\nssh-ed25519 " in r.output, r.output
    assert known(a) == [] and not (tmp_path / "g").exists()


def openssh_private(seed: bytes, comment: bytes) -> bytes:
    """An unencrypted openssh-key-v1 file (OpenSSH PROTOCOL.key) with any comment at all."""
    def string(data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + data

    public = Identity.from_seed(seed).public.raw
    blob = string(b"ssh-ed25519") + string(public)
    section = b"\x01\x02\x03\x04" * 2 + blob + string(seed + public) + string(comment)
    section += bytes(range(1, 1 + (-len(section)) % 8))
    raw = b"openssh-key-v1\0" + string(b"none") + string(b"none") + string(b"") + struct.pack(">I", 1)
    raw += string(blob) + string(section)
    text = base64.b64encode(raw).decode()
    lines = [text[i:i + 70] for i in range(0, len(text), 70)]
    return ("-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END OPENSSH PRIVATE KEY-----\n").encode()


def test_importing_a_key_whose_comment_holds_a_newline_is_refused_unless_named(tmp_path):
    """Refused, not cleaned up: the name is what the opponent sees, so the
    player chooses it (--name)."""
    player = Player("ann", tmp_path / "home", tmp_path / "g")
    key = tmp_path / "id_ed25519"
    key.write_bytes(openssh_private(bytes(range(32)), b"ann\nssh-ed25519 AAAA bob"))
    r = player.run("key", "import", key)
    assert r.exit_code == 2, r.output
    assert "the key's comment 'ann\\nssh-ed25519 AAAA bob' holds the character '\\n'" in r.output
    assert "--name NAME" in r.output and not player.home.exists()
    r = player.run("key", "import", key, "--name", "ann")
    assert r.exit_code == 0, r.output
    assert player.pub().read_text() == Identity.from_seed(bytes(range(32)), "ann").public.openssh() + "\n"


@pytest.mark.parametrize("name", ["ann\nssh-ed25519 AAAA bob", "ann\ttab", " ann", "a" * 101])
def test_key_new_refuses_a_name_that_is_not_one_line_of_printable_text(tmp_path, name):
    player = Player("ann", tmp_path / "home", tmp_path / "g")
    r = player.run("key", "new", "--name", name, "--no-passphrase")
    assert r.exit_code == 2 and f"--name {name!r}: " in r.output, r.output
    assert not player.home.exists()


def test_a_public_key_cannot_hold_a_comment_that_adds_a_line():
    from pbem.errors import IdentityError

    line = Identity.from_seed(bytes(32), "ann").public.openssh()
    with pytest.raises(IdentityError, match=r"the key's comment 'ann\\nx' holds the character '\\n' \(U\+000A\)"):
        PublicKey.from_openssh(line + "\nx")
    assert PublicKey.from_openssh(line).comment == "ann"
