"""Ambon's shipped game data (a reconstruction, rules as data): every
fact the rulebook and ambon-notes.md fix is honoured, and the invented rest
is self-consistent.  Each test names the rule it checks.

Data: pbem/games/ambon/data -- map.toml, counters.toml, charts.toml through
pbem.engine.mapdata; landings.toml, turns.toml and scenario-historical.toml
(Ambon-specific) through tomllib.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter, deque
from fractions import Fraction
from pathlib import Path

import pytest

from pbem.engine.hexes import Hex, Hexside
from pbem.engine.mapdata import DataSet, load_dataset
from pbem.engine.paths import IllegalPathError, StepCost, half_mp, validate_path

DATA = Path(__file__).resolve().parent.parent / "pbem" / "games" / "ambon" / "data"


# --------------------------------------------------------------------------- fixtures and helpers


@pytest.fixture(scope="module")
def data() -> DataSet:
    """The data the ruleset hash pins, as the game loads it (rulings.toml is not data: message 0 pins the rulings)."""
    from pbem.games.ambon.data import RULINGS_FILE

    return load_dataset(DATA, exclude=(RULINGS_FILE,))


@pytest.fixture(scope="module")
def m(data):
    return data.map


def _toml(name: str) -> dict:
    return tomllib.loads((DATA / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def landings() -> dict:
    return _toml("landings.toml")


@pytest.fixture(scope="module")
def turns() -> dict:
    return _toml("turns.toml")


@pytest.fixture(scope="module")
def scenario() -> dict:
    return _toml("scenario-historical.toml")


def H(m, label: str) -> Hex:
    return m.hex(label)


def labels(m, hexes) -> set[str]:
    return {m.label(h) for h in hexes}


def is_land(m, h: Hex) -> bool:
    return m.contains(h) and m.terrain_at(h) != "sea"


def land_steps(m, h: Hex, blocked: frozenset[Hex] = frozenset()):
    """Land neighbours one may step to: not sea, not across an all-sea hexside."""
    for n in h.neighbours():
        if n in blocked or not is_land(m, n):
            continue
        if m.has("all_sea", h, n):
            continue
        yield n


def land_component(m, start: Hex, blocked: frozenset[Hex] = frozenset()) -> set[Hex]:
    seen = {start}
    todo = deque([start])
    while todo:
        h = todo.popleft()
        for n in land_steps(m, h, blocked):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def connected_along(m, feature: str, a: str, b: str) -> bool:
    """True when hexes a and b are joined by a chain of `feature` hexsides."""
    start, goal = H(m, a), H(m, b)
    seen = {start}
    todo = deque([start])
    while todo:
        h = todo.popleft()
        if h == goal:
            return True
        for n in h.neighbours():
            if n not in seen and m.contains(n) and m.has(feature, h, n):
                seen.add(n)
                todo.append(n)
    return False


def movement_cost(data, ezoc: set[str] = frozenset()):
    """A cost(from, to) callback built from the data alone (7.0, 8.0), in half-MP."""
    m, charts = data.map, data.charts
    zoc = {H(m, x) for x in ezoc}

    def cost(a: Hex, b: Hex):
        if not m.contains(b):
            return None
        terrain = m.terrain_at(b)
        base = charts.terrain_cost(terrain)
        if base is None:
            return StepCost.blocked(terrain)
        if m.has("all_sea", a, b):
            return StepCost.blocked("all-sea hexside")
        if m.has("road", a, b):
            parts = [("road", charts.movement["road"])]
        elif m.has("trail", a, b):
            parts = [("trail", charts.movement["trail"])]
        else:
            parts = [(terrain, base)]
        if m.has("river", a, b):
            parts.append(("river", charts.movement["river"]))
        if a in zoc:
            parts.append(("leave EZOC", charts.movement["leave_zoc"]))
        if b in zoc:
            parts.append(("enter EZOC", charts.movement["enter_zoc"]))
        return StepCost.of(*parts)

    return cost


def unit(data, uid: str):
    return data.counters.unit(uid)


def vp_total(data, turns: dict, captured: dict[str, int], allied_eliminated, japanese_eliminated,
             beachheads: int = 0) -> int:
    """3.0: the Japanese VP total for a game ending on turn 10 without surrender."""
    m = data.map
    awards = turns["vp_awards"]
    total = 0
    for hx, key in m.key_locations.items():
        label = m.label(hx)
        if label in captured:
            total += key.vp[captured[label] - 1]
        else:
            cls = next(c for c in turns["key_location_classes"].values() if label in c["hexes"])
            total += cls["uncontrolled_at_end"]
    for uid in allied_eliminated:
        v = unit(data, uid).front
        if v["hq"]:
            total += awards["allied_hq_eliminated"]
        elif v["dummy"]:
            total += awards["allied_dummy_removed"]
        elif v["concealable"]:
            total += awards["allied_detachment_eliminated"]
        else:
            total += awards["allied_unit_eliminated"]
    for uid in japanese_eliminated:
        v = unit(data, uid).front
        total += awards["japanese_hq_eliminated"] if v["hq"] else awards["japanese_unit_eliminated"]
    total += beachheads * awards["beachhead_captured"]
    return total


def band(turns: dict, total: int) -> str:
    for b in turns["victory_bands"]:
        if b.get("min", -10**9) <= total <= b.get("max", 10**9):
            return b["name"]
    raise AssertionError(f"no band for {total}")


def parse_result(cell: str) -> tuple[int, int, str]:
    """'1/1r' -> (1, 1, 'r')."""
    match = re.fullmatch(r"(\d)/(\d)([rR]?)", cell)
    assert match, f"malformed CRT result {cell!r}"
    return int(match.group(1)), int(match.group(2)), match.group(3)


def defender_severity(cell: str) -> Fraction:
    """Defender hits, with r worth half a hit (the defender may take a hit
    instead) and R three quarters (no choice)."""
    _, d, r = parse_result(cell)
    return d + {"": Fraction(0), "r": Fraction(1, 2), "R": Fraction(3, 4)}[r]


# --------------------------------------------------------------------------- the files


def test_6_data_files_are_labelled_as_a_reconstruction(data):
    """rules as data: every shipped data file says it is a reconstruction."""
    names = {"map.toml", "counters.toml", "charts.toml", "landings.toml", "turns.toml", "scenario-historical.toml"}
    files = dict(data.files())           # every TOML file: the ruleset the hash pins
    assert names <= set(files)
    for name, blob in files.items():
        head = blob.decode("utf-8").splitlines()[:2]
        assert head[0].startswith("#") and "RECONSTRUCTION" in " ".join(head), name
    assert "reconstruction" in (DATA / "README.md").read_text(encoding="utf-8").lower()


# --------------------------------------------------------------------------- the grid (8.0)


def test_8_0_grid_is_odd_q_ccrr(m):
    assert m.layout.offset == "odd-q" and m.layout.col_digits == 2 and m.layout.row_digits == 2


def test_8_0_hex_1609_neighbours(m):
    assert labels(m, H(m, "1609").neighbours()) == {"1508", "1509", "1608", "1610", "1708", "1709"}


def test_8_0_1610_sea_and_1609_1709_all_sea(m):
    assert m.terrain_at(H(m, "1610")) == "sea"
    assert is_land(m, H(m, "1609")) and is_land(m, H(m, "1709"))
    assert m.has("all_sea", H(m, "1609"), H(m, "1709"))
    # 8.0's example: the unit in 1609 exerts a ZOC into 1508, 1509, 1608, 1708 only
    zoc = {m.label(n) for n in H(m, "1609").neighbours() if is_land(m, n) and not m.has("all_sea", H(m, "1609"), n)}
    assert zoc == {"1508", "1509", "1608", "1708"}


def test_8_0_all_sea_hexsides_join_two_land_hexes(m):
    for side in m.hexsides["all_sea"]:
        assert all(is_land(m, h) for h in side.hexes)
    assert any(s == Hexside(H(m, "1609"), H(m, "1709")) for s in m.hexsides["all_sea"])


# --------------------------------------------------------------------------- 15.0's corner of the map


def test_15_0_3A_move_1410_1509_costs_5_mp_data(data, m):
    """3.A: 2 rough + 1 river + 1 leave EZOC + 1 enter EZOC.  The rulebook
    prints "1310", which is not adjacent to 1509: the test assumes the
    misprint is for 1410 (ambon-notes.md)."""
    a, b = H(m, "1410"), H(m, "1509")
    assert not H(m, "1310").is_adjacent(b)
    assert a.is_adjacent(b) and is_land(m, a)
    assert m.terrain_at(b) == "rough"
    assert m.has("river", a, b)
    assert not m.has("road", a, b) and not m.has("trail", a, b)
    cost = movement_cost(data, ezoc={"1410", "1509"})
    path = validate_path("3.A", "1410 1509", half_mp(5), cost, grid=m.grid)
    assert path.cost == half_mp(5)
    with pytest.raises(IllegalPathError):
        validate_path("3.A", "1410 1509", half_mp(4.5), cost, grid=m.grid)


def test_15_0_3C_1507_to_1508_mountain(data, m):
    """3.C: 3 mountain + 1 leave EZOC + 1 enter EZOC; no road or trail."""
    a, b = H(m, "1507"), H(m, "1508")
    assert is_land(m, a) and a.is_adjacent(b)
    assert m.terrain_at(b) == "mountain"
    assert not m.hexside_features(a, b) & {"road", "trail", "river", "all_sea"}
    path = validate_path("3.C", "1507 1508", half_mp(5), movement_cost(data, ezoc={"1507", "1508"}), grid=m.grid)
    assert path.cost == half_mp(5)


def test_15_0_adjacencies(m):
    adj = lambda a, b: H(m, a).is_adjacent(H(m, b))  # noqa: E731
    assert adj("1508", "1608")          # 3.C halved: next to AUS B in 1608
    assert adj("1507", "1608")          # 3.C starts in that EZOC (pays to leave it)
    assert not adj("1509", "1608")      # 3.A and 3.B are not halved
    for x in ("1608", "1609", "1809"):  # NEI HQ at 1708: support and recovery
        assert adj("1708", x)
    assert adj("1609", "1708")          # 2.B retreats to 1708


def test_15_0_hexes_are_land_and_1609_is_plain(m):
    for x in ("1608", "1609", "1708", "1709", "1710", "1507", "1508", "1509", "1410", "1809"):
        assert is_land(m, H(m, x)), x
    h1609 = H(m, "1609")
    assert m.terrain_at(h1609) not in ("mountain", "sea")
    assert h1609 not in m.towns


def test_15_0_combat_at_1609_has_no_terrain_modifiers(m):
    """3.A, 3.B (1509) and 3.C (1508) attack 1609: "no terrain modifier"."""
    h = H(m, "1609")
    assert m.terrain_at(h) != "mountain" and h not in m.towns
    for a in ("1508", "1509"):
        assert not m.has("river", H(m, a), h)
        assert not m.has("fortified", H(m, a), h)


def test_15_0_hitu_pass_within_3D_range_of_1609(data, m):
    """3.D at Hitu Pass bombards 2.B in 1609; Hitu Pass is on the road from
    Hitu Lama to Paso (ambon-notes)."""
    pass_ = m.place("Hitu Pass")
    rng = unit(data, "3.D").front["range"]
    assert pass_.distance(H(m, "1609")) <= rng
    assert is_land(m, pass_)
    assert connected_along(m, "road", "1402", m.label(pass_))
    assert connected_along(m, "road", m.label(pass_), "1809")
    assert m.place("Hitu Lama") == H(m, "1402")


def test_15_0_nei_hq_at_1708_commands_1608_1609_1809(data, m):
    rng = unit(data, "NEI-HQ").front["command_range"]
    for x in ("1608", "1609", "1809"):
        assert H(m, "1708").distance(H(m, x)) <= rng


def test_15_0_laha_landing_hex_is_next_to_0813(m, landings, scenario):
    """15.0: the detachments on the Laha landing hex retreat "to 0813", and
    AUS D Company (at 0813 from 4.1) takes no part: the landing hex is a
    coastal hex next to 0813, not 0813; it is not a town ("no modifiers")."""
    lane = landings["lanes"]["laha"]
    target = H(m, lane["target"])
    assert lane["target"] != "0813" and target.is_adjacent(H(m, "0813"))
    assert target in m.coastal and target not in m.towns
    assert scenario["allied"]["placements"]["AUS-D"] == "0813"
    assert not m.has("all_sea", target, H(m, "0813"))


# --------------------------------------------------------------------------- setup hexes (4.1) and places


def test_4_1_setup_hexes_exist_and_coastal(m):
    for x in ("0812", "0813", "1016", "1114", "1611"):
        h = H(m, x)
        assert is_land(m, h) and h in m.coastal, x
    paso = H(m, "1809")
    assert is_land(m, paso)
    assert [n for n in paso.neighbours() if is_land(m, n)], "Paso needs land within 1 hex"
    # "within 1 hex of 1215": the hex and all six neighbours are land
    for h in (H(m, "1215"), *H(m, "1215").neighbours()):
        assert is_land(m, h), m.label(h)


def test_4_1_place_names_match_the_rulebook(m):
    expected = {"Laha": "0812", "South of Laha": "0813", "Latuhalat": "1016", "Eri": "1114",
                "Halong": "1611", "Paso": "1809"}
    for name, hx in expected.items():
        assert m.label(m.place(name)) == hx, name


def test_3_0_double_star_key_locations(m, turns):
    """3.0: Ambon, Paso and Laha are the double-star key locations; Ambon town
    is on Leitimor's north shore between Eri and Halong (ambon-notes)."""
    double = set(turns["key_location_classes"]["double"]["hexes"])
    ambon = m.place("Ambon")
    assert double == {m.label(ambon), "1809", "0812"}
    assert {m.key_locations[H(m, x)].name for x in double} == {"Ambon", "Paso", "Laha"}
    assert ambon in m.towns and ambon in m.coastal
    eri, halong = H(m, "1114"), H(m, "1611")
    col = lambda h: m.layout.to_offset(h)[0]  # noqa: E731
    assert col(eri) < col(ambon) < col(halong)
    leitimor = land_component(m, eri, blocked=frozenset({H(m, "1809")}))
    assert ambon in leitimor and halong in leitimor


