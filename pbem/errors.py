"""The one error hierarchy of pbem.

Every error a user or a file can cause is a :class:`PbemError`.  Each carries
the process exit status the CLI uses: 1 when verification failed or a rule was
violated, 2 for usage and input errors.  Only the CLI turns these into click
errors.
"""

from __future__ import annotations


class PbemError(Exception):
    """Base of every error pbem raises on purpose."""

    exit_code = 2

    def __init__(self, message: str, *, rule: str | None = None, field: str | None = None):
        self.rule = rule
        self.field = field
        if rule and not message.startswith(rule):
            message = f"{rule}: {message}"
        super().__init__(message)


class InputError(PbemError):
    """Malformed input: a file, an orders document, an argument (exit 2)."""


class DataError(InputError):
    """A game data file is invalid; the message names file, key and fault."""


class IdentityError(InputError):
    """No key, a wrong passphrase, an unsupported key type."""


class AgentError(IdentityError):
    """ssh-agent holds your key but cannot be used: ``SSH_AUTH_SOCK`` unset,
    nobody listening there, the key no longer added, a refusal, or an answer
    that breaks the agent protocol."""


class UsageError(InputError):
    """A command used in a state where it makes no sense (not your turn...)."""


class BusyError(UsageError):
    """Another pbem process holds the game directory's lock (``.pbem.lock``:
    a ``play`` or ``receive`` at that moment).  Nothing was done: the same
    command succeeds once that one has finished."""


class NotAPlayerError(UsageError):
    """The key given is not one of the game's players (a spectator may still look on)."""


class IllegalOrderError(PbemError):
    """An order breaks a rule of the game; the message cites the rule (exit 1).

    ``whole``: the orders break the rule together, not one of them (a setup
    that is not as the rules require once it is complete): no single order
    is blamed for it."""

    exit_code = 1
    whole = False


class VerificationError(PbemError):
    """Something a message claims does not hold (exit 1)."""

    exit_code = 1


class IntegrityError(VerificationError):
    """Broken structure: hash chain, sequence, game id, dice chain, armour."""


class AuthenticityError(VerificationError):
    """A signature does not verify, or was made by the wrong key."""


class EquivocationError(IntegrityError):
    """Two different signed messages with the same game, seq and author."""


class HiddenInfoError(VerificationError):
    """A reveal does not match its commitment, or an owed reveal is missing."""
