"""Issue 15: replay checkpoints (pbem.match.checkpoint) -- a command verifies
and applies only the messages since the last one, and a checkpoint is never
trusted over the files: one that does not match, does not open or is gone is
ignored, and the game loads exactly as from the files alone."""

from __future__ import annotations

import os
import stat

import pytest

from pbem.errors import PbemError
from pbem.match import checkpoint, replay as replay_module, session
from pbem.protocol.keystore import Keystore

ROLLS = {"order": [{"type": "roll", "dice": "2d6+1", "note": "fire"}, {"type": "seal", "slot": "plan", "text": "X"}]}


def snapshot(match) -> tuple:
    return (len(match.transcript), match.replay.state, [(s, e.rule, e.text) for s, e in match.replay.events],
            [r.to_json() for r in match.replay.rolls], match.replay.pending)


@pytest.fixture
def game(tmp_path):
    """A dice game of 8 messages between two keystores (rolls and a seal a message)."""
    ann, bob = (Keystore(tmp_path / name).load_or_create(name) for name in ("ann", "bob"))
    a, b = tmp_path / "a", tmp_path / "b"
    first = session.new_game(a, "dice", "first", bob.public, ann)
    path, _ = session.join_game(first, b, bob)
    session.receive(a, [path], ann)
    players = [(a, ann, b, bob), (b, bob, a, ann)]
    for seq in range(2, 8):
        mine, me, theirs, them = players[seq % 2]
        orders = {"order": [dict(ROLLS["order"][0]), {"type": "seal", "slot": f"plan{seq}", "text": f"secret {seq}"}]}
        result = session.play(mine, me, orders)
        session.receive(theirs, [result.path], them)
    return tmp_path, ann, bob


def fresh(directory, identity, monkeypatch) -> object:
    """The game loaded from its files alone."""
    with monkeypatch.context() as m:
        m.setenv(checkpoint.OFF_ENV, "1")
        return session.load(directory, identity)


def restored_from(root, identity, name="ann"):
    """What restoring ``name``'s checkpoint of game directory a gives."""
    files = sorted((root / "a").glob("*.pbem"))
    return checkpoint.Checkpoints(root / name).restore(root / "a", listing(files), identity, session._game_for)


def listing(files):
    """The directory listing's entries of ``files``, as a load passes them to a restore."""
    return [(int(p.name[:4]), p.name[5:-5], p.name, p.stat()) for p in files]


def test_a_command_keeps_a_sealed_checkpoint_in_the_keystore(game):
    root, ann, _ = game
    kept = list((root / "ann" / checkpoint.DIRECTORY).glob("*.bin"))
    assert len(kept) == 1 and stat.S_IMODE(kept[0].stat().st_mode) == 0o600
    data = kept[0].read_bytes()
    assert b"secret 2" not in data and b"secret 3" not in data  # sealed: neither side's notes in clear
    assert not any(p.name.startswith("checkpoint") for p in (root / "a").iterdir())  # never in the game directory


def test_a_load_applies_only_what_is_new_and_matches_a_load_from_the_files(game, monkeypatch):
    root, ann, _ = game
    expected = snapshot(fresh(root / "a", ann, monkeypatch))

    def no_full_replay(*args, **kwargs):
        raise AssertionError("replayed from message 0")

    monkeypatch.setattr(session, "replay", no_full_replay)
    assert snapshot(session.load(root / "a", ann)) == expected


def test_the_checkpoint_covers_a_prefix_and_the_rest_is_verified(game, monkeypatch):
    root, ann, bob = game
    checkpoints = checkpoint.Checkpoints(root / "ann")
    path = checkpoints.path_for(root / "a")
    older = path.read_bytes()
    result = session.play(root / "a", ann, ROLLS)  # message 8: the checkpoint now covers it
    path.write_bytes(older)  # back to a checkpoint of messages 0-7
    session.receive(root / "b", [result.path], bob)
    match = session.load(root / "a", ann)
    assert len(match.transcript) == 9
    assert snapshot(match) == snapshot(fresh(root / "a", ann, monkeypatch))


