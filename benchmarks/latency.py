"""Dice latency by real mail (issue 30): how long a roll takes to come back
keyed when the opponent's ``pbem watch`` answers it, on loopback.

Used by ``benchmarks/run.py --only latency``.  Two players, two keystores,
a real IMAP server (dovecot: IMAPS with its own CA, IDLE) and a real SMTP
server (aiosmtpd) on 127.0.0.1 -- the servers of tests/mailservers.py.  Bob
has given ``[standing] key-rolls = "auto"``; both run ``pbem watch`` as a
player runs it (its own process, IMAP, ``--interval 60``).  Each roll:

1. ann writes it (``pbem play``, not timed: that is her typing), then
2. ``pbem mail DIR --send`` -- the clock starts as it is started;
3. bob's watch, woken by IDLE, imports it, writes the key-only answer,
   signs it and sends it;
4. ann's watch, woken by IDLE, imports that and prints the result -- the
   clock stops when its line naming the roll's result appears.

The reference is the mail itself: the same round trip with no pbem in it
(an email from ann to bob, seen by an IMAP IDLE on bob's box, answered at
once by an email to ann, seen by an IDLE on hers).
"""

from __future__ import annotations

import os
import queue
import smtplib
import statistics
import subprocess
import sys
import threading
import time
from email.message import EmailMessage
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60.0  # seconds a roll may take before the run is given up as broken


def available() -> str | None:
    """Why the servers cannot run here (None: they can)."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import aiosmtpd  # noqa: F401 - only whether it is there
        import mailservers
    except ImportError as err:
        return f"needs the test extras (pip install -e '.[test]'): {err}"
    if mailservers.dovecot_binary() is None:
        return "needs dovecot (apt-get install dovecot-imapd)"
    return None


class Watching:
    """``pbem watch`` in its own process, its output read line by line."""

    def __init__(self, home: Path, game: Path, user: str, server: Any):
        argv = [sys.executable, "-m", "pbem", "watch", "--imap", server.host, "--imap-port", str(server.imaps_port),
                "--imap-user", user, "--imap-security", "ssl", "--imap-cafile", str(server.cafile),
                "--dir", str(game), "--interval", "60"]
        env = {**os.environ, "PBEM_HOME": str(home), "PBEM_IMAP_PASSWORD": server.password(user),
               "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for(self, needle: str, timeout: float = TIMEOUT) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.01)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            self.output.append(line)
            if needle in line:
                return line
        raise RuntimeError(f"{needle!r} did not come: {''.join(self.output[-20:])}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


def _cli(home: Path, *args: str) -> None:
    subprocess.run([sys.executable, "-m", "pbem", *args], env={**os.environ, "PBEM_HOME": str(home)}, check=True,
                   capture_output=True, text=True)


def mail_floor(server: Any, smtp: Any, runs: int) -> list[float]:
    """The round trip of plain mail: ann -> bob (seen by IDLE) -> ann (seen by IDLE)."""
    boxes = {user: server.source(user) for user in ("ann", "bob")}
    seen: dict[str, set[str]] = {user: set() for user in boxes}

    def arrived(user: str, subject: bytes) -> bool:
        found = False
        for ident, data in boxes[user].fetch_new(seen[user]):
            seen[user].add(ident)
            found |= isinstance(data, bytes) and subject in data
        return found

    for user, source in boxes.items():
        source.connect()
        arrived(user, b"")  # what is there already is not news
    times = []
    try:
        for i in range(runs):
            started = time.perf_counter()
            for sender, to in (("ann", "bob"), ("bob", "ann")):
                msg = EmailMessage()
                msg["From"], msg["To"], msg["Subject"] = smtp.address(sender), smtp.address(to), f"ping {i}"
                msg.set_content("ping\n")
                with smtplib.SMTP(smtp.host, smtp.port, timeout=10) as client:
                    client.send_message(msg)
                while not arrived(to, f"ping {i}".encode()):
                    boxes[to].wait(TIMEOUT)
            times.append(time.perf_counter() - started)
    finally:
        for source in boxes.values():
            source.close()
    return times


def measure(root: Path, rolls: int) -> tuple[list[float], list[float]]:
    """(seconds from ``pbem mail --send`` to the result shown by ann's watch,
    for each roll; the plain-mail round trips) on loopback servers."""
    import mailservers
    from aiosmtpd.controller import Controller

    from pbem.mail import outbox
    from pbem.match import session
    from pbem.protocol.keystore import Keystore

    root.mkdir(parents=True, exist_ok=True)
    boxes = mailservers.Mailboxes(Path(mailservers.tempfile.mkdtemp(prefix="pbem-mail-")), *mailservers.mail_owner())
    boxes.create()
    server = mailservers.start_dovecot(boxes)
    controller = Controller(mailservers.MaildirDelivery(boxes), hostname=mailservers.HOST,
                            port=mailservers.free_port())
    controller.start()
    smtp = mailservers.SmtpServer(boxes, controller.handler, controller.port)
    watches: list[Watching] = []
    try:
        homes = {user: root / f"home-{user}" for user in ("ann", "bob")}
        games = {user: root / f"game-{user}" for user in ("ann", "bob")}
        ids = {user: Keystore(homes[user]).load_or_create(user) for user in homes}
        for user in homes:
            (homes[user] / "mail.toml").write_text(
                f'[smtp]\nhost = "{smtp.host}"\nport = {smtp.port}\nstarttls = false\nfrom = "{smtp.address(user)}"\n')
        m0 = session.new_game(games["ann"], "dice", "first", ids["bob"].public, ids["ann"])
        m1, _ = session.join_game(m0, games["bob"], ids["bob"], {"standing": {"key-rolls": "auto"}})
        session.receive(games["ann"], [m1], ids["ann"])
        outbox.remember_address(games["ann"], smtp.address("bob"))
        outbox.remember_address(games["bob"], smtp.address("ann"))
        floor = mail_floor(server, smtp, rolls)
        watches = [Watching(homes[user], games[user], user, server) for user in ("bob", "ann")]
        for w in watches:
            w.wait_for("watching imap")
        time.sleep(3)  # their first pass made (the mail there is old news), both waiting in IDLE
        bob, ann = watches
        times = []
        for i in range(rolls):
            seq = 2 + 2 * i
            session.play(games["ann"], ids["ann"], {"order": [{"type": "roll", "dice": "2d6+1", "note": f"fire {i}"}]})
            started = time.perf_counter()
            _cli(homes["ann"], "mail", str(games["ann"]), "--send")
            ann.wait_for(f"your rolls: fire {i}: 2d6+1 = ")
            times.append(time.perf_counter() - started)
            bob.wait_for(f"sent {seq + 1:04d}-second.pbem")
        return times, floor
    finally:
        for w in watches:
            w.stop()
        controller.stop()
        server.stop()
        import shutil

        shutil.rmtree(boxes.root, ignore_errors=True)


def summary(times: list[float]) -> str:
    return f"median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}, {len(times)} rolls)"
