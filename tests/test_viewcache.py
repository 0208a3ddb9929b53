"""`pbem show` keeps the views it drew (testing, issue 9: start-up within
1.5x), without ever showing something a full replay would not.

Each test checks the cache through the command line: a second ``show``
gives the same text as ``show --fresh`` and does not replay (``session.load``
is made to fail), and each thing a view depends on -- the messages, the
console, the code, the key -- makes it replay when it changes.
"""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest

from conftest import Player, exchange, last_line
from demo_games import ambon_game
from pbem.match import session, viewcache

SEAL = '[[order]]\ntype = "seal"\nslot = "plan"\ntext = "the real attack goes in at dawn"\n'


@pytest.fixture
def loads(monkeypatch):
    """Count the full loads (verify + replay) that ``show`` makes."""
    calls: list[str] = []
    real = session.load

    def counting(directory, identity=None, **options):
        calls.append(str(directory))
        return real(directory, identity, **options)

    monkeypatch.setattr(session, "load", counting)
    return calls


def views_file(player: Player) -> Path:
    (path,) = (player.home / "views").glob("*.json")
    return path


def show(player: Player, *args: str, **env: str) -> str:
    r = player.run("show", player.game, *args, **env)
    assert r.exit_code == 0, r.output
    return r.output


def test_7_show_again_gives_the_same_text_without_a_replay(started, loads):
    a, _ = started
    for mode in ((), ("--json",)):
        first = show(a, *mode)
        assert len(loads) == 1
        again = show(a, *mode)
        assert again == first and len(loads) == 1, "the second show replayed"
        assert show(a, *mode, "--fresh") == first and len(loads) == 2
        loads.clear()


def test_7_a_new_message_is_a_new_view(started, loads, tmp_path):
    a, b = started
    before = show(a, "--json")
    exchange(a, b, tmp_path, SEAL)  # play and receive load the game too
    loads.clear()
    after = show(a, "--json")
    assert len(loads) == 1 and after != before
    assert json.loads(after)["messages"] == json.loads(before)["messages"] + 1
    show(a, "--json")
    assert len(loads) == 1


def test_7_each_console_has_its_own_view(started, loads):
    a, _ = started
    wide, narrow = show(a, COLUMNS="200"), show(a, COLUMNS="60")
    assert len(loads) == 2
    assert show(a, COLUMNS="200") == wide and show(a, COLUMNS="60") == narrow and len(loads) == 2
    entries = json.loads(views_file(a).read_text())["entries"]
    assert sorted(e["console"]["env"]["COLUMNS"] for e in entries) == ["200", "60"]


def test_7_changed_code_or_data_is_a_miss(started, loads):
    a, _ = started
    show(a)
    path = views_file(a)
    data = json.loads(path.read_text())
    module = next(p for p in data["code"] if p.endswith(str(Path("pbem", "render", "console.py"))))
    data["code"][module][1] += 1  # as if the file had been edited since
    path.write_text(json.dumps(data))
    show(a)
    assert len(loads) == 2
    show(a)
    assert len(loads) == 2  # the replay stored the view again, with the real stamps


def test_7_the_code_stamps_cover_the_modules_and_the_game_data():
    from pbem.games import get

    game = get("ambon")
    code = viewcache.code_files(game)
    names = {Path(p).name for p in code}
    assert {"viewcache.py", "game.py", "map.toml"} <= names, sorted(names)[:20]
    assert all(len(stamp) == 2 and stamp[0] >= 0 for stamp in code.values())


def test_7_views_live_in_the_keystore_never_in_the_game_directory(started):
    a, _ = started
    files_before = sorted(p.name for p in a.game.iterdir())
    show(a)
    assert sorted(p.name for p in a.game.iterdir()) == files_before
    path = views_file(a)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_7_each_player_has_their_own_views(started, loads):
    a, b = started
    view_a, view_b = show(a), show(b)
    assert view_a != view_b and len(loads) == 2
    assert (show(a), show(b)) == (view_a, view_b) and len(loads) == 2
    assert views_file(a) != views_file(b)


def test_7_a_damaged_or_forged_entry_is_ignored(started, loads):
    a, _ = started
    honest = show(a)
    path = views_file(a)
    data = json.loads(path.read_text())
    data["entries"][0]["text"] = honest.replace("first", "FORGED")
    path.write_text(json.dumps(data))
    assert show(a) == honest and len(loads) == 2  # the checksum did not match: replayed
    path.write_text("{not json")
    assert show(a) == honest and len(loads) == 3
    assert show(a) == honest and len(loads) == 3


