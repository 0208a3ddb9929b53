"""Ambon supply (13.0, 13.1): each test cites the rule it checks.  Positions
are built with the game's referee scenarios on the reconstructed map (the
road and trail hexes used are listed in data/map.toml)."""

from __future__ import annotations

from pbem.engine.machine import replace
from pbem.games.ambon import GAME
from pbem.games.ambon.recovery import recovery_candidates
from pbem.games.ambon.state import JAPANESE
from pbem.games.ambon.supply import in_supply, supplied_hexes, supply_check, supply_sources

DATA = GAME.data
M = GAME.map


def position(**doc):
    doc.setdefault("turn", 7)
    doc.setdefault("phase", "supply-check")
    return GAME.scenario_state(doc)


def supplied(state, unit):
    return in_supply(DATA, state, state.piece(unit))


# --------------------------------------------------------------------------- 13.1 sources and adjacency


def test_13_1_sources_are_the_beachhead_markers_not_captured_ones():
    """13.1: "A Japanese source of supply is any hex containing a beachhead
    marker." 6.5: a captured beachhead "cannot be used as a supply source"."""
    state = replace(position(beachheads=["1402", "1910"]), lost_beachheads=("1402",))
    assert supply_sources(state) == {"1910"}


def test_13_1_adjacent_to_a_beachhead_is_in_supply():
    """13.1: "It is adjacent to a beachhead marker." A unit on the beachhead is
    on its source."""
    state = position(beachheads=["0813"], positions={"3.A": "0812", "3.B": "0813"})  # 0813: no road or trail
    assert supplied(state, "3.A") and supplied(state, "3.B")
    assert supplied_hexes(DATA, state) == {M.hex(h) for h in ("0813", "0712", "0713", "0812")}


def test_13_1_a_road_must_lead_to_the_beachhead_hex_itself():
    """Decision: "a road or trail [...] that leads to a beachhead marker"
    must reach the beachhead's hex.  A marker in 0813 (no road or trail
    there) supplies Laha 0812 by adjacency, but not 0911 further along
    Laha's road: that road does not lead into 0813."""
    state = position(beachheads=["0813"], positions={"3.C": "0911"})
    assert not supplied(state, "3.C")


# --------------------------------------------------------------------------- 13.1 roads and trails


def test_13_1_on_a_road_that_leads_to_a_beachhead():
    """13.1: "It is on [...] a road [...] that leads to a beachhead marker":
    Hitu Lama's road runs through Hitu Pass to 1608."""
    state = position(beachheads=["1402"], positions={"3.A": "1608", "3.D": "1507"})
    assert supplied(state, "3.A") and supplied(state, "3.D")


def test_13_1_adjacent_to_such_a_road_is_in_supply():
    """13.1: "It is on, or adjacent to, a road": 1506 touches the road at 1507
    and 1407; 1606 touches no road or trail."""
    state = position(beachheads=["1402"], positions={"3.A": "1506", "3.B": "1606"})
    assert supplied(state, "3.A")
    assert not supplied(state, "3.B")


def test_13_1_a_trail_and_road_combination():
    """13.1: "a road or trail (or a combination of the two)": from the Batu
    Song beachhead (1910) the trail runs to Paso, then the road along
    Leitimor's north shore to Eri (1114)."""
    state = position(beachheads=["1910"], positions={"3.A": "1114"})
    assert M.has("trail", M.hex("1910"), M.hex("1810")) and not M.has("road", M.hex("1910"), M.hex("1810"))
    assert supplied(state, "3.A")


def test_13_1_a_path_through_an_allied_unit_is_blocked():
    """13.1: "without that path passing through a hex containing an enemy
    unit": an NEI company in Batu Merah (1511) cuts every road and trail from
    Batu Song to western Leitimor."""
    state = position(beachheads=["1910"], positions={"3.A": "1114", "NEI-2.A": "1511"})
    assert not supplied(state, "3.A")


