"""No secret leaves through a file or an output (protocol §7, issue 9).

Two finished games are played (the Ambon demo: 16 sealed slots, some
revealed during play, some never; the dice demo: a sealed note revealed in
message 0004) and EVERYTHING they write is scanned: every file of both
players' game directories (messages, lock file, anything left over), the
``--json`` output of ``show``, ``log`` and ``verify`` and the text output of
``log`` and ``verify`` -- for the opponent at every stage of the game, for a
spectator (no key), and the error texts and tracebacks of refused commands.

What counts as a leak:

* a player's **private key**: the raw 32-byte seed (hex, base64 at every
  alignment, raw bytes inside any decoded blob) or any line of the OpenSSH
  private key file -- anywhere, ever;
* a **per-game secret** ``S`` (and what derives from it alone: the chain
  seed and the seal key) -- anywhere before the closing message that
  publishes ``S`` by design (protocol 7.6); the seal key and seed never
  appear as such;
* a **chain value** before the message that reveals it (that would let the
  opponent preview dice);
* a **salt** before its slot's reveal (a salt opens a two-valued commitment
  by trial);
* a **sealed value** before its reveal: the value attached to its slot in a
  message or in the opponent's or spectator's outputs.  The dice note is a
  sentence (found verbatim); Ambon's values are words ("dummy",
  "detachment", "real"), so a leak is the slot followed by its value in one
  text, or an object naming the slot that holds the value.  The detector is
  checked on the outputs after each reveal, where it must fire.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner
from conftest import dicts_of
from cryptography.hazmat.primitives import serialization
from demo_games import DemoGame, ambon_game, dice_game

from pbem.cli import main
from pbem.errors import PbemError
from pbem.match import session
from pbem.protocol import sealed
from pbem.protocol.chain import CHAIN_LENGTH, HashChain, chain_seed
from pbem.protocol.keys import Identity
from pbem.protocol.sshwire import is_encrypted
from pbem.protocol.message import SignedMessage
from pbem.protocol.transcript import Transcript

NEVER = 10**9  # "revealed at" for what is never revealed


# --------------------------------------------------------------------------- what is secret, and until when


def b64_cores(secret: bytes) -> list[str]:
    """The base64 text of ``secret`` at each of the three alignments it can
    have inside a longer base64 string (standard and URL-safe alphabets)."""
    cores = []
    for pad in range(3):
        text = base64.b64encode(b"\0" * pad + secret + b"\0\0").decode()
        core = text[(8 * pad + 5) // 6 : (8 * (pad + len(secret))) // 6]  # the characters made of its bits only
        cores += [core, core.replace("+", "-").replace("/", "_")]
    return cores


def forms(secret: bytes) -> list[str]:
    return [secret.hex(), secret.hex().upper(), *b64_cores(secret)]


@dataclass
class Secret:
    what: str
    raw: bytes
    public_from: int = NEVER  # number of messages after which it may appear (NEVER: never)
    texts: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.texts:
            self.texts = forms(self.raw)


@dataclass
class Sealed:
    side: str
    slot: str
    value: str
    revealed_in: int  # the message that reveals it (NEVER if none)


@dataclass
class Secrets:
    """Everything secret in one finished game, with when it becomes public."""

    keys: list[Secret]
    timed: list[Secret]
    values: list[Sealed]
    slots: tuple[str, ...]
    count: int

    def live(self, seen: int) -> list[Secret]:
        """What must not appear in text made from the first ``seen`` messages."""
        return self.keys + [s for s in self.timed if s.public_from > seen]

    def hidden_values(self, seen: int) -> list[Sealed]:
        return [v for v in self.values if v.revealed_in >= seen]


def secrets_of(game: DemoGame) -> Secrets:
    transcript = session.verify([next(iter(game.dirs.values()))]).transcript
    by_side = {side: name for name, side in game.sides.items()}
    keys: list[Secret] = []
    for name, identity in game.identities.items():
        seed = identity._key.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        keys.append(Secret(f"{name}'s private key seed", seed))
        pem = (game.root / name / "keystore" / "identity").read_text()
        lines = [line for line in pem.splitlines() if len(line) >= 16 and "PRIVATE KEY" not in line]
        keys.append(Secret(f"{name}'s OpenSSH private key file", b"", texts=lines))
    timed: list[Secret] = []
    closing = {m.side: seq for seq, m in enumerate(transcript.messages) if "secret" in m.body}
    for side in transcript.sides:
        identity = game.identities[by_side[side]]
        secret = session.Player.of(identity, transcript).secret
        assert transcript.secrets[side] == secret  # the game closed, so both were published
        # S becomes public with the closing message that carries it (seen = its seq + 1)
        timed.append(Secret(f"{side}'s per-game secret", secret, closing[side] + 1))
        keys.append(Secret(f"{side}'s chain seed", chain_seed(secret)))
        keys.append(Secret(f"{side}'s seal key", sealed.seal_key(secret)))
        chain = HashChain(chain_seed(secret))
        first = 0 if side == transcript.messages[0].side else 1
        for index in range(min(len(transcript) // 2 + 3, CHAIN_LENGTH)):
            seq = first + 2 * index  # the message that reveals chain value #index of this side
            timed.append(Secret(f"{side}'s chain value #{index}", chain.value(index), seq + 1))
    stores = session._final_stores(transcript)
    values = []
    for side, store in stores.items():
        secret = transcript.secrets[side]
        for slot, value in store.items():
            reveal = transcript.reveals.get((side, slot))
            revealed_in = reveal.seq if reveal else NEVER
            values.append(Sealed(side, slot, value, revealed_in))
            timed.append(Secret(f"{side}'s salt of slot {slot}", sealed.salt_for(secret, slot), revealed_in + 1))
    slots = tuple(sorted({slot for _, slot in transcript.commitments}))
    return Secrets(keys, timed, values, slots, len(transcript))


# --------------------------------------------------------------------------- the scanner


def strings_of(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from strings_of(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings_of(v)


def decoded_parts(text: str) -> list[bytes]:
    """The bytes hidden in a text: its own bytes, every turn-file block's body
    and signature, and every sealed store inside a body."""
    parts = [text.encode("utf-8", "surrogatepass")]
    try:
        blocks = SignedMessage.all_from_text(text)
    except PbemError:
        blocks = []
    for msg in blocks:
        parts += [msg.body_bytes, msg.signature]
        try:
            blob = msg.body.get("sealed") or ""
            parts.append(base64.b64decode(blob))
        except (PbemError, ValueError):
            pass
    for run in re.findall(r"[A-Za-z0-9+/]{40,}={0,2}", text):  # any other base64 in the text
        try:
            parts.append(base64.b64decode(run + "=" * (-len(run) % 4)))
        except ValueError:
            pass
    return parts


def json_views(text: str) -> list[Any]:
    """The JSON in a text: the text itself, or the bodies of its blocks."""
    views = []
    try:
        views.append(json.loads(text))
    except ValueError:
        pass
    try:
        for msg in SignedMessage.all_from_text(text):
            views.append(msg.body)
    except PbemError:
        pass
    return views


def value_leaks(text: str, hidden: list[Sealed], slots: tuple[str, ...]) -> list[str]:
    """Sealed values attached to their slot in ``text`` (see the module docstring)."""
    found = []
    slot_word = "|".join(re.escape(s) for s in sorted(slots, key=len, reverse=True))
    token = re.compile(rf"(?<![\w.-])({slot_word})(?![\w-])")
    lines = text.splitlines() + [s for view in json_views(text) for s in strings_of(view)]
    for item in hidden:
        if len(item.value) >= 12 and item.value in text:  # a distinctive value: anywhere at all
            found.append(f"{item.side}'s sealed value of {item.slot!r} verbatim")
            continue
        word = re.compile(rf"\b{re.escape(item.value)}\b")
        for line in lines:
            for m in token.finditer(line):
                if m.group(1) != item.slot:
                    continue
                rest = line[m.end():]
                nxt = token.search(rest)
                if word.search(rest[: nxt.start() if nxt else len(rest)]):
                    found.append(f"{item.slot} = {item.value}: {line[:120]!r}")
        for view in json_views(text):
            for obj in dicts_of(view):
                names = {v for v in obj.values() if isinstance(v, str)}
                if item.slot in names or any(v.startswith(item.slot + ":") for v in names):
                    others = [v for k, v in obj.items() if isinstance(v, str) and v != item.slot]
                    if any(word.search(v) or v.endswith(f"{item.slot}:{item.value[:3]}") for v in others):
                        found.append(f"{item.slot} = {item.value} in {json.dumps(obj)[:120]}")
    return found


def leaks(text: str, secrets: Secrets, seen: int, *, values: bool = True) -> list[str]:
    """Everything secret after ``seen`` messages that ``text`` shows."""
    found = []
    parts = decoded_parts(text)
    for secret in secrets.live(seen):
        if any(form and form in text for form in secret.texts):
            found.append(secret.what)
        elif secret.raw and any(secret.raw in part for part in parts):
            found.append(f"{secret.what} (raw bytes)")
    if values:
        found += value_leaks(text, secrets.hidden_values(seen), secrets.slots)
    return found


def test_the_scanner_finds_what_it_looks_for():
    raw = bytes(range(100, 132))
    secrets = Secrets([Secret("k", raw)], [], [Sealed("allied", "X5", "dummy", 9)], ("X5", "X55", "X6", "X7"), 10)
    for pad in (b"", b"a", b"ab"):
        assert leaks(base64.b64encode(pad + raw + b"zz").decode(), secrets, 0), pad
        assert leaks(base64.urlsafe_b64encode(pad + raw).decode(), secrets, 0), pad
    assert leaks("x " + raw.hex().upper(), secrets, 0)
    assert leaks("X5 in 1509 is revealed: a dummy", secrets, 3)
    assert leaks(json.dumps({"id": "X5", "identity": "dummy"}), secrets, 3)
    assert leaks(json.dumps({"label": "X5:dum"}), secrets, 3)
    assert not leaks("X5 in 1509 is revealed: a dummy", secrets, 10)  # after its reveal
    assert not leaks("X6 moves; X5 in 1509; X7 is a dummy", secrets, 3)
    assert not leaks("X55 is a dummy; X5 moves", secrets, 3)


# --------------------------------------------------------------------------- running the commands


def cli(home: Path | None, *args: Any) -> tuple[str, BaseException | None, int]:
    env = {"COLUMNS": "200", "PBEM_HOME": str(home) if home else "/nonexistent-pbem-home"}
    result = CliRunner().invoke(main, [str(a) for a in args], env=env)
    text = result.output
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        text += "".join(traceback.format_exception(result.exception))
    return text, result.exception, result.exit_code


def prefix_dir(game: DemoGame, name: str, seen: int, where: Path) -> Path:
    """A copy of ``name``'s directory holding only the first ``seen`` messages."""
    target = where / f"{name}-{seen:04d}"
    if not target.exists():
        target.mkdir(parents=True)
        for path in game.messages(name)[:seen]:
            shutil.copy(path, target / path.name)
    return target


