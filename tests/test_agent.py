"""A key held by ssh-agent: `pbem key use-agent`, whole games signed through a
real agent, the per-game secrets it derives, and the agents pbem refuses."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest
from conftest import Player, begin, exchange, last_line

from pbem.errors import AgentError, IdentityError
from pbem.protocol.keys import Identity
from pbem.protocol.sshwire import ssh_string

VECTORS = json.loads((Path(__file__).parent / "vectors" / "commitments.json").read_text())
ROLL_AND_SEAL = '[[order]]\ntype = "roll"\ndice = "2d6+1"\n\n[[order]]\ntype = "seal"\nslot = "plan"\ntext = "dawn"\n'
ANN_SEED = bytes(range(32))


@dataclass
class AgentPlayer(Player):
    """A player whose key ssh-agent holds: every command runs with SSH_AUTH_SOCK set, no passphrase."""

    sock: str = ""

    def run(self, *args, input=None, **env):
        env.setdefault("SSH_AUTH_SOCK", self.sock)
        return super().run(*args, input=input, **env)


def agent_player(tmp_path: Path, name: str, agent) -> AgentPlayer:
    return AgentPlayer(name, tmp_path / f"home-{name}", tmp_path / name, sock=str(agent.socket))


def keystore_player(tmp_path: Path, name: str) -> Player:
    player = Player(name, tmp_path / f"home-{name}", tmp_path / name)
    r = player.run("key", "new", "--name", name, "--no-passphrase")
    assert r.exit_code == 0, r.output
    return player


def rolled_with_the_agent(ssh_agent, tmp_path: Path) -> tuple[Player, Player]:
    """Ann's key in the agent (pbem key use-agent), Bob's in his keystore; a
    dice game begun and Ann's rolls and sealed note exchanged."""
    ann = agent_player(tmp_path, "ann", ssh_agent)
    ssh_agent.add(Identity.from_seed(ANN_SEED, "ann"))
    assert ann.run("key", "use-agent").exit_code == 0
    bob = keystore_player(tmp_path, "bob")
    start(ann, bob)
    exchange(ann, bob, tmp_path, ROLL_AND_SEAL)
    return ann, bob


def start(a: Player, b: Player) -> None:
    """a proposes a dice game as first, b joins, a receives the joining message."""
    begin(a, b)


def verified(*players: Player) -> None:
    for p in players:
        r = p.run("verify", p.game, "--audit")
        assert r.exit_code == 0 and "VERIFIED" in r.output, r.output


# --------------------------------------------------------------------------- a real agent


def test_the_agent_signs_the_vectors_signatures_and_derives_their_game_secrets(ssh_agent):
    """docs/protocol.md 4.4: the agent's signature of the 7.1 challenge is the keystore's, so S is too."""
    from pbem.match.session import game_secret
    from pbem.protocol.agent import Agent, AgentIdentity

    for n, case in enumerate(VECTORS["game_secrets"]):
        identity = Identity.from_seed(bytes.fromhex(case["key_seed"]))
        ssh_agent.add(identity, f"vector-{n}")
        held = AgentIdentity(Agent(str(ssh_agent.socket)), identity.public)
        assert held.sign_raw(bytes.fromhex(case["signed_message"])).hex() == case["signature"]
        joined = bytes.fromhex(case["joined"]) if case.get("joined") else None
        assert game_secret(held, case["game"], case["side"], joined).hex() == case["game_secret"]


