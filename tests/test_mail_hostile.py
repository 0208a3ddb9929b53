"""Issue 27 m1 and m4: a hostile mail server, and a mailbox larger than
memory.  ``pbem watch`` reads mail one message at a time, keeping each
before it reads the next, and skips by size before reading; an IMAP server
that sends garbage for numbers, a literal of a terabyte, more than it said,
or one byte at a time gets a precise MailError within a bounded time and
memory, and the rest of the mail still comes."""

from __future__ import annotations

import mailbox
import os
import time
import tracemalloc

import pytest
from hostileimap import HostileImap, Mail
from mailservers import dovecot  # noqa: F401 - pytest fixture

from pbem.mail.maildir import MaildirSource
from pbem.mail.outbox import MailError
from pbem.protocol.scan import scan_source

MiB = 2**20
HELLO = b"From: bob@pbem.test\r\nSubject: hello\r\n\r\nhello\r\n"


def peak_while(action) -> tuple[object, int]:
    """``action()``'s result and the most memory Python allocated meanwhile."""
    tracemalloc.start()
    try:
        result = action()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def big_mail(number: int, size: int) -> bytes:
    line = b"%06d " % number + b"x" * 70 + b"\r\n"
    return b"From: bob@pbem.test\r\nSubject: big %d\r\n\r\n" % number + line * (size // len(line))


# --------------------------------------------------------------------------- m4: numbers


def test_27_a_uidvalidity_of_a_superscript_two_is_a_mail_error_naming_it():
    with HostileImap(uidvalidity="²".encode()) as server:
        source = server.source()
        with pytest.raises(MailError, match=r"gave a UIDVALIDITY for 'INBOX' that is not a 32-bit number above "
                                            r"0: '²'$"):
            source.connect()
    assert not source.connected


def test_27_a_uidvalidity_of_5000_digits_is_a_mail_error_cut_short():
    with HostileImap(uidvalidity=b"7" * 5000) as server:
        with pytest.raises(MailError) as err:
            server.source().connect()
    assert "not a 32-bit number above 0: '" + "7" * 40 + "... (5,000 characters)'" in str(err.value)
    assert len(str(err.value)) < 300


def test_27_sizes_and_uids_that_are_not_numbers_are_skipped_not_a_traceback():
    with HostileImap(messages=[Mail(HELLO, claimed=b"9" * 5000), Mail(HELLO, claimed="²".encode()),
                               Mail(HELLO)]) as server:
        with server.source() as source:
            got = list(source.fetch_new(set()))
    assert [ident for ident, _ in got] == ["1:1", "1:2", "1:3"]
    assert got[0][1] == got[1][1] == "the server gave no size for it that is a number; pbem reads at most 32 MiB an email"
    assert got[2][1] == HELLO


# --------------------------------------------------------------------------- m4: sizes


def test_27_a_literal_of_a_terabyte_is_refused_before_it_is_read_and_the_next_mail_comes():
    with HostileImap(messages=[Mail(HELLO, literal=b"999999999999"), Mail(HELLO)]) as server:
        with server.source() as source:
            got, peak = peak_while(lambda: list(source.fetch_new(set())))
    assert got[0] == ("1:1", "the email is 953,674.3 MiB; pbem reads at most 32 MiB a file or email for turn files "
                             "(docs/protocol.md 12) (the server had said 46 bytes)")
    assert got[1] == ("1:2", HELLO)
    assert peak < 4 * MiB
    assert server.connections == 2  # the unread literal cost its connection; the rest came on a new one


def test_27_a_size_lie_of_100_bytes_for_400_mb_is_caught_when_the_literal_says_so():
    with HostileImap(messages=[Mail(HELLO, claimed=b"100", literal=b"400000000", endless=True),
                               Mail(HELLO)]) as server:
        with server.source() as source:
            got, peak = peak_while(lambda: list(source.fetch_new(set())))
        time.sleep(0.2)
        sent = server.sent
    assert got[0][0] == "1:1" and got[0][1].startswith("the email is 381.5 MiB; pbem reads at most 32 MiB")
    assert got[0][1].endswith("(the server had said 100 bytes)")
    assert got[1] == ("1:2", HELLO)
    assert peak < 4 * MiB
    assert sent < 40 * MiB  # what the kernel's buffers took before pbem hung up, not 400 MB


def test_27_untagged_answers_without_end_are_cut_at_16_mib():
    with HostileImap(messages=[Mail(HELLO)], noop_junk=24 * MiB) as server:
        with server.source() as source:
            with pytest.raises(MailError, match=r"sent more than the 16 MiB pbem reads for one answer \(searching\); "
                                                r"disconnected$"):
                list(source.fetch_new(set()))
            assert not source.connected


# --------------------------------------------------------------------------- m4: time


def test_27_a_server_sending_one_byte_at_a_time_is_given_up_on_in_bounded_time():
    """One byte every 20 s, scaled down: a byte every 50 ms with a socket
    timeout of 250 ms, which no single read ever reaches; the whole answer
    is due in four timeouts (1 s)."""
    with HostileImap(messages=[Mail(HELLO, pace=0.05)]) as server:
        with server.source(timeout=0.25) as source:
            start = time.monotonic()
            with pytest.raises(MailError, match=r"answered too slowly: no whole answer in 1 s \(fetching message "
                                                r"1\); disconnected$"):
                list(source.fetch_new(set()))
            took = time.monotonic() - start
    assert took < 3.0  # the answer would take 0.05 s x 100 bytes = 5 s


def test_27_a_slow_but_steady_server_is_waited_for():
    """The bound is on the whole answer, scaled to the message's size: a
    server that keeps to a trickle of a few hundred bytes a second still
    delivers a small message."""
    with HostileImap(messages=[Mail(HELLO, pace=0.001)]) as server:
        with server.source(timeout=0.25) as source:
            assert list(source.fetch_new(set())) == [("1:1", HELLO)]


# --------------------------------------------------------------------------- m1: one at a time


def test_27_a_maildir_of_big_mail_is_read_one_message_at_a_time(tmp_path):
    box = mailbox.Maildir(tmp_path / "box")
    for number in range(5):
        box.add(big_mail(number, 6 * MiB))
    source = MaildirSource(tmp_path / "box")

    def take_all():
        sizes = []
        for _, data in source.fetch_new(set()):  # as watch does: keep each, drop it, take the next
            sizes.append(len(data))
        return sizes

    sizes, peak = peak_while(take_all)
    assert len(sizes) == 5 and min(sizes) > 5 * MiB
    assert peak < 14 * MiB  # one message (and a copy), never all five (30 MiB)


def test_27_a_54_mib_mail_in_a_maildir_is_skipped_by_its_size_unread(tmp_path):
    box = mailbox.Maildir(tmp_path / "box")
    box.add(HELLO)
    giant = tmp_path / "box" / "new" / "1700000000.M1P1Q1.giant"
    with giant.open("wb") as handle:  # sparse: 54 MiB that were never written, so reading them would show
        handle.truncate(54 * MiB)
    got, peak = peak_while(lambda: list(MaildirSource(tmp_path / "box").fetch_new(set())))
    assert ("1700000000.M1P1Q1.giant", "the email is 54.0 MiB; pbem reads at most 32 MiB a file or email for turn "
                                       "files (docs/protocol.md 12)") in got
    assert [data for _, data in got if isinstance(data, bytes)] == [HELLO]
    assert peak < 2 * MiB


def test_27_a_fifo_in_a_maildir_is_skipped_not_waited_on(tmp_path):
    box = mailbox.Maildir(tmp_path / "box")
    box.add(HELLO)
    os.mkfifo(tmp_path / "box" / "new" / "1700000000.M1P1Q1.fifo")
    got = list(MaildirSource(tmp_path / "box").fetch_new(set()))
    assert ("1700000000.M1P1Q1.fifo", "the email is not a regular file; pbem reads only regular files") in got
    scan = scan_source(tmp_path / "box")  # pbem import of the folder: the same
    assert ("box #1", "the email is not a regular file; pbem reads only regular files") in scan.unreadable


def test_27_an_mbox_message_over_the_limit_is_read_no_further_than_the_limit(tmp_path):
    path = tmp_path / "mail.mbox"
    box = mailbox.mbox(path)
    box.add(big_mail(1, 40 * MiB))
    box.add(HELLO)
    box.close()
    scan, peak = peak_while(lambda: scan_source(path))
    assert scan.unreadable == [("mail.mbox #1", "the email is over 32 MiB; pbem reads at most 32 MiB a file or "
                                                "email for turn files (docs/protocol.md 12)")]
    assert peak < 80 * MiB  # what was read stops at 32 MiB (reading it whole is 40, and a copy)


def test_27_dovecot_mail_is_fetched_one_message_at_a_time(dovecot):
    for number in range(5):
        dovecot.deliver("ann", big_mail(number, 6 * MiB))
    with dovecot.source("ann") as source:
        def take_all():
            return [len(data) for _, data in source.fetch_new(set())]

        sizes, peak = peak_while(take_all)
    assert len(sizes) == 5 and min(sizes) > 5 * MiB
    assert peak < 20 * MiB  # one message as imaplib reads it (a few copies), never all five (30 MiB and more)



# --------------------------------------------------------------------------- HTML that never closes


@pytest.mark.parametrize("pattern", ["<script>", "<style>", "<br", "<", "<a "])
def test_27_an_html_email_of_tags_that_never_close_is_read_in_one_pass(pattern):
    """A pasted turn file is looked for in an HTML body with its tags taken
    out; a tag or a script that never closes must not make that quadratic
    (256 KiB of '<script>' took 30 s; this is 4 MiB)."""
    from email.message import EmailMessage

    from pbem.protocol.scan import scan_bytes

    mail = EmailMessage()
    mail["From"], mail["Subject"] = "bob@pbem.test", "my turn"
    mail.set_content("<html><body>" + pattern * (4 * MiB // len(pattern)), subtype="html")
    start = time.process_time()  # CPU: the cost of the scan, however busy the machine
    scan = scan_bytes(bytes(mail), "turn.eml")
    assert time.process_time() - start < 3.0
    assert scan.found == []