def test_16_0_place_geography(m):
    """Hitu Lama on Hitu's north coast, Liang on its north-east coast, Laha on
    Ambon Bay, Latuhalat at Leitimor's west end (16.0, ambon-notes)."""
    paso = H(m, "1809")
    hitu = land_component(m, H(m, "0812"), blocked=frozenset({paso}))
    leitimor = land_component(m, H(m, "1114"), blocked=frozenset({paso}))
    row = lambda h: m.layout.to_offset(h)[1]  # noqa: E731
    col = lambda h: m.layout.to_offset(h)[0]  # noqa: E731
    for name in ("Hitu Lama", "Liang", "Hitu Pass", "Laha", "South of Laha"):
        assert m.place(name) in hitu, name
    for name in ("Ambon", "Eri", "Latuhalat", "Halong", "Batu Song", "Futu Mori", "Lateri"):
        assert m.place(name) in leitimor, name
    hitu_rows = [row(h) for h in hitu]
    assert row(m.place("Hitu Lama")) <= min(hitu_rows) + 1 and m.place("Hitu Lama") in m.coastal
    liang = m.place("Liang")
    assert liang in m.coastal and col(liang) >= max(col(h) for h in hitu) - 1
    assert row(liang) <= min(hitu_rows) + 2
    assert col(m.place("Latuhalat")) == min(col(h) for h in leitimor)
    assert m.label(m.place("Lateri")) == "1710"   # 16.0: Kapitz's second HQ, near Paso


