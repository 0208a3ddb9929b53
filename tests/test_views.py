"""Hidden information leaves only through the view function ():
each side, and a spectator, sees only what it may."""

from __future__ import annotations

import json

from pbem.match import session

SECRET = "ambush from the orchard at dawn"


def test_sealed_note_reaches_only_its_owner_view(tmp_path, ann, bob):
    da, db = tmp_path / "a", tmp_path / "b"
    m0 = session.new_game(da, "dice", "first", bob.public, ann)
    m1, _ = session.join_game(m0, db, bob)
    session.receive(da, [m1], ann)
    m2 = session.play(da, ann, {"order": [{"type": "seal", "slot": "plan", "text": SECRET}]}).path
    session.receive(db, [m2], bob)
    mine = session.load(da, ann)
    theirs = session.load(db, bob)
    spectator = session.load(db)  # no key: anyone with the files
    assert SECRET in json.dumps(mine.view())
    for match in (theirs, spectator):
        assert SECRET not in json.dumps(match.view())
        assert [n.get("value") for n in match.view()["notes"]] == [None]
    assert SECRET not in json.dumps(mine.game.view(mine.replay.state, "second", mine.player.store))
    assert SECRET not in json.dumps(mine.game.view(mine.replay.state, None, mine.player.store))
    # and not a byte of it in any file the opponent holds
    for path in db.iterdir():
        assert SECRET.encode() not in path.read_bytes()
