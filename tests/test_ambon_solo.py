"""pbem solo ambon against the house (--as japanese | allied) and --both,
through the real loop (:meth:`Solo.run`, its prompts answered by a script).

The player's side is driven by pbem's simple bot (``AmbonBot``), its orders
typed as the lines a player types, each one checked by the loop on the
side's own copy of the game.  The house plays with ``HouseBot``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pbem.errors import InputError, UsageError
from pbem.games.ambon.bot import AmbonBot, HouseBot
from pbem.games.ambon.solo import SETTINGS, Solo, parse_line
from pbem.match import session
from pbem.protocol.keys import Identity
from pbem.protocol.keystore import Keystore


def order_line(o: dict[str, Any]) -> str:
    """An order table as the line a player types (:func:`parse_line` reads it back)."""
    if "setup" in o:
        words = ["setup", o["setup"]] + (["shuffle"] if o.get("shuffle") else [])
        words += [f"{k}={v}" for k, v in (o.get("identities") or {}).items()]
        return " ".join(words + [f"{k}={v}" for k, v in (o.get("mines") or {}).items()])
    for verb in ("land", "postpone", "surrender", "reveal"):
        if verb in o:
            return f"{verb} {o[verb]}"
    if "move" in o:
        return f"move {o['move']}"
    if "bombard" in o:
        return f"bombard {o['bombard']} {o['target']}"
    if "attack" in o:
        return f"attack {o['attack']} with {' '.join(o['with'])}" + (f" hq {o['hq']}" if o.get("hq") else "")
    target = f" {o['target']}" if o.get("target") else ""
    if "support" in o:
        return f"support {o['support']}{target}"
    if "advance" in o:
        return "advance " + " ".join(o["advance"]) + target
    if "losses" in o:
        return "losses " + " ".join(o["losses"]) + target
    if "retreat" in o:
        return f"retreat {o['retreat']}{target}" + (f" to {o['to']}" if o.get("to") else "")
    if "wave" in o:
        return f"wave {o['wave']} " + " ".join(o["units"])
    if "second_wave" in o:
        return f"second_wave {o['second_wave']}"
    raise AssertionError(f"no typed line for {o}")


def doc_lines(doc: dict[str, Any]) -> list[str]:
    return ([f"standing {k}={v}" for k, v in (doc.get("standing") or {}).items()]
            + [order_line(o) for o in doc.get("order", [])])


ME = Identity.from_seed(bytes(range(32)), "me")


class Recorder:
    """HouseBot, with every input it is given and every orders document it writes kept."""

    calls: list[tuple[Any, int, dict[str, str], dict[str, Any]]]

    def __init__(self, game: Any, side: str, *, seed: bytes, level: int):
        self.bot = HouseBot(game, side, seed=seed, level=level)
        self.side = side
        Recorder.calls = getattr(Recorder, "calls", [])

    def orders(self, state: Any, seq: int, own: Any) -> dict[str, Any]:
        doc = self.bot.orders(state, seq, own)
        Recorder.calls.append((state, seq, dict(own), json.loads(json.dumps(doc))))
        return doc


class Scripted(Solo):
    """The loop with the player's lines made by the simple bot from the
    side's own copy at each prompt (``setup``: the setup lines to type
    instead of the bot's), every prompt and every line said kept."""

    def __init__(self, *args: Any, setup: dict[str, list[str]] | None = None, stop_after: int | None = None,
                 refuse_first: bool = False, stop_at_seq: int | None = None, **kw: Any):
        self.queue: list[str] = []
        self.out: list[str] = []
        self.prompts: list[tuple[int, str, str, tuple[str, ...], list[str], int]] = []  # seq, side, phase, decisions, lines, turn
        self.setup_lines = setup or {}
        self.stop_after = stop_after
        self.stop_at_seq = stop_at_seq
        self.refuse_first = refuse_first
        self.confirms = 0
        super().__init__(*args, ask=self._ask, say=self.out.append, show=lambda game, view, you: self.out.append("<board>"),
                         **kw)

    def ask_orders(self, side: str, match: Any, **kw: Any) -> Any:
        assert len(self.prompts) < 200, "the game does not end: " + "\n".join(self.out[-12:])
        if (self.stop_after is not None and len(self.prompts) >= self.stop_after) or (
                self.stop_at_seq is not None and len(match.transcript) > self.stop_at_seq):
            self.queue = ["quit"]
        else:
            state, seq = match.replay.state, len(match.transcript)
            if state.phase in ("setup-allied", "setup-japanese") and side in self.setup_lines:
                lines = list(self.setup_lines[side])
            else:
                lines = doc_lines(AmbonBot(match.game).orders(state, side, seq))
            self.prompts.append((seq, side, str(state.phase), tuple(kw.get("decisions", ())), lines, state.turn))
            self.queue = lines + [""]
        self.out.append(f"<prompt {len(match.transcript):04d}>")
        return super().ask_orders(side, match, **kw)

    def _ask(self, prompt: str) -> str:
        self.out.append(prompt)
        if prompt.startswith("send this message?"):
            self.confirms += 1
            if self.refuse_first and self.confirms == 1:
                self.queue = [""]
                return "n"
            return "y"
        assert self.queue, "asked again after the lines ran out:\n" + "\n".join(self.out[-12:])
        line = self.queue.pop(0)
        self.out.append(line)
        return line