@pytest.mark.parametrize("damage", ["flipped", "truncated", "another-player", "other-code"])
def test_a_checkpoint_that_does_not_match_or_open_is_ignored(game, monkeypatch, damage):
    root, ann, bob = game
    path = checkpoint.Checkpoints(root / "ann").path_for(root / "a")
    data = path.read_bytes()
    if damage == "flipped":
        path.write_bytes(data[:-20] + bytes([data[-20] ^ 1]) + data[-19:])
    elif damage == "truncated":
        path.write_bytes(data[:100])
    elif damage == "another-player":  # bob's checkpoint of his own copy, put in place of ann's
        path.write_bytes(checkpoint.Checkpoints(root / "bob").path_for(root / "b").read_bytes())
    else:
        monkeypatch.setattr(checkpoint, "code_digest", lambda game: "another pbem")
    assert restored_from(root, ann) is None
    assert snapshot(session.load(root / "a", ann)) == snapshot(fresh(root / "a", ann, monkeypatch))


def test_a_tampered_message_file_is_caught_though_a_checkpoint_covers_it(game):
    """The kept replay is keyed by the stamps of the files it covers: a
    changed file is verified again and refused as it would be without one."""
    root, ann, _ = game
    target = sorted((root / "a").glob("0003-*.pbem"))[0]
    text = target.read_text()
    lines = text.splitlines(keepends=True)
    body = next(i for i, line in enumerate(lines) if line.startswith("-----BEGIN")) + 1  # the signed block
    lines[body] = lines[body][:5] + ("A" if lines[body][5] != "A" else "B") + lines[body][6:]
    target.write_text("".join(lines))
    with pytest.raises(PbemError) as with_checkpoint:
        session.load(root / "a", ann)
    os.environ[checkpoint.OFF_ENV] = "1"
    try:
        with pytest.raises(PbemError) as without:
            session.load(root / "a", ann)
    finally:
        del os.environ[checkpoint.OFF_ENV]
    assert str(with_checkpoint.value) == str(without.value)


def test_a_touched_file_is_a_miss_and_the_game_is_replayed_from_its_files(game, monkeypatch):
    """A message file is never rewritten, so any changed stamp (here only the
    mtime) means the kept replay is not trusted: the load replays from the
    files, gives what they give, and keeps a new replay."""
    root, ann, _ = game
    files = sorted((root / "a").glob("*.pbem"))
    checkpoints = checkpoint.Checkpoints(root / "ann")
    assert checkpoints.restore(root / "a", listing(files), ann, session._game_for) is not None
    os.utime(files[2])
    assert checkpoints.restore(root / "a", listing(files), ann, session._game_for) is None
    assert snapshot(session.load(root / "a", ann)) == snapshot(fresh(root / "a", ann, monkeypatch))
    assert checkpoints.restore(root / "a", listing(files), ann, session._game_for) is not None


def test_deleting_checkpoints_is_safe(game, monkeypatch):
    root, ann, _ = game
    expected = snapshot(fresh(root / "a", ann, monkeypatch))
    import shutil

    shutil.rmtree(root / "ann" / checkpoint.DIRECTORY)
    assert snapshot(session.load(root / "a", ann)) == expected
    assert list((root / "ann" / checkpoint.DIRECTORY).iterdir())  # and the load kept a new one


def test_extend_is_the_same_as_a_whole_replay_at_every_message(game):
    """pbem.match.replay.extend from any prefix gives what replay() gives."""
    root, ann, _ = game
    match = session.load(root / "a", ann)
    whole = replay_module.replay(match.game, match.transcript)
    for cut in range(1, len(match.transcript) + 1):
        prefix = session.build_transcript(match.transcript.messages[:cut])
        part = replay_module.replay(match.game, prefix)
        carried = replay_module.extend(part, match.transcript)
        assert (carried.state, carried.events, carried.rolls, carried.pending) == (
            whole.state, whole.events, whole.rolls, whole.pending)


