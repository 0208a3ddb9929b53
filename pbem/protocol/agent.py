"""Signing with a key held by ssh-agent (docs/protocol.md §4.4).

pbem speaks the agent protocol (draft-miller-ssh-agent) over the Unix
socket named by ``SSH_AUTH_SOCK``, with the standard library's ``socket``
only.  It asks for two things:

* the keys the agent holds (``SSH_AGENTC_REQUEST_IDENTITIES`` = 11, answered
  by ``SSH_AGENT_IDENTITIES_ANSWER`` = 12);
* a signature (``SSH_AGENTC_SIGN_REQUEST`` = 13, answered by
  ``SSH_AGENT_SIGN_RESPONSE`` = 14).

Every message is ``uint32 length || byte type || contents``.  An agent is
outside input: a message over :data:`MAX_MESSAGE` bytes is refused before it
is read, every read has a deadline, every answer is parsed strictly, and a
signature is checked against the key before it is used.

For an ``ssh-ed25519`` key the agent answers with a plain RFC 8032 signature
of exactly the bytes it was given, the same signature pbem's own copy of the
key would make.  So :class:`AgentIdentity` is an :class:`Identity` like any
other: the SSHSIG turn signatures it makes are those ``ssh-keygen -Y sign``
makes, and the per-game secrets (:func:`pbem.protocol.keys.derive_secret`:
the hash of the Ed25519 signature of a fixed, domain-separated challenge)
are the same bytes whether the key signs in pbem's keystore or in the agent.

Only plain ``ssh-ed25519`` keys are used.  A FIDO key
(``sk-ssh-ed25519@openssh.com``) is refused: its signatures cover the token's
flags and a counter that changes at every use, so the same challenge never
signs the same way twice and no stable secret can be derived from it.
"""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import time
from dataclasses import dataclass

from pbem.errors import AgentError, IdentityError
from pbem.protocol.keys import Identity, PublicKey, comment_problem
from pbem.protocol.sshwire import KEY_TYPE, KEY_TYPE_BYTES, WireReader, ssh_string

SOCKET_ENV = "SSH_AUTH_SOCK"

FAILURE = 5  # SSH_AGENT_FAILURE
REQUEST_IDENTITIES = 11  # SSH_AGENTC_REQUEST_IDENTITIES
IDENTITIES_ANSWER = 12  # SSH_AGENT_IDENTITIES_ANSWER
SIGN_REQUEST = 13  # SSH_AGENTC_SIGN_REQUEST
SIGN_RESPONSE = 14  # SSH_AGENT_SIGN_RESPONSE
_OTHER_FAILURES = {28: "SSH_AGENT_EXTENDED_FAILURE", 30: "SSH2_AGENT_FAILURE", 102: "SSH_COM_AGENT2_FAILURE"}

MAX_MESSAGE = 256 * 1024  # bytes of one answer: OpenSSH's own limit (AGENT_MAX_LEN)
MAX_KEYS = 2048  # keys in one identities answer (OpenSSH's MAX_AGENT_IDENTITIES)
TIMEOUT = 30.0  # seconds for a whole exchange; an agent that confirms each use (ssh-add -c) waits for a person
SK_ED25519 = "sk-ssh-ed25519@openssh.com"
_CACHE = 256  # signatures an AgentIdentity remembers (they are deterministic: pbem asks for some many times)


def agent_socket() -> str:
    """The agent's socket, from ``SSH_AUTH_SOCK``; an AgentError when it is unset."""
    path = os.environ.get(SOCKET_ENV)
    if not path:
        raise AgentError(f"{SOCKET_ENV} is not set: no ssh-agent to ask for your key. Start one "
                         f"(eval \"$(ssh-agent)\") and add the key (ssh-add KEYFILE)")
    return path


def unusable(key_type: str) -> str | None:
    """Why a key of ``key_type`` cannot be pbem's identity, in words; None for ``ssh-ed25519``."""
    if key_type == KEY_TYPE:
        return None
    if key_type.startswith("sk-"):
        return (f"it is a FIDO security-key key ({key_type}): its signatures cover the token's flags and a counter "
                f"that changes at every use, so the same challenge never signs the same way twice and pbem could "
                f"derive no stable per-game secret from it (docs/protocol.md 7.1); use a plain {KEY_TYPE} key")
    if "-cert-" in key_type:
        return f"it is a certificate ({key_type}): add the plain {KEY_TYPE} key to the agent"
    return (f"its type is {key_type}: pbem signs with {KEY_TYPE} only, and derives its per-game secrets from "
            f"Ed25519's deterministic signatures (docs/protocol.md 4.1, 7.1)")


