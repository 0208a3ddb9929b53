"""Ed25519 identities in OpenSSH formats (protocol §4.1): known answers, round trips, rejections."""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import struct
import subprocess

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.errors import IdentityError
from pbem.protocol.keys import (
    Identity,
    PublicKey,
    derive_secret,
    public_key_of_private,
)
from pbem.protocol.sshwire import is_encrypted, ssh_string

SSH_KEYGEN = shutil.which("ssh-keygen")
needs_ssh_keygen = pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen not on PATH")

# RFC 8032 section 7.1, TEST 1.
RFC8032_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC8032_PUBLIC = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
RFC8032_SIG_EMPTY = bytes.fromhex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
)

# Seed 00 01 02 … 1f; line and fingerprint as printed by `ssh-keygen -lf` (OpenSSH 9.2).
SEED = bytes(range(32))
SEED_PUBLIC = bytes.fromhex("03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8")
SEED_LINE = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4 player@pbem"
SEED_FINGERPRINT = "SHA256:lbmsoA0yIEcEiVDRnMWuzm+nV+3ZEEpVIURqFoeSspg"
# derive_secret(seed identity, b"game-1"), pinned so the construction cannot drift silently.
SEED_SECRET_GAME_1 = bytes.fromhex("91989f8553c77d85a96679ac8dc09d959be40f933687b1643532186b81e744b9")


def keygen(*args: str) -> str:
    return subprocess.run([SSH_KEYGEN, *args], check=True, capture_output=True, text=True).stdout


# --- known answers ------------------------------------------------------------------


def test_rfc8032_vector_1():
    identity = Identity.from_seed(RFC8032_SEED)
    assert identity.public.raw == RFC8032_PUBLIC
    assert identity.sign_raw(b"") == RFC8032_SIG_EMPTY
    assert identity.public.verify_raw(RFC8032_SIG_EMPTY, b"")


def test_known_answer_line_and_fingerprint():
    public = Identity.from_seed(SEED, "player@pbem").public
    assert public.openssh() == SEED_LINE
    assert public.fingerprint == SEED_FINGERPRINT
    digest = hashlib.sha256(public.blob).digest()
    assert public.fingerprint == "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


def test_blob_layout():
    public = Identity.from_seed(SEED).public
    assert public.raw == SEED_PUBLIC
    assert public.blob == struct.pack(">I", 11) + b"ssh-ed25519" + struct.pack(">I", 32) + SEED_PUBLIC


@needs_ssh_keygen
def test_fingerprint_matches_ssh_keygen(tmp_path):
    public = Identity.generate("alice@example").public
    pub_file = tmp_path / "alice.pub"
    pub_file.write_text(public.openssh() + "\n")
    assert keygen("-lf", str(pub_file)).split()[1] == public.fingerprint


@needs_ssh_keygen
def test_ssh_keygen_reads_our_private_key(tmp_path):
    identity = Identity.generate("bob")
    key_file = tmp_path / "key"
    key_file.write_bytes(identity.to_openssh_private(b"pw"))
    key_file.chmod(0o600)
    printed = keygen("-y", "-P", "pw", "-f", str(key_file))
    assert PublicKey.from_openssh(printed) == identity.public


# --- public key lines ----------------------------------------------------------------


@pytest.mark.parametrize("comment", ["", "player@pbem", "Jane Doe <jane@example.org>"])
def test_public_line_round_trip(comment):
    public = Identity.generate(comment).public
    parsed = PublicKey.from_openssh(public.openssh())
    assert parsed == public
    assert parsed.comment == comment
    assert parsed.openssh() == public.openssh()


def test_equality_ignores_comment():
    raw = Identity.generate("x").public.raw
    assert PublicKey(raw, "a") == PublicKey(raw, "b")
    assert hash(PublicKey(raw, "a")) == hash(PublicKey(raw, "b"))


def test_surrounding_whitespace_is_ignored():
    assert PublicKey.from_openssh("  " + SEED_LINE + "\r\n").fingerprint == SEED_FINGERPRINT


def test_ssh_rsa_line_is_rejected_naming_the_type():
    line = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 user@host"
    with pytest.raises(IdentityError, match="ssh-rsa"):
        PublicKey.from_openssh(line)


@pytest.mark.parametrize(
    "line",
    [
        "ssh-ed25519 AAAA!!!notbase64 x",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAOhB7",  # bad padding
        "ssh-ed25519",
        "",
        "ssh-ed25519 " + base64.b64encode(b"\0\0\0\x0bssh-ed25519\0\0\0\x1f" + bytes(31)).decode(),  # 31-byte key
        "ssh-ed25519 " + base64.b64encode(ssh_string(b"ssh-ed25519") + ssh_string(bytes(32)) + b"x").decode(),
        "ssh-ed25519 " + base64.b64encode(ssh_string(b"ssh-rsa") + ssh_string(bytes(32))).decode(),
        "ssh-ed25519 " + base64.b64encode(b"\0\0\0\xffssh").decode(),  # length past the end
    ],
    ids=["garbage-base64", "bad-padding", "no-key", "empty", "short-key", "trailing-byte", "inner-type", "overlong"],
)
def test_malformed_lines_raise_identity_error(line):
    with pytest.raises(IdentityError):
        PublicKey.from_openssh(line)


def test_verify_raw():
    identity = Identity.generate("v")
    sig = identity.sign_raw(b"data")
    assert identity.public.verify_raw(sig, b"data")
    assert not identity.public.verify_raw(sig, b"datb")
    assert not identity.public.verify_raw(sig[:-1], b"data")
    assert not Identity.generate("w").public.verify_raw(sig, b"data")