def test_13_1_an_allied_hq_blocks_too():
    """2.2.1: "HQs are units"."""
    state = position(beachheads=["1910"], positions={"3.A": "1114", "NEI-HQ": "1511"})
    assert not supplied(state, "3.A")


def test_13_1_a_concealed_piece_does_not_block():
    """13.1: "a concealed unit cannot block a road or trail for a supply
    check." """
    state = position(beachheads=["1910"], positions={"3.A": "1114"}, concealed={"X1": "1511"})
    assert supplied(state, "3.A")


def test_13_1_revealed_as_a_detachment_it_blocks():
    """13.1: "The Allied player can block one by revealing that the unit is a
    detachment." """
    state = position(beachheads=["1910"], positions={"3.A": "1114"}, concealed={"X1": "1511"}, revealed={"X1": "detachment"})
    assert not supplied(state, "3.A")


def test_13_1_a_zoc_alone_does_not_block():
    """13.1: "Comment: a ZOC alone does not block supply." An NEI company in
    1711 puts the road hexes 1611 and 1710 in its ZOC."""
    state = position(beachheads=["1910"], positions={"3.A": "1114", "3.B": "1611", "NEI-2.A": "1711"})
    assert supplied(state, "3.A") and supplied(state, "3.B")


def test_13_1_no_adjacency_across_an_all_sea_hexside():
    """Decision: 1609 is next to the road at 1709 only across 8.0's all-sea
    hexside, which does not count; with 1608, 1708 and 1509 held by the
    Allies, 1609 is out of supply."""
    blockers = {"NEI-2.A": "1608", "NEI-2.B": "1708", "NEI-2.C": "1509"}
    state = position(beachheads=["1910"], positions={"3.A": "1609", **blockers})
    assert M.hex("1709") in supplied_hexes(DATA, state)
    assert not supplied(state, "3.A")
    state = position(beachheads=["1910"], positions={"3.A": "1609", **{k: v for k, v in blockers.items() if v != "1708"}})
    assert supplied(state, "3.A")


def test_6_5_a_captured_beachhead_supplies_nothing():
    """6.5: "the landing hex no longer functions as a beachhead and cannot be
    used as a supply source during the Supply Check Phase." """
    state = position(beachheads=["1402"], positions={"3.A": "1403"})
    assert supplied(state, "3.A")
    lost = replace(state, beachheads=(), lost_beachheads=("1402",))
    assert not supplied(lost, "3.A")


# --------------------------------------------------------------------------- 13.0 the check


def test_13_0_out_of_supply_units_are_disrupted_and_marked_oos():
    """13.0: "Any unit that is out of supply at this check becomes disrupted,
    and cannot recover for the rest of the game. Place an out-of-supply (OOS)
    marker to show this. If the unit is already disrupted, there is no
    additional effect." """
    state = position(
        beachheads=["1402"],
        positions={"3.A": "1608", "3.B": "1606", "3.C": "1606", "228-HQ": "1606", "1.A": "sw-laha"},
        disrupted=["3.C"],
    )
    after, events = supply_check(DATA, state)
    assert [e.text for e in events] == [
        "228-HQ in 1606 is out of supply: disrupted, and cannot recover for the rest of the game",
        "3.B in 1606 is out of supply: disrupted, and cannot recover for the rest of the game",
        "3.C in 1606 is out of supply: already disrupted, no additional effect; it cannot recover",
    ]
    assert all(e.rule == "13.0" for e in events)
    for unit in ("3.B", "3.C", "228-HQ"):
        assert after.piece(unit).disrupted and after.piece(unit).oos
    assert not after.piece("3.A").disrupted and not after.piece("3.A").oos
    assert not after.piece("1.A").oos  # still in a landing box: not checked
    later = replace(after, turn=8)
    assert [p.id for p in recovery_candidates(DATA, later, JAPANESE)] == []


def test_13_0_all_in_supply():
    state = position(beachheads=["1402"], positions={"3.A": "1608"})
    after, events = supply_check(DATA, state)
    assert after == state
    assert [e.text for e in events] == ["supply check: every Japanese unit is in supply (beachheads: 1402)"]
