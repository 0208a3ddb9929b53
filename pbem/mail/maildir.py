"""A Maildir folder as a mail source for ``pbem watch`` (the same interface as
:class:`pbem.mail.imap.ImapSource`): every message not handled yet, oldest
first, named by its Maildir key, read one at a time; waiting is a poll of
``new/`` and ``cur/``."""

from __future__ import annotations

import datetime
import os
import time
from pathlib import Path
from typing import Iterator

from pbem.errors import InputError
from pbem.mail.outbox import MailError
from pbem.protocol.scan import delivery_order, is_maildir, maildir_message, maildir_messages


class MaildirSource:
    """The Maildir folder ``path`` (with ``new/`` and ``cur/``)."""

    POLL = 0.5  # seconds between two looks at the folder while waiting

    def __init__(self, path: str | os.PathLike[str], *, since: datetime.date | None = None):
        self.path = Path(path)
        self.name = f"maildir:{self.path.resolve()}"
        self.since = since  # mail delivered before this day is never read (a full folder's first look)

    def connect(self) -> None:
        if not is_maildir(self.path):
            raise MailError(f"{self.path} is not a Maildir folder (it needs cur/ and new/)")

    def fetch_new(self, seen: set[str]) -> Iterator[tuple[str, bytes | str]]:
        """``(key, raw bytes)`` of every message whose key is not in
        ``seen``, in delivery order, read one at a time as the caller takes
        them (so the caller keeps each before the next is read); one that is
        not read comes as ``(key, why)`` -- over the input limit (known by
        its size, before a byte is read) or not a regular file."""
        after = (datetime.datetime.combine(self.since, datetime.time(), datetime.timezone.utc).timestamp()
                 if self.since else float("-inf"))
        try:
            listed = maildir_messages(self.path)
        except InputError as err:
            raise MailError(str(err)) from err
        for key, file in listed:
            if key in seen or delivery_order(key)[0] < after:
                continue
            try:
                data = maildir_message(file)
            except OSError:  # moved or removed by a mail client while we looked: next time
                continue
            yield key, data

    def _stamp(self) -> tuple[tuple[str, int], ...]:
        stamps = []
        for sub in ("new", "cur"):
            try:
                stamps.append((sub, os.stat(self.path / sub).st_mtime_ns))
            except OSError:
                stamps.append((sub, -1))
        return tuple(stamps)

    def wait(self, seconds: float) -> bool:
        """Until the folder changes (a delivery) or ``seconds`` pass; True on a change."""
        before, end = self._stamp(), time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(min(self.POLL, max(0.0, end - time.monotonic())))
            if self._stamp() != before:
                return True
        return False

    def close(self) -> None:
        pass

    def __enter__(self) -> "MaildirSource":
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
