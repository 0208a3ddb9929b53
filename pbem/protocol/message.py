"""Turn files: canonical body + SSHSIG signature, ASCII-armoured (docs/protocol.md §2, §4.2).

On disk and in email a message looks like::

    pbem turn file -- the summary below is NOT signed; only the block counts.
    | dice game 3f2a..., message 0004 from first
    | roll 2d6+1 "attack on the bridge"
    -----BEGIN PBEM MESSAGE-----
    <base64 of the canonical JSON body, 64 columns>
    -----BEGIN SSH SIGNATURE-----
    <the SSHSIG blob exactly as ssh-keygen -Y sign armours it>
    -----END SSH SIGNATURE-----
    -----END PBEM MESSAGE-----

Reading is tolerant of what mail does to text: CRLF line ends, trailing
spaces, any number of ``>`` quote prefixes, re-wrapped base64 and chatter
before and after the block.  The signature is verified over the exact decoded
body bytes; the body is never re-serialised to verify.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, overload

from pbem.errors import IntegrityError
from pbem.protocol import canonical, sshsig
from pbem.protocol.sshsig import armor

NAMESPACE = "pbem-turn-v1"
FORMAT_VERSION = 1
BEGIN = "-----BEGIN PBEM MESSAGE-----"
END = "-----END PBEM MESSAGE-----"
SIG_BEGIN = "-----BEGIN SSH SIGNATURE-----"
SIG_END = "-----END SSH SIGNATURE-----"
SUMMARY_HEAD = "pbem turn file -- the summary below is NOT signed; only the block counts."

_QUOTE = re.compile(r"^(?:[ \t]*>[ \t]?)+")
_B64 = re.compile(r"^[A-Za-z0-9+/=]*$")
_HEX = re.compile(r"^[0-9a-f]*$")


def clean_lines(text: str) -> list[str]:
    """``text``'s lines as pbem reads armour and summaries: any line end, mail
    quoting (``>``) and surrounding blanks removed."""
    return [(_QUOTE.sub("", line) if ">" in line else line).strip()
            for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]


def _b64(lines: list[str], what: str) -> bytes:
    joined = "".join(lines)
    if not _B64.match(joined):
        raise IntegrityError(f"armour: {what} contains characters that are not base64")
    try:
        return base64.b64decode(joined, validate=True)
    except (binascii.Error, ValueError):  # Python says "Incorrect padding" and the like
        raise IntegrityError(f"armour: {what} is not valid base64: {len(joined):,} characters with their '=' "
                             f"padding do not make whole groups of four (a line lost or cut?)") from None


MAX_BODY_BYTES = 1 << 20  # docs/protocol.md 3.2: a hostile message cannot make the receiver crawl
MAX_BODY_B64 = 4 * ((MAX_BODY_BYTES + 2) // 3) + 64  # its base64 (line breaks are not counted)
MAX_SIGNATURE_B64 = 4096  # an Ed25519 SSHSIG is about 300 characters

@dataclass(frozen=True)
class SignedMessage:
    """One turn file: the exact body bytes and the SSHSIG blob over them."""

    body_bytes: bytes
    signature: bytes

    # ------------------------------------------------------------------ parsing

    @classmethod
    def from_text(cls, text: str | bytes, *, source: str = "message") -> "SignedMessage":
        blocks = cls.all_from_text(text, source=source)
        if not blocks:
            raise IntegrityError(f"{source}: no '{BEGIN}' line; not a pbem turn file")
        return blocks[0]

    @classmethod
    def all_from_text(cls, text: str | bytes, *, source: str = "message") -> list["SignedMessage"]:
        """Every armoured message in ``text`` (an email body may hold several)."""
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        lines = clean_lines(text)
        found: list[SignedMessage] = []
        i = 0
        while i < len(lines):
            if lines[i] != BEGIN:
                i += 1
                continue
            body_lines: list[str] = []
            sig_lines: list[str] = []
            state = "body"
            body_chars = sig_chars = 0
            j = i + 1
            while j < len(lines):
                line = lines[j]
                if state == "body":  # refuse a huge block before decoding it (protocol 3.2: bodies <= 1 MiB)
                    body_chars += len(line)
                    if body_chars > MAX_BODY_B64:
                        raise IntegrityError(f"{source}: armour: the body's base64 is over {MAX_BODY_B64:,} "
                                             f"characters, a body over {MAX_BODY_BYTES:,} bytes (docs/protocol.md 12)")
                elif state == "sig":
                    sig_chars += len(line)
                    if sig_chars > MAX_SIGNATURE_B64:
                        raise IntegrityError(f"{source}: armour: the signature block is over {MAX_SIGNATURE_B64:,} "
                                             f"characters (docs/protocol.md 12)")
                if line == END:
                    break
                if state == "body" and line == SIG_BEGIN:
                    state = "sig"
                elif state == "sig" and line == SIG_END:
                    state = "after"
                elif line == BEGIN:
                    raise IntegrityError(f"{source}: armour truncated: a new BEGIN line before '{END}'")
                elif state == "body":
                    body_lines.append(line)
                elif state == "sig":
                    sig_lines.append(line)
                elif line:
                    raise IntegrityError(f"{source}: armour: unexpected text after the signature: {line[:40]!r}")
                j += 1
            else:
                raise IntegrityError(f"{source}: armour truncated: no '{END}' line")
            if state != "after":
                raise IntegrityError(f"{source}: armour truncated: the SSH SIGNATURE block is missing or unterminated")
            body = _b64(body_lines, f"{source}: body")
            if not body:
                raise IntegrityError(f"{source}: armour: the body is empty")
            found.append(cls(body, _b64(sig_lines, f"{source}: signature")))
            i = j + 1
        return found

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (a replay checkpoint) as its bytes: the body is decoded
        again when asked for, which few are (unpickling decoded bodies costs
        more than the whole of the rest of a message)."""
        return {"body_bytes": self.body_bytes, "signature": self.signature}

    # ------------------------------------------------------------------ the body

    @cached_property
    def body(self) -> dict[str, Any]:
        value = canonical.decode(self.body_bytes)
        if not isinstance(value, dict):
            raise IntegrityError("message body is not a JSON object")
        return value

    @cached_property
    def digest(self) -> bytes:
        """SHA-256 of the exact body bytes: what the next message's ``prev`` names."""
        return hashlib.sha256(self.body_bytes).digest()

    def field(self, name: str, kind: type | tuple[type, ...], *, required: bool = True) -> Any:
        """A typed body field; a missing or mistyped one is an IntegrityError naming it."""
        if name not in self.body:
            if required:
                raise IntegrityError(f"message body: field {name!r} is missing")
            return None
        value = self.body[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise IntegrityError(f"message body: field {name!r} has the wrong type ({type(value).__name__})")
        return value

    @property
    def seq(self) -> int:
        value: int = self.field("seq", int)
        return value

    @property
    def game(self) -> str:
        value: str = self.field("game", str)
        return value

    @property
    def side(self) -> str:
        value: str = self.field("side", str)
        return value

    @property
    def author(self) -> str:
        value: str = self.field("author", str)
        return value

    @overload
    def hexfield(self, name: str, size: int = 32, *, required: Literal[True] = True) -> bytes: ...

    @overload
    def hexfield(self, name: str, size: int = 32, *, required: bool) -> bytes | None: ...

    def hexfield(self, name: str, size: int = 32, *, required: bool = True) -> bytes | None:
        value = self.field(name, str, required=required)
        if value is None:
            return None
        if len(value) != 2 * size or not _HEX.match(value):
            raise IntegrityError(f"message body: field {name!r} must be {2 * size} lowercase hex digits")
        return bytes.fromhex(value)

    # ------------------------------------------------------------------ writing

    def armored(self, summary: str = "") -> str:
        body64 = base64.b64encode(self.body_bytes).decode("ascii")
        lines = [SUMMARY_HEAD]
        lines += [f"| {line}".rstrip() for line in summary.splitlines()]
        lines.append(BEGIN)
        lines += [body64[i : i + 64] for i in range(0, len(body64), 64)]
        lines += armor(self.signature).strip().splitlines()
        lines.append(END)
        return "\n".join(lines) + "\n"


def sign_body(identity: Any, body: dict[str, Any]) -> SignedMessage:
    """Canonicalise ``body`` and sign it with ``identity`` (namespace pbem-turn-v1)."""
    body_bytes = canonical.encode(body)
    return SignedMessage(body_bytes, sshsig.sign(identity, body_bytes, NAMESPACE))
