"""The tamper matrix (testing, issue 9): every way to break the files of one
finished Ambon game is detected, with a precise message.

Over the Ambon demo game (38 messages), each case breaks the game one way:

``body``  one byte of a message body changed (XOR with a non-zero value)
``sig``   one byte of a message's SSHSIG blob changed
``cut``   a message's armoured text truncated at some character
``swap``  two messages exchanged
``drop``  one message left out
``dup``   one message given twice (replayed right after itself)

and must make verification raise a
:class:`~pbem.errors.VerificationError` (integrity, authenticity, hidden
information or equivocation) -- never another exception, never a pass -- whose
message names the broken message's number (``0005``, or its file
``0005-allied.pbem``).

The default run checks a deterministic sample of about 3,000 cases in memory
(a verified prefix of the transcript is built once per message and copied,
so each case verifies only the message it breaks) plus a sample through
``session.verify`` on real files and a few through the CLI.  The full matrix
(every byte of every body and signature with three different changes, every
value of every byte of message 0 -- the one message whose body is parsed
before its signature is checked --, every truncation point, every pair, every
drop and duplicate) runs with ``pytest -m slow``.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner
from demo_games import ambon_game

from pbem.cli import main
from pbem.errors import PbemError, VerificationError
from pbem.match import session
from pbem.match.replay import replay
from pbem.protocol.message import END, SignedMessage
from pbem.protocol.transcript import Transcript

SEED = 20260509
# Changes tried at every byte in the full matrix: the low bit (hex digit <->
# neighbour), 0x20 (letter case: uppercase hex is refused), the high bit
# (non-ASCII) and one seeded random value.
FULL_XORS = (0x01, 0x20, 0x80)


# --------------------------------------------------------------------------- the game and its cases


def fork(transcript: Transcript) -> Transcript:
    """A copy of a verified prefix that ``add`` can extend without touching the original."""
    new = copy.copy(transcript)
    for f in dataclasses.fields(transcript):
        value = getattr(transcript, f.name)
        if isinstance(value, (list, dict, set)):
            setattr(new, f.name, copy.copy(value))
    return new


@dataclass(frozen=True)
class Case:
    kind: str  # body, sig, cut, swap, drop, dup
    k: int  # the message broken (for swap: the first of the pair)
    a: int = 0  # body/sig: byte index; cut: length kept; swap: the second message
    x: int = 0  # body/sig: the XOR mask

    def __str__(self) -> str:
        if self.kind in ("body", "sig"):
            return f"{self.kind} of message {self.k:04d}, byte {self.a} ^= 0x{self.x:02x}"
        if self.kind == "cut":
            return f"message {self.k:04d} cut to {self.a} characters"
        if self.kind == "swap":
            return f"messages {self.k:04d} and {self.a:04d} swapped"
        return f"message {self.k:04d} {'dropped' if self.kind == 'drop' else 'duplicated'}"

    @property
    def named(self) -> str:
        """The message number the error must name."""
        return f"{self.k:04d}"


class Game:
    """One finished Ambon game, read once: files, messages, verified prefixes."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.paths = sorted(directory.glob("[0-9][0-9][0-9][0-9]-*.pbem"))
        self.texts = [p.read_text("utf-8") for p in self.paths]
        self.messages = [msg for _, msg in session.read_messages(self.paths)]
        self.prefixes: list[Transcript] = []  # prefixes[k]: messages 0..k-1 verified
        transcript = Transcript()
        for msg in self.messages:
            self.prefixes.append(fork(transcript))
            transcript.add(msg)
        self.full = transcript
        self.count = len(self.messages)
        self.rng = random.Random(SEED)

    # -- the matrix ---------------------------------------------------------------

    def _random_xor(self, kind: str, k: int, i: int) -> int:
        x = random.Random(f"{SEED}-{kind}-{k}-{i}").randrange(1, 256)
        return x if x not in FULL_XORS else (x + 7) % 255 + 1

    def _data(self, kind: str, k: int) -> bytes:
        return self.messages[k].body_bytes if kind == "body" else self.messages[k].signature

    def cut_range(self, k: int) -> range:
        """Every length that loses at least part of the block's END line."""
        text = self.texts[k]
        return range(0, text.index(END) + len(END))

    def full_cases(self) -> Iterator[Case]:
        for k in range(self.count):
            for kind in ("body", "sig"):
                for i in range(len(self._data(kind, k))):
                    masks = range(1, 256) if (kind, k) == ("body", 0) else (*FULL_XORS, self._random_xor(kind, k, i))
                    for x in masks:
                        yield Case(kind, k, i, x)
            for n in self.cut_range(k):
                yield Case("cut", k, n)
        for i in range(self.count):
            for j in range(i + 1, self.count):
                yield Case("swap", i, j)
        for k in range(self.count - 1):  # dropping the last message leaves a valid prefix: see its own test
            yield Case("drop", k)
        for k in range(self.count):
            yield Case("dup", k)

    def sample(self, rng: random.Random, body: int, sig: int, cut: int, swap: int) -> list[Case]:
        """A deterministic sample of the matrix: bytes and cut points drawn
        uniformly over the whole game, every drop and duplicate."""
        cases: list[Case] = []
        for kind, n in (("body", body), ("sig", sig)):
            sizes = [len(self._data(kind, k)) for k in range(self.count)]
            for _ in range(n):
                k = rng.choices(range(self.count), weights=sizes)[0]
                cases.append(Case(kind, k, rng.randrange(sizes[k]), rng.randrange(1, 256)))
        sizes = [len(self.cut_range(k)) for k in range(self.count)]
        for _ in range(cut):
            k = rng.choices(range(self.count), weights=sizes)[0]
            cases.append(Case("cut", k, rng.randrange(sizes[k])))
        pairs = [(i, j) for i in range(self.count) for j in range(i + 1, self.count)]
        cases += [Case("swap", i, j) for i, j in rng.sample(pairs, swap)]
        cases += [Case("drop", k) for k in range(self.count - 1)]
        cases += [Case("dup", k) for k in range(self.count)]
        return cases

    # -- running one case in memory ----------------------------------------------------

    def tampered(self, case: Case) -> SignedMessage:
        msg = self.messages[case.k]
        data = bytearray(self._data(case.kind, case.k))
        data[case.a] ^= case.x
        if case.kind == "body":
            return SignedMessage(bytes(data), msg.signature)
        return SignedMessage(msg.body_bytes, bytes(data))

    def run(self, case: Case, scratch: Path) -> BaseException | None:
        """Verify the broken game; the exception raised, or None if it passed."""
        try:
            if case.kind in ("body", "sig"):
                fork(self.prefixes[case.k]).add(self.tampered(case))
            elif case.kind == "cut":
                path = scratch / self.paths[case.k].name
                path.write_text(self.texts[case.k][: case.a], "utf-8")
                found = [msg for _, msg in session.read_messages([path])]
                transcript = fork(self.prefixes[case.k])
                for msg in found + self.messages[case.k + 1 :]:
                    transcript.add(msg)
                replay(session._game_for(transcript), transcript)
            elif case.kind == "swap":
                order = list(self.messages[case.k :])
                j = case.a - case.k
                order[0], order[j] = order[j], order[0]
                transcript = fork(self.prefixes[case.k])
                for msg in order:
                    transcript.add(msg)
                replay(session._game_for(transcript), transcript)
            elif case.kind == "drop":
                transcript = fork(self.prefixes[case.k])
                for msg in self.messages[case.k + 1 :]:
                    transcript.add(msg)
                replay(session._game_for(transcript), transcript)
            elif case.kind == "dup":
                transcript = fork(self.prefixes[case.k + 1] if case.k + 1 < self.count else self.full)
                for msg in [self.messages[case.k], *self.messages[case.k + 1 :]]:
                    transcript.add(msg)
                replay(session._game_for(transcript), transcript)
            else:  # pragma: no cover
                raise AssertionError(case.kind)
        except BaseException as err:  # noqa: BLE001 -- classified by the caller
            return err
        return None


