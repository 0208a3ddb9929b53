"""Dice expressions of the dice game: ``2d6+1``, ``d10``, ``1d20+1d4-2`` --
its orders' syntax, bounded so that a hostile message cannot make the
receiver roll without end.  (The dice themselves come from
:mod:`pbem.protocol.dice`.)

Two readings, by the dice rules a game's message 0 pins (its
``module_version``, docs/protocol.md 6.5):

- rules ``1``: ``NdS`` terms and constants; ``d66`` is one 66-sided die and
  ``d100`` one 100-sided die;
- rules ``2`` (the wargamers' dice): ``d66`` is two d6 read as tens and
  units (11..66), ``d%`` and ``d100`` are two d10 read as tens and units
  (00 and 0 read 100), and ``NdSkhK`` / ``NdSklK`` keep the K highest /
  lowest of N dice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.errors import InputError

RULES = ("1", "2")  # the dice rules versions, oldest first
CURRENT = RULES[-1]

_TERM_1 = re.compile(r"([+-]?)\s*(?:(\d*)[dD](\d+)|(\d+))", re.ASCII)  # ASCII digits and spaces only
_ATOM_1 = r"(?:\d*[dD]\d+|\d+)"
_EXPRESSION_1 = re.compile(rf"^\s*[+-]?\s*{_ATOM_1}(?:\s*[+-]\s*{_ATOM_1})*\s*$", re.ASCII)
_TERM_2 = re.compile(r"([+-]?)\s*(?:(\d*)[dD](?:(%)|(\d+)(?:[kK]([hHlL])(\d+))?)|(\d+))", re.ASCII)
_ATOM_2 = r"(?:\d*[dD](?:%|\d+(?:[kK][hHlL]\d+)?)|\d+)"
_EXPRESSION_2 = re.compile(rf"^\s*[+-]?\s*{_ATOM_2}(?:\s*[+-]\s*{_ATOM_2})*\s*$", re.ASCII)
MAX_DICE, MAX_SIDES = 100, 1000  # per expression: dice drawn in all its terms; faces of one die
MAX_CONSTANT, MAX_TEXT = 10**6, 100

PLAIN, D66, PERCENTILE = "plain", "d66", "percentile"


@dataclass(frozen=True)
class DiceTerm:
    """One term: ``count`` results of ``sides`` faces (66 for a tens-and-units
    d66, 100 for a percentile roll), ``keep`` = ("h" or "l", K) for a
    keep-highest / keep-lowest term."""

    sign: int
    count: int
    sides: int
    kind: str = PLAIN
    keep: tuple[str, int] | None = None

    @property
    def dice(self) -> int:
        """How many dice the term draws from its substream: two for each
        d66 or percentile result, one for each plain die."""
        return self.count * (1 if self.kind == PLAIN else 2)

    @property
    def die(self) -> int:
        """The faces of each die drawn: 6 for a d66, 10 for a percentile roll."""
        return {D66: 6, PERCENTILE: 10}.get(self.kind, self.sides)

    def results(self, values: tuple[int, ...]) -> tuple[int, ...]:
        """The term's results from the dice drawn (in the order drawn): a d66
        reads each pair as tens then units (3, 5 -> 35); a percentile roll
        reads each d10 as a digit (10 reads 0), tens then units, and 00 with 0
        as 100; plain dice are their own results."""
        if self.kind == PLAIN:
            return tuple(values)
        pairs = zip(values[0::2], values[1::2], strict=True)
        if self.kind == D66:
            return tuple(10 * tens + units for tens, units in pairs)
        return tuple((10 * (tens % 10) + units % 10) or 100 for tens, units in pairs)

    def kept(self, values: tuple[int, ...]) -> tuple[bool, ...]:
        """Which results count: all, or for ``khK`` the K highest (``klK`` the
        K lowest), of equal results the one drawn first."""
        results = self.results(values)
        if self.keep is None:
            return (True,) * len(results)
        how, k = self.keep
        order = sorted(range(len(results)), key=lambda i: (-results[i] if how == "h" else results[i], i))
        chosen = set(order[:k])
        return tuple(i in chosen for i in range(len(results)))

    def value(self, values: tuple[int, ...]) -> int:
        """The sum of the kept results (before the term's sign)."""
        if self.kind == PLAIN and self.keep is None:  # most rolls: the dice are the results, all kept
            return sum(values)
        return sum(r for r, keep in zip(self.results(values), self.kept(values), strict=True) if keep)


@dataclass(frozen=True)
class DiceExpression:
    """``2d6+1``, ``d10``, ``1d20+1d4-2``, ``d66``, ``4d6kh3``: dice terms and a constant."""

    text: str
    terms: tuple[DiceTerm, ...]
    modifier: int

    @classmethod
    def parse(cls, text: str, *, field: str = "dice", rules: str = CURRENT) -> "DiceExpression":
        """``text`` read by dice rules ``rules`` ("1" or "2", docs/protocol.md 6.5)."""
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{field}: expected a dice expression like \"2d6+1\", got {text!r}", field=field)
        if len(text) > MAX_TEXT:
            raise InputError(f"{field}: a dice expression of {len(text)} characters; at most {MAX_TEXT}", field=field)
        old = rules == "1"
        if not (_EXPRESSION_1 if old else _EXPRESSION_2).match(text):
            forms = "NdS terms" if old else "NdS, d66, d%, NdSkhK or NdSklK terms"
            raise InputError(
                f"{field}: cannot read dice expression {text!r} "
                f"(use {forms} and integers joined by + or -, e.g. \"2d6+1\")",
                field=field,
            )
        terms, modifier = [], 0
        for match in (_TERM_1 if old else _TERM_2).finditer(text):
            sign = -1 if match.group(1) == "-" else 1
            if old:
                count_text, faces_text, constant_text, percent, keep_how, keep_text = (
                    match.group(2), match.group(3), match.group(4), None, None, None)
            else:
                count_text, percent, faces_text, keep_how, keep_text, constant_text = match.group(2, 3, 4, 5, 6, 7)
            if constant_text is not None:
                constant = int(constant_text)
                if constant > MAX_CONSTANT:
                    raise InputError(f"{field}: the constant {constant} in {text!r} is out of range (at most {MAX_CONSTANT})",
                                     field=field)
                modifier += sign * constant
                continue
            count = int(count_text or 1)
            sides = 100 if percent else int(faces_text)
            kind = PLAIN if old else {66: D66, 100: PERCENTILE}.get(sides, PLAIN)
            written = f"{count}d{'%' if percent else sides}"
            if not 1 <= count <= MAX_DICE or not 2 <= sides <= MAX_SIDES:
                raise InputError(
                    f"{field}: {written} in {text!r} is out of range "
                    f"(1-{MAX_DICE} dice of 2-{MAX_SIDES} sides)",
                    field=field,
                )
            keep = None
            if keep_how is not None and keep_text is not None:
                k = int(keep_text)
                if kind != PLAIN:
                    raise InputError(f"{field}: {written}k{keep_how.lower()}{k} in {text!r}: only plain dice keep the "
                                     f"highest or lowest (not d66, d% or d100)", field=field)
                if not 1 <= k <= count:
                    raise InputError(f"{field}: {written}k{keep_how.lower()}{k} in {text!r} keeps {k} of {count} dice; "
                                     f"it keeps 1 to {count}", field=field)
                keep = (keep_how.lower(), k)
            terms.append(DiceTerm(sign, count, sides, kind, keep))
        compact = text.replace(" ", "")
        if not terms:
            raise InputError(f"{field}: {text!r} rolls no dice", field=field)
        drawn = sum(t.dice for t in terms)
        if drawn > MAX_DICE:
            raise InputError(f"{field}: {text!r} rolls {drawn} dice; at most {MAX_DICE} in one roll"
                             + ("" if old else " (a d66 or d% is two)"), field=field)
        return cls(compact.lower(), tuple(terms), modifier)

    def total(self, values_per_term: list[tuple[int, ...]]) -> int:
        return sum(t.sign * t.value(tuple(v)) for t, v in zip(self.terms, values_per_term, strict=True)) + self.modifier

    def shown(self, values_per_term: list[tuple[int, ...]]) -> str:
        """Each result with its term's sign, the modifier, the total:
        ``2d6+1`` rolled (2, 2) is ``"2 + 2 + 1 = 5"``; ``1d20+1d4-2`` rolled
        (17,), (3,) is ``"17 + 3 - 2 = 18"``; a d66 rolled (3, 5) is ``"35"``;
        ``4d6kh3`` rolled (6, 2, 5, 1) is ``"6 + 2 + 5 (dropped 1) = 13"``:
        the kept results in the order drawn, the dropped ones after them."""
        parts: list[tuple[int, str]] = []
        for term, values in zip(self.terms, values_per_term, strict=True):
            results, kept = term.results(tuple(values)), term.kept(tuple(values))
            parts += [(term.sign, str(r)) for r, keep in zip(results, kept, strict=True) if keep]
            dropped = [str(r) for r, keep in zip(results, kept, strict=True) if not keep]
            if dropped:
                sign, last = parts[-1]
                parts[-1] = (sign, f"{last} (dropped {', '.join(dropped)})")
        if self.modifier:
            parts.append((1 if self.modifier > 0 else -1, str(abs(self.modifier))))
        text = "".join((("-" if s < 0 else "") if i == 0 else f" {'+' if s > 0 else '-'} ") + v
                       for i, (s, v) in enumerate(parts))
        return text + (f" = {self.total(values_per_term)}" if len(parts) > 1 else "")