def test_named_places_are_land(m):
    for name, h in m.places.items():
        assert is_land(m, h), name
    for h, key in m.key_locations.items():
        assert is_land(m, h) and m.places[key.name] == h


def test_3_0_key_locations_and_towns_are_named_places(m):
    named = set(m.places.values())
    assert set(m.key_locations) <= named
    assert set(m.towns) <= named


# --------------------------------------------------------------------------- terrain and hexsides


def test_2_1_1_terrain_kinds(data, m):
    assert set(m.terrain_types) == {"open", "rough", "mountain", "sea"}
    tally = Counter(m.terrain_at(h) for h in m.hexes())
    assert tally["rough"] > tally["open"] and tally["rough"] > tally["mountain"] > 0
    costs = data.charts.terrain_costs
    assert costs == {"open": half_mp(1), "rough": half_mp(2), "mountain": half_mp(3), "sea": None}


def test_7_0_movement_prices(data):
    mv = data.charts.movement
    assert mv["road"] == half_mp(0.5) and mv["trail"] == half_mp(1) and mv["river"] == half_mp(1)
    assert mv["enter_zoc"] == half_mp(1) and mv["leave_zoc"] == half_mp(1)
    assert data.charts.values["all_sea_hexside"] == "P"


def test_7_0_dutch_artillery_cannot_enter_mountain_off_road(data, m):
    """7.0's example: MA 2 cannot pay 3 for a mountain hex except along a road or trail."""
    ma = half_mp(unit(data, "NEI-Art").front["move"])
    with pytest.raises(IllegalPathError):
        validate_path("NEI-Art", "1507 1508", ma, movement_cost(data), grid=m.grid)