def problem(case: Case, err: BaseException | None, *, strict: bool) -> str | None:
    """What is wrong with the outcome of ``case`` (None: detected precisely)."""
    if err is None:
        return f"{case}: ACCEPTED"
    if not isinstance(err, PbemError):
        return f"{case}: {type(err).__name__} (not a PbemError): {err}"
    if not strict:
        return None
    if not isinstance(err, VerificationError):
        return f"{case}: {type(err).__name__} (exit {err.exit_code}), not a VerificationError: {err}"
    if case.named not in str(err):
        return f"{case}: the error does not name message {case.named}: {err}"
    return None


def check(game: Game, cases: list[Case], scratch: Path) -> list[str]:
    problems = []
    for case in cases:
        err = game.run(case, scratch)
        found = problem(case, err, strict=True)
        if found:
            problems.append(found)
    return problems


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> Game:
    return Game(ambon_game(tmp_path_factory).dirs["kenji"])


@pytest.fixture
def workdir(game, tmp_path) -> Path:
    """A copy of the game directory that a test may break."""
    target = tmp_path / "game"
    shutil.copytree(game.directory, target)
    return target


# --------------------------------------------------------------------------- the untampered game


def test_the_untampered_game_verifies(game):
    assert game.count >= 20  # the bot's games run to 30-40 messages; the cases below need 20
    report = session.verify([game.directory], audit=True)
    assert report.ok, report.problems
    assert len(report.transcript) == game.count
    assert report.replay.over
    # the in-memory path the matrix uses accepts it too
    replay(session._game_for(game.full), game.full)