def test_a_whole_dice_game_between_an_agent_key_and_a_keystore_key(ssh_agent, tmp_path):
    ann = agent_player(tmp_path, "ann", ssh_agent)
    ssh_agent.add(Identity.from_seed(ANN_SEED, "ann"))
    r = ann.run("key", "use-agent")
    assert r.exit_code == 0, r.output
    assert "held by ssh-agent" in r.output and not (ann.home / "identity").exists()
    bob = keystore_player(tmp_path, "bob")
    start(ann, bob)
    exchange(ann, bob, tmp_path, ROLL_AND_SEAL)  # bob receives ann's
    exchange(bob, ann, tmp_path, '[[order]]\ntype = "roll"\ndice = "d20"\n')  # and ann bob's
    exchange(ann, bob, tmp_path, '[[order]]\ntype = "reveal"\nslot = "plan"\n\n[[order]]\ntype = "end"\n')
    exchange(bob, ann, tmp_path)
    verified(ann, bob)  # --audit: ann's sealed stores open with the S her agent derived
    rolls = [json.loads(p.run("log", p.game, "--json").output)["rolls"] for p in (ann, bob)]
    assert rolls[0] == rolls[1] and len(rolls[0]) == 2
    # a third party with the bare files
    r = bob.run("verify", *sorted(bob.game.glob("*.pbem")), "--audit", PBEM_HOME=str(tmp_path / "nobody"))
    assert r.exit_code == 0 and "VERIFIED" in r.output, r.output


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
def test_ssh_keygen_verifies_a_message_the_agent_signed(ssh_agent, tmp_path):
    ann, bob = rolled_with_the_agent(ssh_agent, tmp_path)
    out = tmp_path / "extract"
    assert bob.run("verify", bob.game, "--extract", out).exit_code == 0
    for seq in ("0000", "0002"):
        with open(out / f"{seq}.body", "rb") as body:
            done = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", out / "allowed_signers", "-I", "first@pbem",
                                   "-n", "pbem-turn-v1", "-s", out / f"{seq}.sig"], stdin=body, capture_output=True,
                                  text=True, timeout=60)
        assert done.returncode == 0, done.stderr


def test_a_game_begun_with_the_keystore_key_goes_on_with_the_agent(ssh_agent, tmp_path):
    ann = agent_player(tmp_path, "ann", ssh_agent)
    key = ssh_agent.add(Identity.from_seed(ANN_SEED, "ann"))
    r = ann.run("key", "import", key)  # pbem's own copy first
    assert r.exit_code == 0, r.output
    bob = keystore_player(tmp_path, "bob")
    start(ann, bob)
    exchange(ann, bob, tmp_path, ROLL_AND_SEAL)
    exchange(bob, ann, tmp_path)
    r = ann.run("key", "use-agent")
    assert r.exit_code == 2 and "--replace" in r.output and (ann.home / "identity").exists()
    r = ann.run("key", "use-agent", "--replace")
    assert r.exit_code == 0, r.output
    assert not (ann.home / "identity").exists() and (ann.home / "identity.agent").exists()
    r = ann.run("show", ann.game, "--json")  # the sealed note, opened with the agent's S
    assert json.loads(r.output)["view"]["notes"][0]["value"] == "dawn"
    exchange(ann, bob, tmp_path, '[[order]]\ntype = "reveal"\nslot = "plan"\n\n[[order]]\ntype = "end"\n')
    exchange(bob, ann, tmp_path)
    verified(ann, bob)


def test_key_show_and_where_say_the_agent_holds_the_key(ssh_agent, tmp_path):
    ann = agent_player(tmp_path, "ann", ssh_agent)
    identity = Identity.from_seed(ANN_SEED, "ann")
    ssh_agent.add(identity)
    assert ann.run("key", "use-agent", "--name", "Ann Smith").exit_code == 0
    r = ann.run("key", "show", "--json")
    shown = json.loads(r.output)
    assert shown["held_by"] == "ssh-agent" and shown["fingerprint"] == identity.public.fingerprint
    assert shown["public_key"].endswith(" Ann Smith")
    r = ann.run("key", "where", "--json")
    where = json.loads(r.output)
    assert where["held_by"] == "ssh-agent" and where["agent"] == str(ssh_agent.socket)
    assert where["identity"].endswith("identity.agent")
    r = ann.run("key", "show")
    assert "held by ssh-agent" in r.output
    r = ann.run("key", "new", "--name", "other", "--no-passphrase")
    assert r.exit_code == 2 and "ssh-agent holds" in r.output


