"""Dice expressions of the dice game: ``2d6+1``, ``d10``, ``1d20+1d4-2`` --
its orders' syntax, bounded so that a hostile message cannot make the
receiver roll without end.  (The dice themselves come from
:mod:`pbem.protocol.dice`.)"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.errors import InputError

_TERM = re.compile(r"([+-]?)\s*(?:(\d*)[dD](\d+)|(\d+))", re.ASCII)  # ASCII digits and spaces only
_ATOM = r"(?:\d*[dD]\d+|\d+)"
_EXPRESSION = re.compile(rf"^\s*[+-]?\s*{_ATOM}(?:\s*[+-]\s*{_ATOM})*\s*$", re.ASCII)
MAX_DICE, MAX_SIDES = 100, 1000  # per expression: dice in all its terms; faces of one die
MAX_CONSTANT, MAX_TEXT = 10**6, 100


@dataclass(frozen=True)
class DiceTerm:
    sign: int
    count: int
    sides: int


@dataclass(frozen=True)
class DiceExpression:
    """``2d6+1``, ``d10``, ``1d20+1d4-2``: dice terms and a constant."""

    text: str
    terms: tuple[DiceTerm, ...]
    modifier: int

    @classmethod
    def parse(cls, text: str, *, field: str = "dice") -> "DiceExpression":
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{field}: expected a dice expression like \"2d6+1\", got {text!r}", field=field)
        if len(text) > MAX_TEXT:
            raise InputError(f"{field}: a dice expression of {len(text)} characters; at most {MAX_TEXT}", field=field)
        if not _EXPRESSION.match(text):
            raise InputError(
                f"{field}: cannot read dice expression {text!r} "
                f"(use NdS terms and integers joined by + or -, e.g. \"2d6+1\")",
                field=field,
            )
        terms, modifier = [], 0
        for match in _TERM.finditer(text):
            sign = -1 if match.group(1) == "-" else 1
            if match.group(3) is not None:
                count = int(match.group(2) or 1)
                sides = int(match.group(3))
                if not 1 <= count <= MAX_DICE or not 2 <= sides <= MAX_SIDES:
                    raise InputError(
                        f"{field}: {count}d{sides} in {text!r} is out of range "
                        f"(1-{MAX_DICE} dice of 2-{MAX_SIDES} sides)",
                        field=field,
                    )
                terms.append(DiceTerm(sign, count, sides))
            else:
                constant = int(match.group(4))
                if constant > MAX_CONSTANT:
                    raise InputError(f"{field}: the constant {constant} in {text!r} is out of range (at most {MAX_CONSTANT})",
                                     field=field)
                modifier += sign * constant
        compact = text.replace(" ", "")
        if not terms:
            raise InputError(f"{field}: {text!r} rolls no dice", field=field)
        if sum(t.count for t in terms) > MAX_DICE:
            raise InputError(f"{field}: {text!r} rolls {sum(t.count for t in terms)} dice; at most {MAX_DICE} in one roll",
                             field=field)
        return cls(compact.lower(), tuple(terms), modifier)

    def total(self, values_per_term: list[tuple[int, ...]]) -> int:
        return sum(t.sign * sum(v) for t, v in zip(self.terms, values_per_term, strict=True)) + self.modifier

    def shown(self, values_per_term: list[tuple[int, ...]]) -> str:
        """Each die with its term's sign, the modifier, the total:
        ``2d6+1`` rolled (2, 2) is ``"2 + 2 + 1 = 5"``; ``1d20+1d4-2`` rolled
        (17,), (3,) is ``"17 + 3 - 2 = 18"``."""
        parts = [(t.sign, v) for t, values in zip(self.terms, values_per_term, strict=True) for v in values]
        if self.modifier:
            parts.append((1 if self.modifier > 0 else -1, abs(self.modifier)))
        text = "".join((("-" if s < 0 else "") if i == 0 else f" {'+' if s > 0 else '-'} ") + str(v)
                       for i, (s, v) in enumerate(parts))
        return text + (f" = {self.total(values_per_term)}" if len(parts) > 1 else "")