@dataclass(frozen=True)
class AgentKey:
    """One key the agent holds, as it listed it: its type, blob and comment."""

    key_type: str
    blob: bytes
    comment: str

    @property
    def public(self) -> PublicKey | None:
        """The Ed25519 public key (comment dropped), or None for a key pbem cannot use."""
        if unusable(self.key_type):
            return None
        return PublicKey.from_blob(self.blob)

    @property
    def fingerprint(self) -> str:
        """``SHA256:...`` of the blob, as ``ssh-add -l`` prints it for any key type."""
        return "SHA256:" + base64.b64encode(hashlib.sha256(self.blob).digest()).decode("ascii").rstrip("=")

    def describe(self) -> str:
        return f"{self.fingerprint} {self.key_type} {self.comment!r}"


class Agent:
    """The ssh-agent at ``path`` (default ``$SSH_AUTH_SOCK``); one connection an exchange."""

    def __init__(self, path: str | None = None, *, timeout: float = TIMEOUT):
        self.path = path if path is not None else agent_socket()
        self.timeout = timeout

    # --- the two requests ---------------------------------------------------------------

    def keys(self) -> list[AgentKey]:
        """Every key the agent holds, in its order (SSH_AGENTC_REQUEST_IDENTITIES)."""
        kind, body = self._exchange(bytes([REQUEST_IDENTITIES]), "the list of its keys")
        if kind != IDENTITIES_ANSWER:
            raise self._unexpected(kind, IDENTITIES_ANSWER, "the list of its keys")
        reader = WireReader(body, AgentError, f"answer of ssh-agent at {self.path}")
        count = reader.u32("number of keys")
        if count > MAX_KEYS or count * 8 > reader.left:  # each key is two strings: 8 bytes at least
            raise reader.fail(f"claims {count:,} keys in {reader.left:,} bytes (at most {MAX_KEYS:,})")
        found = []
        for _ in range(count):
            blob = reader.string("key blob")
            comment = reader.string("key comment").decode("utf-8", errors="replace")
            key_type = WireReader(blob, AgentError, f"key listed by ssh-agent at {self.path}").text("key type")
            found.append(AgentKey(key_type, blob, comment))
        reader.end()
        return found

    def sign(self, key: PublicKey, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``data`` by ``key`` (SSH_AGENTC_SIGN_REQUEST, flags 0),
        checked against the key before it is returned."""
        request = bytes([SIGN_REQUEST]) + ssh_string(key.blob) + ssh_string(data) + (0).to_bytes(4, "big")
        what = f"a signature by {key.fingerprint}"
        kind, body = self._exchange(request, what)
        if kind == FAILURE or kind in _OTHER_FAILURES:
            raise AgentError(f"ssh-agent at {self.path} refused to sign with {key.fingerprint}: it no longer holds "
                             f"the key (add it: ssh-add KEYFILE), or its use was not confirmed")
        if kind != SIGN_RESPONSE:
            raise self._unexpected(kind, SIGN_RESPONSE, what)
        outer = WireReader(body, AgentError, f"signature from ssh-agent at {self.path}")
        signature = outer.string("signature")
        outer.end()
        reader = WireReader(signature, AgentError, f"signature from ssh-agent at {self.path}")
        sig_type = reader.string("signature type")
        if sig_type != KEY_TYPE_BYTES:
            raise reader.fail(f"signature type {sig_type[:64].decode('ascii', 'replace')!r}, expected {KEY_TYPE!r}")
        raw = reader.string("signature bytes")
        reader.end()
        if len(raw) != 64 or not key.verify_raw(raw, data):
            raise AgentError(f"ssh-agent at {self.path} answered with a signature that {key.fingerprint} did not "
                             f"make: nothing was signed")
        return raw

    # --- the wire ------------------------------------------------------------------------

    def _exchange(self, request: bytes, what: str) -> tuple[int, bytes]:
        """Send one request, read one answer: (type, contents), within :attr:`timeout`."""
        family = getattr(socket, "AF_UNIX", None)
        if family is None:
            raise AgentError("pbem reaches ssh-agent through a Unix socket, and this system has none")
        deadline = time.monotonic() + self.timeout
        try:
            with socket.socket(family, socket.SOCK_STREAM) as sock:
                sock.settimeout(self.timeout)
                sock.connect(self.path)
                sock.sendall(len(request).to_bytes(4, "big") + request)
                length = int.from_bytes(self._read(sock, 4, deadline, what), "big")
                if length == 0 or length > MAX_MESSAGE:
                    raise AgentError(f"ssh-agent at {self.path} announced an answer of {length:,} bytes to the request "
                                     f"for {what} (1 to {MAX_MESSAGE:,} allowed): not read")
                answer = self._read(sock, length, deadline, what)
        except (FileNotFoundError, ConnectionRefusedError) as err:
            raise AgentError(f"cannot reach ssh-agent at {self.path} ({SOCKET_ENV}): {err.strerror or err}; is the "
                             f"agent running? Start it and add your key (ssh-add KEYFILE)") from err
        except TimeoutError as err:
            raise AgentError(f"ssh-agent at {self.path} did not answer the request for {what} within "
                             f"{self.timeout:g} s") from err
        except OSError as err:
            raise AgentError(f"cannot talk to ssh-agent at {self.path} ({SOCKET_ENV}): {err.strerror or err}") from err
        return answer[0], answer[1:]

    def _read(self, sock: socket.socket, n: int, deadline: float, what: str) -> bytes:
        chunks: list[bytes] = []
        got = 0
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            sock.settimeout(left)
            chunk = sock.recv(min(n - got, 65536))
            if not chunk:
                raise AgentError(f"ssh-agent at {self.path} closed the connection after {got} of {n} bytes of its "
                                 f"answer to the request for {what}")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _unexpected(self, kind: int, expected: int, what: str) -> AgentError:
        if kind == FAILURE or kind in _OTHER_FAILURES:
            return AgentError(f"ssh-agent at {self.path} refused the request for {what} (SSH_AGENT_FAILURE)")
        return AgentError(f"ssh-agent at {self.path} answered the request for {what} with a message of type {kind}, "
                          f"expected {expected}")

    # --- choosing a key ------------------------------------------------------------------

    def find(self, wanted: str | None = None) -> AgentKey:
        """The key named by ``wanted`` -- a fingerprint (``SHA256:...``) or the comment the agent
        lists it with -- or, when None, the one ``ssh-ed25519`` key the agent holds.  A key
        pbem cannot use is refused saying why (:func:`unusable`)."""
        keys = self.keys()
        listed = "; ".join(k.describe() for k in keys) or "none"
        if wanted is None:
            usable = [k for k in keys if not unusable(k.key_type)]
            if len(usable) == 1:
                return usable[0]
            if not usable:
                reasons = "; ".join(f"{k.describe()}: {unusable(k.key_type)}" for k in keys)
                raise IdentityError(f"ssh-agent at {self.path} holds no {KEY_TYPE} key"
                                 + (f" ({reasons})" if reasons else "") + ": add one (ssh-add KEYFILE)")
            raise AgentError(f"ssh-agent at {self.path} holds {len(usable)} {KEY_TYPE} keys ({listed}): "
                             f"choose one with --key FINGERPRINT or --key COMMENT")
        matches = [k for k in keys if wanted in (k.fingerprint, k.comment)]
        if not matches:
            raise AgentError(f"ssh-agent at {self.path} holds no key {wanted!r} (its keys: {listed})")
        if len(matches) > 1:
            raise AgentError(f"ssh-agent at {self.path} holds {len(matches)} keys named {wanted!r}: give the "
                             f"fingerprint instead ({'; '.join(k.describe() for k in matches)})")
        problem = unusable(matches[0].key_type)
        if problem:
            raise IdentityError(f"pbem cannot use the key {matches[0].describe()}: {problem}")
        return matches[0]

    def holds(self, key: PublicKey) -> bool:
        """True if the agent lists ``key`` (as a plain ssh-ed25519 key)."""
        return any(k.blob == key.blob for k in self.keys())


class AgentIdentity(Identity):
    """An identity whose private key ssh-agent holds: pbem never sees it.

    It signs through :meth:`Agent.sign` and makes the same signatures, so
    every secret :func:`pbem.protocol.keys.derive_secret` derives is the one
    the same key gives from a file.
    """

    def __init__(self, agent: Agent, key: PublicKey, name: str = ""):  # not Identity.__init__: no private key here
        problem = comment_problem(name)
        if problem:
            raise IdentityError(f"the key's name {str(name)[:120]!r} {problem}", field="comment")
        self.agent = agent
        self._raw = key.raw
        self.name = name
        self.keystore = None
        self._signatures: dict[bytes, bytes] = {}

    @property
    def public(self) -> PublicKey:
        return PublicKey(self._raw, self.name)

    def sign_raw(self, data: bytes) -> bytes:
        """The agent's Ed25519 signature of ``data`` (deterministic: each is asked for once a process)."""
        data = bytes(data)
        signature = self._signatures.get(data)
        if signature is None:
            signature = self.agent.sign(self.public, data)
            if len(self._signatures) >= _CACHE:
                self._signatures.pop(next(iter(self._signatures)))
            self._signatures[data] = signature
        return signature

    def to_openssh_private(self, passphrase: bytes | None = None) -> bytes:
        raise IdentityError(f"the private key of {self.public.fingerprint} is held by ssh-agent: pbem cannot write it")

    def __repr__(self) -> str:
        return f"AgentIdentity({self.public.fingerprint}, name={self.name!r}, agent={self.agent.path!r})"
