"""Solo Ambon at the terminal (--both), driven by scripted input."""

from __future__ import annotations

import json

from pbem.games.ambon import setup


def test_solo_ambon_plays_setup_and_the_landings_then_resumes(players, tmp_path):
    me, _ = players
    where = tmp_path / "solo"
    script = "\n".join([
        "setup historical",      # Allied setup (message 1): the house seals the identities
        "",
        "y",                     # send this message? [Y/n]
        "setup historical",      # Japanese setup (message 2)
        "land fw-liang",
        "land fw-laha",
        "attack 1609 with 3.A",  # refused: not the combat phase, and no such unit there
        "",
        "y",
        "quit",                  # (Allied message 3 decides nothing: the house's reveals, sent by itself)
    ]) + "\n"
    r = me.run("solo", "ambon", "--dir", where, "--both", input=script)
    assert r.exit_code == 0, r.output
    assert "not accepted" in r.output
    assert "attempt a landing from fw-laha on 0713" in r.output
    assert "is revealed" in r.output  # the house answered the reveals
    assert "message 0003 (allied): nothing for you to decide" in r.output
    files = sorted((where / "game" / "mine").glob("*.pbem"))
    assert [f.name[:4] for f in files] == ["0000", "0001", "0002", "0003"]
    # the player's view never shows an unrevealed identity
    view = json.loads(me.run("show", where / "game" / "mine", "--json").output)["view"]
    hidden = [u for u in view["units"] if u.get("type") == "concealed"]
    assert hidden and all("identity" not in u for u in hidden)
    # 4.1: the house sealed its own draw (keyed by its per-game secret), never the scenario file's example
    from pbem.games.ambon.solo import Solo
    from pbem.match import session

    solo = Solo(where, None, ask=input, say=print, show=print)
    house = session.load(where / "game" / "house", solo.house)
    drawn = solo.house_identities(house.transcript.game)
    assert {slot: house.player.store[slot] for slot in drawn} == drawn
    # resume: the same command carries on from the files
    r = me.run("solo", "ambon", "--dir", where, input="\ny\nquit\n")
    assert r.exit_code == 0, r.output
    assert me.run("verify", where / "game" / "mine").exit_code == 0


def test_house_identities_are_a_fair_4_4_and_5_3(players, tmp_path):
    from pbem.protocol.keys import Identity
    from pbem.games.ambon.solo import Solo

    solo = Solo(tmp_path, Identity.from_seed(bytes(32)), ask=input, say=print, show=print)
    identities = solo.house_identities("ab" * 16)
    assert sorted(identities[s] for s in setup.CONCEALED).count("dummy") == 4
    assert sorted(identities[s] for s in setup.MINES).count("real") == 5
    assert solo.house_identities("ab" * 16) == identities  # fixed by the house's secret
    assert any(solo.house_identities(f"{i:032x}") != identities for i in range(5))