# --- private keys --------------------------------------------------------------------


def test_private_round_trip_unencrypted_keeps_comment():
    identity = Identity.from_seed(SEED, "player@pbem")
    data = identity.to_openssh_private(None)
    assert data.startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----")
    assert not is_encrypted(data)
    loaded = Identity.from_openssh_private(data, None)
    assert loaded.public == identity.public
    assert loaded.sign_raw(b"m") == identity.sign_raw(b"m")
    assert public_key_of_private(data) == identity.public


def test_private_round_trip_encrypted():
    identity = Identity.generate("carol")
    data = identity.to_openssh_private(b"correct horse")
    assert is_encrypted(data)
    assert public_key_of_private(data) == identity.public  # readable without the passphrase
    loaded = Identity.from_openssh_private(data, b"correct horse", name="carol")
    assert loaded.public == identity.public
    assert loaded.name == "carol"


def test_wrong_or_missing_passphrase():
    identity = Identity.generate("dave")
    data = identity.to_openssh_private(b"right")
    with pytest.raises(IdentityError, match=re.escape(f"wrong passphrase for key {identity.public.fingerprint}")) as info:
        Identity.from_openssh_private(data, b"wrong")
    assert info.value.__cause__ is not None
    with pytest.raises(IdentityError, match="wrong passphrase .* none was given"):
        Identity.from_openssh_private(data, None)


def test_passphrase_ignored_for_unencrypted_key():
    identity = Identity.generate("erin")
    assert Identity.from_openssh_private(identity.to_openssh_private(None), b"unused").public == identity.public


def test_non_ed25519_private_key_is_rejected():
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    data = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
    )
    with pytest.raises(IdentityError, match="ssh-rsa"):
        Identity.from_openssh_private(data, None)


@pytest.mark.parametrize("data", [b"", b"hello", b"-----BEGIN OPENSSH PRIVATE KEY-----\n!!\n-----END OPENSSH PRIVATE KEY-----"])
def test_not_a_private_key(data):
    with pytest.raises(IdentityError, match="not an OpenSSH private key"):
        Identity.from_openssh_private(data, None)
    with pytest.raises(IdentityError):
        is_encrypted(data)


def test_repr_does_not_show_secret():
    identity = Identity.from_seed(SEED, "p")
    assert SEED.hex() not in repr(identity)
    assert SEED_FINGERPRINT in repr(identity)


# --- derived secrets -----------------------------------------------------------------


def test_derive_secret_known_answer():
    assert derive_secret(Identity.from_seed(SEED), b"game-1") == SEED_SECRET_GAME_1


def test_derive_secret_is_deterministic_across_reloads():
    identity = Identity.generate("f")
    reloaded = Identity.from_openssh_private(identity.to_openssh_private(None), None)
    assert derive_secret(identity, b"ctx") == derive_secret(reloaded, b"ctx")
    assert len(derive_secret(identity, b"ctx")) == 32


@settings(max_examples=25, deadline=None)
@given(st.binary(max_size=64), st.binary(max_size=64))
def test_derive_secret_differs_by_context(a, b):
    identity = Identity.from_seed(SEED)
    assert (derive_secret(identity, a) == derive_secret(identity, b)) == (a == b)


def test_derive_secret_differs_by_key():
    assert derive_secret(Identity.generate("g"), b"ctx") != derive_secret(Identity.generate("h"), b"ctx")


def _rewrap(data: bytes, change) -> bytes:
    """The unencrypted OpenSSH key ``data`` with its private section changed by ``change``."""
    body = base64.b64decode(b"".join(data.split(b"\n")[1:-2]))
    magic = b"openssh-key-v1\x00"
    pos = len(magic)
    for _ in range(3):  # ciphername, kdfname, kdfoptions
        pos += 4 + struct.unpack(">I", body[pos:pos + 4])[0]
    pos += 4  # number of keys
    pos += 4 + struct.unpack(">I", body[pos:pos + 4])[0]  # public key
    section = bytearray(body[pos + 4:])
    change(section)
    body = body[:pos] + struct.pack(">I", len(section)) + bytes(section)
    text = base64.b64encode(body)
    lines = [text[i:i + 70] for i in range(0, len(text), 70)]
    return b"-----BEGIN OPENSSH PRIVATE KEY-----\n" + b"\n".join(lines) + b"\n-----END OPENSSH PRIVATE KEY-----\n"


@pytest.mark.parametrize(("change", "fault"), [
    (lambda s: s.__setitem__(0, s[0] ^ 1), "the two check integers differ"),
    (lambda s: s.__setitem__(-1, 0x7f), "bad padding after the comment"),
    (lambda s: s.__setitem__(8 + 4 + 11 + 4 + 5, s[8 + 4 + 11 + 4 + 5] ^ 1),
     "the private key does not hold the public key it is filed under"),
])
def test_an_unencrypted_key_is_read_by_pbem_and_every_fault_named(change, fault):
    """pbem reads an unencrypted OpenSSH key itself (no SSH module to import
    for a show) and checks what OpenSSH checks: the check integers, the
    public key inside the private part, the padding."""
    data = Identity.from_seed(SEED, "player@pbem").to_openssh_private(None)
    assert Identity.from_openssh_private(_rewrap(data, lambda s: None)).public.blob == Identity.from_seed(SEED).public.blob
    with pytest.raises(IdentityError, match=re.escape(f"malformed OpenSSH private key: {fault}")):
        Identity.from_openssh_private(_rewrap(data, change))
