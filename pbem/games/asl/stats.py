"""``pbem asl stats``: each player's DR and dr history and distribution.

Read from a view's rolls (:meth:`pbem.games.asl.game.AslGame.view`), so a
spectator's stats are the public record's.  A DR counts as its Original DR,
the two dice without any DRM -- what ASL reads for doubles, snake eyes (1-1,
an Original 2) and boxcars (6-6, an Original 12) -- and a dr as its die.
Rolls still awaiting their dice are counted apart (``pending``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

DR_TOTALS = range(2, 13)
DR_FACES = range(1, 7)
#: the chance of each Original DR: (6 - |total - 7|) in 36
DR_EXPECTED = {t: Fraction(6 - abs(t - 7), 36) for t in DR_TOTALS}
BAR = 36  # characters of the longest bar: each line fits 80 columns
HISTORY = 24  # the newest results the text lists (the JSON lists them all)


def _mean(values: Sequence[int]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _dice(roll: Mapping[str, Any]) -> tuple[int, ...] | None:
    groups = roll.get("values") or [None]
    return tuple(groups[0]) if groups[0] is not None else None


def side_stats(rolls: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The DR and dr of one player (or of both): counts, means, the 2..12 and
    1..6 distributions, doubles, snake eyes, boxcars, and the pending rolls."""
    drs: list[tuple[int, ...]] = []
    small: list[int] = []
    pending = 0
    for roll in rolls:
        dice = _dice(roll)
        if dice is None:
            pending += 1
        elif roll["dice"] == "DR":
            drs.append(dice)
        else:
            small.append(dice[0])
    totals = [sum(d) for d in drs]
    doubles = [d[0] for d in drs if d[0] == d[1]]
    return {
        "DR": {
            "count": len(drs),
            "mean": _mean(totals),
            "colored_mean": _mean([d[0] for d in drs]),
            "white_mean": _mean([d[1] for d in drs]),
            "distribution": [{"value": t, "count": totals.count(t)} for t in DR_TOTALS],
            "doubles": len(doubles),
            "snake_eyes": doubles.count(1),
            "boxcars": doubles.count(6),
            "history": [list(d) for d in drs],
        },
        "dr": {
            "count": len(small),
            "mean": _mean(small),
            "history": small,
            "distribution": [{"value": f, "count": small.count(f)} for f in DR_FACES],
        },
        "pending": pending,
    }


def stats(view: Mapping[str, Any], sides: Sequence[str]) -> dict[str, Any]:
    """Each side's :func:`side_stats`, and both sides' together (``all``)."""
    rolls = list(view.get("rolls") or [])
    return {"sides": {s: side_stats(r for r in rolls if r["side"] == s) for s in sides}, "all": side_stats(rolls)}


def _bars(label: str, distribution: Sequence[Mapping[str, int]], expected: Mapping[int, Fraction]) -> list[str]:
    """A heading, then ``"   7 | ##########            4  33.3%  (16.7%)"``:
    a line per value, the bar scaled to the largest count, the share, the
    share expected of fair dice."""
    total = sum(d["count"] for d in distribution)
    top = max((d["count"] for d in distribution), default=0)
    lines = [f"  {label:>2} | {'':<{BAR}} {'n':>4} {'share':>6}  (fair)"]
    for d in distribution:
        n = d["count"]
        bar = "#" * (max(1, round(n * BAR / top)) if n else 0)
        share = f"{100 * n / total:5.1f}%" if total else "     -"
        lines.append(f"  {d['value']:>2} | {bar:<{BAR}} {n:>4} {share}  ({100 * float(expected[d['value']]):4.1f}%)")
    return lines


def _history(label: str, results: Sequence[str]) -> list[str]:
    """The newest :data:`HISTORY` results in the order rolled, wrapped at
    80 columns: ``"  DR in order: 9(36) 4(22) ..."`` (an Original DR, its
    colored and white die), the older ones counted."""
    shown = results[-HISTORY:]
    head = f"  {label} in order" + (f" (the last {len(shown)} of {len(results)})" if len(shown) < len(results) else "")
    out, line = [], head + ":"
    for item in shown:
        if len(line) + 1 + len(item) > 78:
            out.append(line)
            line = "    "
        line += " " + item
    return out + [line]


def lines(found: Mapping[str, Any], title: str) -> list[str]:
    """:func:`side_stats` as text: a heading, the DR line and histogram, the
    dr line and histogram (each line at most 80 characters)."""
    dr, small = found["DR"], found["dr"]
    out = [title]
    if dr["count"]:
        out.append(f"  {dr['count']} DR, Original DR mean {dr['mean']:.2f} (7.00 expected; colored die {dr['colored_mean']:.2f}, "
                   f"white {dr['white_mean']:.2f})")
        out.append(f"  doubles {dr['doubles']} ({100 * dr['doubles'] / dr['count']:.1f}%, 16.7% expected): "
                   f"snake eyes {dr['snake_eyes']}, boxcars {dr['boxcars']}")
        out += _history("DR", [f"{sum(d)}({d[0]}{d[1]})" for d in dr["history"]])
        out += _bars("DR", dr["distribution"], DR_EXPECTED)
    else:
        out.append("  no DR rolled")
    if small["count"]:
        out.append(f"  {small['count']} dr, mean {small['mean']:.2f} (3.50 expected)")
        out += _history("dr", [str(v) for v in small["history"]])
        out += _bars("dr", small["distribution"], {f: Fraction(1, 6) for f in DR_FACES})
    else:
        out.append("  no dr rolled")
    if found["pending"]:
        out.append(f"  {found['pending']} more declared, awaiting their dice (not counted)")
    return out


def report(view: Mapping[str, Any], sides: Sequence[str], you: str | None = None) -> list[str]:
    """Every side's :func:`lines`, then both together."""
    found = stats(view, sides)
    out: list[str] = []
    for side in sides:
        out += lines(found["sides"][side], f"{side}" + (" (you)" if side == you else "") + ":")
        out.append("")
    return out + lines(found["all"], "both players:")


__all__ = ["stats", "side_stats", "lines", "report"]
