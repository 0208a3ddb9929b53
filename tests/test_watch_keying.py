"""Issue 30: dice-server speed with no server.

A roll declared in message N is keyed by the opponent's message N+1.  With
``[standing] key-rolls = "auto"`` (dice game, ASL) a side's ``pbem watch``
answers a message whose only need is keying with a signed message that
declares nothing, at once; a key-only message needs no keying itself, so two
such sides stop after one answer.  Every notice names the rolls the
arriving message made known, and a proposal addressed to the watching
player is told with the ``pbem join`` that accepts it -- never joined.

Two keystores, two Maildirs and a real SMTP server on loopback (the
fixtures of tests/test_watch.py); the players' own moves go through the
CLI (``pbem play``, ``pbem mail --send``), as a player makes them.
"""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner
from test_watch import Player, mail  # noqa: F401 - the two players and their SMTP server (a pytest fixture)

from pbem.cli import main
from pbem.match import session
from pbem.protocol.message import SignedMessage

AUTO = '[standing]\nkey-rolls = "auto"\n'


def roll(purpose: str, dice: str = "2d6+1") -> str:
    return f'[[order]]\ntype = "roll"\ndice = "{dice}"\nnote = "{purpose}"\n'


def cli(player: Player, *args: str):
    return CliRunner().invoke(main, list(args), env={"PBEM_HOME": str(player.home)})


def by_hand(player: Player, tmp_path: Path, orders: str) -> None:
    """What a player does: `pbem play DIR --orders FILE`, then `pbem mail DIR --send`."""
    file = tmp_path / f"{player.name}-orders.toml"
    file.write_text(orders)
    r = cli(player, "play", str(player.game), "--orders", str(file))
    assert r.exit_code == 0, r.output
    r = cli(player, "mail", str(player.game), "--send")
    assert r.exit_code == 0, r.output


def watch_once(player: Player, *extra: str):
    """`pbem watch --maildir BOX --dir DIR --once`: its output."""
    r = cli(player, "watch", "--maildir", str(player.box), "--dir", str(player.game), "--once", *extra)
    assert r.exit_code == 0, r.output
    return r.output


def body(player: Player, name: str) -> dict:
    return SignedMessage.from_text((player.game / name).read_bytes()).body


def total_of(player: Player, seq: int) -> int:
    """The total of the roll declared first in message ``seq``, as the replay has it."""
    match = session.load(player.game, player.identity)
    return next(r.total for r in match.replay.rolls if r.key_seq == seq)


# --------------------------------------------------------------------------- 1. key-only answers


def test_30_with_key_rolls_auto_a_roll_is_keyed_by_the_opponents_watch_at_once(mail, tmp_path):
    """bob sets key-rolls = "auto" in a message of his; from then on, ann's
    roll is answered by bob's watch with a signed message that declares
    nothing (no orders, commitments or reveals), and ann's watch tells her
    the result: "fire 2: 2d6+1 = N (a + b + 1)"."""
    ann, bob, _, _ = mail
    by_hand(ann, tmp_path, roll("fire 1"))
    out = watch_once(bob)
    assert "message 0003 is yours to write" in out  # default off: a roll is bob's to answer
    assert f"first's rolls: fire 1: 2d6+1 = {total_of(bob, 2)}" in out  # the result bob learnt on receipt
    by_hand(bob, tmp_path, AUTO)
    assert body(bob, "0003-second.pbem")["orders"] == [{"type": "standing", "key-rolls": "auto"}]
    out = watch_once(ann)
    assert f"your rolls: fire 1: 2d6+1 = {total_of(ann, 2)} (" in out  # completed by bob's 0003
    by_hand(ann, tmp_path, roll("fire 2"))
    out = watch_once(bob)
    assert "wrote 0005-second.pbem (no decision of yours" in out and "sent 0005-second.pbem to ann@pbem.test" in out
    key_only = body(bob, "0005-second.pbem")
    assert key_only["orders"] == [] and key_only["commitments"] == {} and key_only["reveals"] == []
    out = watch_once(ann)
    assert "imported 0005-second.pbem" in out
    total = total_of(ann, 4)
    line = next(line for line in out.splitlines() if "message 0006 is yours to write" in line)
    assert re.search(rf"your rolls: fire 2: 2d6\+1 = {total} \(\d \+ \d \+ 1\)$", line), line
    assert ann.files() == bob.files() and session.verify([ann.game]).ok


def test_30_two_autos_stop_after_one_answer(mail, tmp_path):
    """Both sides key by machine: ann's roll is answered once, by bob's
    watch; that answer declares nothing, so it needs no keying and ann's
    watch leaves the next message to ann.  Many more passes write nothing."""
    ann, bob, _, _ = mail
    by_hand(ann, tmp_path, AUTO + roll("fire 1"))
    watch_once(bob)  # 0002 is bob's: his standing instruction is not yet given
    by_hand(bob, tmp_path, AUTO + roll("counter-fire"))
    written = []
    for _ in range(6):
        for player in (ann, bob):
            report = player.watch(close=False).run(once=True)
            written += [Path(p).name for p in report.answered]
    assert written == ["0004-first.pbem"]  # ann's watch keyed bob's roll; nobody keyed that empty message
    assert ann.files() == bob.files() and ann.files()[-1] == "0004-first.pbem"
    assert any("message 0005 is yours to write" in line for line in bob.lines), bob.lines
    assert any(re.search(r"your rolls: counter-fire: 2d6\+1 = \d+", line) for line in bob.lines), bob.lines