def test_a_verified_prefix_is_not_changed_by_a_failing_case(game, tmp_path):
    before = [len(p) for p in game.prefixes]
    check(game, [Case("sig", 5, 40, 0x01), Case("swap", 3, 9), Case("dup", 4)], tmp_path)
    assert [len(p) for p in game.prefixes] == before
    for k in range(game.count):  # each prefix still takes the genuine next message
        fork(game.prefixes[k]).add(game.messages[k])


# --------------------------------------------------------------------------- the CI sample


def test_sample_of_the_tamper_matrix(game, tmp_path):
    cases = game.sample(random.Random(SEED), body=1500, sig=600, cut=600, swap=250)
    assert len(cases) >= 2000
    assert {c.kind for c in cases} == {"body", "sig", "cut", "swap", "drop", "dup"}
    start = time.process_time()  # CPU: the cost of the checks, however busy the machine
    problems = check(game, cases, tmp_path)
    elapsed = time.process_time() - start
    assert not problems, f"{len(problems)} of {len(cases)} cases:\n" + "\n".join(problems[:20])
    assert elapsed < 20, f"the sample took {elapsed:.1f} s"


def test_every_drop_and_duplicate_and_a_swap_of_each_message(game, tmp_path):
    cases = [Case("drop", k) for k in range(game.count - 1)] + [Case("dup", k) for k in range(game.count)]
    cases += [Case("swap", k, k + 1) for k in range(game.count - 1)]
    assert not check(game, cases, tmp_path)