def solo(where: Path, side: str | None, **kw: Any) -> Scripted:
    ME.keystore = where.parent / f"home-{where.name}"  # its replay checkpoints: each load reads only what is new
    return Scripted(where, ME, side=side, bot=Recorder, **kw)


@pytest.fixture(autouse=True)
def _fresh_recorder():
    Recorder.calls = []
    yield


def typed_orders_written(game: Solo, where: Path) -> None:
    """Every prompt's lines are the orders of the message it wrote: no line refused, none lost."""
    mine = session.load(where / "game" / "mine", ME)
    assert not [line for line in game.out if line.startswith("not accepted") or line.startswith("not sent")]
    for seq, side, _, _, lines, _ in game.prompts:
        doc: dict[str, Any] = {"order": []}
        for line in lines:
            parsed = parse_line(line)
            if isinstance(parsed, tuple):
                doc.setdefault("standing", {})[parsed[1][0]] = parsed[1][1]
            else:
                doc["order"].append(parsed)
        body = mine.transcript.messages[seq].body
        assert body["side"] == side
        public = mine.game.parse_orders(doc, side).public
        if game.mode == "both" and side == "allied":  # the house's identities were added: compare the public orders
            assert len(body["orders"]) == len(public)
        else:
            assert body["orders"] == [dict(o) for o in public], (seq, lines)


def allied_turns_played(game: Solo, where: Path) -> None:
    """5.0: each game turn's Allied Movement, Bombardment and Combat Phases
    are played, the Movement Phase at a prompt of the Allied player's (its
    header naming it), never passed by a message the player did not see."""
    mine = session.load(where / "game" / "mine", ME)
    last = mine.replay.state.turn
    texts = [e.text for _, e in mine.replay.events]
    for turn in range(1, last + 1):
        for phase in ("Movement", "Bombardment", "Combat"):
            assert f"turn {turn}: the Allied {phase} Phase begins" in texts, (turn, phase)
        allied = [p for p in game.prompts if p[1] == "allied" and p[5] == turn]
        movement = [p for p in allied if p[2] == "allied-movement" and "your Allied Movement Phase (7.0)" in p[3]]
        answered = [p for p in allied if p[2].startswith("japanese-") and p[3]]  # a choice, then the movement
        assert movement or answered, f"no Allied prompt on turn {turn} before its Allied Movement Phase"
    # never asked in a Japanese phase with nothing of the Allied player's to decide
    assert all(p[3] for p in game.prompts if p[1] == "allied" and p[2].startswith("japanese-"))
    headers = [line for line in game.out if line.startswith("== message") and "Allied Movement Phase" in line]
    assert headers and all("Allied to write" in h for h in headers)


ALLIED_STANDING = ["standing losses=protect-hq", "standing retreat=retreat", "standing hq-support=always"]
ALLIED_A = ("setup historical X1=dummy X2=detachment X3=detachment X4=dummy X5=detachment X6=dummy X7=dummy "
            "X8=detachment M1=dummy M2=real M3=real M4=real M5=dummy M6=real M7=dummy M8=real")


# --------------------------------------------------------------------------- whole games, either side


