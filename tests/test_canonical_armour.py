"""Canonical JSON bodies and the ASCII armour around them (protocol §2-4):
one byte string per body, and turn files that survive what mail does to text."""

from __future__ import annotations

import base64

import pytest

from pbem.errors import AuthenticityError, InputError, IntegrityError, VerificationError
from pbem.protocol import canonical, sshsig
from pbem.protocol.message import BEGIN, END, NAMESPACE, SIG_BEGIN, SIG_END, SignedMessage, sign_body

# --------------------------------------------------------------------------- canonical encode


def test_encode_sorts_keys_at_every_level_without_whitespace():
    value = {"b": 1, "a": {"z": [3, 2, 1], "y": None}, "c": [{"q": True, "p": False}]}
    assert canonical.encode(value) == b'{"a":{"y":null,"z":[3,2,1]},"b":1,"c":[{"p":false,"q":true}]}'


def test_encode_escapes_non_ascii_values():
    assert canonical.encode({"note": "café"}) == b'{"note":"caf\\u00e9"}'
    assert canonical.encode({"note": "\U0001f600"}) == b'{"note":"\\ud83d\\ude00"}'  # surrogate pair
    assert canonical.encode({"note": 'a"b\\c\n'}) == b'{"note":"a\\"b\\\\c\\n"}'


def test_encode_output_is_pure_ascii():
    canonical.encode({"x": "Ωmega ✓ 日本"}).decode("ascii")


def test_encode_tuple_as_array():
    assert canonical.encode({"a": (1, 2)}) == b'{"a":[1,2]}'


@pytest.mark.parametrize("value", [1.0, 0.5, float("nan"), float("inf")], ids=["1.0", "0.5", "nan", "inf"])
def test_encode_refuses_floats(value):
    with pytest.raises(InputError, match=r"float .* at \$\.a\[0\]; only integers"):
        canonical.encode({"a": [value]})


@pytest.mark.parametrize("key", ["café", 1, None], ids=["non-ascii", "int", "none"])
def test_encode_refuses_non_ascii_or_non_string_keys(key):
    with pytest.raises(InputError, match="is not an ASCII string"):
        canonical.encode({"ok": {key: 1}})


def test_encode_accepts_the_largest_safe_integers():
    assert canonical.encode([2**53 - 1, -(2**53 - 1)]) == b"[9007199254740991,-9007199254740991]"


@pytest.mark.parametrize("value", [2**53, -(2**53), 2**64, 10**100])
def test_encode_refuses_huge_integers(value):
    with pytest.raises(InputError, match="out of range"):
        canonical.encode({"n": value})


@pytest.mark.parametrize("value", [b"bytes", {1, 2}, object()], ids=["bytes", "set", "object"])
def test_encode_refuses_other_types(value):
    with pytest.raises(InputError, match="cannot be encoded"):
        canonical.encode({"a": value})


# --------------------------------------------------------------------------- canonical decode


def test_decode_round_trips_encode():
    value = {"b": [1, -2, "x\u00e9"], "a": {"t": True, "n": None}, "e": ""}
    assert canonical.decode(canonical.encode(value)) == value


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1}',  # space after colon
        b'{"a":1, "b":2}',  # space after comma
        b' {"a":1}',  # leading space
        b'{"a":1}\n',  # trailing newline
        b'{"b":1,"a":2}',  # unsorted keys
        b'{"a":1,"a":1}',  # duplicate key, same value
        b'{"a":1,"a":2}',  # duplicate key
        b'{"a":1.0}',  # float
        b'{"a":1e3}',  # float by exponent
        b'{"a":-0}',  # negative zero
        b'{"a":NaN}',
        b'{"a":Infinity}',
        b'{"a":-Infinity}',
        b'{"a":9007199254740992}',  # 2**53: out of the safe range
        b'{"a":"\\u0041"}',  # needless escape
        b'{"a":"\\u00E9"}',  # upper-case hex escape
        b'{"a":"\\/"}',  # escaped slash
        b'{"a":"caf\xc3\xa9"}',  # raw UTF-8
        b"\xef\xbb\xbf{}",  # byte order mark
        b'{"a":01}',  # not JSON at all
        b"",
    ],
)
def test_decode_refuses_non_canonical_bytes(data):
    with pytest.raises(IntegrityError, match="canonical"):
        canonical.decode(data)


def test_decode_names_a_duplicate_key():
    with pytest.raises(IntegrityError, match="duplicate key 'a'"):
        canonical.decode(b'{"a":1,"a":2}')


@pytest.mark.parametrize("opener, closer", [(b"[", b"]"), (b'{"a":', b"}")], ids=["arrays", "objects"])
def test_decode_refuses_hostile_nesting_with_integrity_error(opener, closer):
    depth = 100_000
    data = opener * depth + (b"1" if opener != b"[" else b"") + closer * depth
    with pytest.raises(IntegrityError):
        canonical.decode(data)


# --------------------------------------------------------------------------- armour: helpers