def test_11_2_paso_fortified_hexsides_face_north_and_west(m):
    """11.2, 16.0: prepared against attack from the north or west, not the south-east."""
    paso = H(m, "1809")
    fortified = {m.label(s.other(paso)) for s in m.hexsides["fortified"] if paso in s}
    assert fortified == {"1808", "1708", "1709"}
    assert all(paso in s for s in m.hexsides["fortified"]), "11.2: fortified hexsides only at Paso"
    for x in ("1810", "1908", "1909"):
        assert not m.has("fortified", paso, H(m, x))


def test_7_0_hexside_features_join_land(m):
    for feature in ("road", "trail", "river", "fortified"):
        for side in m.hexsides[feature]:
            assert all(is_land(m, h) for h in side.hexes), (feature, str(side))
            assert side not in m.hexsides["all_sea"]


def test_7_0_rivers_are_continuous_and_reach_the_sea(m):
    for chain in m.chains["river"]:
        for a, b, c in zip(chain, chain[1:], chain[2:], strict=False):
            assert a.is_adjacent(c), f"river breaks at {m.label(a)} {m.label(b)} {m.label(c)}"
        a, b = chain[0], chain[1]
        mouth = [n for n in a.neighbours() if b.is_adjacent(n)]
        assert any(m.contains(n) and m.terrain_at(n) == "sea" for n in mouth)


def test_7_0_roads_and_trails_link_the_places(m):
    assert connected_along(m, "road", "1402", "1809")   # Hitu Lama - Hitu Pass - Paso
    assert connected_along(m, "road", "0812", "1809")   # Laha - Paso
    for x in ("1611", "1412", "1114", "1016"):         # Halong, Ambon, Eri, Latuhalat
        assert connected_along(m, "road", "1809", x)

    def track_hexes_from(a: str) -> set[Hex]:
        start = H(m, a)
        seen, todo = {start}, deque([start])
        while todo:
            h = todo.popleft()
            for n in h.neighbours():
                if n not in seen and m.contains(n) and (m.has("road", h, n) or m.has("trail", h, n)):
                    seen.add(n)
                    todo.append(n)
        return seen

    network = track_hexes_from("1809")
    for name in ("Hitu Lama", "Liang", "Laha", "Hila", "Tulehu", "Batu Song", "Futu Mori", "Amahusu",
                 "Batu Merah", "Nona plateau", "Lateri"):
        assert m.place(name) in network, name
    # 13.1: a beachhead on any lane target is on, or next to, that network
    for lane_id, lane in _toml("landings.toml")["lanes"].items():
        target = H(m, lane["target"])
        assert target in network or any(n in network for n in target.neighbours()), lane_id


# --------------------------------------------------------------------------- the island as a whole


def test_island_connected_by_land(m):
    land = {h for h in m.hexes() if is_land(m, h)}
    assert land_component(m, next(iter(land))) == land


def test_16_0_hitu_and_leitimor_meet_only_at_paso(m):
    """Without Paso (1809) no land path joins Hitu to Leitimor: every land
    path from Laha to Ambon town goes through the Paso isthmus."""
    paso = H(m, "1809")
    hitu = land_component(m, H(m, "0812"), blocked=frozenset({paso}))
    assert H(m, "1412") not in hitu
    leitimor = land_component(m, H(m, "1412"), blocked=frozenset({paso}))
    land = {h for h in m.hexes() if is_land(m, h)}
    assert hitu | leitimor | {paso} == land
    assert not hitu & leitimor
    assert any(n in hitu for n in paso.neighbours()) and any(n in leitimor for n in paso.neighbours())


def test_coastal_hexes_touch_sea(m):
    touching = {h for h in m.hexes() if is_land(m, h)
                and any(m.contains(n) and m.terrain_at(n) == "sea" for n in h.neighbours())}
    assert set(m.coastal) == touching


def test_2_1_map_edge_is_sea(m):
    (c0, c1), (r0, r1) = m.grid.columns, m.grid.rows
    for h in m.hexes():
        col, row = m.layout.to_offset(h)
        if col in (c0, c1) or row in (r0, r1):
            assert m.terrain_at(h) == "sea", m.label(h)


# --------------------------------------------------------------------------- landing lanes and boxes (4.2, 6.0-6.4)


def test_6_lanes_target_coastal_hexes(m, landings):
    lanes = landings["lanes"]
    assert 5 <= len(lanes) <= 7
    for lane_id, lane in lanes.items():
        target = H(m, lane["target"])
        assert is_land(m, target) and target in m.coastal, lane_id
        fw, sw = m.box(lane["first_wave"]), m.box(lane["second_wave"])
        assert (fw.id, sw.id) == (f"fw-{lane_id}", f"sw-{lane_id}")
        assert (fw.kind, sw.kind) == ("first-wave", "second-wave")
        assert fw.target == sw.target == target
    wave_boxes = {b.id for b in m.boxes.values() if b.kind in ("first-wave", "second-wave")}
    assert wave_boxes == {lane[k] for lane in lanes.values() for k in ("first_wave", "second_wave")}


def test_6_1_mines_only_in_the_bays(m, landings):
    boxes = landings["mine_boxes"]
    assert sorted(boxes) == ["mine-1", "mine-2", "mine-3"]      # 4.1: three skull boxes
    assert {b.id for b in m.boxes.values() if b.kind == "mines"} == set(boxes)
    assert all(m.box(b).target is None for b in boxes)
    for lane_id, lane in landings["lanes"].items():
        assert lane["bay"] in ("ambon", "baguala", "open sea")
        if lane["bay"] == "open sea":
            assert "mine_box" not in lane, lane_id
        else:   # 6.1: "the corresponding mine box"
            assert boxes[lane["mine_box"]]["bay"] == lane["bay"], lane_id
    used = {lane["mine_box"] for lane in landings["lanes"].values() if "mine_box" in lane}
    assert used == set(boxes)
    assert {boxes[b]["bay"] for b in boxes} == {"ambon", "baguala"}
    assert landings["mines"]["real"] == 5 and landings["mines"]["dummy"] == 3


