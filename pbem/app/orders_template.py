"""What is awaited from me, and a commented TOML orders template listing the
legal choices now (``pbem orders DIR``).

A template is TOML in which

* lines starting ``##`` explain: what is awaited, the units that may move and
  how far, the legal bombardment targets, the odds each possible attack
  would get, the reveals owed, the open decisions and their options;
* lines starting ``# `` are **example orders**: remove the ``# `` to use
  them.  Together they are legal now -- :func:`for_match` checks the whole
  set with :func:`pbem.match.session.compose` (the very check ``pbem play``
  makes) and leaves out any example that would not pass.

Games provide their part through the capability
:class:`pbem.engine.contract.OrdersTemplates` (:func:`template`;
Ambon: :mod:`pbem.games.ambon.template`, Calumpit:
:mod:`pbem.games.calumpit.template`, ASL: :mod:`pbem.games.asl.template`,
dice: :mod:`pbem.games.dice.template`); a game without one gets
:func:`generic_sections`, what its ``awaiting`` says is due.  Everything is
computed from the position the player's own replay holds, so the player's
sealed values may appear (marked so): the template is for the player only.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from pbem.engine.contract import OrdersTemplates, Section, Sections
from pbem.engine.machine import DecisionDue, DiceDue, RevealDue
from pbem.errors import PbemError, UsageError
from pbem.match import session
from pbem.match.replay import counted, pending_rolls
from pbem.util import tomlfile


@dataclass
class Template:
    game: str
    module: str
    side: str | None
    seq: int
    my_turn: bool
    awaited: list[str]
    choices: dict[str, Any]
    toml: str
    examples: dict[str, Any]  # the example orders document (all '# ' lines uncommented)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "module": self.module,
            "you": self.side,
            "message": self.seq,
            "your_turn": self.my_turn,
            "awaited": self.awaited,
            "choices": self.choices,
            "examples": self.examples,
            "template": self.toml,
        }


# --------------------------------------------------------------------------- dispatch


def template(game: Any, state: Any, side: str, secrets: Mapping[str, str] | None = None) -> Sections:
    """The game's part of the template for ``side``'s next message."""
    if isinstance(game, OrdersTemplates):
        return game.orders_template(state, side, secrets or {})
    return generic_sections(game, state, side, secrets or {})


def generic_sections(game: Any, state: Any, side: str, secrets: Mapping[str, str]) -> Sections:
    """Any game: what ``awaiting`` says is due from ``side``."""
    out = Sections()
    for item in game.awaiting(state):
        if isinstance(item, RevealDue) and item.side == side:
            out.awaited.append(f"the reveal of {item.slot} ({item.rule}): made automatically when you play")
        elif isinstance(item, DecisionDue) and item.side == side:
            out.awaited.append(f"a decision ({item.rule}): {item.prompt} options: {', '.join(item.options)}")
    if not out.awaited:
        out.awaited.append(f"your orders for the {game.name} game (see its documentation)")
    return out


# --------------------------------------------------------------------------- rendering


def order_lines(order: Mapping[str, Any]) -> list[str]:
    """One order as TOML lines: ``[[order]]`` and its ``key = value`` lines
    (inline tables for mappings, as ASL's ``squads = { A = "3-3-7" }``).  Cut at
    line feeds only (the writer escapes them in strings), not where ``splitlines``
    would also cut (U+2028, U+0085 are kept as they are inside a string)."""
    return tomlfile.dumps({"order": [dict(order)]}).removesuffix("\n").split("\n")


def standing_lines(standing: Mapping[str, Any]) -> list[str]:
    """Standing instructions as TOML lines: ``[standing]`` and its ``key = value`` lines."""
    return tomlfile.dumps({"standing": dict(standing)}).removesuffix("\n").split("\n")


def _comment(lines: Sequence[str], mark: str) -> list[str]:
    return [f"{mark} {tomlfile.comment_text(line)}".rstrip() for line in lines]


def render(head: Sequence[str], body: Sections, examples: Sequence[Sequence[dict[str, Any]]], standing: bool) -> str:
    """The template text.  ``examples[i]`` are the checked examples of section i."""
    out = _comment(head, "##")
    for section, kept in zip(body.sections, examples, strict=False):
        out += ["", f"## --- {section.title}"]
        out += _comment(section.notes, "##")
        for order in kept:
            out += _comment(order_lines(order), "#")
    if standing and body.standing:
        out += ["", "## --- Standing instructions: answers given in advance, kept until changed"]
        out += _comment(standing_lines(body.standing), "#")
    return "\n".join(out) + "\n"


def uncomment_examples(text: str) -> str:
    """The template with its example lines (``# ``) made live.  Lines end at line
    feeds only, as in TOML (a string may hold U+2028 or U+0085)."""
    lines = text.replace("\r\n", "\n").removesuffix("\n").split("\n")
    return "\n".join(line[2:] if line.startswith("# ") else line for line in lines) + "\n"


# --------------------------------------------------------------------------- for a game directory


def for_match(match: Any, *, proposal: str | None = None, file: str | None = None) -> Template:
    """The template for the local player of a loaded match
    (:func:`pbem.match.session.load` with the player's key).  Its advice
    names the game's directory, the ``proposal`` file (message 1) and the
    ``file`` the template is written to, where they are known."""
    if match.player is None:
        raise UsageError("an orders template needs your key: it is made for the player whose move it is")

    transcript, replay, game = match.transcript, match.replay, match.game
    side = match.player.side
    seq = len(transcript)
    here = shlex.quote(str(match.directory.path))
    this = shlex.quote(file) if file else "THIS_FILE"
    module = transcript.setup["module"]
    view = match.view()
    head = [f"pbem orders template -- {module} game {transcript.game[:12]}..., you play {side}"]
    where = [f"turn {view['turn']}" if "turn" in view else "", f"phase {view['phase']}" if view.get("phase") else ""]
    if any(where):
        head.append("Now: " + ", ".join(w for w in where if w) + ".")

    def done(awaited: list[str], body: Sections | None = None, kept=(), standing=False, my_turn=False) -> Template:
        lines = head + ["Awaited from you:"] + [f"  - {a}" for a in awaited]
        if body is not None and any(kept):
            lines += ["Lines starting '# ' are example orders, legal together now: remove the '# ' to use one.",
                      "Lines starting '##' explain.  Then: " + (
                          f"pbem join {shlex.quote(proposal) if proposal else 'PROPOSAL'} --dir NEW_GAME_DIR --orders {this}"
                          if seq == 1 else f"pbem play {here} --orders {this}")]
        elif my_turn:
            lines += [f"Write your orders below (or none), then: pbem play {here} --orders {this}"]
        text = render(lines, body or Sections(), kept, standing)
        examples: dict[str, Any] = {"order": [o for group in kept for o in group]}
        if standing and body is not None and body.standing:
            examples["standing"] = dict(body.standing)
        return Template(transcript.game, module, side, seq, my_turn, awaited,
                        (body.choices if body else {}), text, examples)

    if match.closed:
        return done([f"nothing: the game is over and closed. Check it: pbem verify {here} --audit"])
    if replay.next_side != side:
        return done([f"nothing yet: message {seq:04d} is {replay.next_side}'s. "
                     f"When it arrives: pbem receive {here} FILE (or pbem import {here} MAIL)"])
    if replay.over:
        return done([f"your closing message {seq:04d}: play an empty orders file; it reveals your "
                     f"per-game secret so that anyone can audit the game"], my_turn=True)
    body = template(game, replay.state, side, match.player.store)
    awaited = [f"message {seq:04d}: " + body.awaited[0]] + body.awaited[1:] if body.awaited else [f"message {seq:04d}"]
    if any(isinstance(d, DiceDue) for d in replay.pending):
        awaited.append(f"your message completes the key of {counted(pending_rolls(replay))} of "
                       f"{transcript.opponent(side)}'s")
    kept = _checked_examples(session, match, body)
    return done(awaited, body, kept, standing=_standing_ok(session, match, kept, body), my_turn=True)


def _checked_examples(session: Any, match: Any, body: Sections) -> list[list[dict[str, Any]]]:
    """Keep the examples that pass, together, the check ``pbem play`` makes:
    section by section, an example (or a group of them) that fails with the
    others is left out."""
    kept: list[list[dict[str, Any]]] = [[] for _ in body.sections]
    orders: list[dict[str, Any]] = []
    for i, section in enumerate(body.sections):
        for example in section.examples:
            group = list(example) if isinstance(example, list) else [example]
            try:
                session.compose(match, session.drawn(match, {"order": orders + group}))  # as pbem play tries it
            except PbemError:
                continue
            orders += group
            kept[i] += group
    return kept


def _standing_ok(session: Any, match: Any, kept: list[list[dict[str, Any]]], body: Sections) -> bool:
    if not body.standing:
        return False
    try:
        session.compose(match, session.drawn(match, {"order": [o for group in kept for o in group],
                                                     "standing": dict(body.standing)}))
    except PbemError:
        return False
    return True


# --------------------------------------------------------------------------- shared by games


__all__ = [
    "Section",
    "Sections",
    "Template",
    "for_match",
    "generic_sections",
    "render",
    "template",
    "uncomment_examples",
]
