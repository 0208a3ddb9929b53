"""A hostile IMAP server on loopback for the tests: just enough of RFC 3501
to be logged in to and read (CAPABILITY, AUTHENTICATE PLAIN, SELECT, NOOP,
UID SEARCH, UID FETCH of RFC822.SIZE and BODY.PEEK[], LOGOUT), and every
answer a test may turn hostile: the UIDVALIDITY it gives, the size it
claims for a message, the literal it announces, how slowly it speaks, what
it sends unasked.

It counts the bytes it managed to send, so a test can tell how much a client
read before it hung up -- the measure of a size lie, taken on the server's
side where the client's bookkeeping cannot hide it.

    with HostileImap(messages=[Mail(b"Subject: hi\\r\\n\\r\\nhello\\r\\n")]) as server:
        source = server.source()
"""

from __future__ import annotations

import re
import socket
import socketserver
import threading
import time
from dataclasses import dataclass, field

from pbem.mail.imap import ImapSource

HOST = "127.0.0.1"
CAPABILITY = b"IMAP4rev1 AUTH=PLAIN IDLE"


@dataclass
class Mail:
    """One message as the server tells of it."""

    body: bytes
    claimed: bytes | None = None  # RFC822.SIZE as sent (default: the body's true size)
    literal: bytes | None = None  # the {n} announced for BODY[] (default: the body's true size)
    endless: bool = False  # after the literal's announcement, send bytes until the client hangs up
    pace: float = 0.0  # seconds between two bytes of the FETCH answer (a stalling server)


@dataclass
class HostileImap:
    messages: list[Mail] = field(default_factory=list)
    uidvalidity: bytes = b"1"
    noop_junk: int = 0  # bytes of untagged junk lines sent in answer to every NOOP
    sent: int = 0  # bytes sent, all connections
    connections: int = 0

    def __enter__(self) -> "HostileImap":
        hostile = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                hostile.connections += 1
                try:
                    hostile._serve(self.rfile, self.connection)
                except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, socket.timeout, OSError):
                    pass

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self._server = socketserver.ThreadingTCPServer((HOST, 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def source(self, **options: object) -> ImapSource:
        return ImapSource(HOST, "ann", "secret", port=self.port, security="none", **options)

    # ------------------------------------------------------------------ the protocol

    def _send(self, sock: socket.socket, data: bytes, pace: float = 0.0) -> None:
        if not pace:
            sock.sendall(data)
            self.sent += len(data)
            return
        for i in range(len(data)):
            sock.sendall(data[i:i + 1])
            self.sent += 1
            time.sleep(pace)

    def _serve(self, rfile, sock: socket.socket) -> None:
        self._send(sock, b"* OK [CAPABILITY " + CAPABILITY + b"] hostile ready\r\n")
        while line := rfile.readline():
            tag, _, rest = line.rstrip(b"\r\n").partition(b" ")
            command = rest.upper()
            if command.startswith(b"CAPABILITY"):
                self._send(sock, b"* CAPABILITY " + CAPABILITY + b"\r\n" + tag + b" OK done\r\n")
            elif command.startswith(b"AUTHENTICATE"):
                self._send(sock, b"+ \r\n")
                rfile.readline()
                self._send(sock, tag + b" OK logged in\r\n")
            elif command.startswith(b"SELECT"):
                self._send(sock, b"* %d EXISTS\r\n* OK [UIDVALIDITY " % len(self.messages) + self.uidvalidity
                           + b"] ok\r\n" + tag + b" OK [READ-WRITE] done\r\n")
            elif command.startswith(b"NOOP"):
                junk = b"* OK " + b"x" * 1000 + b"\r\n"
                for _ in range(self.noop_junk // len(junk)):
                    self._send(sock, junk)
                self._send(sock, tag + b" OK done\r\n")
            elif command.startswith(b"UID SEARCH"):
                uids = b" ".join(b"%d" % uid for uid in range(1, len(self.messages) + 1))
                self._send(sock, b"* SEARCH " + uids + b"\r\n" + tag + b" OK done\r\n")
            elif command.startswith(b"UID FETCH") and b"RFC822.SIZE" in command:
                for uid, mail in enumerate(self.messages, 1):
                    size = mail.claimed if mail.claimed is not None else b"%d" % len(mail.body)
                    self._send(sock, b"* %d FETCH (UID %d RFC822.SIZE " % (uid, uid) + size + b")\r\n")
                self._send(sock, tag + b" OK done\r\n")
            elif command.startswith(b"UID FETCH"):
                uid = int(re.match(rb"UID FETCH (\d+)", command).group(1))
                mail = self.messages[uid - 1]
                literal = mail.literal if mail.literal is not None else b"%d" % len(mail.body)
                self._send(sock, b"* %d FETCH (UID %d BODY[] {" % (uid, uid) + literal + b"}\r\n", mail.pace)
                if mail.endless:
                    chunk = b"x" * 65536
                    while True:
                        self._send(sock, chunk)
                self._send(sock, mail.body + b")\r\n" + tag + b" OK done\r\n", mail.pace)
            elif command.startswith(b"LOGOUT"):
                self._send(sock, b"* BYE bye\r\n" + tag + b" OK done\r\n")
                return
            else:
                self._send(sock, tag + b" BAD unknown\r\n")