BODY = {
    "pbem": 1,
    "game": "3f2a9c0d11223344",
    "seq": 4,
    "side": "first",
    "author": "SHA256:test",
    "prev": "ab" * 32,
    "chain": "cd" * 32,
    "orders": [{"type": "roll", "dice": "2d6+1", "note": "attaque à l'aube " * 12}],
    "commitments": {},
    "reveals": [],
    "sealed": "",
}


@pytest.fixture
def signed(ann) -> SignedMessage:
    return sign_body(ann, BODY)


@pytest.fixture
def armoured(signed) -> str:
    return signed.armored("dice game, message 0004 from first\nroll 2d6+1")


def assert_genuine(parsed: SignedMessage, original: SignedMessage, ann) -> None:
    """The parsed message is byte-identical and its signature verifies under ann's key."""
    assert parsed.body_bytes == original.body_bytes
    assert parsed.signature == original.signature
    assert sshsig.verify(parsed.signature, parsed.body_bytes, NAMESPACE, expected=ann.public) == ann.public
    assert parsed.body == BODY


def rewrap(text: str, width: int) -> str:
    """Re-wrap both base64 blocks of an armoured message to ``width`` columns."""
    lines = text.splitlines()
    out, block = [], []
    for line in lines:
        if line in (SIG_BEGIN, SIG_END, END):
            joined = "".join(block)
            out += [joined[i : i + width] for i in range(0, len(joined), width)]
            block = []
            out.append(line)
        elif out and out[-1] in (BEGIN, SIG_BEGIN) or block:
            block.append(line)
        else:
            out.append(line)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- armour: what mail does


def test_armour_round_trip(signed, armoured, ann):
    assert armoured.isascii()
    assert_genuine(SignedMessage.from_text(armoured), signed, ann)


def test_armour_survives_crlf_line_ends(signed, armoured, ann):
    assert_genuine(SignedMessage.from_text(armoured.replace("\n", "\r\n")), signed, ann)


def test_armour_survives_trailing_spaces_on_every_line(signed, armoured, ann):
    text = "\n".join(line + "   \t " for line in armoured.splitlines())
    assert_genuine(SignedMessage.from_text(text), signed, ann)


def test_armour_survives_a_quote_prefix_on_every_line(signed, armoured, ann):
    text = "\n".join("> " + line for line in armoured.splitlines())
    assert_genuine(SignedMessage.from_text(text), signed, ann)


@pytest.mark.parametrize("prefix", ["> > ", ">> ", ">>", " > > > "])
def test_armour_survives_nested_quote_prefixes(signed, armoured, ann, prefix):
    text = "\n".join(prefix + line for line in armoured.splitlines())
    assert_genuine(SignedMessage.from_text(text), signed, ann)


def test_armour_survives_quoting_crlf_and_trailing_spaces_together(signed, armoured, ann):
    text = "\r\n".join("> > " + line + "  " for line in armoured.splitlines())
    assert_genuine(SignedMessage.from_text(text), signed, ann)


def test_armour_survives_leading_and_trailing_chatter(signed, armoured, ann):
    text = (
        "Hi Bob,\n\nhere is my turn -- the bridge attack.\n-----\n\n"
        + armoured
        + "\n-- \nAnn\nSent from my phone\n"
    )
    assert_genuine(SignedMessage.from_text(text), signed, ann)


def test_armour_survives_base64_rewrapped_to_40_columns(signed, armoured, ann):
    text = rewrap(armoured, 40)
    body_lines = text.split(BEGIN + "\n")[1].split("\n" + SIG_BEGIN)[0].splitlines()
    assert max(len(line) for line in body_lines) == 40 and len(body_lines) > 5
    assert_genuine(SignedMessage.from_text(text), signed, ann)


def test_armour_survives_blank_lines_inside_the_base64(signed, armoured, ann):
    text = rewrap(armoured, 40).replace("\n", "\n\n")
    assert_genuine(SignedMessage.from_text(text), signed, ann)


def test_armour_read_from_bytes(signed, armoured, ann):
    data = ("Grüße\n" + armoured).encode("utf-8")
    assert_genuine(SignedMessage.from_text(data), signed, ann)


def test_message_pasted_twice_gives_two_messages(signed, armoured, ann):
    text = "first copy:\n" + armoured + "\nand again, quoted:\n" + "\n".join("> " + line for line in armoured.splitlines())
    found = SignedMessage.all_from_text(text)
    assert len(found) == 2
    for parsed in found:
        assert_genuine(parsed, signed, ann)


def test_two_different_messages_in_one_text_come_out_in_order(ann, armoured, signed):
    other = sign_body(ann, {**BODY, "seq": 6})
    found = SignedMessage.all_from_text(armoured + other.armored("next"))
    assert [m.seq for m in found] == [4, 6]
    assert found[1].body_bytes == other.body_bytes


def test_text_without_armour_has_no_messages():
    assert SignedMessage.all_from_text("just chatter\n> nothing here\n") == []
    with pytest.raises(IntegrityError, match="no '-----BEGIN PBEM MESSAGE-----' line"):
        SignedMessage.from_text("just chatter\n")


# --------------------------------------------------------------------------- armour: damage