def outputs_at(game: DemoGame, seen: int, where: Path) -> dict[str, str]:
    """Every output a player (about their own game) and a spectator get after ``seen`` messages."""
    found: dict[str, str] = {}
    for name in game.dirs:
        home = game.root / name / "keystore"
        directory = prefix_dir(game, name, seen, where)
        for args in (("show", "--json"), ("log", "--json"), ("log",)):
            text, err, status = cli(home, args[0], directory, *args[1:])
            assert status == 0, text
            found[f"{name}: pbem {' '.join(args)}"] = text
        found[f"{name}: view"] = json.dumps(session.load(directory, game.identities[name]).view())
    spectator = prefix_dir(game, next(iter(game.dirs)), seen, where)
    for args in (("--json",), ()):
        text, _, status = cli(None, "verify", spectator, *args)
        assert status == 0, text
        found[f"spectator: pbem verify {' '.join(args)}"] = text
    found["spectator: view"] = json.dumps(session.load(spectator).view())
    return found


def scan(texts: dict[str, str], secrets: Secrets, seen: int, *, owners: dict[str, str]) -> list[str]:
    """``owners``: output label prefix -> the side whose own outputs may show its own values."""
    problems = []
    for label, text in texts.items():
        own = next((side for prefix, side in owners.items() if label.startswith(prefix)), None)
        hidden = Secrets(secrets.keys, secrets.timed, [v for v in secrets.values if v.side != own],
                         secrets.slots, secrets.count)
        problems += [f"after {seen} messages, {label}: {leak}" for leak in leaks(text, hidden, seen)]
    return problems