def test_5_0_solo_as_allied_a_whole_game_every_allied_player_turn_played(tmp_path):
    where = tmp_path / "solo"
    game = solo(where, "allied", setup={"allied": ALLIED_STANDING + [ALLIED_A]})
    final = game.run()
    assert final.closed and final.game.result(final.replay.state)
    typed_orders_written(game, where)
    allied_turns_played(game, where)
    # every prompted message was confirmed before it was signed
    assert game.confirms == len(game.prompts)
    assert Recorder.calls and all(seq % 2 == 0 for _, seq, _, _ in Recorder.calls)  # the house: the Japanese
    assert json.loads((where / SETTINGS).read_text())["as"] == "allied"
    assert session.verify([where / "game" / "mine"], audit=True).ok


def test_5_0_solo_both_sides_typed_the_allied_turn_follows_the_japanese_combat(tmp_path):
    """The lost turn: with the Japanese advance = always and combats
    declared, the Allied orders are checked on the Allied copy (which holds
    the combat dice), so the Allied Movement Phase is played at its prompt."""
    where = tmp_path / "solo"
    game = solo(where, "both")
    final = game.run()
    assert final.closed
    typed_orders_written(game, where)
    allied_turns_played(game, where)
    assert not Recorder.calls  # --both: no house player
    japanese_attacks = [p for p in game.prompts
                        if p[1] == "japanese" and any(line.startswith("attack") for line in p[4])]
    assert japanese_attacks
    for seq, *_ in japanese_attacks:  # the Allied prompt that follows is in the Allied player turn or a decision
        after = next(p for p in game.prompts if p[0] > seq and p[1] == "allied")
        assert after[2].startswith("allied-") or after[3]


# --------------------------------------------------------------------------- the house sees only its side


def _reveal_order(where: Path) -> list[str]:
    mine = session.load(where / "game" / "mine", ME)
    return [r["slot"] for m in mine.transcript.messages for r in m.body["reveals"]]


def _first_reveal(where: Path, slots: set[str]) -> int:
    mine = session.load(where / "game" / "mine", ME)
    return next((m.seq for m in mine.transcript.messages if any(r["slot"] in slots for r in m.body["reveals"])),
                len(mine.transcript))


def _fixed_game(monkeypatch) -> None:
    """The same keys, game id and dice in every run: the dice are keyed
    without the messages' body hashes (which hold the commitments to the
    sealed values, so the dice would differ with them), so two runs differ
    by the sealed values alone."""
    from pbem.match import replay
    from pbem.protocol.dice import dice_key

    monkeypatch.setattr(session._random, "token_hex", lambda n=16: "5e" * n)
    monkeypatch.setattr(session._random, "token_bytes", lambda n=16: bytes(range(n)))
    monkeypatch.setattr(replay, "dice_key", lambda game, seq, body, a, b: dice_key(game, seq, bytes(32), a, b))


def _run(tmp_path: Path, name: str, side: str, setup: dict, options=None, stop_at_seq=None):
    """One solo game in ``tmp_path/name`` with the house key of ``tmp_path/house``
    (to its end, or stopped at the first prompt after message ``stop_at_seq``):
    its directory, the house's calls, the loop."""
    where = tmp_path / name
    house = tmp_path / "house"
    if house.exists():
        shutil.copytree(house, where / "house")
    Recorder.calls = []
    game = solo(where, side, setup=setup, options=options or {}, stop_at_seq=stop_at_seq)
    try:
        game.run()
    except SystemExit:
        assert stop_at_seq is not None
    refused = [line for line in game.out if line.startswith("not ")]
    assert not refused, refused
    if not house.exists():
        shutil.copytree(where / "house", house)
    assert game.house.public.fingerprint == Keystore(house).load(lambda: None).public.fingerprint
    return where, list(Recorder.calls), game


def _same_until(runs, seq_limit: int) -> int:
    (_, a, _), (_, b, _) = runs
    before_a = [c for c in a if c[1] < seq_limit]
    before_b = [c for c in b if c[1] < seq_limit]
    assert before_a == before_b  # every state, own store and orders document the house had and wrote
    return len(before_a)