def test_truncation_at_every_line_boundary_is_an_integrity_error(armoured):
    lines = armoured.splitlines(keepends=True)
    assert lines[-1].rstrip() == END
    begin = lines.index(BEGIN + "\n")
    for cut in range(len(lines)):  # every prefix that stops before the END line
        with pytest.raises(IntegrityError):
            SignedMessage.from_text("".join(lines[:cut]))
        if cut > begin:  # a started block is reported as truncated, never silently skipped
            with pytest.raises(IntegrityError, match="truncated"):
                SignedMessage.all_from_text("".join(lines[:cut]))


def test_truncation_at_every_character_is_an_integrity_error_or_the_whole_message(signed, armoured):
    whole_through = armoured.rindex(END) + len(END)
    for cut in range(len(armoured)):
        try:
            parsed = SignedMessage.from_text(armoured[:cut])
        except IntegrityError:
            assert cut < whole_through
        else:
            assert cut >= whole_through and parsed == signed


def test_truncated_first_copy_before_a_second_message_is_an_integrity_error(armoured):
    cut = armoured.index(SIG_BEGIN)
    with pytest.raises(IntegrityError, match="new BEGIN line"):
        SignedMessage.all_from_text(armoured[:cut] + armoured)


def test_dropping_any_single_line_inside_the_armour_never_verifies(armoured, ann):
    lines = armoured.splitlines()
    start = lines.index(BEGIN)
    for drop in range(start, len(lines)):
        text = "\n".join(lines[:drop] + lines[drop + 1 :])
        with pytest.raises(VerificationError):
            msg = SignedMessage.from_text(text)
            _ = msg.body  # decoding the body is what refuses
            sshsig.verify(msg.signature, msg.body_bytes, NAMESPACE, expected=ann.public)


@pytest.mark.parametrize("bad", ["!", "*", "é", "-", "_", " "], ids=repr)
@pytest.mark.parametrize("block", ["body", "signature"])
def test_non_base64_character_is_an_integrity_error(armoured, bad, block):
    lines = armoured.splitlines()
    index = lines.index(BEGIN) + 2 if block == "body" else lines.index(SIG_BEGIN) + 1
    lines[index] = lines[index][:10] + bad + lines[index][11:]
    with pytest.raises(IntegrityError, match="not base64|not valid base64"):
        SignedMessage.from_text("\n".join(lines))


def test_padding_in_the_middle_of_the_base64_is_an_integrity_error(armoured):
    lines = armoured.splitlines()
    index = lines.index(BEGIN) + 1
    lines[index] = lines[index][:-4] + "AA=="
    with pytest.raises(IntegrityError, match="not valid base64"):
        SignedMessage.from_text("\n".join(lines))


def test_text_between_signature_and_end_is_an_integrity_error(armoured):
    text = armoured.replace(SIG_END + "\n", SIG_END + "\nextra words\n")
    with pytest.raises(IntegrityError, match="unexpected text after the signature"):
        SignedMessage.from_text(text)


def test_altered_body_byte_fails_the_signature(signed, ann):
    body = bytearray(signed.body_bytes)
    body[body.index(b"2d6+1")] = ord("3")  # "3d6+1": still canonical JSON
    forged = SignedMessage(bytes(body), signed.signature)
    assert forged.body["orders"][0]["dice"] == "3d6+1"
    with pytest.raises(AuthenticityError, match="does not verify"):
        sshsig.verify(forged.signature, forged.body_bytes, NAMESPACE, expected=ann.public)


def test_re_encoded_body_with_whitespace_is_refused_even_if_it_parses_as_json(signed):
    import json

    spaced = json.dumps(BODY, sort_keys=True, indent=1).encode("ascii")
    text = SignedMessage(spaced, signed.signature).armored()
    parsed = SignedMessage.from_text(text)
    assert parsed.body_bytes == spaced
    with pytest.raises(IntegrityError, match="canonical"):
        _ = parsed.body  # decoding the body is what refuses


def test_armoured_body_is_the_base64_of_the_exact_bytes(signed, armoured):
    lines = armoured.splitlines()
    body64 = "".join(lines[lines.index(BEGIN) + 1 : lines.index(SIG_BEGIN)])
    assert base64.b64decode(body64) == signed.body_bytes == canonical.encode(BODY)
    assert all(len(line) <= 64 for line in lines[lines.index(BEGIN) + 1 : lines.index(SIG_BEGIN)])


@pytest.mark.parametrize("escaped", [b'"\\\\ud800"', b'"a\\\\udfff"', b'"\\\\udc00\\\\ud800"'])
def test_3_1_a_lone_surrogate_is_not_canonical(escaped):
    """A hostile body with "\\ud800" in a value crashed the receiver later (UnicodeEncodeError)."""
    from pbem.protocol import canonical

    body = b'{"note":' + escaped.replace(b"\\\\", b"\\") + b"}"
    with pytest.raises(IntegrityError, match="lone surrogate"):
        canonical.decode(body)
    assert canonical.decode('{"note":"\\ud83d\\ude00"}'.encode()) == {"note": "\U0001f600"}  # a pair is text