def test_16_0_lanes_reach_the_historical_and_example_beaches(m, landings):
    by_id = landings["lanes"]
    assert by_id["hitu-lama"]["target"] == m.label(m.place("Hitu Lama"))
    assert by_id["batu-song"]["target"] == m.label(m.place("Batu Song"))
    assert by_id["batu-song"]["bay"] == "baguala"
    assert by_id["futu-mori"]["target"] == m.label(m.place("Futu Mori"))
    assert H(m, by_id["batu-song"]["target"]).distance(H(m, "1809")) <= 2   # "just south of Paso"
    liang, beach = m.place("Liang"), H(m, by_id["liang"]["target"])
    assert m.layout.to_offset(beach)[1] > m.layout.to_offset(liang)[1]      # 15.0: south of Liang
    assert "mine_box" not in by_id["liang"]                                  # 15.0: no mine check
    assert by_id["laha"]["bay"] == "ambon" and by_id["laha"]["mine_box"]    # 15.0: mines
    inner = [lane for lane in landings["lanes"].values() if lane["bay"] == "ambon"
             and H(m, lane["target"]).distance(m.place("Ambon")) <= 2]
    assert inner, "a lane into the inner bay toward Ambon town"


def test_6_boxes_of_the_map(m):
    assert m.box("eliminated").kind == "eliminated" and m.box("eliminated").target is None
    kinds = Counter(b.kind for b in m.boxes.values())
    assert kinds["first-wave"] == kinds["second-wave"] and kinds["mines"] == 3 and kinds["eliminated"] == 1


# --------------------------------------------------------------------------- counters (2.2.1)

JAPANESE = ["228-HQ", *(f"{b}.{c}" for b in (1, 2, 3) for c in "ABCD"), "228-Art",
            "Kure-HQ", "Kure-1", "Kure-2", "Kure-3", "Kure-MG"]
ALLIED = ["NEI-HQ", *(f"NEI-{b}.{c}" for b in (1, 2) for c in "ABCD"), "NEI-3.A", "NEI-3.B",
          "NEI-Art", "NEI-AA", "AUS-HQ", "AUS-A", "AUS-B", "AUS-C", "AUS-D", "AUS-Eng",
          "AUS-AT", "AUS-2/11", *(f"Det-{n}" for n in range(1, 5)), *(f"Dummy-{n}" for n in range(1, 5))]


def test_2_2_1_counter_ids(data):
    c = data.counters
    assert [u.id for u in c.of_side("japanese")] == JAPANESE
    assert [u.id for u in c.of_side("allied")] == ALLIED
    assert set(c.sides) == {"japanese", "allied"}


def test_2_2_1_faces_carry_the_same_keys(data):
    keys = set(unit(data, "1.A").front)
    for u in data.counters.units:
        assert set(u.front) == set(u.back) == keys, u.id
        assert u.front["nationality"] == u.back["nationality"]


def test_2_2_1_counter_values(data):
    f = lambda uid: unit(data, uid).front  # noqa: E731
    b = lambda uid: unit(data, uid).back   # noqa: E731
    for bn in (1, 2, 3):
        for c in "ABC":
            assert f(f"{bn}.{c}")["combat"] == 6 and f(f"{bn}.{c}")["move"] >= 5     # 15.0
            assert b(f"{bn}.{c}")["combat"] == 3                                     # 15.0: 6/2
        gun = f(f"{bn}.D")
        assert gun["artillery"] and gun["combat"] == 1                               # 10.0
    assert f("3.D")["bombard"] <= 2 and f("3.D")["range"] >= 2                      # 15.0
    assert f("228-Art")["artillery"]
    assert f("NEI-Art")["move"] == 2 and f("NEI-AA")["artillery"]                   # 7.0, 10.0
    assert f("NEI-2.B")["combat"] == 3                                               # 15.0
    assert b("NEI-2.C")["combat"] <= 2                                               # 15.0: fails on 3
    assert b("AUS-B")["combat"] >= 2                                                 # 15.0: recovers on 2
    for n in range(1, 5):
        det = f(f"Det-{n}")
        assert det["combat"] == 1 and det["stacking"] == 0.5 and det["one_hit"]      # 15.0, 9.0, 11.3
        assert det["concealable"] and det["zoc"] and not det["dummy"]               # 4.1, 8.0
        dummy = f(f"Dummy-{n}")
        assert dummy["dummy"] and dummy["concealable"] and dummy["zoc"]              # 8.0
    for hq, nat in (("228-HQ", "army"), ("Kure-HQ", "kure"), ("NEI-HQ", "nei"), ("AUS-HQ", "aus")):
        v = f(hq)
        assert v["hq"] and v["command"] == 1 and v["command_range"] >= 1             # 2.2.1, 15.0
        assert v["combat"] == 0 and not v["zoc"] and v["stacking"] == 0 and v["one_hit"]
        assert v["nationality"] == nat
    assert f("Kure-MG")["defend_drm"] == -1 and f("AUS-Eng")["defend_drm"] == -1    # 11.0
    assert b("Kure-MG")["defend_drm"] == -1 and b("AUS-Eng")["defend_drm"] == -1
    for uid in ("AUS-AT", "AUS-2/11"):
        assert f(uid)["artillery"] and f(uid)["optional_rule"] == "14.4"             # 14.4


def test_2_2_1_unusual_backs_of_dutch_1A_and_aus_D(data):
    assert dict(unit(data, "NEI-1.A").back) != dict(unit(data, "NEI-1.B").back)
    assert all(dict(unit(data, f"NEI-{x}").back) == dict(unit(data, "NEI-1.B").back)
               for x in ("1.C", "1.D", "2.A", "2.B", "2.C", "2.D", "3.A", "3.B"))
    assert dict(unit(data, "AUS-D").back) != dict(unit(data, "AUS-A").back)
    assert dict(unit(data, "AUS-B").back) == dict(unit(data, "AUS-A").back) == dict(unit(data, "AUS-C").back)