# --------------------------------------------------------------------------- the games


@pytest.fixture(scope="module")
def ambon(tmp_path_factory):
    game = ambon_game(tmp_path_factory)
    return game, secrets_of(game)


@pytest.fixture(scope="module")
def dice(tmp_path_factory):
    game = dice_game(tmp_path_factory)
    return game, secrets_of(game)


GAMES = ["ambon", "dice"]


@pytest.fixture(params=GAMES)
def played(request):
    return request.getfixturevalue(request.param)


def test_the_games_hold_what_the_scan_looks_for(ambon, dice):
    game, secrets = ambon
    revealed = [v for v in secrets.values if v.revealed_in < NEVER]
    assert len(secrets.values) == 16 and revealed, secrets.values  # X1-X8, M1-M8; the landings reveal some
    game, secrets = dice
    assert [(v.slot, v.revealed_in) for v in secrets.values] == [("ambush", 4)]


def test_every_file_written(played):
    """Every file in both players' game directories (and the dice demo's
    mail folder), read as the message it is, at the time it was sent."""
    game, secrets = played
    problems = []
    files = [p for d in game.dirs.values() for p in sorted(d.iterdir())]
    files += sorted((game.root / "mail").glob("*")) if (game.root / "mail").exists() else []
    assert len(files) > secrets.count
    for path in files:
        text = path.read_text("utf-8", "replace")
        m = re.match(r"(\d{4})-", path.name)
        seen = int(m.group(1)) + 1 if m else secrets.count  # message m: written knowing messages 0..m
        problems += [f"{path.parent.name}/{path.name}: {leak}" for leak in leaks(text, secrets, seen)]
    assert not problems, "\n".join(problems[:20])