def test_30_a_message_that_needs_no_keying_is_the_players_even_with_auto(mail, tmp_path):
    """A message with no roll -- a sealed note, a standing instruction, an
    empty message -- needs no keying: with key-rolls = "auto" it is still
    left to the player, told once."""
    ann, bob, _, _ = mail
    by_hand(ann, tmp_path, "")
    watch_once(bob)
    by_hand(bob, tmp_path, AUTO)
    watch_once(ann)
    by_hand(ann, tmp_path, '[[order]]\ntype = "seal"\nslot = "plan"\ntext = "dawn"\n')
    out = watch_once(bob)
    assert "message 0005 is yours to write" in out and "wrote" not in out


def test_30_key_rolls_off_gives_the_answers_back_to_the_player(mail, tmp_path):
    """The player's choice is theirs, and stays so: "off" again (the
    default) and the next roll waits for them."""
    ann, bob, _, _ = mail
    by_hand(ann, tmp_path, "")
    watch_once(bob)
    by_hand(bob, tmp_path, AUTO)
    watch_once(ann)
    by_hand(ann, tmp_path, roll("fire 1"))
    assert "wrote 0005-second.pbem" in watch_once(bob)
    watch_once(ann)
    by_hand(ann, tmp_path, roll("fire 2"))
    # bob had no say in 0005; in 0007 he turns it off
    assert "wrote 0007-second.pbem" in watch_once(bob)
    watch_once(ann)
    by_hand(ann, tmp_path, "")
    watch_once(bob)
    by_hand(bob, tmp_path, '[standing]\nkey-rolls = "off"\n')
    watch_once(ann)
    by_hand(ann, tmp_path, roll("fire 3"))
    out = watch_once(bob)
    assert "message 0011 is yours to write" in out and "wrote" not in out


def test_30_a_key_rolls_instruction_is_checked_and_refused_in_the_closing_message(mail, tmp_path):
    ann, bob, _, _ = mail
    file = tmp_path / "bad.toml"
    file.write_text('[standing]\nkey-rolls = "always"\n')
    r = cli(ann, "play", str(ann.game), "--orders", str(file))
    assert r.exit_code == 2 and "standing.key-rolls: 'always' is not one of auto, off" in r.output
    file.write_text('[standing]\nretreat = "hit"\n')
    r = cli(ann, "play", str(ann.game), "--orders", str(file))
    assert r.exit_code == 2 and "unknown standing instruction (this game has key-rolls)" in r.output
    by_hand(ann, tmp_path, '[[order]]\ntype = "end"\n')
    watch_once(bob)
    file.write_text(AUTO)
    r = cli(bob, "play", str(bob.game), "--orders", str(file))
    assert r.exit_code != 0 and "reveals only" in r.output


def test_30_asl_dr_keyed_by_the_opponents_watch(mail, tmp_path):
    """ASL: the same standing instruction; a DR declared by the Axis is
    keyed by the Allied watch, and the notice shows it, colored die first."""
    ann, bob, _, _ = mail
    for player in (ann, bob):  # a new ASL game between the same two players
        player.game = player.game.with_name(player.name + "-asl")
    m0 = session.new_game(ann.game, "asl", "axis", bob.identity.public, ann.identity)
    m1, _ = session.join_game(m0, bob.game, bob.identity, {"standing": {"key-rolls": "auto"}})
    session.receive(ann.game, [m1], ann.identity)
    from pbem.mail import outbox

    outbox.remember_address(ann.game, "bob@pbem.test")
    outbox.remember_address(bob.game, "ann@pbem.test")
    by_hand(ann, tmp_path, '[[order]]\ntype = "DR"\npurpose = "1MC for squad A"\ndrm = 1\n'
                           'phase = "PFPh"\nplayer_turn = "axis"\n')
    out = watch_once(bob)
    assert "wrote 0003-allied.pbem (no decision of yours" in out, out
    assert body(bob, "0003-allied.pbem")["orders"] == []
    out = watch_once(ann)
    assert re.search(r"message 0004 is yours to write: .*your rolls: DR axis PFPh: 1MC for squad A: "
                     r"DR\+1 = \d+ \(colored \d \+ white \d \+ 1\)(, doubles|, snake eyes|, boxcars)?$",
                     out, re.M), out


# --------------------------------------------------------------------------- 3. the results in every notice


