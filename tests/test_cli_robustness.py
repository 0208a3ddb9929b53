"""What a new or hostile user ran into (issue 9's fuzzing, by hand): every
bad input is a precise error with exit status 2 (1 only for verification),
and a failed command leaves nothing behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import exchange, last_line

from pbem.engine.machine import DecisionDue, DiceDue, RevealDue, describe_awaited
from pbem.errors import InputError, IntegrityError
from pbem.games.dice.expression import DiceExpression
from pbem.protocol.keystore import Keystore
from pbem.protocol.message import SignedMessage, sign_body
from pbem.protocol.limits import MAX_ORDERS

ROLL = '[[order]]\ntype = "roll"\ndice = "2d6"\n'


def tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []


def test_an_orders_file_that_is_not_utf8_names_the_byte(started, tmp_path):
    a, _ = started
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'[[order]]\ntype = "roll"\ndice = "\xff"\n')
    before = tree(a.game)
    r = a.run("play", a.game, "--orders", bad)
    assert r.exit_code == 2 and "not UTF-8 text (byte 32, line 3)" in r.output
    assert tree(a.game) == before


def test_output_files_are_written_into_new_folders(started, tmp_path):
    a, _ = started
    r = a.run("orders", a.game, "--out", tmp_path / "new" / "deeper" / "orders.toml")
    assert r.exit_code == 0, r.output
    assert "[[order]]" in (tmp_path / "new" / "deeper" / "orders.toml").read_text()
    r = a.run("show", a.game, "--html", tmp_path / "pages" / "game.html")
    assert r.exit_code == 0, r.output and (tmp_path / "pages" / "game.html").read_text().startswith("<!DOCTYPE")


def test_an_output_that_cannot_be_written_is_an_input_error(started, tmp_path):
    a, _ = started
    (tmp_path / "file").write_text("")
    r = a.run("orders", a.game, "--out", tmp_path / "file" / "orders.toml")
    assert r.exit_code == 2 and "cannot write" in r.output


@pytest.mark.parametrize("option", ["--to", "--from"])
def test_a_line_break_in_a_mail_address_is_refused(started, option):
    a, _ = started
    before = tree(a.game)
    r = a.run("mail", a.game, *(["--to", "bob@example.org"] if option == "--from" else []),
              option, "bob@example.org\nBcc: eve@example.org")
    assert r.exit_code == 2 and "line break" in r.output
    assert tree(a.game) == before


def test_a_failed_send_keeps_the_email_to_send_by_hand(started, tmp_path):
    a, _ = started
    assert a.run("play", a.game, "--orders", _write(tmp_path / "o.toml", ROLL)).exit_code == 0
    r = a.run("mail", a.game, "--to", "bob@example.org", "--send")  # no SMTP host anywhere
    assert r.exit_code == 2 and "no SMTP host" in r.output
    (eml,) = (a.game / "outbox").glob("*.eml")
    assert "to send by hand" in r.output and eml.name in r.output
    assert "bob@example.org" in eml.read_text()


def test_a_module_that_is_not_a_game(players):
    a, b = players
    r = a.run("new", a.game, "--game", "os:path", "--as", "x", "--opponent", b.pub())
    assert r.exit_code == 2 and "'os:path' is not a pbem game" in r.output
    assert not a.game.exists()


@pytest.mark.parametrize("game", ["dice", "ambon", "calumpit"])
def test_an_unknown_optional_rule_is_refused_before_message_0(players, game):
    a, b = players
    side = {"dice": "first", "ambon": "japanese", "calumpit": "american"}[game]
    r = a.run("new", a.game, "--game", game, "--as", side, "--opponent", b.pub(), "--rule", "99.9")
    assert r.exit_code == 2 and "99.9" in r.output
    assert not a.game.exists()


def test_receive_into_a_folder_without_a_game_creates_nothing_and_says_what_to_do(started, tmp_path):
    a, b = started
    sent = exchange(a, b, tmp_path, ROLL)
    r = b.run("receive", tmp_path / "new-dir", sent)
    assert r.exit_code == 2 and "pbem join" in r.output and "pbem import" in r.output
    assert not (tmp_path / "new-dir").exists()


def test_a_file_that_is_not_a_turn_file_is_an_input_error(started, tmp_path):
    a, _ = started
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\n")
    for command in (["receive", a.game, junk], ["verify", junk], ["join", junk, "--dir", tmp_path / "j"]):
        r = a.run(*command)
        assert r.exit_code == 2 and "not a pbem turn file" in r.output, (command, r.output)
    assert not (tmp_path / "j").exists()


def test_interactive_play_out_of_turn_is_refused_before_asking(started):
    a, b = started
    r = b.run("play", b.game, input="roll\n2d6\n\ndone\n")
    assert r.exit_code == 2 and "it is not your turn" in r.output and "order" not in r.output.split("Error")[0]


def test_interactive_play_at_the_end_of_input_writes_nothing(started):
    a, _ = started
    before = tree(a.game)
    r = a.run("play", a.game, input="")
    assert r.exit_code == 2 and "stopped: no message written" in r.output
    assert tree(a.game) == before


def test_a_key_name_must_be_one_printable_line(tmp_path):
    from click.testing import CliRunner

    from pbem.cli import main

    home = tmp_path / "home"
    r = CliRunner().invoke(main, ["key", "new", "--name", "Eve\nEvil", "--no-passphrase"], env={"PBEM_HOME": str(home)})
    assert r.exit_code == 2 and "one line of printable text" in r.output
    assert not home.exists()


@pytest.mark.parametrize("text, needle", [
    ("d6+99999999999999999999", "out of range"),
    ("60d6+50d6", "rolls 110 dice"),
    ("d6" + "+1" * 60, "at most 100"),
])
def test_dice_expressions_are_bounded(text, needle):
    with pytest.raises(InputError, match=needle):
        DiceExpression.parse(text)


def test_an_orders_file_with_too_many_orders_is_refused(started, tmp_path):
    a, _ = started
    many = tmp_path / "many.toml"
    many.write_text(ROLL * (MAX_ORDERS + 1))
    r = a.run("play", a.game, "--orders", many)
    assert r.exit_code == 2 and f"at most {MAX_ORDERS}" in r.output


def test_a_message_with_too_many_orders_is_refused_by_the_receiver(started, tmp_path):
    """The opponent signs their own body: the limit holds for what arrives, not only for what pbem writes."""
    a, b = started
    r = a.run("play", a.game, "--orders", _write(tmp_path / "o.toml", ROLL))
    honest = last_line(r.output)
    body = dict(SignedMessage.from_text(honest.read_text()).body)
    body["orders"] = body["orders"] * (MAX_ORDERS + 1)
    forged = tmp_path / "0002-first.pbem"
    forged.write_text(sign_body(Keystore(a.home).load(lambda: None), body).armored("many"))
    r = b.run("receive", b.game, forged)
    assert r.exit_code == 1 and f"at most {MAX_ORDERS} in one message" in r.output


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_awaited_input_is_described_in_words():
    assert describe_awaited(DecisionDue("allied", "surrender", "surrender at the start of turn 8?", ("yes", "no"), "3.2")) \
        == "allied decides: surrender at the start of turn 8? (yes/no) (3.2)"
    assert describe_awaited(RevealDue("allied", "X1", "8.0")) == "allied reveals X1 (8.0)"
    assert describe_awaited(DiceDue("combat 1609", 1, 6, 12, "combat at 1609")) == \
        "dice: 1d6 for combat at 1609, keyed by message 0012"


def test_a_damaged_message_file_in_a_game_directory_is_a_verification_failure(started):
    a, _ = started
    victim = sorted(a.game.glob("0001-*.pbem"))[0]
    victim.write_text("the armour is gone\n")
    r = a.run("verify", a.game)
    assert r.exit_code == 1 and "not a pbem turn file" in r.output
    with pytest.raises(IntegrityError):
        from pbem.match.session import read_messages

        read_messages([victim])


def test_joining_ambon_without_a_setup_says_how_and_the_proposal_gives_the_template(players, tmp_path):
    """4.1: message 1 carries the Allied setup; `pbem orders PROPOSAL` writes its template."""
    a, b = players
    r = a.run("new", a.game, "--game", "ambon", "--as", "japanese", "--opponent", b.pub())
    proposal = last_line(r.output)
    r = b.run("join", proposal, "--dir", b.game)
    assert r.exit_code == 1 and "4.1" in r.output and f"pbem orders {proposal} --out first.toml" in r.output
    assert not b.game.exists()
    template = tmp_path / "first.toml"
    r = b.run("orders", proposal, "--out", template)
    assert r.exit_code == 0, r.output
    text = template.read_text()
    assert "your setup (4.1)" in text and f"pbem join {proposal} --dir NEW_GAME_DIR --orders {template}" in text  # issue 17
    template.write_text(text.replace('# [[order]]\n# setup = "historical"\n# shuffle = true',
                                     '[[order]]\nsetup = "historical"\nshuffle = true', 1))
    r = b.run("join", proposal, "--dir", b.game, "--orders", template)
    assert r.exit_code == 0, r.output


def test_a_message_cannot_make_pbem_import_the_code_it_names(players, tmp_path, monkeypatch):
    """No trust in either player: message 0 names its game module;
    a module that is not an installed game is refused unread, by verify and
    by join, even when it sits in the current directory."""
    a, b = players
    evil = tmp_path / "evil"
    evil.mkdir()
    marker = tmp_path / "PWNED"
    (evil / "evilgame.py").write_text(f"open({str(marker)!r}, 'w').close()\nGAME = None\n")
    monkeypatch.chdir(evil)
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    honest = SignedMessage.from_text(last_line(r.output).read_text())
    body = dict(honest.body)
    body["setup"] = {**body["setup"], "module": "evilgame:GAME"}
    forged = evil / "0000-first.pbem"
    forged.write_text(sign_body(Keystore(a.home).load(lambda: None), body).armored("a proposal"))
    for command in (["verify", forged], ["join", forged, "--dir", tmp_path / "joined"], ["orders", forged]):
        r = b.run(*command)
        assert r.exit_code == 2 and "pbem never imports code a message names" in r.output, (command, r.output)
    assert not marker.exists() and not (tmp_path / "joined").exists()


def test_a_huge_armoured_body_is_refused_before_it_is_decoded(started, tmp_path):
    """Security review: an 87 MB unsigned body cost 14 s and 650 MB before the signature check."""
    import time

    a, _ = started
    block = "-----BEGIN PBEM MESSAGE-----\n" + ("QUFB" * 16 + "\n") * 40000 + "-----END PBEM MESSAGE-----\n"
    huge = tmp_path / "huge.pbem"
    huge.write_text(block)
    start = time.process_time()  # CPU: what the refusal costs, however busy the machine
    r = a.run("receive", a.game, huge)
    assert r.exit_code == 1 and "a body over 1,048,576 bytes (docs/protocol.md 12)" in r.output, r.output
    assert time.process_time() - start < 5


@pytest.mark.parametrize("sides, needle", [
    ({"first.x": None, "second": None}, "side name 'first.x' is not"),
    ({"first/..": None, "second": None}, "side name 'first/..' is not"),
    ({"red": None, "blue": None}, "the dice game's are first, second"),
])
def test_side_names_must_be_the_games_own_and_fit_a_file_name(players, tmp_path, sides, needle):
    """Security review: odd side names made a joined game unreadable, or wrote a file before failing."""
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    honest = SignedMessage.from_text(last_line(r.output).read_text())
    body = dict(honest.body)
    keys = list(body["setup"]["keys"].values())
    names = list(sides)
    body["setup"] = {**body["setup"], "keys": {names[0]: keys[0], names[1]: keys[1]}}
    body["side"] = names[0]
    forged = tmp_path / "proposal.pbem"
    forged.write_text(sign_body(Keystore(a.home).load(lambda: None), body).armored("odd sides"))
    r = b.run("join", forged, "--dir", tmp_path / "joined")
    assert r.exit_code == 1 and needle in r.output, r.output
    assert not (tmp_path / "joined").exists()


def test_a_bug_exits_3_with_its_traceback_never_1(started, monkeypatch):
    """1 means "verification failed": an unexpected exception must not look like a verdict."""
    import pbem.match.session

    a, _ = started

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(pbem.match.session, "verify", broken)
    r = a.run("verify", a.game)
    assert r.exit_code == 3 and "ZeroDivisionError: a bug" in r.output and "internal error" in r.output


def test_new_join_and_play_print_json_for_scripts(players, tmp_path):
    """the CLI: --json where output is data."""
    import json

    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub(), "--json")
    proposal = json.loads(r.stdout)
    assert proposal["seq"] == 0 and proposal["side"] == "first" and proposal["module"] == "dice"
    r = b.run("join", proposal["file"], "--dir", b.game, "--json")
    joined = json.loads(r.stdout)
    assert joined["seq"] == 1 and joined["game"] == proposal["game"] and set(joined["keys"]) == {"first", "second"}
    assert a.run("receive", a.game, joined["file"]).exit_code == 0
    r = a.run("play", a.game, "--orders", _write(tmp_path / "o.toml", ROLL), "--json")
    played = json.loads(r.stdout)
    assert played["file"].endswith("0002-first.pbem") and played["next"] == {"seq": 3, "side": "second"}
    assert [e["rule"] for e in played["events"]] == ["dice.roll"]


@pytest.mark.parametrize("text, needle", [
    ("x = " + "9" * 5000 + "\n", "an integer with more than 4,300 digits"),
    ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested too deeply to read"),
])
def test_an_orders_file_python_cannot_convert_is_refused_in_pbems_words(started, tmp_path, text, needle):
    """Issue 18: tomllib raises a bare ValueError (the int-digits limit) or
    RecursionError for these; pbem names the file and says what is wrong."""
    a, _ = started
    before = tree(a.game)
    r = a.run("play", a.game, "--orders", _write(tmp_path / "odd.toml", text))
    assert r.exit_code == 2 and needle in r.output and "odd.toml" in r.output, r.output
    assert "Traceback" not in r.output and "sys.set_int_max_str_digits" not in r.output
    assert tree(a.game) == before


def test_verify_json_reports_a_failure_as_json_on_standard_output(started, tmp_path):
    """A script reading `pbem verify --json` gets a report when the files
    fail too (exit status 1, the error on standard error as well)."""
    import json

    a, _ = started
    target = sorted(a.game.glob("0001-*.pbem"))[0]
    text = target.read_text()
    target.write_text(text.replace("chain", "chaim", 1) if "chain" in text else text[:-40] + "x" * 40)
    r = a.run("verify", a.game, "--json")
    assert r.exit_code == 1
    report = json.loads(r.stdout)
    assert report["ok"] is False and report["error"] and report["error_kind"].endswith("Error")
    assert report["paths"] == [str(a.game)]


def test_python_dash_m_pbem_is_the_pbem_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pbem", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("pbem, version ")


@pytest.mark.parametrize("args", [
    ["show", "{empty}"], ["log", "{empty}"], ["orders", "{empty}"], ["verify", "{empty}"],
    ["show", "{missing}"], ["status", "{missing}"], ["receive", "{empty}", "{missing}"],
    ["asl", "stats", "{empty}"],
])
def test_every_json_command_reports_a_failure_as_json(tmp_path, args):
    """A script reading a --json command's output gets a JSON document when
    it fails too -- refused arguments (a directory that does not exist) or
    a failure while it runs (no game there) -- with the error, its kind and
    the exit status, which is the command's own; the error is on standard
    error as well."""
    import json

    from click.testing import CliRunner

    from pbem.cli import main

    empty = tmp_path / "empty"
    empty.mkdir()
    given = [a.format(empty=empty, missing=tmp_path / "missing") for a in args]
    r = CliRunner().invoke(main, [*given, "--json"], env={"PBEM_HOME": str(tmp_path / "home")})
    assert r.exit_code == 2, r.output
    report = json.loads(r.stdout)
    assert report["ok"] is False and report["schema"] == 1 and report["exit_code"] == 2
    assert report["error"] and report["error_kind"].endswith("Error")
    assert report["error"] in r.stderr or report["error"].split(":")[0] in r.stderr
