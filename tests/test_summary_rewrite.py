"""The unsigned summary of a turn file (issue 18): the ``| `` lines above the
armoured block are not signed, so whoever handles the file can write
anything there.  On import pbem writes the stored file's summary itself,
from the verified body -- exactly the summary the sender's pbem wrote, for
an honest message -- and ``receive``, ``import``, ``join`` and ``verify``
warn, exit status unchanged, when the sender's said something else."""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
import shutil
from pathlib import Path

import pytest
from conftest import last_line
from demo_games import ambon_game, dice_game
from everyday_support import ROLL, SEAL, email_with, play

from pbem.match import session
from pbem.match.summary import SHOWN, compare, events_of, lines_of, summary_of
from pbem.protocol.keystore import Keystore
from pbem.protocol.message import BEGIN, SUMMARY_HEAD, SignedMessage, sign_body

LIE = "second concedes the game"


def summary_of_file(path: Path) -> list[str]:
    """The ``| `` lines of a turn file, without the ``| ``."""
    lines = path.read_text().split(BEGIN)[0].splitlines()
    return [line[2:] for line in lines if line.startswith("| ")]


def with_summary(path: Path, lines: list[str], out: Path) -> Path:
    """``path`` with its unsigned summary lines replaced by ``lines``: the signed block untouched."""
    block = BEGIN + path.read_text().split(BEGIN, 1)[1]
    out.write_text("\n".join([SUMMARY_HEAD, *(f"| {line}" for line in lines), block]))
    return out


def warnings_in(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("warning: ")]


# --------------------------------------------------------------------------- the attack


def test_a_false_unsigned_summary_is_replaced_on_receive_and_flagged(started, tmp_path):
    a, b = started
    honest = play(a, tmp_path, ROLL)
    said = summary_of_file(honest)
    forged = with_summary(honest, [said[0], LIE], tmp_path / "0002-first.pbem.txt")
    r = b.run("receive", b.game, forged)
    assert r.exit_code == 0, r.output
    assert warnings_in(r.output) == [
        f'warning: 0002-first.pbem: the unsigned summary says "{LIE}" where the signed message says '
        f'"{said[1]}" (pbem wrote its own)'
    ]
    stored = b.game / "0002-first.pbem"
    assert stored.read_bytes() == honest.read_bytes()  # pbem's summary is the sender's pbem's, byte for byte
    assert LIE not in stored.read_text()
    r = b.run("verify", b.game)
    assert r.exit_code == 0 and not warnings_in(r.output)


def test_a_summary_forged_over_a_body_signed_with_the_opponents_key_is_flagged(started, tmp_path):
    """The red team's case: a validly signed honest body, a summary that lies."""
    a, b = started
    honest = play(a, tmp_path, ROLL)
    body = SignedMessage.from_text(honest.read_text()).body
    forged = tmp_path / "turn.pbem"
    forged.write_text(sign_body(Keystore(a.home).load(lambda: None), body).armored(
        f"dice game, message 0002 from first\n{LIE}"))
    result = session.receive(b.game, [forged], Keystore(b.home).load(lambda: None))
    (finding,) = result.findings
    assert (finding.where, finding.seq, finding.claimed, finding.replaced) == ("0002-first.pbem", 2, LIE, True)
    assert finding.signed == summary_of_file(honest)[1]
    assert (b.game / "0002-first.pbem").read_bytes() == honest.read_bytes()


@pytest.mark.parametrize("change, words", [
    (lambda said: said + [LIE], f'the unsigned summary adds "{LIE}", which the signed message does not say'),
    (lambda said: said[:1], 'the unsigned summary leaves out "{1}", which the signed message says'),
    (lambda said: [said[0].replace("0002", "0004")] + said[1:],
     'the unsigned summary says "{2}" where the signed message says "{0}"'),
])
def test_a_summary_that_adds_a_line_leaves_one_out_or_misnames_the_message_is_flagged(started, tmp_path, change, words):
    a, b = started
    honest = play(a, tmp_path, ROLL)
    said = summary_of_file(honest)
    forged = change(list(said))
    r = b.run("receive", b.game, with_summary(honest, forged, tmp_path / "turn.txt"))
    assert r.exit_code == 0, r.output
    expected = words.format(said[0], said[1] if len(said) > 1 else "", forged[0])
    assert warnings_in(r.output) == [f"warning: 0002-first.pbem: {expected} (pbem wrote its own)"]
    assert (b.game / "0002-first.pbem").read_bytes() == honest.read_bytes()