def test_error_messages_are_precise(game, tmp_path):
    """What the user reads for each kind of damage."""

    def message(case: Case) -> str:
        err = game.run(case, tmp_path)
        assert isinstance(err, VerificationError), (case, err)
        return str(err)

    assert "message 0005: signature check failed" in message(Case("body", 5, 100, 0x01))
    assert "message 0012: signature check failed" in message(Case("sig", 12, 150, 0x01))
    assert "armour truncated" in message(Case("cut", 7, len(game.texts[7]) // 2))
    assert "message 0009 arrives where message 0004 is expected" in message(Case("swap", 4, 9))
    assert "message 0011 arrives where message 0010 is expected: 1 message(s) missing" in message(Case("drop", 10))
    assert "message 0006 arrives where message 0007 is expected: an old message replayed" in message(Case("dup", 6))
    last = game.count - 1
    assert f"the game was closed by message {last:04d}" in message(Case("dup", last))


def test_dropping_the_last_message_leaves_a_prefix_the_audit_refuses(game, workdir):
    """A game cut short after any message is a valid shorter game (the last
    message has just not arrived yet), so plain ``verify`` accepts it; the
    audit cannot: the closing message with the last per-game secret is missing."""
    (workdir / game.paths[-1].name).unlink()
    report = session.verify([workdir])
    assert report.ok and len(report.transcript) == game.count - 1
    report = session.verify([workdir], audit=True)
    assert not report.ok
    assert any("never revealed its per-game secret" in p for p in report.problems), report.problems


# --------------------------------------------------------------------------- the same through files and the CLI


def break_files(game: Game, case: Case, workdir: Path, outside: Path) -> list[Path]:
    """Damage the copy ``workdir`` of the game as ``case`` says; return the
    paths to verify."""
    name = game.paths[case.k].name
    if case.kind in ("body", "sig"):
        (workdir / name).write_text(game.tampered(case).armored("tampered"), "utf-8")
    elif case.kind == "cut":
        (workdir / name).write_text(game.texts[case.k][: case.a], "utf-8")
    elif case.kind == "swap":
        other = game.paths[case.a].name
        (workdir / name).write_text(game.texts[case.a], "utf-8")
        (workdir / other).write_text(game.texts[case.k], "utf-8")
    elif case.kind == "drop":
        (workdir / name).unlink()
    elif case.kind == "dup":
        copy_ = outside / name
        copy_.write_text(game.texts[case.k], "utf-8")
        return [workdir, copy_]
    return [workdir]


def restore(game: Game, case: Case, workdir: Path) -> None:
    for k in (case.k, case.a) if case.kind == "swap" else (case.k,):
        (workdir / game.paths[k].name).write_text(game.texts[k], "utf-8")


def file_level_problem(game: Game, case: Case, workdir: Path, outside: Path) -> str | None:
    paths = break_files(game, case, workdir, outside)
    try:
        session.verify(paths)
    except BaseException as err:  # noqa: BLE001
        found = err
    else:
        found = None
    finally:
        restore(game, case, workdir)
    return problem(case, found, strict=True)


def test_sample_through_session_verify_on_files(game, workdir, tmp_path):
    rng = random.Random(SEED + 1)
    cases = game.sample(rng, body=20, sig=20, cut=20, swap=15)
    cases = [c for c in cases if c.kind not in ("drop", "dup")] + [
        Case("drop", k) for k in rng.sample(range(game.count - 1), 8)
    ] + [Case("dup", k) for k in rng.sample(range(game.count), 8)]
    problems = [p for case in cases if (p := file_level_problem(game, case, workdir, tmp_path))]
    assert not problems, "\n".join(problems[:20])
    assert session.verify([workdir]).ok  # every case was restored


@pytest.mark.parametrize(
    "case, needles",
    [
        (Case("sig", 14, 100, 0x04), ["message 0014: signature check failed"]),
        (Case("swap", 16, 17), ["0016-japanese.pbem holds message 0017", "renamed or swapped"]),
        (Case("cut", 3, -700), ["0003-allied.pbem", "truncated"]),  # -700: 700 characters before the end
        (Case("dup", 8), ["message 0008 appears twice"]),
    ],
    ids=str,
)
def test_cli_verify_exits_1_naming_the_message(game, workdir, tmp_path, case, needles):
    if case.kind == "cut":
        case = Case("cut", case.k, len(game.texts[case.k]) + case.a)
    paths = break_files(game, case, workdir, tmp_path)
    result = CliRunner().invoke(main, ["verify", *map(str, paths)], env={"COLUMNS": "200"})
    assert result.exit_code == 1, result.output
    for needle in needles:
        assert needle in result.output


# --------------------------------------------------------------------------- the full matrix


@pytest.mark.slow
def test_full_tamper_matrix(game, tmp_path):
    start = time.perf_counter()
    cases = list(game.full_cases())
    problems = check(game, cases, tmp_path)
    elapsed = time.perf_counter() - start
    print(f"full tamper matrix: {len(cases)} cases in {elapsed:.1f} s")
    assert not problems, f"{len(problems)} of {len(cases)} cases:\n" + "\n".join(problems[:30])


@pytest.mark.slow
def test_larger_sample_through_files(game, workdir, tmp_path):
    rng = random.Random(SEED + 2)
    cases = game.sample(rng, body=300, sig=300, cut=300, swap=200)
    problems = [p for case in cases if (p := file_level_problem(game, case, workdir, tmp_path))]
    assert not problems, "\n".join(problems[:20])


# --------------------------------------------------------------------------- message 0 and unreadable bodies


def _body_with(game: Game, k: int, old: bytes, new: bytes) -> SignedMessage:
    msg = game.messages[k]
    assert old in msg.body_bytes
    return SignedMessage(msg.body_bytes.replace(old, new, 1), msg.signature)


def test_damaged_key_in_message_0_is_an_integrity_error_naming_it(game):
    # "ssh-ed25519 AAAAC3Nz..." -> "ssh-ed25519 AA@AC3Nz...": one byte of the body
    bad = _body_with(game, 0, b"ssh-ed25519 AAAAC3", b"ssh-ed25519 AA@AC3")
    with pytest.raises(VerificationError, match="0000"):
        Transcript().add(bad)


def test_non_canonical_message_0_names_it(game):
    bad = _body_with(game, 0, b'"chain":"', b'"chain" "')
    with pytest.raises(VerificationError, match="0000"):
        Transcript().add(bad)


def test_damaged_version_key_in_message_0_names_it(game):
    bad = _body_with(game, 0, b'"pbem":1', b'"pbel":1')  # byte ^= 0x02
    with pytest.raises(VerificationError, match="0000"):
        Transcript().add(bad)


def test_a_signed_message_with_a_mistyped_field_names_it(game, tmp_path_factory):
    from pbem.protocol.message import sign_body

    demo = ambon_game(tmp_path_factory)
    k = 5  # an Allied message: jack signs it again with "game" an integer
    body = dict(game.messages[k].body, game=5)
    forged = sign_body(demo.identities["jack"], body)
    with pytest.raises(VerificationError, match=f"{k:04d}"):
        fork(game.prefixes[k]).add(forged)


@pytest.mark.parametrize("first", [1, 4])  # 0001 carries the Allied setup orders
def test_a_missing_message_0_is_reported_as_missing(game, first):
    with pytest.raises(VerificationError, match=f"message {first:04d} arrives where message 0000 is expected"):
        Transcript().add(game.messages[first])


def test_verify_names_the_file_whose_body_does_not_parse(game, workdir, tmp_path):
    case = Case("body", 5, 1, 0x01)  # '{"author"' -> '{#author"'
    paths = break_files(game, case, workdir, tmp_path)
    result = CliRunner().invoke(main, ["verify", *map(str, paths)], env={"COLUMNS": "200"})
    assert result.exit_code == 1, result.output
    assert "0005" in result.output, result.output


def test_a_message_with_orders_replayed_after_the_closing_one_is_named_for_itself(game):
    """Protocol 7.6 is checked after the sequence (step 3): a message with
    orders sent again once a per-game secret is published is named as the
    old message it is, not as a closing message carrying orders (a case
    the tamper matrix found when the first secret came with orders)."""
    first = next(k for k in range(game.count) if game.prefixes[k + 1].secrets)  # the first secret is in message k
    older = next(k for k in range(first - 1, 0, -1) if game.messages[k].body["orders"])
    transcript = fork(game.prefixes[first + 1])
    with pytest.raises(VerificationError, match=f"message {older:04d} arrives where message {first + 1:04d} is "
                                                f"expected: an old message replayed"):
        transcript.add(game.messages[older])