def test_4_1_the_house_never_sees_the_allied_players_identities_or_mines(tmp_path, monkeypatch):
    """The same game twice, the Allied player's identities differing where
    the rules reveal them last: every state and own store the house was
    given, and every orders document it wrote, are the same until the
    message that reveals one of them."""
    _fixed_game(monkeypatch)
    values = dict(w.split("=") for w in ALLIED_A.split()[2:])
    first = _run(tmp_path, "a", "allied", {"allied": ALLIED_STANDING + [ALLIED_A]})
    order = _reveal_order(first[0])
    late = [s for s in values if s not in order] + [s for s in reversed(order) if s in values]
    swap = []
    for prefix, kinds in (("X", ("dummy", "detachment")), ("M", ("real", "dummy"))):  # the counts of 4.1 kept
        swap += [next(s for s in late if s[0] == prefix and values[s] == kind) for kind in kinds]
    changed = dict(values)
    for a, b in (swap[:2], swap[2:]):
        changed[a], changed[b] = changed[b], changed[a]
    other = "setup historical " + " ".join(f"{k}={v}" for k, v in changed.items())
    runs = [first, _run(tmp_path, "b", "allied", {"allied": ALLIED_STANDING + [other]},
                        stop_at_seq=_first_reveal(first[0], set(swap)) + 1)]
    limit = min(_first_reveal(where, set(swap)) for where, _, _ in runs)
    assert _same_until(runs, limit + 1) >= 1  # up to the house's message that sees the first reveal
    for _, calls, _ in runs:
        for state, seq, own, _ in calls:
            assert own == {}  # the Japanese house seals nothing without 14.2: it holds no Allied value
            if seq < limit:
                assert all(state.opened(slot) is None for slot in swap)


def test_14_1_to_14_4_as_japanese_a_whole_game_the_house_never_sees_the_14_2_note(tmp_path, monkeypatch):
    """A solo game with every optional rule, the player Japanese, played to
    its end through the loop; then the same game with another 14.2 note:
    the house's inputs and orders are the same until the note is revealed."""
    from pbem.engine.registry import get
    from pbem.games.ambon import setup as ambon_setup
    from pbem.games.ambon.template import second_wave_example

    data = get("ambon").data
    waves, note = second_wave_example(data)
    plan = ambon_setup.parse_second_wave_note(data, note)
    (b1, l1), (b2, l2) = sorted(plan.items())
    other = f"{b1}:{l2} {b2}:{l1}"
    ambon_setup.parse_second_wave_note(data, other)
    lines = ["standing advance=always", "standing losses=protect-hq", "standing retreat=retreat",
             "standing retreat-to=toward-friends"] + [order_line(w) for w in waves]
    rules = {"rules": ["14.1", "14.2", "14.3", "14.4"]}
    _fixed_game(monkeypatch)
    first = _run(tmp_path, "a", "japanese", {"japanese": lines + [f"second_wave {note}"]}, options=rules)
    where, calls, game = first
    final = session.load(where / "game" / "mine", ME)
    assert final.closed and final.replay.state.options == ("14.1", "14.2", "14.3", "14.4")
    typed_orders_written(game, where)
    assert all(seq % 2 == 1 for _, seq, _, _ in calls)  # the house: the Allies, from message 1
    # the house's landing results are shown before the next Japanese prompt, not after the next message
    first_roll = next(i for i, line in enumerate(game.out) if "[6.3] landing on" in line and "roll" in line)
    next_prompt = next(i for i, line in enumerate(game.out) if line.startswith("<prompt") and i > first_roll)
    assert any(line.startswith("what happened since message") for line in game.out[:first_roll])
    assert first_roll < next_prompt and any(line.endswith("(allied, the house):") for line in game.out)
    # an attack answers with its odds, not "ok"
    assert any(line.startswith("  -> [11.0] odds at") for line in game.out) and "ok" not in game.out
    assert session.verify([where / "game" / "mine"], audit=True).ok
    slot = ambon_setup.SECOND_WAVE_SLOT
    runs = [first, _run(tmp_path, "b", "japanese", {"japanese": lines + [f"second_wave {other}"]}, options=rules,
                        stop_at_seq=_first_reveal(where, {slot}) + 1)]
    limit = min(_first_reveal(w, {slot}) for w, _, _ in runs)
    assert _same_until(runs, limit + 1) >= 2
    for _, calls, _ in runs:
        for state, seq, own, _ in calls:
            assert slot not in own  # its own store: Allied slots only
            assert set(own) <= set(data.concealed_slots) | set(data.mine_slots)
            if seq < limit:
                assert state.opened(slot) is None and not state.second_wave_note


# --------------------------------------------------------------------------- confirmation, resume, settings