def test_2_2_1_disrupted_side_is_weaker(data):
    """2.2.1: the back shows reduced combat and movement strength."""
    for u in data.counters.units:
        f, b = u.front, u.back
        if f["hq"] or f["one_hit"]:
            continue   # never disrupted: one hit eliminates (11.3)
        assert b["move"] < f["move"], u.id
        if f["artillery"]:
            assert b["bombard"] < f["bombard"] and f["combat"] == b["combat"] == 1, u.id
        else:
            assert b["combat"] < f["combat"], u.id


def test_8_0_zoc_and_9_0_stacking_flags(data):
    for u in data.counters.units:
        v = u.front
        assert v["zoc"] == (not v["hq"]), u.id                # 8.0
        expected = 0 if v["hq"] else (0.5 if v["concealable"] else 1)
        assert v["stacking"] == expected, u.id                 # 9.0
        assert v["nationality"] in (("army", "kure") if u.side == "japanese" else ("nei", "aus"))


# --------------------------------------------------------------------------- charts


def test_crt_honours_15_0_fixed_points(data):
    crt = data.charts.table("crt")
    # landing combat south of Laha: 3 x 6/2 = 9 against 2 detachments -> 4.5:1 -> 4:1, roll 3
    assert crt.result("4:1", 3) == "1/1r"
    # 1609: 6 + 6 + 6/2 = 15 against 3 + 1 = 4 -> 3.75:1 -> 3:1; roll 4, NEI HQ support -1
    roll = 4 + data.charts.values["crt_drm_hq_defender"]
    assert crt.result("3:1", roll) == "1/1r"


def test_11_0_crt_shape_and_clamping(data):
    crt = data.charts.table("crt")
    v = data.charts.values
    assert crt.columns == ("1:3", "1:2", "1:1", "2:1", "3:1", "4:1", "5:1", "6:1")
    assert (v["crt_lowest_column"], v["crt_highest_column"]) == (crt.columns[0], crt.columns[-1])
    assert crt.clamp and crt.dice == "1d6"
    lowest = 1 + v["crt_drm_town"] + v["crt_drm_hq_defender"] + v["crt_drm_mg_engineer"]
    highest = 6 + v["crt_drm_hq_attacker"]
    rows = sorted(int(r) for r in crt.rows)
    assert rows == list(range(rows[0], rows[-1] + 1))
    assert rows[0] <= max(lowest, 0) and rows[-1] >= highest
    assert crt.result("1:3", lowest) == crt.result("1:3", rows[0])
    for col in crt.columns:
        for r in rows:
            parse_result(crt.result(col, r))


def test_11_0_crt_is_monotone(data):
    """Better odds or a higher roll never help the defender."""
    crt = data.charts.table("crt")
    rows = sorted(int(r) for r in crt.rows)
    for r in rows:
        for i, col in enumerate(crt.columns):
            cell = crt.result(col, r)
            for other in ([crt.result(crt.columns[i + 1], r)] if i + 1 < len(crt.columns) else []) + \
                         ([crt.result(col, r + 1)] if r + 1 in rows else []):
                assert parse_result(other)[0] <= parse_result(cell)[0], (col, r)
                assert defender_severity(other) >= defender_severity(cell), (col, r)
    assert parse_result(crt.result("1:3", rows[0]))[1] == 0
    assert parse_result(crt.result("6:1", rows[-1]))[0] == 0


def test_6_2_unopposed_landing_table(data):
    t = data.charts.table("unopposed_landing")
    expected = {-3: "delayed", 0: "delayed", 1: "delayed", 2: "no-move", 3: "no-move",
                4: "-2mp", 5: "-2mp", 6: "-2mp", 8: "-2mp"}
    for roll, result in expected.items():
        assert t.result("result", roll) == result, roll
    # 15.0: Kure lands south of Liang: 3 + 1 = 4, "succeeds at -2 MP"
    assert t.result("result", 3 + data.charts.values["landing_drm_kure"]) == "-2mp"


def test_6_3_opposed_landing_table(data):
    t = data.charts.table("opposed_landing")
    expected = {-4: "delayed", 1: "delayed", 2: "combat-1/4", 3: "combat-1/2", 4: "combat-1/2",
                5: "combat-1/2", 6: "combat-1", 8: "combat-1"}
    for roll, result in expected.items():
        assert t.result("result", roll) == result, roll
    # 15.0: south of Laha, 2 real mines: 5 - 2 = 3, half CS
    assert t.result("result", 5 + 2 * data.charts.values["landing_drm_per_mine"]) == "combat-1/2"


def test_named_constants_of_the_rules(data):
    v = data.charts.values
    expected = {
        "crt_shift_mountain": -1, "crt_shift_river": -1, "crt_shift_fortified": -1,     # 11.2
        "crt_drm_town": -1, "crt_drm_hq_attacker": 1, "crt_drm_hq_defender": -1,         # 11.0
        "crt_drm_mg_engineer": -1, "unengaged_ezoc_factor": 0.5,
        "bombard_drm_mountain": 1, "bombard_drm_functional_overstack": -1,               # 10.0
        "bombard_drm_physical_overstack": -2,
        "recovery_natural_success": 1, "recovery_drm_ezoc": 1, "recovery_drm_hq_range": -1,  # 12.0
        "japanese_recovery_from_turn": 3,
        "stacking_limit": 3, "physical_overstack": 6, "functional_overstack_factor": 0.5,  # 9.0
        "physical_overstack_cf": 1,
        "landing_drm_kure": 1, "landing_drm_per_mine": -1, "landing_drm_late": 1,  # 6.2, 6.3
        "landing_late_turn": 4,
        "real_mines": 5, "dummy_mines": 3, "concealed_per_coastal_hex": 3,              # 4.1
        "turn1_allied_move_radius": 4,                                                  # 7.1
    }
    for k, value in expected.items():
        assert v[k] == value, k


