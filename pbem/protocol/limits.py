"""Limits pbem enforces on what a message may hold, in one place
(docs/protocol.md section 12).  The receiver refuses a turn file over any of
them right after its signature and its canonical-JSON parse, before anything
of it is kept or replayed; pbem's own composing refuses the same before it
signs; a game's orders parser refuses an orders file over them with the
field named.  Each bound is far above what a game needs (an Ambon game
commits 16 slots, its largest message holds 38 orders) and low enough that a
hostile opponent's validly signed message costs the receiver little."""

from __future__ import annotations

import os
import re
from typing import Any, BinaryIO, Mapping

from pbem.errors import InputError

SECTION = "docs/protocol.md 12"

MAX_ORDERS = 500  # per message: more is a mistake or an attack on the opponent's pbem
MAX_COMMITMENTS = 256  # per message
MAX_GAME_COMMITMENTS = 2048  # per side and game: every later sealed store holds them all
MAX_REVEALS = 256  # per message
MAX_SEALED_BYTES = 512 * 1024  # the sealed store, decoded
MAX_SEALED_CHARS = 4 * -(-MAX_SEALED_BYTES // 3)  # its base64, checked before decoding: 699,052
MAX_STRING = 16_384  # characters (code points) of any string in a body but `sealed`
MAX_DEPTH = 16  # nesting of a body's JSON: the body object is depth 1
MAX_INT_DIGITS = 16  # 2**53 - 1 has 16 digits: a longer literal is refused before it is converted
MAX_MESSAGES = 8192  # per game: seq 0000-8191, as far as each side's 4,096-value hash chain reaches
MAX_INPUT_BYTES = 32 * 1024 * 1024  # a file or email read for turn files; in a mailbox, each message
MAX_MAIL_CONTAINERS = 100  # multipart/* and message/* parts of one email: they bound how deep it nests

_CONTENT_TYPE = re.compile(rb"^content-type:((?:[^\r\n]|\r?\n[ \t])*)", re.IGNORECASE | re.MULTILINE)  # folded too
_CONTAINER = re.compile(rb"multipart|message", re.IGNORECASE)


def read_input(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a file read for turn files (a turn file, an email, an
    mbox), refused unread when it is over :data:`MAX_INPUT_BYTES`."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_INPUT_BYTES:
                raise InputError(input_too_large(str(path), size))
            data = read_at_most(handle, size)
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror}") from err
    if len(data) > MAX_INPUT_BYTES:  # grew while read, or a pipe
        raise InputError(input_too_large(str(path), len(data), over=True))
    return data


def read_at_most(handle: BinaryIO, size: int) -> bytes:
    """The bytes of ``handle`` up to one past :data:`MAX_INPUT_BYTES`,
    ``size`` being its size as far as known (0 for a pipe).  Read in one
    call of ``size + 1`` bytes and then in pieces: ``read(MAX + 1)`` at once
    would allocate 32 MiB for every file, however small."""
    first = handle.read(min(size, MAX_INPUT_BYTES) + 1)
    chunks, total = [first], len(first)
    while total <= MAX_INPUT_BYTES and (chunk := handle.read(min(2**20, MAX_INPUT_BYTES + 1 - total))):
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks) if len(chunks) > 1 else first


def input_too_large(what: str, size: int, *, over: bool = False) -> str:
    """Why ``what`` of ``size`` bytes is not read; ``over``: read only as far
    as the limit, so ``size`` is where the reading stopped."""
    measure = f"over {MAX_INPUT_BYTES // 2**20} MiB" if over else f"{size / 2**20:,.1f} MiB"
    return (f"{what} is {measure}; pbem reads at most {MAX_INPUT_BYTES // 2**20} MiB a file or "
            f"email for turn files ({SECTION})")


def mail_nesting_problem(data: bytes) -> str | None:
    """What makes the email ``data`` too deeply nested to parse, in words
    naming the limit; None when nothing does.

    The standard library's parser recurses once a nested part, so 1,200
    nested ``message/rfc822`` or ``multipart`` parts raise RecursionError.
    Each level needs a Content-Type header naming a container (a digest's
    headerless part is a message only inside a container), so counting the
    headers that could name one -- any that mentions ``multipart`` or
    ``message`` -- bounds the depth at twice the count, before anything is
    parsed.  Cheap: one regular expression over the bytes."""
    count = 0
    for header in _CONTENT_TYPE.finditer(data):
        if _CONTAINER.search(header.group(1)):
            count += 1
            if count > MAX_MAIL_CONTAINERS:
                return (f"the email has more than {MAX_MAIL_CONTAINERS} multipart or message parts (nested "
                        f"mail); pbem reads at most {MAX_MAIL_CONTAINERS} in one email ({SECTION}, limit 14)")
    return None


def mail_too_deep(what: str) -> str:
    """The words for an email the parser could not follow however it was counted (RecursionError)."""
    return (f"{what} nests its parts too deeply to be read; pbem reads at most {MAX_MAIL_CONTAINERS} multipart or "
            f"message parts in one email ({SECTION}, limit 14)")


def body_problem(body: Mapping[str, Any]) -> str | None:
    """What in ``body`` (a parsed message body) is over a per-message count
    or size limit, in words naming the limit; None when nothing is.  Cheap:
    it counts, it does not look inside (strings and depth are checked by
    :mod:`pbem.protocol.canonical` while parsing)."""
    for name, limit in (("orders", MAX_ORDERS), ("commitments", MAX_COMMITMENTS), ("reveals", MAX_REVEALS)):
        value = body.get(name)
        if isinstance(value, (list, dict)) and len(value) > limit:
            return f"{len(value):,} {name}; at most {limit:,} in one message ({SECTION})"
    blob = body.get("sealed")
    if isinstance(blob, str) and (len(blob) > MAX_SEALED_CHARS or _decoded_size(blob) > MAX_SEALED_BYTES):
        return (f"a sealed store of {len(blob):,} base64 characters ({_decoded_size(blob):,} bytes); at most "
                f"{MAX_SEALED_BYTES:,} bytes ({SECTION})")
    return None


def _decoded_size(blob: str) -> int:
    """The bytes ``blob`` decodes to, from its length and '=' padding (without decoding it)."""
    return 3 * (len(blob) // 4) + max(0, len(blob) % 4 - 1) - (blob[-2:].count("=") if len(blob) % 4 == 0 else 0)


def game_commitments_problem(side: str, before: int, adding: int) -> str | None:
    """``side`` has ``before`` commitments in the game and a message adds ``adding``."""
    if before + adding > MAX_GAME_COMMITMENTS:
        return (f"{side} would have {before + adding:,} commitments in this game; at most "
                f"{MAX_GAME_COMMITMENTS:,} a side ({SECTION})")
    return None


def message_count_problem(seq: int) -> str | None:
    if seq >= MAX_MESSAGES:
        return (f"message {seq} is past the protocol's limit of {MAX_MESSAGES:,} messages a game "
                f"(each side's hash chain holds {MAX_MESSAGES // 2:,} values, {SECTION})")
    return None