def test_30_a_notice_names_five_rolls_and_counts_the_rest(mail, tmp_path):
    ann, bob, _, _ = mail
    by_hand(ann, tmp_path, "".join(roll(f"fire {i}", "d6") for i in range(1, 9)))
    told = tmp_path / "told.txt"
    import sys

    command = f"{sys.executable} -c \"import sys; open({str(told)!r}, 'a').write(sys.argv[1])\""
    out = watch_once(bob, "--notify", command)
    line = next(line for line in out.splitlines() if "is yours to write" in line)
    assert "first's rolls: fire 1: d6 = " in line and "fire 5: d6 = " in line and "fire 6" not in line
    assert line.endswith(f"(and 3 more: pbem log {bob.game})")
    text = told.read_text()
    assert text.startswith(f"pbem: your move in {bob.game}: ") and "fire 5: d6 = " in text and "and 3 more" in text


def test_30_the_closing_reply_that_completes_rolls_is_told_once(mail, tmp_path):
    ann, bob, _, _ = mail
    by_hand(ann, tmp_path, roll("last shot") + '[[order]]\ntype = "end"\n')
    watch_once(bob, "--close")
    out = watch_once(ann)
    assert re.search(r"the game is closed; your rolls: last shot: 2d6\+1 = \d+", out), out
    assert "the game is closed" not in watch_once(ann)


# --------------------------------------------------------------------------- 2. proposals


def test_30_a_proposal_is_told_with_how_to_join_and_never_joined(mail, tmp_path):
    """carl has no game yet: `pbem watch` starts anyway (it used to stop:
    "no game to watch"), and when ann's proposal arrives it says so, keeps
    the file and gives the `pbem join` that accepts it.  It joins nothing;
    told once.  The player joins with that very command."""
    import sys

    from pbem.mail import outbox
    ann, bob, _, _ = mail
    carl = Player(tmp_path, "carl", int(re.search(r"port = (\d+)", (ann.home / "mail.toml").read_text())[1]), bob.box)
    carl.game = tmp_path / "carl-game"
    proposal = session.new_game(tmp_path / "ann-vs-carl", "dice", "first", carl.identity.public, ann.identity)
    outbox.send(outbox.build_email(proposal.parent, fingerprint=ann.identity.public.fingerprint, seq=0,
                                   to="bob@pbem.test"), outbox.load_settings(ann.home))  # bob's box: carl reads it
    told = tmp_path / "told.txt"
    command = f"{sys.executable} -c \"import sys; open({str(told)!r}, 'a').write(sys.argv[1])\""
    r = cli(carl, "watch", "--maildir", str(carl.box), "--once", "--notify", command)
    assert r.exit_code == 0, r.output
    assert "no game yet" in r.output
    kept = next((carl.home / "watch" / "proposals").glob("*-0000-first.pbem"))
    assert "a proposal addressed to you: a dice game" in r.output and "watch never joins by itself" in r.output
    assert f"pbem join {kept} --dir DIR" in r.output
    assert told.read_text() == f"pbem: ann proposes a dice game to you (you would play second): pbem join {kept} --dir DIR"
    assert not carl.game.exists() and not (carl.home / "joined").exists()
    # bob, to whom it is not addressed, is told nothing of it
    out = watch_once(bob)
    assert "a proposal addressed to you:" not in out and "not one watched here; left alone" in out
    # told once; then joined by the player with the command given
    r = cli(carl, "watch", "--maildir", str(carl.box), "--once")
    assert "a proposal addressed to you:" not in r.output
    r = cli(carl, "join", str(kept), "--dir", str(carl.game))
    assert r.exit_code == 0, r.output
    assert (carl.game / "0001-second.pbem").is_file()


def test_30_a_game_joined_while_watch_runs_is_watched(mail, tmp_path):
    """Without --dir, watch asks the keystore for its games on every pass
    (``discover``): a game joined after it started is imported into."""
    from pbem.app import watch as watching
    from pbem.mail import outbox
    from pbem.mail.maildir import MaildirSource

    ann, bob, _, _ = mail
    found: list[Path] = []
    w = watching.Watch(bob.home, bob.identity, [], MaildirSource(bob.box),
                       watching.Sending(outbox.load_settings(bob.home)), log=bob.lines.append,
                       discover=lambda: list(found))
    assert w.run_pass().imported == [] and not bob.lines  # no game yet, no mail
    found.append(bob.game)  # bob joins a game (pbem join records it in the keystore)
    by_hand(ann, tmp_path, roll("fire 1"))
    assert [Path(p).name for p in w.run_pass().imported] == ["0002-first.pbem"]


def test_30_a_notice_keeps_what_the_game_says_after_the_total():
    """ASL writes doubles after a DR's total ("colored 6 + white 6 = 12,
    boxcars"): the notice gives the total first and keeps the word."""
    from types import SimpleNamespace

    from pbem.app.watch import roll_text

    def made(result: str, total: int | None) -> SimpleNamespace:
        return SimpleNamespace(purpose="MC", expression="DR", total=total, result=lambda: result)

    assert roll_text(made("colored 6 + white 6 = 12, boxcars", 12)) == "MC: DR = 12 (colored 6 + white 6), boxcars"
    assert roll_text(made("colored 1 + white 6 + 1 = 8", 8)) == "MC: DR = 8 (colored 1 + white 6 + 1)"
    assert roll_text(made("waiting", None)) == "MC: DR = waiting"