def test_12_0_recovery_examples_of_15_0(data):
    v = data.charts.values
    # AUS B in 1608: roll 2, +1 EZOC, -1 HQ -> 2 <= back CS
    assert 2 + v["recovery_drm_ezoc"] + v["recovery_drm_hq_range"] <= unit(data, "AUS-B").back["combat"]
    # Dutch 2.C in Paso: roll 4, -1 HQ -> 3 > back CS
    assert 4 + v["recovery_drm_hq_range"] > unit(data, "NEI-2.C").back["combat"]


# --------------------------------------------------------------------------- turns and victory (3.0, 5.0)


def test_5_0_ten_turns_two_a_day(turns):
    ts = turns["turns"]
    assert [t["number"] for t in ts] == list(range(1, 11)) and turns["game"]["turns"] == 10
    days = ["30 January", "31 January", "1 February", "2 February", "3 February"]
    for t in ts:
        n = t["number"]
        assert t["date"] == f"{days[(n - 1) // 2]} 1942"
        assert t["half"] == ("AM" if n % 2 else "PM")
        assert t["label"] == f"{days[(n - 1) // 2]} {t['half']}"


def test_5_0_phases(turns):
    base = ["japanese-landing", "japanese-movement", "japanese-bombardment", "japanese-combat",
            "allied-movement", "allied-bombardment", "allied-combat", "recovery"]
    for t in turns["turns"]:
        n, phases = t["number"], t["phases"]
        assert [p for p in phases if p in base] == base, n
        assert ("supply-check" in phases) == (n == 7)                          # 13.0
        assert phases[-1] == ("supply-check" if n == 7 else "recovery")
        assert ("allied-surrender-option" in phases) == (n == 8)               # 3.2
        if n == 8:
            assert phases[0] == "allied-surrender-option"
        assert t["japanese_recovery"] == (n >= 3)                              # 5.0, 12.0
        assert t["allied_move_restricted"] == (n == 1)                         # 7.1


def test_3_0_victory_bands(turns):
    bands = turns["victory_bands"]
    assert [b["name"] for b in bands] == ["Decisive Allied victory", "Allied victory", "Draw",
                                          "Japanese victory", "Decisive Japanese victory"]
    assert "min" not in bands[0] and bands[0]["max"] == 10 and "max" not in bands[-1]
    assert [(b.get("min"), b.get("max")) for b in bands[1:4]] == [(11, 20), (21, 30), (31, 50)]
    assert bands[-1]["min"] == 51


def test_3_0_vp_awards_and_14_optional_rules(turns):
    a = turns["vp_awards"]
    assert (a["allied_unit_eliminated"], a["allied_detachment_eliminated"], a["allied_hq_eliminated"]) == (1, 0, 3)
    assert (a["japanese_unit_eliminated"], a["japanese_hq_eliminated"]) == (-2, -5)
    assert a["beachhead_captured"] == -5 and a["allied_surrender"] == 5
    assert {k: o["vp"] for k, o in turns["optional_rules"].items()} == {"14.1": -2, "14.2": -3, "14.3": -6, "14.4": 5}


def test_3_0_key_location_vp_tracks(m, turns):
    """3.0: the faster the better, going negative late; one track per star
    class, kept in map.toml only; Allied control at the end is a penalty."""
    classes = turns["key_location_classes"]
    listed = [x for c in classes.values() for x in c["hexes"]]
    assert sorted(listed) == sorted(m.label(h) for h in m.key_locations) and len(set(listed)) == len(listed)
    assert len(classes["single"]["hexes"]) >= 1 and classes["double"]["stars"] == 2 and classes["single"]["stars"] == 1
    for cls in classes.values():
        tracks = {m.key_locations[H(m, x)].vp for x in cls["hexes"]}
        assert len(tracks) == 1
        track = tracks.pop()
        assert len(track) == 10
        assert all(a >= b for a, b in zip(track, track[1:], strict=False))
        assert track[0] > 0 and track[-1] < 0
        assert cls["uncontrolled_at_end"] < track[-1]
    double = m.key_locations[H(m, "1809")].vp
    single = m.key_locations[H(m, "1402")].vp
    assert all(abs(d) >= abs(s) for d, s in zip(double, single, strict=False))    # double star weighs more
    assert all("vp" not in cls for cls in classes.values())          # one source: map.toml


def test_3_0_historical_timeline_is_a_draw(data, turns):
    """Paso and Ambon taken on turn 3 or 4, Laha on turn 9 (16.0): a draw
    (21-30), whichever of turns 3 and 4 (README.md shows the arithmetic)."""
    cal = turns["calibration"]["historical"]
    totals = []
    for paso in cal["captured_alternatives"]["1809"]:
        for ambon in cal["captured_alternatives"]["1412"]:
            captured = {**cal["captured"], "1809": paso, "1412": ambon}
            total = vp_total(data, turns, captured, cal["allied_eliminated"], cal["japanese_eliminated"],
                             cal["beachheads_captured"])
            totals.append(total)
            assert band(turns, total) == cal["expected_band"] == "Draw", (paso, ambon, total)
    assert cal["captured"]["0812"] == 9 and set(cal["captured_alternatives"]["1809"]) == {3, 4}
    assert vp_total(data, turns, cal["captured"], cal["allied_eliminated"], cal["japanese_eliminated"]) == 24
    assert sorted(totals) == [24, 25, 25, 26]