def test_choosing_among_the_agents_keys(ssh_agent, tmp_path):
    ann = agent_player(tmp_path, "ann", ssh_agent)
    r = ann.run("key", "use-agent")
    assert r.exit_code == 2 and "holds no ssh-ed25519 key" in r.output
    first = Identity.from_seed(ANN_SEED, "ann laptop")
    second = Identity.from_seed(bytes(range(1, 33)), "ann desktop")
    ssh_agent.add(first, "k1")
    ssh_agent.add(second, "k2")
    r = ann.run("key", "use-agent")
    assert r.exit_code == 2 and "holds 2 ssh-ed25519 keys" in r.output and "--key" in r.output
    r = ann.run("key", "use-agent", "--key", "nobody")
    assert r.exit_code == 2 and "holds no key 'nobody'" in r.output
    r = ann.run("key", "use-agent", "--key", "ann desktop")
    assert r.exit_code == 0 and second.public.fingerprint in r.output
    r = ann.run("key", "use-agent", "--key", first.public.fingerprint)  # another key: its games would be lost
    assert r.exit_code == 2 and "keeps another identity" in r.output


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
def test_a_key_that_is_not_ed25519_is_refused_saying_why(ssh_agent, tmp_path):
    path = ssh_agent.folder / "ecdsa"
    subprocess.run(["ssh-keygen", "-q", "-t", "ecdsa", "-N", "", "-C", "old", "-f", path], check=True, timeout=60)
    subprocess.run(["ssh-add", "-q", path], env=ssh_agent.env(), check=True, capture_output=True, timeout=30)
    ann = agent_player(tmp_path, "ann", ssh_agent)
    r = ann.run("key", "use-agent", "--key", "old")
    assert r.exit_code == 2 and "ecdsa-sha2-nistp256" in r.output and "deterministic" in r.output
    r = ann.run("key", "use-agent")
    assert r.exit_code == 2 and "holds no ssh-ed25519 key" in r.output and "ecdsa-sha2-nistp256" in r.output
    assert not (ann.home / "identity.agent").exists()


def test_the_agent_gone_or_without_the_key_is_a_precise_error(ssh_agent, tmp_path):
    ann, bob = rolled_with_the_agent(ssh_agent, tmp_path)
    orders = tmp_path / "o.toml"
    orders.write_text('[[order]]\ntype = "roll"\ndice = "d6"\n')
    r = bob.run("play", bob.game, "--orders", orders)
    assert r.exit_code == 0, r.output
    sent = last_line(r.output)
    r = ann.run("receive", ann.game, sent, SSH_AUTH_SOCK=None)
    assert r.exit_code == 2 and "SSH_AUTH_SOCK is not set" in r.output, r.output
    ssh_agent.remove_all()
    r = ann.run("receive", ann.game, sent)
    assert r.exit_code == 2 and "does not hold it" in r.output and "ssh-add" in r.output, r.output
    ssh_agent.stop()
    for command in (("receive", ann.game, sent), ("play", ann.game, "--orders", orders)):
        r = ann.run(*command)
        assert r.exit_code == 2 and f"cannot reach ssh-agent at {ssh_agent.socket}" in r.output, r.output
        assert "passphrase" not in r.output.lower()
    assert not (ann.game / sent.name).exists() and not (ann.game / "0004-first.pbem").exists()  # nothing written


# --------------------------------------------------------------------------- agents that misbehave


class FakeAgent:
    """A Unix socket answering each request with ``answer(request)``: raw bytes, length included."""

    def __init__(self, folder: Path, answer: Callable[[bytes], bytes]):
        self.path = folder / f"fake-{len(list(folder.iterdir()))}.sock"
        self.answer = answer
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(self.path))
        self.server.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                try:
                    length = int.from_bytes(conn.recv(4), "big")
                    request = b""
                    while len(request) < length:
                        request += conn.recv(length - len(request))
                    conn.sendall(self.answer(request))
                except OSError:
                    pass

    def close(self) -> None:
        self.server.close()


@pytest.fixture
def fake_agent():
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="pbem-fake-"))
    made: list[FakeAgent] = []

    def make(answer: Callable[[bytes], bytes]) -> FakeAgent:
        made.append(FakeAgent(folder, answer))
        return made[-1]

    yield make
    for agent in made:
        agent.close()
    shutil.rmtree(folder, ignore_errors=True)


def message(kind: int, body: bytes = b"") -> bytes:
    return (len(body) + 1).to_bytes(4, "big") + bytes([kind]) + body


