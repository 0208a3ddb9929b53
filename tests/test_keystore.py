"""The keystore (protocol §4.1): files, modes, passphrases, PBEM_HOME, import from ssh-keygen."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

from pbem.errors import IdentityError, UsageError
from pbem.protocol.keys import Identity
from pbem.protocol.sshwire import is_encrypted
from pbem.protocol.keystore import Keystore, atomic_write, home_dir, passphrase_from_env

SSH_KEYGEN = shutil.which("ssh-keygen")
needs_ssh_keygen = pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen not on PATH")
posix_modes = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")


def never() -> bytes | None:
    raise AssertionError("the passphrase provider must not be called for an unencrypted key")


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def store(tmp_path) -> Keystore:
    return Keystore(tmp_path / "home")


# --- create / load -------------------------------------------------------------------


def test_create_without_passphrase(store):
    assert not store.exists()
    identity = store.create("alice@pbem", None)
    assert store.exists()
    data = store.identity_path.read_bytes()
    assert data.startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----")
    assert not is_encrypted(data)
    assert store.public_path.read_text() == identity.public.openssh() + "\n"
    assert store.public() == identity.public
    assert store.public().comment == "alice@pbem"
    loaded = store.load(never)
    assert loaded.public == identity.public
    assert loaded.name == "alice@pbem"
    assert store.games_dir.is_dir()


def test_create_with_passphrase(store):
    identity = store.create("bob", b"s3cret")
    assert is_encrypted(store.identity_path.read_bytes())
    assert store.public() == identity.public  # no passphrase needed
    calls = []

    def provider() -> bytes:
        calls.append(1)
        return b"s3cret"

    loaded = store.load(provider)
    assert calls == [1]
    assert loaded.public == identity.public
    assert loaded.sign_raw(b"m") == identity.sign_raw(b"m")


def test_wrong_or_missing_passphrase(store):
    identity = store.create("carol", b"right")
    with pytest.raises(IdentityError, match=re.escape(f"wrong passphrase for key {identity.public.fingerprint}")):
        store.load(lambda: b"wrong")
    with pytest.raises(IdentityError, match="wrong passphrase"):
        store.load(lambda: None)


@posix_modes
def test_modes(store):
    store.create("dave", b"pw")
    assert mode(store.identity_path) == 0o600
    assert mode(store.public_path) == 0o600
    assert mode(store.path) == 0o700
    assert not [p for p in store.path.iterdir() if p.name.endswith(".tmp")]


def test_refuses_to_overwrite(store):
    first = store.create("erin", None)
    with pytest.raises(UsageError, match=re.escape(f"a key already exists at {store.identity_path}; remove it first")):
        store.create("erin", None)
    assert store.load(never).public == first.public


def test_absent_identity(store):
    with pytest.raises(IdentityError, match="no identity in .*; run `pbem key new`"):
        store.load(never)
    with pytest.raises(IdentityError, match="no identity in"):
        store.public()


def test_public_survives_lost_pub_file(store):
    identity = store.create("frank", b"pw")
    store.public_path.unlink()
    assert store.public() == identity.public


def test_mismatched_pub_file_detected(store):
    store.create("gina", None)
    store.public_path.write_text(Identity.generate("other").public.openssh() + "\n")
    with pytest.raises(IdentityError, match="does not match"):
        store.load(never)


def test_atomic_write_replaces(tmp_path):
    target = tmp_path / "f"
    atomic_write(target, b"one")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["f"]


# --- environment ---------------------------------------------------------------------


def test_pbem_home_override(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "elsewhere"))
    assert home_dir() == tmp_path / "elsewhere"
    store = Keystore()
    assert store.path == tmp_path / "elsewhere"
    store.create("hank", None)
    assert (tmp_path / "elsewhere" / "identity").is_file()


def test_default_home_is_platform_config_dir(monkeypatch):
    import platformdirs

    monkeypatch.delenv("PBEM_HOME", raising=False)
    assert home_dir() == platformdirs.user_config_path("pbem")


def test_passphrase_from_env(monkeypatch):
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    assert passphrase_from_env() is None
    monkeypatch.setenv("PBEM_PASSPHRASE", "pässword")
    assert passphrase_from_env() == "pässword".encode()


# --- import --------------------------------------------------------------------------


def test_import_of_pbem_written_key(tmp_path, store):
    identity = Identity.generate("ivy")
    source = tmp_path / "id_ed25519"
    source.write_bytes(identity.to_openssh_private(b"pw"))
    (tmp_path / "id_ed25519.pub").write_text(identity.public.openssh() + "\n")
    imported = store.import_key(source, b"pw")
    assert imported.public == identity.public
    assert imported.name == "ivy"
    assert is_encrypted(store.identity_path.read_bytes())
    assert store.load(lambda: b"pw").public == identity.public


def test_import_missing_file(tmp_path, store):
    with pytest.raises(IdentityError, match="cannot read key file"):
        store.import_key(tmp_path / "nope", None)
    assert not store.exists()


def test_import_refuses_to_overwrite(tmp_path, store):
    store.create("jo", None)
    source = tmp_path / "k"
    source.write_bytes(Identity.generate("x").to_openssh_private(None))
    with pytest.raises(UsageError, match="already exists"):
        store.import_key(source, None)


def _ssh_keygen(tmp_path, passphrase: str) -> tuple:
    key = tmp_path / "id_ed25519"
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", "ed25519", "-N", passphrase, "-C", "kim@host", "-f", str(key)],
        check=True,
        capture_output=True,
    )
    return key, (tmp_path / "id_ed25519.pub").read_text().strip()


@needs_ssh_keygen
def test_import_ssh_keygen_key_unencrypted(tmp_path, store):
    key, pub_line = _ssh_keygen(tmp_path, "")
    imported = store.import_key(key, None)
    assert imported.public.openssh() == pub_line
    assert not is_encrypted(store.identity_path.read_bytes())
    assert store.load(never).public.openssh() == pub_line


@needs_ssh_keygen
def test_import_ssh_keygen_key_with_passphrase(tmp_path, store):
    key, pub_line = _ssh_keygen(tmp_path, "secretpw")
    with pytest.raises(IdentityError, match="wrong passphrase"):
        store.import_key(key, b"nope")
    assert not store.exists()
    imported = store.import_key(key, b"secretpw")
    assert imported.public.openssh() == pub_line
    assert is_encrypted(store.identity_path.read_bytes())
    assert store.load(lambda: b"secretpw").public.openssh() == pub_line


def test_load_or_create_makes_one_identity_and_then_keeps_it(store):
    first = store.load_or_create("pbem house")
    again = store.load_or_create("another name")
    assert first.public.fingerprint == again.public.fingerprint
    assert again.name == "pbem house"


def test_every_file_a_player_keeps_in_the_keystore_is_private(started, tmp_path):
    """Issue 18: after a game's usual commands (new, join, receive, play,
    show, orders, mail, status), every file under PBEM_HOME is 0600 and every
    directory 0700 -- the keys, the joined and places records, the kept
    views and checkpoints, the parsed-data cache."""
    import stat

    from conftest import exchange

    ann, bob = started
    exchange(ann, bob, tmp_path, '[[order]]\ntype = "roll"\ndice = "2d6"\n[[order]]\ntype = "seal"\nslot = "x"\ntext = "y"\n')
    for player in (ann, bob):
        for args in (("show", player.game), ("orders", player.game), ("status",), ("log", player.game)):
            assert player.run(*args).exit_code == 0
    assert bob.run("mail", bob.game, "--to", "ann@example.org", "--message", "1").exit_code == 0
    loose = []
    for player in (ann, bob):
        assert (player.home / "joined").exists() or (player.home / "places").exists()
        for path in [player.home, *player.home.rglob("*")]:
            mode = stat.S_IMODE(path.stat().st_mode)
            if mode != (0o700 if path.is_dir() else 0o600):
                loose.append(f"{oct(mode)} {path.relative_to(tmp_path)}")
    assert loose == []


def test_an_empty_passphrase_in_the_environment_never_stores_a_key_unencrypted(tmp_path):
    """Issue 27: PBEM_PASSPHRASE="" stored the new key unencrypted, though
    nobody asked for that (--no-passphrase does): refused, nothing written."""
    from click.testing import CliRunner

    from pbem.cli import main

    home = tmp_path / "home"
    r = CliRunner().invoke(main, ["key", "new", "--name", "Ann"], env={"PBEM_HOME": str(home), "PBEM_PASSPHRASE": ""})
    assert r.exit_code == 2
    assert "PBEM_PASSPHRASE is set but empty: pbem will not store your key unencrypted unless you ask" in r.output
    assert not (home / "identity").exists()
    r = CliRunner().invoke(main, ["key", "new", "--name", "Ann", "--no-passphrase"],
                           env={"PBEM_HOME": str(home), "PBEM_PASSPHRASE": ""})
    assert r.exit_code == 0 and "NOT encrypted" in r.output


def test_key_where_names_the_keystore_and_the_files_kept_there(tmp_path):
    """Issue 30: `pbem key where` says where mail.toml and the rest live
    (PBEM_HOME when set), as text and as JSON."""
    import json

    from click.testing import CliRunner

    from pbem.cli import main

    runner = CliRunner()
    env = {"PBEM_HOME": str(tmp_path / "home")}
    out = runner.invoke(main, ["key", "where", "--json"], env=env)
    assert out.exit_code == 0, out.output
    paths = json.loads(out.output)
    assert paths["keystore"] == str(tmp_path / "home") and paths["mail"] == str(tmp_path / "home" / "mail.toml")
    text = runner.invoke(main, ["key", "where"], env=env).output
    assert f"mail:        {tmp_path / 'home' / 'mail.toml'}" in text