def test_an_empty_line_asks_and_no_writes_nothing(tmp_path):
    where = tmp_path / "solo"
    game = solo(where, "allied", setup={"allied": [ALLIED_A]}, refuse_first=True, stop_after=1)
    said: list[tuple[str, int]] = []  # each line said, with the message files the player's copy held then
    game.say = lambda text: (game.out.append(text), said.append((text, len(list(where.glob("game/mine/*.pbem"))))))
    with pytest.raises(SystemExit):
        game.run()
    asked = [i for i, line in enumerate(game.out) if line == "send this message? [Y/n] "]
    assert len(asked) == 2  # "n": not sent, asked again at the next empty line
    refused = next(i for i, line in enumerate(game.out) if line.startswith("not sent: go on"))
    assert asked[0] < refused < asked[1]
    assert next(n for text, n in said if text.startswith("not sent: go on")) == 0  # nothing written on "n"
    mine = session.load(where / "game" / "mine", ME)
    assert len(mine.transcript.messages[1].body["orders"]) > 20  # the setup, sent once, after the "y"


def test_a_refused_line_names_its_rule_and_is_not_kept(tmp_path):
    where = tmp_path / "solo"
    game = solo(where, "allied", setup={"allied": ["setup historical", "conceal X1 0713",
                                                   "move AUS-B to 1313", ALLIED_A]}, stop_after=1)
    with pytest.raises(SystemExit):
        game.run()
    refused = [line for line in game.out if line.startswith("not accepted")]
    assert len(refused) == 3
    assert "4.1" in refused[0] and "shuffle" in refused[0]  # the identities are the player's to give
    assert "4.1" in refused[1] and "dummy" in refused[1]
    assert "5.0" in refused[2] or "7" in refused[2]
    mine = session.load(where / "game" / "mine", ME)
    assert len(mine.transcript.messages[1].body["orders"]) > 20  # only the accepted setup was sent


def test_4_1_a_refused_line_says_what_the_same_mistake_in_a_file_would(tmp_path):
    """4.1: a typed line is parsed as a file's [[order]] table, by the same
    kind: the loop refuses a mistaken line with the file's own error."""
    import tomllib

    where = tmp_path / "solo"
    game = solo(where, "allied", setup={"allied": ["place AUS-HQ", "conceal X1 0913 spy", ALLIED_A]}, stop_after=1)
    with pytest.raises(SystemExit):
        game.run()
    refused = [line for line in game.out if line.startswith("not accepted")]
    expected = []
    for table in ('place = "AUS-HQ"', 'conceal = "X1"\nhex = "0913"\nis = "spy"'):
        with pytest.raises(InputError) as err:  # the file's refusal
            game_of_files = session.load(where / "game" / "mine", ME).game
            game_of_files.parse_orders(tomllib.loads("[[order]]\n" + table), "allied")
        expected.append(f"not accepted: {err.value}")
    assert refused == expected
    assert refused[0] == "not accepted: order 1 (place): missing field 'hex'"


def test_resume_goes_on_from_the_files_with_the_side_and_level_remembered(tmp_path):
    where = tmp_path / "solo"
    with pytest.raises(SystemExit):
        solo(where, "allied", level=1, setup={"allied": ALLIED_STANDING + [ALLIED_A]}, stop_after=3).run()
    settings = json.loads((where / SETTINGS).read_text())
    assert settings["as"] == "allied" and settings["level"] == 1
    written = len(list((where / "game" / "mine").glob("*.pbem")))
    with pytest.raises(UsageError, match="played --as allied"):
        solo(where, "japanese").run()
    with pytest.raises(UsageError, match="level 1"):
        solo(where, None, level=3).run()
    with pytest.raises(UsageError, match="new game"):
        solo(where, None, options={"rules": ["14.2"]}).run()
    again = solo(where, None, stop_after=3)  # the same command, or without --as: as remembered
    with pytest.raises(SystemExit):
        again.run()
    assert len(list((where / "game" / "mine").glob("*.pbem"))) > written
    assert again.mode == "allied" and again.level == 1
    # the first prompt of the resumed game showed what happened since the player's last message
    first = next(i for i, line in enumerate(again.out) if line.startswith("<prompt"))
    assert any(line.startswith("what happened since message") for line in again.out[:first])
    assert session.verify([where / "game" / "mine"]).ok


def test_a_new_solo_game_needs_a_side(tmp_path):
    with pytest.raises(UsageError, match="--as japanese or --as allied"):
        solo(tmp_path / "solo", None).run()
    assert not (tmp_path / "solo" / "game").exists()