def identities(*keys: tuple[bytes, str]) -> bytes:
    body = len(keys).to_bytes(4, "big") + b"".join(ssh_string(blob) + ssh_string(c.encode()) for blob, c in keys)
    return message(12, body)


def sk_blob(raw: bytes) -> bytes:
    return ssh_string(b"sk-ssh-ed25519@openssh.com") + ssh_string(raw) + ssh_string(b"ssh:")


def test_a_fido_key_is_refused_because_its_signatures_are_not_deterministic(fake_agent, tmp_path):
    from pbem.protocol.agent import AgentKey

    agent = fake_agent(lambda request: identities((sk_blob(bytes(32)), "yubikey")))
    ann = AgentPlayer("ann", tmp_path / "home-ann", tmp_path / "ann", sock=str(agent.path))
    r = ann.run("key", "use-agent")
    assert r.exit_code == 2 and "sk-ssh-ed25519@openssh.com" in r.output
    assert "FIDO" in r.output and "counter" in r.output and "no stable per-game secret" in r.output
    fingerprint = AgentKey("sk-ssh-ed25519@openssh.com", sk_blob(bytes(32)), "").fingerprint
    for wanted in ("yubikey", fingerprint):
        r = ann.run("key", "use-agent", "--key", wanted)
        assert r.exit_code == 2 and "FIDO" in r.output and "counter" in r.output, r.output
    assert not ann.home.exists()


def test_answers_that_break_the_protocol_are_refused(fake_agent):
    from pbem.protocol.agent import Agent

    ann = Identity.from_seed(ANN_SEED, "ann")
    cases = [
        (lambda r: (10**6).to_bytes(4, "big"), "announced an answer of 1,000,000 bytes"),
        (lambda r: (0).to_bytes(4, "big"), "announced an answer of 0 bytes"),
        (lambda r: (100).to_bytes(4, "big") + b"\x0c" + b"\x00" * 10, "closed the connection after 11 of 100"),
        (lambda r: message(12, (5000).to_bytes(4, "big")), "claims 5,000 keys"),
        (lambda r: message(12, (1).to_bytes(4, "big") + ssh_string(ann.public.blob)), "truncated"),
        (lambda r: message(5), "refused the request"),
        (lambda r: message(99), "type 99, expected 12"),
    ]
    for answer, expected in cases:
        with pytest.raises(AgentError, match=expected):
            Agent(str(fake_agent(answer).path), timeout=5).keys()


def test_signatures_the_agent_did_not_make_with_the_key_are_refused(fake_agent):
    from pbem.protocol.agent import Agent

    ann, eve = Identity.from_seed(ANN_SEED, "ann"), Identity.from_seed(bytes(range(64, 96)), "eve")

    def signing(by: Identity, sig_type: bytes = b"ssh-ed25519"):
        return lambda r: message(14, ssh_string(ssh_string(sig_type) + ssh_string(by.sign_raw(b"data"))))

    assert Agent(str(fake_agent(signing(ann)).path)).sign(ann.public, b"data") == ann.sign_raw(b"data")
    with pytest.raises(AgentError, match="did not make"):
        Agent(str(fake_agent(signing(eve)).path)).sign(ann.public, b"data")
    with pytest.raises(AgentError, match="signature type 'rsa-sha2-512'"):
        Agent(str(fake_agent(signing(ann, b"rsa-sha2-512")).path)).sign(ann.public, b"data")
    with pytest.raises(AgentError, match="refused to sign"):
        Agent(str(fake_agent(lambda r: message(5)).path)).sign(ann.public, b"data")


def test_an_agent_that_never_answers_times_out(fake_agent):
    from pbem.protocol.agent import Agent

    def hang(request: bytes) -> bytes:
        time.sleep(2)
        return b""

    began = time.monotonic()
    with pytest.raises(AgentError, match="did not answer the request for the list of its keys within 0.3 s"):
        Agent(str(fake_agent(hang).path), timeout=0.3).keys()
    assert time.monotonic() - began < 1.5


def test_a_socket_nobody_listens_on(tmp_path):
    from pbem.protocol.agent import Agent

    with pytest.raises(AgentError, match="cannot reach ssh-agent at"):
        Agent(str(tmp_path / "nothing.sock")).keys()
    assert issubclass(AgentError, IdentityError)
