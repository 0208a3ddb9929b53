"""Playing with the printed game's data (rules as data): install a data set, pin
it in message 0, find it by hash in every later command, and refuse, with the
way out, a game whose data this pbem does not have."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import last_line
from pbem.errors import DataError, UsageError
from pbem.match import datasets

SHIPPED = Path(datasets.__file__).parent.parent / "games" / "calumpit" / "data"


@pytest.fixture
def printed(tmp_path) -> Path:
    """A copy of the Calumpit data with one file changed, as an owner's printed values would be."""
    path = tmp_path / "printed"
    shutil.copytree(SHIPPED, path)
    with (path / "tables.toml").open("a") as handle:
        handle.write("\n# checked against the printed charts\n")
    return path


def test_6_a_data_set_is_checked_and_installed_once(printed, tmp_path):
    home = tmp_path / "home"
    found, new = datasets.install("calumpit", printed, "printed", home=home)
    assert new and found.path == home / "data" / "calumpit" / "printed"
    assert sorted(p.name for p in found.path.iterdir()) == sorted(p.name for p in printed.iterdir())
    assert found.ruleset != datasets.describe_all("calumpit", home)[0].ruleset  # not the shipped hash
    again, new = datasets.install("calumpit", printed, "printed", home=home)
    assert not new and again == found
    other = tmp_path / "second-printing"
    shutil.copytree(printed, other)
    with (other / "tables.toml").open("a") as handle:
        handle.write("# second printing\n")
    with pytest.raises(UsageError, match="already called 'printed'"):
        datasets.install("calumpit", other, "printed", home=home)
    assert [s.name for s in datasets.describe_all("calumpit", home)] == ["shipped", "printed"]


def test_6_a_bad_data_file_is_refused_naming_it_and_nothing_is_installed(printed, tmp_path):
    (printed / "tables.toml").write_text("[tables\n")
    with pytest.raises(DataError, match="tables.toml"):
        datasets.install("calumpit", printed, home=tmp_path / "home")
    assert not (tmp_path / "home" / "data" / "calumpit").exists() or not any((tmp_path / "home" / "data" / "calumpit").iterdir())