def test_7_a_keystore_that_cannot_keep_views_still_shows(started, loads):
    a, _ = started
    (a.home / "views").write_text("not a directory")
    assert show(a) == show(a, "--fresh")
    assert len(loads) == 2 and (a.home / "views").is_file()


def test_7_files_that_change_while_drawing_are_not_kept(started, tmp_path):
    a, b = started
    owner = viewcache.Owner.of(a.home)
    digest = viewcache.files_digest(a.game)
    exchange(a, b, tmp_path)  # a message is written after the digest was taken
    from pbem.games import get

    kept = viewcache.store(a.game, owner, digest, "board", viewcache.console_inputs(), get("dice"), "stale", None)
    assert kept is False and not (a.home / "views").exists()


@pytest.fixture
def locked(tmp_path):
    """A dice game between two players whose keys have passphrases."""
    a = Player("ann", tmp_path / "home-ann", tmp_path / "ann", passphrase="ann's pass")
    b = Player("bob", tmp_path / "home-bob", tmp_path / "bob", passphrase="bob's pass")
    for p in (a, b):
        assert p.run("key", "new", "--name", p.name).exit_code == 0
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    exchange(a, b, tmp_path, SEAL)
    return a, b


def test_7_with_a_passphrase_views_are_sealed_under_the_key(locked, loads):
    a, _ = locked
    first = show(a, "--json")
    assert "the real attack goes in at dawn" in first
    text = views_file(a).read_text()
    assert "dawn" not in text and '"sealed"' in text
    assert show(a, "--json") == first and len(loads) == 1
    wrong = a.run("show", a.game, PBEM_PASSPHRASE="not it")
    assert wrong.exit_code == 2 and "passphrase" in wrong.output.lower()


def test_7_a_tampered_sealed_view_is_ignored(locked, loads):
    a, _ = locked
    honest = show(a)
    path = views_file(a)
    data = json.loads(path.read_text())
    sealed = data["entries"][0]["sealed"]
    data["entries"][0]["sealed"] = ("A" if sealed[0] != "A" else "B") + sealed[1:]
    path.write_text(json.dumps(data))
    assert show(a) == honest and len(loads) == 2


def test_7_the_ambon_board_from_the_cache_is_the_board_drawn(tmp_path_factory, tmp_path, loads):
    game = ambon_game(tmp_path_factory)
    home = tmp_path / "keystore"
    shutil.copytree(game.root / "jack" / "keystore", home)
    jack = Player("jack", home, game.dirs["jack"])
    loads.clear()  # playing the demo loaded the game many times
    drawn = show(jack, "--fresh", COLUMNS="120")
    assert "Order of battle" in drawn
    assert show(jack, COLUMNS="120") == drawn and len(loads) == 1


def test_7_a_kept_view_needs_neither_rich_nor_the_game_nor_cryptography(started):
    """The point of the cache (testing): the second ``show`` imports only click
    and pbem's small modules; the first, as a control, imports all three."""
    import os
    import subprocess
    import sys

    a, _ = started
    probe = (
        "import sys\n"
        "from pbem.cli import main\n"
        "try:\n"
        "    main(['show', sys.argv[1]], standalone_mode=False)\n"
        "finally:\n"
        "    heavy = {m.split('.')[0] for m in sys.modules if m.split('.')[0] in ('rich', 'cryptography')}\n"
        "    heavy |= {m for m in sys.modules if m.startswith('pbem.games.') or m == 'pbem.cli.everyday'}\n"
        "    print('HEAVY', sorted(heavy), file=sys.stderr)\n"
    )
    env = {**os.environ, "PBEM_HOME": str(a.home), "COLUMNS": "100"}
    runs = [subprocess.run([sys.executable, "-c", probe, str(a.game)], env=env, capture_output=True, text=True)
            for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    first, second = (r.stderr.split("HEAVY ")[-1].strip() for r in runs)
    assert "rich" in first and "cryptography" in first and "pbem.games.dice" in first
    assert second == "[]", second
    assert runs[0].stdout == runs[1].stdout and "first" in runs[1].stdout


def test_7_receive_and_play_at_a_terminal_keep_the_view_the_next_show_prints(started, tmp_path, loads, monkeypatch):
    """The show that follows a receive at a terminal is the kept one: no replay."""
    import pbem.cli

    a, b = started
    monkeypatch.setattr(pbem.cli, "interactive_output", lambda: True)
    sent = tmp_path / "roll.toml"
    sent.write_text('[[order]]\ntype = "roll"\ndice = "2d6"\n')
    r = a.run("play", a.game, "--orders", sent)
    assert r.exit_code == 0, r.output
    r = b.run("receive", b.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    loads.clear()
    shown = show(b)
    assert loads == [], "the show after receive replayed"
    assert shown == show(b, "--fresh") and "first" in shown