def test_a_summary_with_terminal_escapes_is_quoted_harmlessly(started, tmp_path):
    a, b = started
    honest = play(a, tmp_path, ROLL)
    said = summary_of_file(honest)
    r = b.run("receive", b.game, with_summary(honest, [said[0], "\x1b[2J" + "x" * 1000], tmp_path / "turn.txt"))
    assert r.exit_code == 0, r.output
    (line,) = warnings_in(r.output)
    assert "\x1b" not in r.output and '"\\x1b[2J' + "x" * (SHOWN - 10) + '..." where' in line


def test_a_bare_armoured_block_has_no_summary_to_flag(started, tmp_path):
    a, b = started
    honest = play(a, tmp_path, ROLL)
    bare = tmp_path / "pasted.txt"
    bare.write_text("here is my turn\n\n" + BEGIN + honest.read_text().split(BEGIN, 1)[1])
    r = b.run("receive", b.game, bare)
    assert r.exit_code == 0 and not warnings_in(r.output), r.output
    assert (b.game / "0002-first.pbem").read_bytes() == honest.read_bytes()  # and it has pbem's summary


def test_mail_quoting_and_surrounding_blanks_are_not_differences(started, tmp_path):
    a, b = started
    honest = play(a, tmp_path, ROLL)
    quoted = tmp_path / "reply.txt"
    quoted.write_text("".join(f">  > {line}   \r\n" for line in honest.read_text().splitlines()))
    r = b.run("receive", b.game, quoted)
    assert r.exit_code == 0 and not warnings_in(r.output), r.output
    assert compare("x", 2, "  a \n\n\tb  ", "a\nb", replaced=False) is None
    assert lines_of("> > | a  \r\n\r\n") == ["| a"]


def test_a_receive_as_json_carries_the_warning(started, tmp_path):
    a, b = started
    honest = play(a, tmp_path, ROLL)
    r = b.run("receive", b.game, with_summary(honest, [LIE], tmp_path / "turn.txt"), "--json")
    assert r.exit_code == 0, r.output
    (warning,) = json.loads(r.output)["warnings"]
    assert warning["unsigned"] == LIE and warning["signed"] == "dice game, message 0002 from first"
    assert warning["file"] == "0002-first.pbem" and warning["replaced"] is True


# --------------------------------------------------------------------------- verify


def test_verify_flags_a_stored_file_whose_summary_lies(started, tmp_path):
    a, b = started
    honest = play(a, tmp_path, ROLL)
    assert b.run("receive", b.game, honest).exit_code == 0
    stored = b.game / "0002-first.pbem"
    said = summary_of_file(stored)
    with_summary(stored, [said[0], LIE], stored)  # edited in place: the summary is not signed
    r = b.run("verify", b.game)
    assert r.exit_code == 0, r.output
    assert "VERIFIED" in r.output
    assert warnings_in(r.output) == [
        f'warning: 0002-first.pbem: the unsigned summary says "{LIE}" where the signed message says '
        f'"{said[1]}" (only the signed message counts)'
    ]
    r = b.run("verify", *sorted(b.game.glob("000[01]-*.pbem")), with_summary(stored, [LIE], tmp_path / "t.txt"))
    assert r.exit_code == 0, r.output
    assert warnings_in(r.output) == [
        'warning: t.txt (message 0002): the unsigned summary says "second concedes the game" where the signed '
        'message says "dice game, message 0002 from first" (only the signed message counts)'
    ]
    report = json.loads(b.run("verify", b.game, "--json").output)
    assert report["ok"] is True and [w["unsigned"] for w in report["warnings"]] == [LIE]


