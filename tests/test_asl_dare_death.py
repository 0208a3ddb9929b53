"""Dare-Death designations (8.5.2): the quota, one sealed slot per eligible
squad, the count checked at designation (check_seals) and at audit, the
reveal a Berserk order makes due, and what each side may see."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.engine.machine import MessageEnd, Opened, Ordered, RevealDue, Sealed
from pbem.errors import HiddenInfoError, IllegalOrderError, InputError
from pbem.games.asl import GAME, dare_death
from pbem.match.replay import apply_message

ROSTER = {"A": "3-3-7", "B": "3-3-7", "C": "3-3-7", "D": "3-3-7", "E": "4-4-7", "F": "3-3-7", "G": "3-3-7",
          "H": "3-3-7", "I": "3-3-6", "K": "3-3-6", "M": "4-4-7", "L": "5-3-7", "N": "5-3-7"}
CHINESE = GAME.data.nationality("chinese")
EXAMPLES = Path(__file__).parent.parent / "examples" / "asl"


def setup_orders(chosen=("A", "C"), roster=ROSTER, nationality="chinese"):
    return {"order": [{"type": "setup", "nationality": nationality, "squads": dict(roster), "dare_death": list(chosen)}]}


def message(state, side, seq, parsed, reveals=()):
    """Apply one message's actions as the match layer does (seals, reveals, orders, end)."""
    actions = [Sealed(side, slot, seq) for slot in sorted(parsed.seals)]
    actions += [Opened(side, slot, value, seq) for slot, value in reveals]
    actions += [Ordered(side, seq, i, dict(o)) for i, o in enumerate(parsed.public)]
    actions.append(MessageEnd(side, seq))
    state, _ = apply_message(GAME, state, actions, seq, side)
    return state


def set_up(chosen=("A", "C")):
    parsed = GAME.parse_orders(setup_orders(chosen), "allied")
    state = message(GAME.initial_state({}), "axis", 0, GAME.parse_orders({}, "axis"))
    return message(state, "allied", 1, parsed), parsed


@pytest.mark.parametrize("eligible, expected", [(0, 0), (1, 1), (9, 1), (10, 1), (11, 2), (31, 4), (40, 4), (41, 5)])
def test_8_5_2_quota_is_10_percent_rounded_up(eligible, expected):
    assert dare_death.quota(eligible) == expected


def test_8_5_2_only_non_5_3_7_squads_are_eligible():
    assert dare_death.eligible(CHINESE, ROSTER) == ["A", "B", "C", "D", "E", "F", "G", "H", "I", "K", "M"]
    assert dare_death.eligible(CHINESE, {"X": "1-2-7", "Y": "8-0", "Z": "5²-3-7"}) == []


def test_8_5_2_sealed_values_have_equal_length():
    assert len(dare_death.sealed_value(True)) == len(dare_death.sealed_value(False)) == dare_death.WIDTH
    assert dare_death.read_value(dare_death.sealed_value(True)) is True
    assert dare_death.read_value(dare_death.sealed_value(False)) is False
    for bad in ("regular", "Dare-Death", "yes", ""):
        with pytest.raises(InputError):
            dare_death.read_value(bad)


def test_8_5_2_setup_seals_one_slot_per_eligible_squad():
    parsed = GAME.parse_orders(setup_orders(), "allied")
    assert sorted(parsed.seals) == [f"dd-{s}" for s in "ABCDEFGHIKM"]
    assert {s for s, v in parsed.seals.items() if v.strip() == "dare-death"} == {"dd-A", "dd-C"}
    assert parsed.public == ({"type": "setup", "nationality": "chinese", "squads": ROSTER},)
    assert "dare_death" not in str(parsed.public)


