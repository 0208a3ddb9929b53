"""SSHSIG signatures (protocol §2-4): round trips, every-byte tampering, and ssh-keygen interop."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.errors import AuthenticityError, InputError, IntegrityError
from pbem.protocol import sshsig
from pbem.protocol.keys import Identity, ssh_string
from pbem.protocol.sshsig import SshSignature, armor, dearmor, sign, verify

SSH_KEYGEN = shutil.which("ssh-keygen")
needs_ssh_keygen = pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen not on PATH")

NS = "pbem-turn-v1"
SEED = bytes(range(32))
DATA = b"hello\n"

# Made by `ssh-keygen -Y sign -n pbem-turn-v1` (OpenSSH 9.2) on DATA with the key whose
# seed is 00 01 … 1f.  Ed25519 is deterministic, so pbem must produce the first byte for byte.
KEYGEN_SHA512 = """\
-----BEGIN SSH SIGNATURE-----
U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgA6EHv/POEL4dcN0Y50vAmWfk1j
CbpQ1fHdyGZBJVMbgAAAAMcGJlbS10dXJuLXYxAAAAAAAAAAZzaGE1MTIAAABTAAAAC3Nz
aC1lZDI1NTE5AAAAQORVsRGucebawz6B4oUyARfH3wLD/hiQMj1MlfGWVuhGHCEOlHLfsT
PPkzFb2vViwclT9OUT8jeFWdn924dLrwM=
-----END SSH SIGNATURE-----
"""
# The same with `-O hashalg=sha256`.
KEYGEN_SHA256 = """\
-----BEGIN SSH SIGNATURE-----
U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgA6EHv/POEL4dcN0Y50vAmWfk1j
CbpQ1fHdyGZBJVMbgAAAAMcGJlbS10dXJuLXYxAAAAAAAAAAZzaGEyNTYAAABTAAAAC3Nz
aC1lZDI1NTE5AAAAQJ7ik5lYsXobgQQBwrpizkFaR7aIQONRitjzB7HIPCznYQlPe4cWj5
/iRD6K6ehQOQpuoGix7CsjTe37GK3asg4=
-----END SSH SIGNATURE-----
"""


@pytest.fixture(scope="module")
def alice() -> Identity:
    return Identity.from_seed(SEED, "player@pbem")


@pytest.fixture(scope="module")
def blob(alice) -> bytes:
    return sign(alice, DATA, NS)


def keygen(*args: str, cwd=None, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([SSH_KEYGEN, *args], cwd=cwd, input=stdin, capture_output=True, check=False)


# --- known answers and round trips ------------------------------------------------------


def test_known_answer_matches_ssh_keygen_byte_for_byte(alice, blob):
    assert armor(blob) == KEYGEN_SHA512


@pytest.mark.parametrize("armoured", [KEYGEN_SHA512, KEYGEN_SHA256], ids=["sha512", "sha256"])
def test_known_answer_verifies(alice, armoured):
    assert verify(dearmor(armoured), DATA, NS, alice.public) == alice.public


def test_round_trip_returns_signer(alice, blob):
    signer = verify(blob, DATA, NS)
    assert signer == alice.public
    assert signer.fingerprint == alice.public.fingerprint


def test_blob_fields(alice, blob):
    fields = SshSignature.from_bytes(blob)
    assert fields.namespace == NS
    assert fields.hash_algorithm == "sha512"
    assert fields.reserved == b""
    assert fields.public_key == alice.public.blob
    assert bytes(fields) == blob


@settings(max_examples=30, deadline=None)
@given(data=st.binary(max_size=300), namespace=st.text(min_size=1, max_size=20))
def test_round_trip_any_data(alice, data, namespace):
    assert verify(dearmor(armor(sign(alice, data, namespace))), data, namespace) == alice.public


def test_armor_shape(blob):
    lines = armor(blob).splitlines()
    assert lines[0] == "-----BEGIN SSH SIGNATURE-----"
    assert lines[-1] == "-----END SSH SIGNATURE-----"
    assert all(len(line) <= 70 for line in lines[1:-1])
    assert all(len(line) == 70 for line in lines[1:-2])


def test_dearmor_tolerates_whitespace(blob):
    mangled = "\r\n\t " + armor(blob).replace("\n", " \r\n  ") + "\n\n"
    assert dearmor(mangled) == blob


@pytest.mark.parametrize(
    "text",
    ["", "hello", KEYGEN_SHA512.replace("-----END SSH SIGNATURE-----", ""), KEYGEN_SHA512.replace("U1NI", "U1N!")],
    ids=["empty", "no-armour", "no-end", "bad-base64"],
)
def test_dearmor_rejects(text):
    with pytest.raises(IntegrityError, match="malformed SSH signature"):
        dearmor(text)


def test_empty_namespace_is_refused(alice):
    with pytest.raises(InputError):
        sign(alice, DATA, "")


# --- attacks --------------------------------------------------------------------------


def test_flipped_data_byte(blob):
    for i in range(len(DATA)):
        tampered = bytearray(DATA)
        tampered[i] ^= 0x01
        with pytest.raises(AuthenticityError, match="does not verify"):
            verify(blob, bytes(tampered), NS)


@pytest.mark.parametrize("mask", [0x01, 0x80, 0xFF])
def test_flipped_byte_anywhere_in_blob(alice, blob, mask):
    for i in range(len(blob)):
        tampered = bytearray(blob)
        tampered[i] ^= mask
        try:
            verify(bytes(tampered), DATA, NS)
        except (IntegrityError, AuthenticityError):
            continue
        pytest.fail(f"flipping byte {i} with {mask:#x} was not detected")


def test_truncated_or_extended_blob(blob):
    for n in range(len(blob)):
        with pytest.raises(IntegrityError, match="malformed SSH signature"):
            verify(blob[:n], DATA, NS)
    with pytest.raises(IntegrityError, match="trailing"):
        verify(blob + b"\0", DATA, NS)


def test_wrong_namespace_names_both(blob):
    with pytest.raises(AuthenticityError, match="'pbem-turn-v1', expected 'git'"):
        verify(blob, DATA, "git")


def test_wrong_key_names_both_fingerprints(alice, blob):
    mallory = Identity.generate("mallory").public
    with pytest.raises(AuthenticityError) as info:
        verify(blob, DATA, NS, expected=mallory)
    assert str(info.value) == f"signed by {alice.public.fingerprint}, expected {mallory.fingerprint}"


def test_key_swapped_for_another_does_not_verify(blob):
    fields = SshSignature.from_bytes(blob)
    other = Identity.generate("eve").public
    forged = SshSignature(other.blob, fields.namespace, b"", fields.hash_algorithm, fields.signature)
    with pytest.raises(AuthenticityError, match="does not verify"):
        verify(bytes(forged), DATA, NS, expected=other)


def _with(blob: bytes, **changes) -> bytes:
    return bytes(dataclasses.replace(SshSignature.from_bytes(blob), **changes))


def test_unsupported_hash_rejected(blob):
    with pytest.raises(AuthenticityError, match="'md5'"):
        verify(_with(blob, hash_algorithm="md5"), DATA, NS)


def test_sha256_label_on_sha512_signature_rejected(blob):
    with pytest.raises(AuthenticityError, match="does not verify"):
        verify(_with(blob, hash_algorithm="sha256"), DATA, NS)


def test_non_empty_reserved_rejected(blob):
    with pytest.raises(IntegrityError, match="reserved"):
        verify(_with(blob, reserved=b"x"), DATA, NS)


def test_rsa_key_rejected(blob):
    rsa_blob = ssh_string(b"ssh-rsa") + ssh_string(b"\x01\x00\x01") + ssh_string(b"\x00" + bytes(64))
    with pytest.raises(AuthenticityError, match="ssh-rsa"):
        verify(_with(blob, public_key=rsa_blob), DATA, NS)


def test_version_2_rejected(blob):
    with pytest.raises(IntegrityError, match="version is 2"):
        verify(blob[:6] + (2).to_bytes(4, "big") + blob[10:], DATA, NS)


def test_module_constants():
    assert sshsig.TURN_NAMESPACE == NS


# --- interop with stock ssh-keygen ---------------------------------------------------


@needs_ssh_keygen
def test_ssh_keygen_verifies_pbem_signature(tmp_path):
    player = Identity.generate("player@pbem")
    data = b"turn 7: 3.A moves to 1508\n" * 20
    (tmp_path / "data").write_bytes(data)
    (tmp_path / "data.sig").write_text(armor(sign(player, data, NS)))
    pub = player.public
    key_and_type = " ".join(pub.openssh().split()[:2])  # `ssh-ed25519 AAAA…`, no comment
    (tmp_path / "allowed_signers").write_text(f"player@pbem {key_and_type}\n")
    args = ["-Y", "verify", "-f", "allowed_signers", "-I", "player@pbem", "-n", NS, "-s", "data.sig"]
    ok = keygen(*args, cwd=tmp_path, stdin=data)
    assert ok.returncode == 0, ok.stderr
    assert pub.fingerprint.encode() in ok.stdout
    bad = keygen(*args, cwd=tmp_path, stdin=data + b"x")
    assert bad.returncode != 0


@needs_ssh_keygen
def test_pbem_verifies_ssh_keygen_signature(tmp_path):
    made = keygen("-q", "-t", "ed25519", "-N", "", "-C", "sam@host", "-f", "key", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    data = b"orders for seq 3\n"
    (tmp_path / "data").write_bytes(data)
    signed = keygen("-Y", "sign", "-f", "key", "-n", NS, "data", cwd=tmp_path)
    assert signed.returncode == 0, signed.stderr
    identity = Identity.from_openssh_private((tmp_path / "key").read_bytes(), None)
    assert identity.name == "sam@host"
    blob = dearmor((tmp_path / "data.sig").read_text())
    assert verify(blob, data, NS, expected=identity.public) == identity.public
    # and pbem, signing with the same key file, writes exactly what ssh-keygen wrote
    assert armor(sign(identity, data, NS)) == (tmp_path / "data.sig").read_text()
    with pytest.raises(AuthenticityError):
        verify(blob, data + b"!", NS)


@needs_ssh_keygen
def test_pbem_loads_passphrase_protected_ssh_keygen_key(tmp_path):
    made = keygen("-q", "-t", "ed25519", "-N", "secretpw", "-f", "key", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    data = (tmp_path / "key").read_bytes()
    identity = Identity.from_openssh_private(data, b"secretpw")
    assert identity.public.openssh().split()[:2] == (tmp_path / "key.pub").read_text().split()[:2]
    assert verify(sign(identity, b"x", NS), b"x", NS) == identity.public