def test_messages_carry_the_secret_only_when_closing(played):
    game, secrets = played
    for path in game.messages():
        body = SignedMessage.from_text(path.read_text()).body
        if "secret" in body:
            seq = body["seq"]
            assert seq >= secrets.count - 2, f"{path.name} reveals its secret before the end"


def stages(secrets: Secrets, everything: bool) -> list[int]:
    """After how many messages to look: just before and just after each
    reveal, and at the end (every stage with ``everything``)."""
    if everything:
        return list(range(2, secrets.count + 1))
    reveals = sorted({v.revealed_in for v in secrets.values if v.revealed_in < NEVER})
    picked = {secrets.count}
    for r in reveals:
        picked |= {r, r + 1}
    return sorted(s for s in picked if 2 <= s <= secrets.count)


def check_outputs(game: DemoGame, secrets: Secrets, tmp_path: Path, everything: bool) -> None:
    owners = {f"{name}:": side for name, side in game.sides.items()}
    problems, fired = [], 0
    for seen in stages(secrets, everything):
        texts = outputs_at(game, seen, tmp_path)
        problems += scan(texts, secrets, seen, owners=owners)
        # the detector fires on what is public by now (a positive control)
        public = [v for v in secrets.values if v.revealed_in < seen]
        if public:
            control = Secrets([], [], public, secrets.slots, secrets.count)
            fired += sum(bool(value_leaks(t, control.values, secrets.slots)) for t in texts.values())
    assert not problems, "\n".join(problems[:20])
    assert fired, "the value detector never fired, even on revealed values"


@pytest.mark.parametrize("game_name", GAMES)
def test_outputs_for_opponent_and_spectator(request, game_name, tmp_path):
    game, secrets = request.getfixturevalue(game_name)
    check_outputs(game, secrets, tmp_path, everything=game_name == "dice")


@pytest.mark.slow
def test_outputs_at_every_stage_of_the_ambon_game(ambon, tmp_path):
    check_outputs(*ambon, tmp_path, everything=True)


def test_the_owner_sees_its_own_values_and_the_detector_sees_them(ambon, tmp_path):
    """Positive control: the Allied player's own view shows its unrevealed
    identities -- and the scan, told they are secret, finds them."""
    game, secrets = ambon
    directory = prefix_dir(game, "jack", 4, tmp_path)
    text, _, status = cli(game.root / "jack" / "keystore", "show", directory, "--json")
    assert status == 0
    assert value_leaks(text, secrets.hidden_values(4), secrets.slots)


