"""docs/tutorial.md shows what pbem prints: every command of its console
blocks is run again here, as docs/gen_tutorial.py runs it to write them, and
each output must have the shape the tutorial shows.

What differs from run to run -- fingerprints, public keys, game ids, dice,
ages, a Maildir message's number -- is replaced by a placeholder on both
sides (:data:`NORMALISE`), and runs of spaces are squeezed (a table cell's
padding follows what is in it); everything else must be equal, line for
line.  In a block marked ``<!-- dice-decided ... -->`` the Ambon landing
dice decide which events follow and what the next template lists, so there
only the frame is compared: every line that is not an event
(``NNNN [rule] ...``), not a template line (``#...``, but for the template's
heading) and not blank.

If this fails because pbem's output changed on purpose, run
``python docs/gen_tutorial.py`` and review the new tutorial (its prose too).
"""

from __future__ import annotations

import difflib
import importlib.util
import re
import sys
import time
from pathlib import Path

import pytest

DOCS = Path(__file__).parent.parent / "docs"


def _generator():
    if "gen_tutorial" in sys.modules:
        return sys.modules["gen_tutorial"]
    spec = importlib.util.spec_from_file_location("gen_tutorial", DOCS / "gen_tutorial.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_tutorial"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


gen = _generator()
TEXT = (DOCS / "tutorial.md").read_text(encoding="utf-8")
BLOCKS = gen.blocks(TEXT)
STEPS = [(b, s) for b, block in enumerate(BLOCKS) for s in range(len(block.steps))]

NORMALISE: list[tuple[re.Pattern[str], str]] = [
    # keys: fingerprints (whole, or cut short in a table cell) and public key blobs
    (re.compile(r"SHA256:[A-Za-z0-9+/]+\.*…?"), "SHA256:<fingerprint>"),
    (re.compile(r"AAAAC3NzaC1lZDI1NTE5[A-Za-z0-9+/]+=*"), "<public key>"),
    # game ids: whole, 12 digits and "...", 8 digits; a game data set's hash
    (re.compile(r"\b[0-9a-f]{32}\b"), "<game id>"),
    (re.compile(r"\b[0-9a-f]{16}\.\.\."), "<data hash>..."),
    (re.compile(r"\b[0-9a-f]{12}\.\.\."), "<game id>..."),
    (re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{8}(?![0-9A-Za-z])"), "<game>"),
    # the dice game's rolls, each term, the modifier, the total: in the log
    # ("2 + 3 + 1 = 6") and in the tables of show and log ("2d6+1: 2 + 3 + 1 = 6"),
    # whose rules are as wide as the rolls drawn
    (re.compile(r"(rolled \S+ for '[^']*': )-?\d+(?: [+-] \d+)*(?: = -?\d+)?"), r"\1<dice>"),
    (re.compile(r"(│ [\w+-]+: )-?\d+(?: [+-] \d+)*(?: = -?\d+)?(?= +│)"), r"\1<dice>"),
    (re.compile(r"([━─])\1+"), r"\1"),
    # Ambon's dice ("roll 4 +1 (Kure 1 Special landing) = 5 -> ...")
    (re.compile(r"\broll \d+\b"), "roll <die>"),
    (re.compile(r"= -?\d+ ->"), "= <total> ->"),
    # time
    (re.compile(r"\(\d+[smhd] ago\)"), "(<age> ago)"),
    # a message's number in a Maildir: pbem orders mail delivered within one second by
    # the name's text, whose microseconds are not zero-padded, so it varies
    (re.compile(r"\b(Maildir #)\d+"), r"\1<n>"),
    # widths: a cell's padding follows what the run put in it
    (re.compile(r"  +"), " "),
]

EVENT = re.compile(r"^\d{4} \[[^\]]+\] \S")
TEMPLATE_HEADING = re.compile(r"^## (pbem orders template|Now:|Awaited from you:|- message \d{4}:)")


def normalise(output: str) -> list[str]:
    """The lines of ``output`` with what differs from run to run replaced."""
    lines = []
    for line in output.rstrip("\n").split("\n"):
        for pattern, replacement in NORMALISE:
            line = pattern.sub(replacement, line)
        lines.append(line.rstrip())
    return lines


def frame(lines: list[str]) -> list[str]:
    """What the dice cannot change in an output: no events, no template
    lines but the heading, no blank lines."""
    return [line for line in lines
            if line and not EVENT.match(line) and (not line.startswith("#") or TEMPLATE_HEADING.match(line))]


# --------------------------------------------------------------------------- the run


@pytest.fixture(scope="module")
def tutorial_run(tmp_path_factory):
    """Every step's result, per block; the failure that stopped the run, if any.

    The keys are passphrase-protected, as in the tutorial, but with one bcrypt
    round instead of cryptography's 16: each command unlocks its player's key,
    and 16 rounds (about 0.1 s a time) would make this run three times longer.
    Nothing printed depends on the rounds.  (If cryptography renames that
    default, this only makes the run slower.)  The SMTP part is bounded by the
    server's start-up timeout and pbem's SMTP timeout."""
    server = gen.smtp_server_available()
    start = time.monotonic()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("cryptography.hazmat.primitives.serialization.ssh._DEFAULT_ROUNDS", 1, raising=False)
        try:
            results = gen.run(TEXT, tmp_path_factory.mktemp("tutorial"), stop_before_server=not server)
            failure = None
        except gen.StepFailed as err:
            results, failure = err.results, err
    return {"results": results, "failure": failure, "seconds": time.monotonic() - start, "server": server}


def _result(tutorial_run, b: int, s: int):
    results = tutorial_run["results"]
    if b < len(results) and s < len(results[b]):
        return results[b][s]
    if tutorial_run["failure"] is not None:
        pytest.fail(f"not run: an earlier command failed ({tutorial_run['failure'].result.step.shown!r})")
    assert not tutorial_run["server"], "a step was not run"
    pytest.skip("needs aiosmtpd for the tutorial's SMTP part (pip install -e '.[test]')")


def _id(bs: tuple[int, int]) -> str:
    block = BLOCKS[bs[0]]
    step = block.steps[bs[1]]
    return f"line{block.line}-{step.prompt}{step.command.splitlines()[0][:60]}"


def test_the_tutorial_runs_and_every_command_succeeds(tutorial_run):
    failure = tutorial_run["failure"]
    assert failure is None, str(failure)
    ran = [r for block in tutorial_run["results"] for r in block]
    assert all(r.exit_code == 0 for r in ran)
    if not tutorial_run["server"]:
        pytest.skip(f"ran {len(ran)} of {len(STEPS)} commands: the rest needs aiosmtpd")
    assert len(ran) == len(STEPS)


@pytest.mark.parametrize("bs", STEPS, ids=_id)
def test_each_output_has_the_shape_the_tutorial_shows(tutorial_run, bs):
    b, s = bs
    block, step = BLOCKS[b], BLOCKS[b].steps[s]
    result = _result(tutorial_run, b, s)
    assert result.exit_code == 0, f"{step.shown!r} exited with {result.exit_code}:\n{result.output}"
    shown, printed = normalise(step.output), normalise(result.output)
    if block.dice_decided:
        shown, printed = frame(shown), frame(printed)
    diff = "\n".join(difflib.unified_diff(shown, printed, "tutorial", "this run", lineterm=""))
    assert printed == shown, (
        f"docs/tutorial.md line {block.line}: {step.shown!r} no longer prints what the tutorial shows "
        f"(run python docs/gen_tutorial.py and review the prose):\n{diff}"
    )


# --------------------------------------------------------------------------- the tutorial's text


def test_regenerating_keeps_the_prose_and_the_commands():
    assert gen.render(gen.parse(TEXT)) == TEXT
    blank = gen.render(gen.parse(TEXT), [["" for _ in block.steps] for block in BLOCKS])
    assert [p for p in gen.parse(blank) if isinstance(p, str)] == [p for p in gen.parse(TEXT) if isinstance(p, str)]
    assert [s.shown for b in gen.blocks(blank) for s in b.steps] == [s.shown for b in BLOCKS for s in b.steps]


def test_the_tutorial_shows_the_names_it_uses():
    """No trace of the folder or port of the run it was made from."""
    outputs = "\n".join(step.output for block in BLOCKS for step in block.steps)
    assert "/tmp/tut/ann/home/identity" in outputs
    assert set(re.findall(r"/tmp/[^\s/]*", outputs)) == {gen.SHOWN_ROOT}
    assert set(re.findall(r"127\.0\.0\.1:(\d+)", outputs)) == {str(gen.SHOWN_PORT)}
    assert "will differ" in TEXT.split("## 1.")[0]  # said once, at the top


def test_the_dice_decided_blocks_are_the_ones_after_the_landing_dice():
    marked = [block for block in BLOCKS if block.dice_decided]
    assert [block.steps[0].command for block in marked] == [
        "pbem import bob-ambon ../mailserver/Maildir",
        "pbem orders bob-ambon --out turn.toml",
    ]
    assert any("-> landing" in line for line in marked[0].steps[0].output.splitlines())


def test_each_shown_command_is_one_step():
    for block in BLOCKS:
        for step in block.steps:
            assert step.who in ("ann", "bob", ""), step.shown
            assert not step.output.startswith(("ann$", "bob$", "$ ")), step.shown


# --------------------------------------------------------------------------- the comparison itself


def test_normalise_replaces_only_what_differs_per_run():
    assert normalise("fingerprint SHA256:YjbKczj9mstWiUW8L1u6qyv1zzNJvw1x8kf5SSt3uwo") == [
        "fingerprint SHA256:<fingerprint>"]
    assert normalise("│ SHA256:YjbKczj9.… │ SHA256:vWcs3u… │") == ["│ SHA256:<fingerprint> │ SHA256:<fingerprint> │"]
    assert normalise("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILPDr0i8ohUdhd5I2XMuTb39QsTOFHBvEmDf9UeYN1Tl Ann Smith") == [
        "ssh-ed25519 <public key> Ann Smith"]
    assert normalise("0000-first.pbem to bob@example.org: [pbem dice 9ebfc596] 0000 from first") == [
        "0000-first.pbem to bob@example.org: [pbem dice <game>] 0000 from first"]
    assert normalise("│ game 9ebfc59607b390de5a3ecec98f5f9e69 (dice), 6 messages │") == [
        "│ game <game id> (dice), 6 messages │"]
    assert normalise("proposal: dice game 328fd2c7cfdc...; no optional rules; data b1b2ed4199b79a82...") == [
        "proposal: dice game <game id>...; no optional rules; data <data hash>..."]
    rolled = "0003 [dice.roll] first rolled 2d6+1 for 'artillery on the ridge': {} (keyed by message 0002)"
    assert normalise(rolled.format("2 + 3 + 1 = 6")) == normalise(rolled.format("6 + 6 + 1 = 13"))
    assert normalise(rolled.format("2")) == normalise(rolled.format("17"))
    assert normalise("│ 2.0  │ first │ artillery │ 2d6+1: 2 + 3 + 1 = 6  │") == normalise(
        "│ 2.0  │ first │ artillery │ 2d6+1: 6 + 6 + 1 = 13 │")
    assert normalise("│ 3.0  │ second │ morale check │ d20: 2  │ msg 0003 │") == normalise(
        "│ 3.0  │ second │ morale check │ d20: 17 │ msg 0003 │")
    assert normalise("┏━━━━━━┳━━━━┓") == normalise("┏━━━━━━━┳━━━┓")
    assert normalise("│ 0005-second.… │ (0s ago) │") == normalise("│ 0005-second.… │ (12s ago) │")
    # what does not change per run is kept
    for kept in ("next: message 0003 by second -- your move", "imported bob-dice/0001-second.pbem",
                 "[dice.seal] first seals a note in slot 'ambush'", "│ dice recomputed: 2 declared rolls │",
                 "already imported, skipped: 0003, 0004", "0004 [6.4] 2.A, 2.B, 2.C, 2.D move up to fw-laha"):
        assert normalise(kept) == [re.sub("  +", " ", kept)]
    assert normalise("next: message 0004 by first") != normalise("next: message 0005 by first")


def test_the_frame_of_a_dice_decided_output_ignores_only_events_and_template_lines():
    delayed = """imported bob-ambon/0003-allied.pbem
already imported, skipped: 0000, 0001, 0002
0003 [6.3] landing on 0713: opposed, 2 real mine(s); one die is due
0004 [6.3] landing on 0713: roll 1 -2 (2 real mine(s)) = -1 -> landing delayed; the units stay in fw-laha
next: message 0004 by japanese -- your move"""
    fought = """imported bob-ambon/0003-allied.pbem
already imported, skipped: 0000, 0001, 0002
0003 [6.3] landing on 0713: opposed, 2 real mine(s); one die is due
0004 [6.3] landing on 0713: roll 5 -2 (2 real mine(s)) = 3 -> landing combat at 1/2 attacker CS
0004 [11.3] X4 retreats to 0813
next: message 0004 by japanese -- your move"""
    assert frame(normalise(delayed)) == frame(normalise(fought))
    assert frame(normalise(delayed)) != frame(normalise(delayed.replace("your move", "waiting for the reply")))
    moves = """## pbem orders template -- ambon game 69818cc94f3c..., you play japanese
## Now: turn 1, phase japanese-movement.
## Awaited from you:
##   - message 0004: your orders for the japanese-movement phase
## Lines starting '# ' are example orders, legal together now: remove the '# ' to use one.

## --- Movement (7.0-9.0): your units that may move
##   Kure-1 in 2106: 3 MP left; reaches 7 hexes
# [[order]]
# move = "Kure-1: 2106 2007 1907\""""
    none = """## pbem orders template -- ambon game 0123456789ab..., you play japanese
## Now: turn 1, phase japanese-movement.
## Awaited from you:
##   - message 0004: your orders for the japanese-movement phase
## Write your orders below (or none), then: pbem play DIR --orders THIS_FILE

## --- Movement (7.0-9.0): your units that may move
## may not move: Kure-1 (6.2 No Move)"""
    assert frame(normalise(moves)) == frame(normalise(none)) and len(frame(normalise(moves))) == 4
    assert frame(normalise(moves)) != frame(normalise(moves.replace("## Now: turn 1", "## Now: turn 2")))
