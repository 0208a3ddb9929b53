"""Issue 27, major 4: mail nested 1,200 levels deep (``message/rfc822`` in
``message/rfc822``, or ``multipart`` in ``multipart``) made the standard
library's parser raise RecursionError: a traceback, and in ``watch`` an
email left in the spool to crash every restart.  It is refused by
docs/protocol.md 12, limit 14, before the parser can recurse; in a mailbox
the other messages are still read."""

from __future__ import annotations

import mailbox
import time
from pathlib import Path

import pytest
from conftest import last_line

from pbem.protocol import limits

ROLL = '[[order]]\ntype = "roll"\ndice = "2d6"\n'


def snapshot(*roots: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for root in roots for p in sorted(root.rglob("*")) if p.is_file()}


def nested(levels: int, kind: str, inner: bytes) -> bytes:
    """An email whose ``inner`` text part lies ``levels`` containers deep."""
    mail = b"Content-Type: text/plain\n\n" + inner
    for level in range(levels):
        if kind == "rfc822":
            mail = b"From: ann@pbem.test\nSubject: fwd %d\nContent-Type: message/rfc822\n\n" % level + mail
        else:
            boundary = b"b%d" % level
            mail = (b"From: ann@pbem.test\nContent-Type: multipart/mixed; boundary=" + boundary + b"\n\n--" + boundary
                    + b"\n" + mail + b"\n--" + boundary + b"--\n")
    return b"To: bob@pbem.test\n" + mail


def a_turn(a, tmp_path: Path) -> Path:
    (tmp_path / "o.toml").write_text(ROLL)
    r = a.run("play", a.game, "--orders", tmp_path / "o.toml")
    assert r.exit_code == 0, r.output
    return last_line(r.output)


@pytest.mark.parametrize("kind", ["rfc822", "multipart"])
@pytest.mark.parametrize("command", ["import", "receive"])
def test_mail_nested_1200_levels_is_refused_not_a_crash(started, tmp_path, kind, command):
    a, b = started
    eml = tmp_path / "deep.eml"
    eml.write_bytes(nested(1200, kind, a_turn(a, tmp_path).read_bytes()))
    before = snapshot(b.game, b.home)
    started_at = time.process_time()  # CPU: what the refusal costs, however busy the machine
    r = b.run(command, b.game, eml)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and "RecursionError" not in r.output
    assert (f"deep.eml: the email has more than {limits.MAX_MAIL_CONTAINERS} multipart or message parts (nested "
            f"mail); pbem reads at most 100 in one email (docs/protocol.md 12, limit 14)") in r.output, r.output
    assert snapshot(b.game, b.home) == before
    assert time.process_time() - started_at < 2  # refused before it is parsed


@pytest.mark.parametrize("kind", ["rfc822", "multipart"])
def test_mail_nested_within_the_limit_is_read(started, tmp_path, kind):
    a, b = started
    eml = tmp_path / "forwarded.eml"
    eml.write_bytes(nested(limits.MAX_MAIL_CONTAINERS, kind, a_turn(a, tmp_path).read_bytes()))
    r = b.run("import", b.game, eml)
    assert r.exit_code == 0, r.output
    assert (b.game / "0002-first.pbem").exists()


def test_a_deep_mail_in_a_maildir_is_unreadable_and_the_others_are_read(started, tmp_path):
    a, b = started
    turn = a_turn(a, tmp_path)
    box = mailbox.Maildir(tmp_path / "Maildir")
    box.add(nested(1200, "rfc822", turn.read_bytes()))
    box.add(b"From: ann@pbem.test\nTo: bob@pbem.test\nSubject: my turn\n\n" + turn.read_bytes())
    r = b.run("import", b.game, tmp_path / "Maildir")
    assert r.exit_code == 0, r.output
    assert (b.game / "0002-first.pbem").exists()
    assert "more than 100 multipart or message parts" in r.output and "Traceback" not in r.output


def test_a_recursion_the_count_did_not_foresee_is_refused_the_same(started, tmp_path, monkeypatch):
    """The count is a bound, not the parser: should a mail get past it
    (here: the bound lifted), the parser's RecursionError is the same refusal."""
    a, b = started
    monkeypatch.setattr(limits, "MAX_MAIL_CONTAINERS", 10**6)
    eml = tmp_path / "deep.eml"
    eml.write_bytes(nested(3000, "rfc822", a_turn(a, tmp_path).read_bytes()))
    before = snapshot(b.game, b.home)
    r = b.run("receive", b.game, eml)
    assert r.exit_code == 2, r.output
    assert "deep.eml: the email nests its parts too deeply to be read" in r.output and "Traceback" not in r.output
    assert snapshot(b.game, b.home) == before


def test_a_folded_or_commented_content_type_is_counted():
    inner = b"Content-Type: text/plain\n\nhello\n"
    folded = b"".join(b"Content-Type:\n\t(forwarded) MESSAGE/rfc822\n\n" for _ in range(101)) + inner
    assert limits.mail_nesting_problem(folded) is not None
    assert limits.mail_nesting_problem(b"Content-Type: text/plain\n\n" * 1000) is None  # only containers count