@pytest.mark.parametrize("orders, error, text", [
    (setup_orders(("A", "Q")), InputError, "'Q', which is not among the squads declared"),
    (setup_orders(("A", "L")), IllegalOrderError, "8.5.2: L is a 5-3-7: only non-5-3-7 squads"),
    (setup_orders(("A",), {"A": "4-4-8"}), InputError, "not a Chinese squad"),
    (setup_orders(("A",), {"A": "3-3-7"}, "japanese"), IllegalOrderError, "a Japanese side designates none"),
    (setup_orders(("A", "A")), InputError, "names a squad twice"),
])
def test_8_5_2_setup_errors(orders, error, text):
    with pytest.raises(error, match=text):
        GAME.parse_orders(orders, "allied")


@pytest.mark.parametrize("chosen, ok", [(("A", "C"), True), ((), True), (("A",), False), (("A", "C", "D"), False)])
def test_8_5_2_count_checked_at_designation(chosen, ok):
    parsed = GAME.parse_orders(setup_orders(chosen), "allied")
    problems = GAME.check_seals(GAME.initial_state({}), "allied", parsed.seals)
    if ok:
        assert problems == []
    else:
        assert problems == [f"8.5.2: {len(chosen)} Dare-Death Squads designated among 11 eligible (non-5-3-7) squads; "
                            f"10% rounded up is 2 (or none, if the rule is not used)"]


def test_8_5_2_count_checked_at_audit():
    state, parsed = set_up()
    assert GAME.audit(state, {"allied": dict(parsed.seals), "axis": {}}) == []
    three = {**parsed.seals, "dd-D": dare_death.sealed_value(True)}
    assert GAME.audit(state, {"allied": three, "axis": {}}) == [
        "allied: 8.5.2: 3 Dare-Death Squads designated among 11 eligible (non-5-3-7) squads; "
        "10% rounded up is 2 (or none, if the rule is not used)"]
    missing = {k: v for k, v in parsed.seals.items() if k != "dd-M"}
    assert "allied: 8.5.2: no sealed designation for dd-M" in GAME.audit(state, {"allied": missing, "axis": {}})
    garbled = {**parsed.seals, "dd-B": "yes"}
    assert any("is not a Dare-Death designation" in p for p in GAME.audit(state, {"allied": garbled}))


def test_8_5_2_every_eligible_squad_needs_its_slot_in_the_setup_message():
    parsed = GAME.parse_orders(setup_orders(), "allied")
    short = type(parsed)(public=parsed.public, seals={k: v for k, v in parsed.seals.items() if k != "dd-M"})
    state = message(GAME.initial_state({}), "axis", 0, GAME.parse_orders({}, "axis"))
    with pytest.raises(IllegalOrderError, match="8.5.2: one designation must be sealed per eligible squad: no designation sealed for dd-M"):
        message(state, "allied", 1, short)


def test_8_5_2_designations_only_during_setup():
    state, _ = set_up()
    state = message(state, "axis", 2, GAME.parse_orders({}, "axis"))
    late = type(GAME.parse_orders({}, "allied"))(seals={"dd-Z": dare_death.sealed_value(True)})
    with pytest.raises(IllegalOrderError, match='8.5.2: Dare-Death designations are sealed only with the setup'):
        message(state, "allied", 3, late)
    with pytest.raises(InputError, match="hold Dare-Death designations"):
        GAME.parse_orders({"order": [{"type": "seal", "slot": "dd-Z", "text": "dare-death"}]}, "allied")


BERSERK = {
    "position": {
        "los": [["Z0", "X2"]],
        "unit": [
            {"id": "A", "type": "3-3-7", "hex": "Z0"},
            {"id": "B", "type": "3-3-7", "hex": "Z0"},
            {"id": "L", "type": "5-3-7", "hex": "Z0"},
            {"id": "8-0", "type": "8-0", "hex": "Z0"},
            {"id": "J", "type": "4-4-8", "hex": "X2", "enemy": True},
        ],
        "mf": [{"from": "Z0", "to": "X2", "mf": 3}],
    },
}


def berserk_orders(unit: str) -> dict:
    return {**BERSERK, "order": [{"type": "berserk", "units": [unit], "target": "J"}]}