def test_6_a_game_without_data_files_cannot_take_any(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.toml").write_text("")
    with pytest.raises(UsageError, match="no data files to override"):
        datasets.install("dice", tmp_path / "d", home=tmp_path / "home")


def test_6_message_0_pins_the_printed_data_and_every_command_finds_it(players, printed, tmp_path):
    a, b = players
    r = a.run("new", a.game, "--game", "calumpit", "--as", "american", "--opponent", b.pub(), "--data", printed)
    assert r.exit_code == 0, r.output
    proposal = last_line(r.output)
    pinned = json.loads(a.run("show", a.game, "--json").output)
    assert pinned["module"] == "calumpit"

    # Bob has only the shipped data: refused, with the way out, and nothing written
    r = b.run("join", proposal, "--dir", b.game)
    assert r.exit_code == 2
    assert "pins calumpit data" in r.output and "pbem data add calumpit DIR" in r.output
    assert not b.game.exists()

    r = b.run("data", "add", "calumpit", printed, "--name", "printed")
    assert r.exit_code == 0 and "installed" in r.output
    r = b.run("join", proposal, "--dir", b.game)
    assert r.exit_code == 0, r.output
    r = a.run("receive", a.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    for p in (a, b):
        assert p.run("show", p.game).exit_code == 0

    # a spectator with neither keystore: needs the files, given with --data
    r = a.run("verify", a.game, PBEM_HOME=str(tmp_path / "nobody"))
    assert r.exit_code == 2 and "pins calumpit data" in r.output
    r = a.run("verify", a.game, "--data", printed, PBEM_HOME=str(tmp_path / "nobody"))
    assert r.exit_code == 0, r.output


def test_6_the_shipped_data_still_plays_beside_installed_sets(players, printed):
    a, b = players
    assert a.run("data", "add", "calumpit", printed).exit_code == 0
    r = a.run("new", a.game, "--game", "calumpit", "--as", "american", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert r.exit_code == 0, r.output  # bob has no installed set: the shipped data is pinned


def test_6_new_names_an_installed_set_and_refuses_an_unknown_one(players, printed):
    a, b = players
    assert a.run("data", "add", "calumpit", printed, "--name", "printed").exit_code == 0
    listing = a.run("data", "list", "calumpit", "--json")
    sets = {s["name"]: s["ruleset"] for s in json.loads(listing.output)["data_sets"]}
    assert set(sets) == {"shipped", "printed"}
    r = a.run("new", a.game, "--game", "calumpit", "--as", "american", "--opponent", b.pub(), "--data", "nonesuch")
    assert r.exit_code == 2 and "nonesuch" in r.output and "printed" in r.output
    r = a.run("new", a.game, "--game", "calumpit", "--as", "american", "--opponent", b.pub(), "--data", "printed")
    assert r.exit_code == 0, r.output
    body = json.loads(a.run("verify", a.game, "--json").output)
    assert body["ok"] is True


def test_6_join_with_data_installs_it_first(players, printed):
    a, b = players
    r = a.run("new", a.game, "--game", "calumpit", "--as", "american", "--opponent", b.pub(), "--data", printed)
    r = b.run("join", last_line(r.output), "--dir", b.game, "--data", printed)
    assert r.exit_code == 0, r.output
    assert [s.name for s in datasets.describe_all("calumpit", b.home)][1:] == [datasets.ruleset_of(datasets.build("calumpit", printed))[:12]]


def test_6_a_directory_that_changes_nothing_or_a_bad_name_is_refused(tmp_path):
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "random.txt").write_text("not data")
    with pytest.raises(UsageError, match="changes nothing of the shipped calumpit data"):
        datasets.install("calumpit", stray, home=tmp_path / "home")
    with pytest.raises(UsageError, match="changes nothing"):
        datasets.install("calumpit", SHIPPED, home=tmp_path / "home")
    assert not (tmp_path / "home" / "data").exists()


def test_6_a_name_must_be_a_plain_word(printed, tmp_path):
    for bad in ("", "a/b", "shipped", "..", "x y"):
        with pytest.raises(UsageError, match="--name"):
            datasets.install("calumpit", printed, bad, home=tmp_path / "home")


def test_6_joining_with_data_that_is_not_the_pinned_data_installs_nothing(players, printed, tmp_path):
    a, b = players
    r = a.run("new", a.game, "--game", "calumpit", "--as", "american", "--opponent", b.pub(), "--data", printed)
    other = tmp_path / "other"
    shutil.copytree(printed, other)
    with (other / "tables.toml").open("a") as handle:
        handle.write("# another printing\n")
    r = b.run("join", last_line(r.output), "--dir", b.game, "--data", other)
    assert r.exit_code == 2 and "not the data your opponent chose (nothing installed)" in r.output
    assert not (b.home / "data").exists() and not b.game.exists()


def test_6_a_data_set_with_a_sub_directory_is_installed_whole(printed, tmp_path):
    """Issue 27 m8: the loader (and the ruleset hash) reads the TOML files of
    sub-directories too; install copied only the top level, so the installed
    set had another hash than the one checked, and new --data failed."""
    (printed / "extra").mkdir()
    (printed / "extra" / "house.toml").write_text("# the house rules of our club\nvalue = 1\n")
    home = tmp_path / "home"
    found, _ = datasets.install("calumpit", printed, "printed", home=home)
    assert (found.path / "extra" / "house.toml").read_bytes() == (printed / "extra" / "house.toml").read_bytes()
    listed = next(s for s in datasets.describe_all("calumpit", home) if s.name == "printed")
    assert listed.ruleset == found.ruleset  # pbem data list shows the hash that was checked