def test_error_texts_and_tracebacks(played, tmp_path):
    """Refused commands, by the players and a spectator, at a stage where
    secrets are still hidden: the error texts and the tracebacks of the
    library errors show nothing secret."""
    game, secrets = played
    names = list(game.dirs)
    seen = 4
    texts: dict[str, str] = {}
    for name in names:
        home = game.root / name / "keystore"
        directory = prefix_dir(game, name, seen, tmp_path)
        orders = tmp_path / "orders.toml"
        orders.write_text('[[order]]\ntype = "nonsense"\n')
        texts[f"{name}: play bad orders"] = cli(home, "play", directory, "--orders", orders)[0]
        texts[f"{name}: receive a replayed message"] = cli(home, "receive", directory, game.messages(name)[1])[0]
        texts[f"{name}: show with a wrong passphrase"] = cli(tmp_path / "nokey", "show", directory)[0]
    # a spectator verifying a damaged message
    damaged = tmp_path / "damaged"
    shutil.copytree(prefix_dir(game, names[0], seen, tmp_path), damaged)
    victim = sorted(damaged.glob("0003-*.pbem"))[0]
    msg = SignedMessage.from_text(victim.read_text())
    victim.write_text(SignedMessage(msg.body_bytes, msg.signature[:-1] + bytes([msg.signature[-1] ^ 1])).armored())
    texts["spectator: verify a damaged game"] = cli(None, "verify", damaged)[0]
    # the library's own errors, with their whole traceback and causes
    for label, call in {
        "session.verify": lambda: session.verify([damaged]),
        "session.load": lambda: session.load(damaged, game.identities[names[1]]),
        "Transcript.add": lambda: Transcript().add(SignedMessage(b"{}", b"")),
    }.items():
        try:
            call()
        except PbemError as err:
            texts[f"library {label}"] = "".join(traceback.format_exception(err))
    assert all(texts.values())
    problems = []
    for label, text in texts.items():
        problems += [f"{label}: {leak}" for leak in leaks(text, secrets, seen)]
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- keys at rest


def test_a_new_key_is_encrypted_and_private(tmp_path):
    home = tmp_path / "home"
    result = CliRunner().invoke(main, ["key", "new", "--name", "carol"], env={"PBEM_HOME": str(home)},
                                input="correct horse\ncorrect horse\n")
    assert result.exit_code == 0, result.output
    private = home / "identity"
    assert is_encrypted(private.read_bytes())
    assert private.stat().st_mode & 0o777 == 0o600
    assert (home / "identity.pub").stat().st_mode & 0o777 == 0o600
    assert home.stat().st_mode & 0o777 == 0o700
    assert "correct horse" not in result.output
    assert "(encrypted)" in result.output and "NOT encrypted" not in result.output  # (a fingerprint may hold "NOT")


def test_the_passphrase_is_in_no_output(tmp_path):
    home = tmp_path / "home"
    env = {"PBEM_HOME": str(home), "PBEM_PASSPHRASE": "correct horse battery"}
    assert CliRunner().invoke(main, ["key", "new", "--name", "carol"], env=env).exit_code == 0
    opponent = Identity.from_seed(bytes(range(32)), "ann").public.openssh()
    for passphrase in ("wrong staple", ""):
        result = CliRunner().invoke(main, ["new", str(tmp_path / "g"), "--game", "dice", "--as", "first",
                                           "--opponent", opponent],
                                    env={**env, "PBEM_PASSPHRASE": passphrase})
        assert result.exit_code == 2 and "wrong passphrase" in result.output, result.output
        assert "correct horse" not in result.output and (not passphrase or passphrase not in result.output)


def test_an_unencrypted_key_is_only_made_on_request(tmp_path):
    result = CliRunner().invoke(main, ["key", "new", "--name", "dan", "--no-passphrase"],
                                env={"PBEM_HOME": str(tmp_path)})
    assert result.exit_code == 0 and "NOT encrypted" in result.output
    assert (tmp_path / "identity").stat().st_mode & 0o777 == 0o600
    # without --no-passphrase, no passphrase given and no terminal: no key is made
    result = CliRunner().invoke(main, ["key", "new", "--name", "eve"], env={"PBEM_HOME": str(tmp_path / "e")})
    assert result.exit_code != 0 and not (tmp_path / "e" / "identity").exists()