def test_8_5_2_going_berserk_makes_the_designation_due():
    state, parsed = set_up()
    state = message(state, "axis", 2, GAME.parse_orders({}, "axis"))
    orders = GAME.parse_orders(berserk_orders("A"), "allied")
    after, _ = GAME.apply(state, Ordered("allied", 3, 0, dict(orders.public[0])))
    assert GAME.awaiting(after) == (RevealDue("allied", "dd-A", "8.5.2"),)
    with pytest.raises(HiddenInfoError, match="allied owed the reveal of dd-A"):
        message(state, "allied", 3, orders)
    done = message(state, "allied", 3, orders, reveals=[("dd-A", parsed.seals["dd-A"])])
    assert [d.units for d in done.declared] == [("A",)]


def test_8_5_2_two_berserk_orders_in_one_message():
    """A and C (both Dare-Death) go Berserk by two orders of one message: the
    second order rechecks the first's squad with its revealed designation."""
    state, parsed = set_up()
    state = message(state, "axis", 2, GAME.parse_orders({}, "axis"))
    doc = {"position": {**BERSERK["position"], "unit": BERSERK["position"]["unit"] + [
        {"id": "C", "type": "3-3-7", "hex": "Z0"}]},
        "order": [{"type": "berserk", "units": ["A"], "target": "J"}, {"type": "berserk", "units": ["C"], "target": "J"}]}
    orders = GAME.parse_orders(doc, "allied")
    done = message(state, "allied", 3, orders, reveals=[("dd-A", parsed.seals["dd-A"]), ("dd-C", parsed.seals["dd-C"])])
    assert [d.units for d in done.declared] == [("A",), ("C",)]


def test_8_5_2_a_regular_squad_revealed_cannot_go_berserk():
    state, parsed = set_up()
    state = message(state, "axis", 2, GAME.parse_orders({}, "axis"))
    orders = GAME.parse_orders(berserk_orders("B"), "allied")
    with pytest.raises(IllegalOrderError, match="8.5.2: B is not a Dare-Death Squad"):
        message(state, "allied", 3, orders, reveals=[("dd-B", parsed.seals["dd-B"])])


def test_8_5_2_a_5_3_7_never_goes_berserk_and_owes_no_reveal():
    state, _ = set_up()
    orders = GAME.parse_orders(berserk_orders("L"), "allied")
    with pytest.raises(IllegalOrderError, match="L is not a Dare-Death Squad"):
        GAME.apply(state, Ordered("allied", 3, 0, dict(orders.public[0])))


def test_8_5_2_berserk_needs_a_declared_squad_and_the_setup():
    state, _ = set_up()
    orders = GAME.parse_orders(berserk_orders("A"), "allied")
    order = dict(orders.public[0])
    order["position"] = {**order["position"], "unit": [dict(u, squad="Q") if u["id"] == "A" else u for u in order["position"]["unit"]]}
    with pytest.raises(IllegalOrderError, match="squad 'Q' was not declared at setup"):
        GAME.apply(state, Ordered("allied", 3, 0, order))
    with pytest.raises(IllegalOrderError, match="asl.setup: allied must set up"):
        GAME.apply(GAME.initial_state({}), Ordered("allied", 1, 0, dict(orders.public[0])))
    with pytest.raises(InputError, match="dare_death is not part of a position in a game"):
        GAME.parse_orders({**berserk_orders("A"), "position": {**BERSERK["position"], "unit": [
            dict(u, dare_death=True) for u in BERSERK["position"]["unit"]]}}, "allied")


@pytest.mark.parametrize("hs, ok", [("2-3-7", False), ("1-2-7", True)])
def test_8_5_2_a_surviving_hs_of_the_wrong_type_may_not_go_berserk(hs, ok):
    """8.5.2 "(or its surviving HS)": squad A was declared a 3-3-7 at setup,
    whose HS is the 1-2-7."""
    state, parsed = set_up()
    doc = berserk_orders("A")
    doc["position"] = {**doc["position"], "unit": [dict(u, type=hs) if u["id"] == "A" else u
                                                   for u in doc["position"]["unit"]]}
    orders = GAME.parse_orders(doc, "allied")
    if ok:
        done = message(state, "allied", 3, orders, reveals=[("dd-A", parsed.seals["dd-A"])])
        assert [d.units for d in done.declared] == [("A",)]
    else:
        with pytest.raises(IllegalOrderError, match="8.5.2: A \\(2-3-7 in Z0\\) is not the surviving HS of squad A: "
                                                    "a 3-3-7's HS is a 1-2-7"):
            message(state, "allied", 3, orders, reveals=[("dd-A", parsed.seals["dd-A"])])