def test_verify_reads_each_file_once_and_judges_the_summary_of_the_bytes_it_verified(started, tmp_path, monkeypatch):
    """A file rewritten after verify read it: the summary judged is the one
    above the block whose signature was checked, not the file's new one."""
    a, b = started
    assert b.run("receive", b.game, play(a, tmp_path, ROLL)).exit_code == 0
    stored = b.game / "0002-first.pbem"
    said = summary_of_file(stored)
    read, seen = session.read_input, []

    def read_then_rewrite(path):
        seen.append(Path(path).name)
        data = read(path)
        if Path(path) == stored:
            with_summary(stored, [said[0], LIE], stored)
        return data

    monkeypatch.setattr(session, "read_input", read_then_rewrite)
    report = session.verify([b.game])
    assert sorted(seen) == sorted(p.name for p in b.game.glob("*.pbem"))  # each file once
    assert report.ok and report.warnings == []
    monkeypatch.setattr(session, "read_input", read)
    assert [w.claimed for w in session.verify([b.game]).warnings] == [LIE]  # read now, the lie is flagged


# --------------------------------------------------------------------------- every way in


def test_a_proposal_with_a_false_summary_is_rewritten_on_join(players, tmp_path):
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    proposal = last_line(r.output)
    said = summary_of_file(proposal)
    forged = with_summary(proposal, [said[0], "proposal to second: the loser pays 100 euros", *said[2:]],
                          tmp_path / "proposal.txt")
    r = b.run("join", forged, "--dir", b.game)
    assert r.exit_code == 0, r.output
    assert warnings_in(r.output) == [
        'warning: 0000-first.pbem: the unsigned summary says "proposal to second: the loser pays 100 euros" '
        f'where the signed message says "{said[1]}" (pbem wrote its own)'
    ]
    assert (b.game / "0000-first.pbem").read_bytes() == proposal.read_bytes()
    assert last_line(r.output) == b.game / "0001-second.pbem"  # the file to send is still the last line
    r = a.run("receive", a.game, last_line(r.output))
    assert r.exit_code == 0 and not warnings_in(r.output), r.output


def test_a_false_summary_in_mail_is_replaced_on_import_and_flagged(started, tmp_path):
    a, b = started
    honest = play(a, tmp_path, ROLL)
    forged = with_summary(honest, [LIE], tmp_path / "turn.pbem")
    eml = tmp_path / "turn.eml"
    eml.write_bytes(email_with(forged.read_text(), "quoted-reply"))
    r = b.run("import", b.game, eml)
    assert r.exit_code == 0, r.output
    assert warnings_in(r.output) == [
        f'warning: 0002-first.pbem: the unsigned summary says "{LIE}" where the signed message says '
        '"dice game, message 0002 from first" (pbem wrote its own)'
    ]
    assert (b.game / "0002-first.pbem").read_bytes() == honest.read_bytes()
    assert json.loads(b.run("import", b.game, eml, "--json").output)["warnings"] == []  # held already: nothing new


def test_a_game_restored_from_mail_gets_pbems_summaries(started, tmp_path):
    a, b = started
    honest = play(a, tmp_path, ROLL)
    assert b.run("receive", b.game, honest).exit_code == 0
    box = mailbox.mbox(str(tmp_path / "inbox.mbox"))
    for path in sorted(b.game.glob("*.pbem")):
        lying = with_summary(path, [LIE], tmp_path / path.name)
        box.add(email_with(lying.read_text(), "attachment-7bit", f"turn {path.name}"))
    box.close()
    restored = tmp_path / "restored"
    r = b.run("import", restored, tmp_path / "inbox.mbox")
    assert r.exit_code == 0, r.output
    assert [w.split(":")[1].strip() for w in warnings_in(r.output)] == \
        ["0000-first.pbem", "0001-second.pbem", "0002-first.pbem"]
    for path in sorted(b.game.glob("*.pbem")):
        assert (restored / path.name).read_bytes() == path.read_bytes()


