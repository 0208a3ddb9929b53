"""Text from outside -- a message, a data file, a key's comment, an email
header -- shown literally: never read as rich markup, and with every
control character made visible the way Python writes it in a string (ESC
as ``\\x1b``, a newline as ``\\n``, a tab as ``\\t``, DEL as ``\\x7f``, the
bidirectional overrides as ``\\u202e``...), so nothing an opponent writes
styles, links, clears, moves the cursor or reorders what pbem prints.

Every output path prints such text through :func:`literal` (rich) or
:func:`visible` (plain ``click.echo``), whole lines pbem composes round it
included: a line is literal throughout, and pbem's own styling is applied
to the :class:`~rich.text.Text`, never written as markup into it.  A
drawing made of many styled runs (the terminal map, whose names come from
a data set) is printed through :class:`Visible`.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, TypeVar, cast

from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text

T = TypeVar("T")

# C0 and C1 control characters, DEL, and the Unicode formatting characters
# that reorder or break lines (bidirectional marks, embeddings, overrides and
# isolates; the line and paragraph separators).
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def visible(text: object, *, newlines: bool = False) -> str:
    """``text`` with each control character written out (``\\x1b``);
    ``newlines`` keeps line breaks as they are (text pbem lays out in lines)."""
    text = str(text)
    if newlines:
        return "\n".join(CONTROL.sub(_shown, line) for line in text.split("\n"))
    return CONTROL.sub(_shown, text)


def literal(text: object, style: str = "", *, newlines: bool = False) -> Text:
    """``text`` as a rich Text shown exactly as written, control characters
    visible (:func:`visible`), in ``style``."""
    return Text(visible(text, newlines=newlines), style=style)


def visible_all(value: T) -> T:
    """``value`` (a view: dicts, lists and tuples of strings and numbers)
    with every string in it, keys included, made :func:`visible`."""
    return cast(T, _visible_all(value))


def _visible_all(value: Any) -> Any:
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, Mapping):
        return {_visible_all(k): _visible_all(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_visible_all(v) for v in value)
    return value


class Visible:
    """``renderable`` drawn as it is, the control characters in its text
    made visible (:func:`visible`) as it is drawn: for a drawing of many
    styled runs from a data set (the map), whose styles a :func:`literal`
    of each run would cost.  Its line breaks are its own."""

    def __init__(self, renderable: Any):
        self.renderable = renderable

    def __rich_console__(self, console: Any, options: Any) -> Any:
        for segment in console.render(self.renderable, options):
            if segment.control or not CONTROL.search(segment.text) or segment.text == "\n":
                yield segment
            else:
                yield Segment(visible(segment.text, newlines=True), segment.style)

    def __rich_measure__(self, console: Any, options: Any) -> Measurement:
        return Measurement.get(console, options, self.renderable)