def test_8_5_2_malformed_reveal_is_refused():
    state, _ = set_up()
    with pytest.raises(IllegalOrderError, match="8.5.2: the designation of A: 'yes' is not a Dare-Death designation"):
        GAME.apply(state, Opened("allied", "dd-A", "yes", 2))


def test_views_designations_for_each_side_and_a_spectator():
    state, parsed = set_up()
    secrets = dict(parsed.seals)
    own = GAME.view(state, "allied", secrets)["sides"]["allied"]["squads"]
    assert [s["id"] for s in own if s.get("dare_death") is True] == ["A", "C"]
    for who in ("axis", None):
        seen = GAME.view(state, who, secrets if who else None)["sides"]["allied"]["squads"]
        assert {s.get("dare_death") for s in seen if s["eligible"]} == {"sealed"}
        assert "dare-death" not in str(GAME.view(state, who))
    state, _ = GAME.apply(state, Opened("allied", "dd-C", parsed.seals["dd-C"], 4))
    seen = {s["id"]: s for s in GAME.view(state, None)["sides"]["allied"]["squads"]}
    assert seen["C"]["dare_death"] is True and seen["C"]["revealed_in"] == 4 and seen["A"]["dare_death"] == "sealed"


# --------------------------------------------------------------------------- voluntary reveal (8.5.2)
#
# 8.5.2: "Dare-Death MMC enter into and resolve Hand-to-Hand CC as if they were
# Japanese (8.1.8.4). In addition, each non-Hand-to-Hand CC attack against
# Infantry in which an unpinned Dare-Death MMC participates receives an extra
# -1 DRM" -- Berserk or not.  The owner claims it with a `dare-death` order,
# which makes the squad's reveal due in the same message.


def claim(squad: str, purpose: str | None = "CC in X2: -1 DRM") -> dict:
    order = {"type": "dare-death", "squad": squad}
    if purpose is not None:
        order["purpose"] = purpose
    return {"order": [order]}


def message_events(state, side, seq, parsed, reveals=()):
    actions = [Opened(side, slot, value, seq) for slot, value in reveals]
    actions += [Ordered(side, seq, i, dict(o)) for i, o in enumerate(parsed.public)]
    actions.append(MessageEnd(side, seq))
    return apply_message(GAME, state, actions, seq, side)


def set_up_and_reply(chosen=("A", "C")):
    state, parsed = set_up(chosen)
    return message(state, "axis", 2, GAME.parse_orders({}, "axis")), parsed


def test_8_5_2_dare_death_order_is_public_and_seals_nothing():
    parsed = GAME.parse_orders(claim("C"), "allied")
    assert parsed.public == ({"type": "dare-death", "squad": "C", "purpose": "CC in X2: -1 DRM"},)
    assert parsed.seals == {} and parsed.reveals == ()
    assert GAME.parse_orders(claim("C", None), "allied").public == ({"type": "dare-death", "squad": "C", "purpose": ""},)


@pytest.mark.parametrize("order, text", [
    ({"type": "dare-death"}, "missing field 'squad'"),
    ({"type": "dare-death", "squad": ""}, "field 'squad' must be a non-empty string"),
    ({"type": "dare-death", "squad": "C", "slot": "dd-C"}, "unknown field 'slot'"),
])
def test_8_5_2_dare_death_order_errors_name_the_field(order, text):
    with pytest.raises(InputError, match=text):
        GAME.parse_orders({"order": [order]}, "allied")