def test_mail_of_a_received_message_carries_pbems_summary_not_the_senders(started, tmp_path):
    a, b = started
    honest = play(a, tmp_path, ROLL)
    assert b.run("receive", b.game, with_summary(honest, [LIE], tmp_path / "turn.txt")).exit_code == 0
    r = b.run("mail", b.game, "--message", "2", "--out", tmp_path / "fwd.eml")
    assert r.exit_code == 0, r.output
    msg = email.message_from_bytes((tmp_path / "fwd.eml").read_bytes(), policy=email.policy.default)
    (attached,) = [part.get_content() for part in msg.iter_attachments()]
    assert LIE not in msg.as_string() and attached.replace("\r\n", "\n") == honest.read_text()


# --------------------------------------------------------------------------- honest games


def test_provisional_dice_the_sender_could_not_know_stay_out_of_the_summary(started, tmp_path):
    """The receiver keys the dice of the message it receives with the chain
    value it will reveal next: those results are listed under the next
    message, never in this one's summary."""
    a, b = started
    honest = play(a, tmp_path, ROLL)
    result = session.receive(b.game, [honest], Keystore(b.home).load(lambda: None))
    replay = result.match.replay
    assert any(r.provisional and r.key_seq == 2 for r in replay.rolls)
    provisional = [e.sentence() for s, e in replay.events if s == 3]
    assert provisional and not set(provisional) & {e.sentence() for e in events_of(replay, 2)}
    assert summary_of(replay, 2).splitlines() == summary_of_file(honest)


def test_an_honest_game_keeps_the_senders_summary_byte_for_byte(started, tmp_path):
    """Rolls both ways, a seal, its reveal: every file each player receives
    is the file its sender's pbem wrote, and nothing is flagged."""
    a, b = started
    turns = [(a, b, ROLL), (b, a, ROLL + SEAL), (a, b, ROLL), (b, a, '[[order]]\ntype = "reveal"\nslot = "plan"\n'),
             (a, b, ROLL), (b, a, "")]
    for sender, receiver, orders in turns:
        sent = play(sender, tmp_path, orders)
        r = receiver.run("receive", receiver.game, sent)
        assert r.exit_code == 0 and not warnings_in(r.output), r.output
        assert (receiver.game / sent.name).read_bytes() == sent.read_bytes()
    for player in (a, b):
        r = player.run("verify", player.game)
        assert r.exit_code == 0 and not warnings_in(r.output), r.output
    assert sorted(p.name for p in a.game.glob("*.pbem")) == sorted(p.name for p in b.game.glob("*.pbem"))


@pytest.mark.parametrize("demo", [dice_game, ambon_game], ids=["dice", "ambon"])
def test_a_whole_demo_game_keeps_every_senders_summary_byte_for_byte(tmp_path_factory, demo):
    """Both directions: each message written by its author's play, join or
    new_game and stored by the other's receive."""
    game = demo(tmp_path_factory)
    first, second = (game.messages(name) for name in game.dirs)
    assert [p.name for p in first] == [p.name for p in second] and len(first) > 4
    for mine, theirs in zip(first, second, strict=False):
        assert mine.read_bytes() == theirs.read_bytes(), mine.name
        assert (game.root / "mail" / mine.name).read_bytes() == mine.read_bytes()  # the copy that was sent
    for directory in game.dirs.values():
        assert session.verify([directory]).warnings == []


def test_a_copy_of_a_demo_game_with_one_lie_is_flagged_by_verify(tmp_path_factory, tmp_path):
    game = ambon_game(tmp_path_factory)
    copy = tmp_path / "game"
    shutil.copytree(next(iter(game.dirs.values())), copy)
    victim = sorted(copy.glob("*.pbem"))[5]
    said = summary_of_file(victim)
    with_summary(victim, said[:-1] + ["japanese surrenders"], victim)
    (warning,) = session.verify([copy]).warnings
    assert (warning.where, warning.claimed, warning.signed) == (victim.name, "japanese surrenders", said[-1])