def test_3_0_japanese_must_beat_history_to_win(data, turns):
    """Taking Laha two days earlier than history (turn 5 for 9), all else as
    history, is a Japanese victory (32); holding Laha to the end is an Allied
    victory (20)."""
    cal = turns["calibration"]["historical"]
    args = (cal["allied_eliminated"], cal["japanese_eliminated"])
    faster = vp_total(data, turns, {**cal["captured"], "0812": 5}, *args)
    assert (faster, band(turns, faster)) == (32, "Japanese victory")
    never = vp_total(data, turns, {k: v for k, v in cal["captured"].items() if k != "0812"}, *args)
    assert (never, band(turns, never)) == (20, "Allied victory")


# --------------------------------------------------------------------------- the historical setup (4.1, 4.2, 15.0)


def test_4_1_historical_allied_fixed_placements(data, m, scenario):
    pos = scenario["allied"]["placements"]
    at = lambda hx: sorted(u for u, h in pos.items() if h == hx)  # noqa: E731
    nei = lambda units: [u for u in units if data.counters.unit(u).type == "nei-company"]  # noqa: E731
    assert "NEI-HQ" in at("1611") and len(nei(at("1611"))) == 1
    assert "AUS-A" in at("1114") and len(nei(at("1114"))) == 1
    assert len(nei(at("1016"))) == 1
    assert len(nei(at("1809"))) == 3
    for uid in ("AUS-HQ", "AUS-B", "AUS-Eng"):
        assert H(m, pos[uid]).distance(H(m, "1215")) <= 1
    near_paso = [u for u in nei(list(pos)) if H(m, pos[u]).distance(H(m, "1809")) == 1]
    assert len(near_paso) == 1
    assert len(nei(at("0812"))) == 1 and {"NEI-Art", "NEI-AA", "AUS-C"} <= set(at("0812"))
    assert len(at("0812")) == 4
    assert at("0813") == ["AUS-D"]
    stack = sum(unit(data, u).front["stacking"] for u in at("0812"))
    assert stack > data.charts.values["stacking_limit"]       # "set up over-stacked"


def test_4_1_concealed_pieces_and_remaining_companies(data, m, scenario):
    pos, concealed = scenario["allied"]["placements"], scenario["allied"]["concealed"]
    assert sorted(concealed) == [f"X{n}" for n in range(1, 9)]      # 4 dummies + 4 detachments
    remaining = ["NEI-3.A", "NEI-3.B"]
    per_hex = Counter(concealed.values()) + Counter(pos[u] for u in remaining)
    for hx, n in per_hex.items():
        assert H(m, hx) in m.coastal, hx
        assert n <= data.charts.values["concealed_per_coastal_hex"], hx
    # the identities stay out of the position: no Det-/Dummy- counter is placed
    assert not any(u.startswith(("Det-", "Dummy-")) for u in pos)
    assert Counter(scenario["secret"]["concealed"].values()) == {"dummy": 4, "detachment": 4}
    assert sorted(scenario["secret"]["concealed"]) == sorted(concealed)


def test_4_1_every_piece_is_set_up_once(data, m, scenario):
    pos = scenario["allied"]["placements"]
    optional = scenario["optional"]["14.4"]["placements"]
    boxes = scenario["japanese"]["boxes"]
    japanese = [u for units in boxes.values() for u in units]
    assert len(japanese) == len(set(japanese)) and set(japanese) == set(JAPANESE)
    concealable = {u.id for u in data.counters.units if u.front["concealable"]}
    allied_open = {u.id for u in data.counters.of_side("allied") if u.front["optional_rule"] == ""} - concealable
    assert set(pos) == allied_open
    assert set(optional) == {u.id for u in data.counters.units if u.front["optional_rule"] == "14.4"}
    for uid, where in {**pos, **optional}.items():
        assert is_land(m, H(m, where)), uid
    for hx in optional.values():                                    # 14.4: within 1 hex of 1215
        assert H(m, hx).distance(H(m, "1215")) <= 1


def test_4_1_mines(landings, scenario):
    mines = scenario["allied"]["mines"]
    assert sorted(mines) == [f"M{n}" for n in range(1, 9)]
    assert set(mines.values()) <= set(landings["mine_boxes"])
    secret = scenario["secret"]["mines"]
    assert sorted(secret) == sorted(mines)
    assert Counter(secret.values()) == {"real": 5, "dummy": 3}
    laha_box = landings["lanes"]["laha"]["mine_box"]
    in_box = [k for k, b in mines.items() if b == laha_box]
    assert len(in_box) == 3 and Counter(secret[k] for k in in_box) == {"real": 2, "dummy": 1}   # 15.0


def test_4_2_japanese_setup_as_in_15_0(data, m, landings, scenario):
    boxes = scenario["japanese"]["boxes"]
    where = {u: box for box, units in boxes.items() for u in units}
    lanes = landings["lanes"]
    kure = [u for u in JAPANESE if u.startswith("Kure")]
    assert {where[u] for u in kure} == {lanes["liang"]["first_wave"]}        # all Kure, one box
    battalion = lambda n: [f"{n}.{c}" for c in "ABCD"]  # noqa: E731
    assert {where[u] for u in battalion(3) + ["228-HQ"]} == {lanes["laha"]["first_wave"]}
    assert {where[u] for u in battalion(1)} == {lanes["hitu-lama"]["second_wave"]}
    assert {where[u] for u in battalion(2)} == {lanes["laha"]["second_wave"]}
    assert where["228-Art"] in (lanes["hitu-lama"]["second_wave"], lanes["laha"]["second_wave"])
    for box in boxes:
        assert m.box(box).kind in ("first-wave", "second-wave"), box
    # 15.0's landing south of Laha: the three rifle companies at half CS, 4.5:1 -> 4:1
    rifles = [u for u in battalion(3) if not unit(data, u).front["artillery"]]
    landing_cs = sum(Fraction(unit(data, u).front["combat"], 2) for u in rifles)
    defence = 2 * unit(data, "Det-1").front["combat"]
    assert landing_cs == 9 and landing_cs / defence == Fraction(9, 2)