def test_8_5_2_owner_reveals_a_designation_voluntarily_and_the_value_shows():
    """C never went Berserk; its owner claims the Dare-Death CC benefit: the
    order makes dd-C due, a message without the reveal is refused, and the
    reveal shows the sealed value."""
    state, setup = set_up_and_reply()
    parsed = GAME.parse_orders(claim("C"), "allied")
    after, events = GAME.apply(state, Ordered("allied", 3, 0, dict(parsed.public[0])))
    assert GAME.awaiting(after) == (RevealDue("allied", "dd-C", "8.5.2"),)
    assert events[0].text == ("allied claims squad C's Dare-Death designation (8.5.2) for 'CC in X2: -1 DRM'; "
                              "the sealed value is revealed in this message")
    with pytest.raises(HiddenInfoError, match="allied owed the reveal of dd-C"):
        message_events(state, "allied", 3, parsed)
    done, events = message_events(state, "allied", 3, parsed, reveals=[("dd-C", setup.seals["dd-C"])])
    texts = [e.text for e in events]
    assert texts[0] == ("allied reveals squad C's designation (sealed in message 0001): 'dare-death' -- "
                        "a Dare-Death Squad")
    assert texts[1].startswith("allied claims squad C's Dare-Death designation (8.5.2) for 'CC in X2: -1 DRM': "
                               "the sealed value is 'dare-death' -- the claim holds")
    assert all(e.rule == "8.5.2" for e in events)
    seen = {s["id"]: s for s in GAME.view(done, "axis")["sides"]["allied"]["squads"]}
    assert seen["C"]["dare_death"] is True and seen["C"]["revealed_in"] == 3
    assert {seen[s]["dare_death"] for s in "ABDEFGHIKM"} == {"sealed"}
    assert GAME.awaiting(done) == ()


def test_8_5_2_a_regular_designation_revealed_shows_regular_so_a_claim_cannot_be_bluffed():
    state, setup = set_up_and_reply()
    parsed = GAME.parse_orders(claim("B"), "allied")
    done, events = message_events(state, "allied", 3, parsed, reveals=[("dd-B", setup.seals["dd-B"])])
    texts = [e.text for e in events]
    assert texts[0] == ("allied reveals squad B's designation (sealed in message 0001): 'regular' -- "
                        "not a Dare-Death Squad")
    assert "the sealed value is 'regular' -- the claim fails: B is not a Dare-Death Squad" in texts[1]
    assert GAME.view(done, None)["sides"]["allied"]["squads"][1] == {
        "id": "B", "type": "3-3-7", "eligible": True, "dare_death": False, "revealed_in": 3}


@pytest.mark.parametrize("squad, text", [
    ("L", "8.5.2: L is a 5-3-7, which has no Dare-Death designation: only non-5-3-7 squads may be Dare-Death Squads"),
    ("Q", "8.5.2: squad 'Q' was not declared at setup"),
])
def test_8_5_2_dare_death_order_for_a_squad_without_a_designation_is_refused(squad, text):
    state, _ = set_up_and_reply()
    parsed = GAME.parse_orders(claim(squad), "allied")
    with pytest.raises(IllegalOrderError, match=text):
        GAME.apply(state, Ordered("allied", 3, 0, dict(parsed.public[0])))


def test_8_5_2_dare_death_order_before_setup_and_twice_is_refused():
    parsed = GAME.parse_orders(claim("C"), "allied")
    with pytest.raises(IllegalOrderError, match="asl.setup: allied must set up"):
        GAME.apply(GAME.initial_state({}), Ordered("allied", 1, 0, dict(parsed.public[0])))
    state, setup = set_up_and_reply()
    state, _ = message_events(state, "allied", 3, parsed, reveals=[("dd-C", setup.seals["dd-C"])])
    state = message(state, "axis", 4, GAME.parse_orders({}, "axis"))
    with pytest.raises(IllegalOrderError, match="8.5.2: squad C's designation was already revealed in message 0003"):
        GAME.apply(state, Ordered("allied", 5, 0, dict(parsed.public[0])))