# --------------------------------------------------------------------------- the history (pbem.engine.history)

from hypothesis import given, settings, strategies as st  # noqa: E402

from pbem.engine.history import History, newest  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["add", "pickle", "truncate"]), st.integers(0, 50)),
                max_size=30))
def test_a_history_is_the_list_it_stands_for_through_pickling_and_truncation(steps):
    import pickle

    history, reference = History(), []
    for n, action, at in steps:
        if action == "add":
            new = [(len(reference) + i, "x") for i in range(n)]
            history += new
            reference += new
        elif action == "pickle":
            history = pickle.loads(pickle.dumps(history))
            assert history._count == len(reference) and not history._tail  # all of it in the older part
        else:
            cut = min(at, len(reference))
            history, reference = history.truncated(cut), reference[:cut]
        assert len(history) == len(reference) and list(history) == reference
        assert history[len(reference) // 2:] == reference[len(reference) // 2:]
        if reference:
            assert history[-1] == reference[-1] and history[0] == reference[0]
        assert newest(history, lambda item: item[0] >= 3) == [i for i in reference if i[0] >= 3]


def test_a_command_on_a_checkpoint_does_not_unpickle_the_old_history(game, monkeypatch):
    """What receive and play read of a restored replay is only what is new:
    of each history at most its last part (the last command's items)."""
    root, ann, bob = game
    loaded = []
    real = History._part

    def counting(self, k):
        loaded.append((k, len(self._parts)))
        return real(self, k)

    monkeypatch.setattr(History, "_part", counting)
    result = session.play(root / "a", ann, ROLLS)
    session.receive(root / "b", [result.path], bob)
    assert all(k == parts - 1 for k, parts in loaded), loaded
    assert "fire" in " ".join(e.text for e in result.events)


# --------------------------------------------------------------------------- what a kept replay holds


def two_more(root, ann, bob):
    """Two more messages, ann's and bob's, each with a roll."""
    fire = {"order": [dict(ROLLS["order"][0])]}
    result = session.play(root / "a", ann, fire)
    session.receive(root / "b", [result.path], bob)
    result = session.play(root / "b", bob, fire)
    session.receive(root / "a", [result.path], ann)


def test_a_kept_replay_is_one_sealed_private_file(game, monkeypatch):
    """One file a game, mode 0600, sealed: no note or sealed text in the
    clear; played on, it goes on matching a load from the files."""
    root, ann, bob = game
    for _ in range(2):
        two_more(root, ann, bob)
    kept = list((root / "ann" / checkpoint.DIRECTORY).iterdir())
    assert len(kept) == 1 and stat.S_IMODE(kept[0].stat().st_mode) == 0o600
    assert b"fire" not in kept[0].read_bytes() and b"secret" not in kept[0].read_bytes()
    assert snapshot(session.load(root / "a", ann)) == snapshot(fresh(root / "a", ann, monkeypatch))


def test_a_restored_transcript_holds_only_its_ends_and_reads_older_messages_from_their_files(game, monkeypatch):
    """The checkpoint keeps the messages' digests, not their bodies (only the
    first two and the last two): an older message is read from its file when
    asked for, and must be the one verified."""
    root, ann, _ = game
    whole = fresh(root / "a", ann, monkeypatch).transcript
    match = session.load(root / "a", ann)
    messages = match.transcript.messages
    assert isinstance(messages, checkpoint.FileMessages)
    assert sorted(messages._at_hand) == [0, 1, len(whole) - 2, len(whole) - 1]
    assert [m.body_bytes for m in messages] == [m.body_bytes for m in whole.messages]
    assert [m.body_bytes for m in messages[3:5]] == [m.body_bytes for m in whole.messages[3:5]]
    target = sorted((root / "a").glob("0004-*.pbem"))[0]
    other = sorted((root / "a").glob("0002-*.pbem"))[0]
    match = session.load(root / "a", ann)
    target.write_bytes(other.read_bytes())  # another (valid) message in its place, after the load
    with pytest.raises(PbemError, match=f"{target.name} changed since it was verified"):
        match.transcript.messages[4]


def test_a_checkpoint_does_not_grow_with_the_old_messages(game):
    """What a command reads and writes of the checkpoint itself stays small:
    the messages are their digests (32 bytes each), the old history in chunk files."""
    root, ann, bob = game
    path = checkpoint.Checkpoints(root / "ann").path_for(root / "a")
    sizes = []
    for _ in range(4):
        two_more(root, ann, bob)
        sizes.append(path.stat().st_size)
    message = max(p.stat().st_size for p in (root / "a").glob("*.pbem"))
    assert max(b - a for a, b in zip(sizes, sizes[1:], strict=False)) < message  # two messages more, less than one message's bytes


def test_a_restored_history_unpickles_only_the_parts_it_reads():
    """A history pickles what was added since it was restored as one more
    part, and reading its last items unpickles only the parts that hold them."""
    import pickle

    history = pickle.loads(pickle.dumps(History(range(10))))
    history += range(10, 13)
    history = pickle.loads(pickle.dumps(history))  # two parts: 10 items, then 3
    assert [size for _, size in history._parts] == [10, 3] and history._loaded == {}
    assert (len(history), history[-1], history[11:]) == (13, 12, [11, 12])
    assert set(history._loaded) == {1}  # the last part only
    cut = history.truncated(11)
    assert cut._parts == history._parts[:1] and cut._tail == [10]  # the first part shared, still pickled
    assert list(cut) == list(range(11))


def test_a_historys_parts_are_kept_compressed_and_read_back_whole():
    """A game's record repeats itself (the same rule names, texts, keys): a
    part is compressed once, when it is made, so a kept replay of a long
    game is a fraction of its pickle; read back, every item is as it was."""
    import pickle

    from pbem.engine.machine import Event

    events = [Event("dice.roll", f"first rolled 2d6+1 for 'fire {i % 4}': {i % 6 + 1} + {i % 5 + 1} + 1",
                    {"label": f"{i // 4}.{i % 4}", "dice": "2d6+1", "values": [[i % 6 + 1, i % 5 + 1]]})
               for i in range(600)]
    kept = pickle.dumps(History(events), protocol=pickle.HIGHEST_PROTOCOL)
    assert len(kept) * 4 < len(pickle.dumps(events, protocol=pickle.HIGHEST_PROTOCOL))
    back = pickle.loads(kept)
    assert [size for _, size in back._parts] == [256, 256, 88]
    assert list(back) == events and back[-1] == events[-1]


@pytest.mark.parametrize("field, a, b", [(2, 0, 2**61 - 1), (3, -1, -2)])  # ino, mtime_ns
def test_stamps_that_collide_under_pythons_hash_are_told_apart(field, a, b):
    """Issue 27 m7: a writer of the game directory who can set a file's
    stamps (mtime by utime; a new inode by replacing the file) must not make
    a changed file pass for the checkpointed one: hash((.., 0, ..)) ==
    hash((.., 2**61 - 1, ..)) and hash(-1) == hash(-2) in CPython, so the
    stamps are compared by a cryptographic digest of every number."""
    from types import SimpleNamespace

    from pbem.match.checkpoint import Stamps

    base = [1234, 64768, 777, 1_700_000_000_000_000_000, 1_700_000_000_000_000_001]
    one, two = list(base), list(base)
    one[field], two[field] = a, b
    assert hash(tuple(one)) == hash(tuple(two))  # the collision the old digest had
    def stat(marks):  # what Stamps reads of an os.stat_result
        return SimpleNamespace(st_size=marks[0], st_dev=marks[1], st_ino=marks[2], st_mtime_ns=marks[3],
                               st_ctime_ns=marks[4])

    first = Stamps(["0002-allied.pbem"], [stat(one)])
    second = Stamps(["0002-allied.pbem"], [stat(two)])
    assert first.packed != second.packed
    assert first.hexdigest() != second.hexdigest()