@pytest.mark.parametrize("claim_first", [False, True])
def test_8_5_2_a_berserk_squad_and_its_claim_in_one_message_reveal_once(claim_first):
    state, setup = set_up_and_reply()
    both = berserk_orders("A")["order"] + claim("A")["order"]
    parsed = GAME.parse_orders({**berserk_orders("A"), "order": both[::-1] if claim_first else both}, "allied")
    pending = state
    for i, order in enumerate(parsed.public):
        pending, _ = GAME.apply(pending, Ordered("allied", 3, i, dict(order)))
    assert GAME.awaiting(pending) == (RevealDue("allied", "dd-A", "8.5.2"),)  # owed once, revealed once
    done, events = message_events(state, "allied", 3, parsed, reveals=[("dd-A", setup.seals["dd-A"])])
    assert [d.units for d in done.declared] == [("A",)]
    assert sum("reveals squad A's designation" in e.text for e in events) == 1


def test_8_5_2_reveal_orders_still_refuse_the_reserved_prefix():
    """A plain `reveal` of a dd- slot is refused, pointing to the dare-death
    order; sealing into a dd- slot by hand stays refused."""
    with pytest.raises(InputError, match='reveal it with a dare-death order \\(squad = "A"\\)'):
        GAME.parse_orders({"order": [{"type": "reveal", "slot": "dd-A"}]}, "allied")
    with pytest.raises(InputError, match="slot names starting 'dd-' hold Dare-Death designations"):
        GAME.parse_orders({"order": [{"type": "seal", "slot": "dd-A", "text": "dare-death"}]}, "allied")


def test_8_5_2_audit_still_checks_the_count_after_a_voluntary_reveal():
    state, setup = set_up_and_reply()
    state, _ = message_events(state, "allied", 3, GAME.parse_orders(claim("C"), "allied"),
                              reveals=[("dd-C", setup.seals["dd-C"])])
    assert GAME.audit(state, {"allied": dict(setup.seals), "axis": {}}) == []
    three = {**setup.seals, "dd-D": dare_death.sealed_value(True)}
    assert GAME.audit(state, {"allied": three, "axis": {}}) == [
        "allied: 8.5.2: 3 Dare-Death Squads designated among 11 eligible (non-5-3-7) squads; "
        "10% rounded up is 2 (or none, if the rule is not used)"]


@pytest.mark.parametrize(("change", "fault"), [
    (lambda t: t.replace('type = "3-3-7"', 'type = "5-3-7"', 1), "A is a 5-3-7: only non-5-3-7 squads may be Dare-Death Squads"),
    (lambda t: t.replace('id = "J"', 'id = "J"\ndare_death = true', 1), "J: dare_death = true, but it is an enemy unit"),
    (lambda t: t.replace('id = "8-0"', 'id = "8-0"\ndare_death = true', 1), "8-0: dare_death = true, but a leader is no squad"),
    (lambda t: t.replace('nationality = "chinese"', 'nationality = "japanese"', 1).replace('type = "3-3-7"', 'type = "3-3-7"\nkind = "squad"')
     .replace('type = "4-4-7"', 'type = "4-4-7"\nkind = "squad"'), "Japanese squads are never Dare-Death"),
    (lambda t: t.replace('type = "3-3-7"', 'type = "2-2-7"\nkind = "crew"', 1), "a crew is no squad"),
])
def test_8_5_2_the_standalone_check_refuses_a_designation_the_rules_make_impossible(tmp_path, change, fault):
    """Issue 17: `pbem asl check-berserk` validates the position as a game's
    setup does (8.5.2: the side's own non-5-3-7 Chinese squads), instead of
    trusting a stated dare_death = true."""
    from click.testing import CliRunner

    from pbem.cli import main

    text = (EXAMPLES / "dare-death-example.toml").read_text()
    changed = change(text)
    assert changed != text
    position = tmp_path / "position.toml"
    position.write_text(changed)
    r = CliRunner().invoke(main, ["asl", "check-berserk", str(position)])
    assert r.exit_code == 2 and "8.5.2: position: unit " in r.output and fault in r.output
