"""The excerpt's nationality rules, notes and rule sections as data: the
facts each file must hold, validation that names file, line and key, and the
fuzzy look-up behind `pbem asl note`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pbem.errors import DataError, InputError
from pbem.games.asl import data as asl_data
from pbem.games.asl.data import DATA_DIR, best_match, load, lookup

DATA = load()
EXCERPT = Path("/work/shared/seeds/asl-skep2-excerpt.txt")


def test_8_5_chinese_leader_creation_and_paatc_drms():
    chinese = DATA.nationality("Chinese")
    assert chinese.leader_creation_drm == 1
    assert chinese.paatc_drm_non_elite == 1
    assert chinese.th_numbers == "red"
    assert chinese.paatc_drm("3-3-7") == 1  # first line: non-elite
    assert chinese.paatc_drm("3-3-6") == 1  # conscript
    assert chinese.paatc_drm("1-2-7") == 1
    assert chinese.paatc_drm("4-4-7") == 0  # elite
    assert chinese.paatc_drm("5²-3-7") == 0  # printed with its superscript
    with pytest.raises(InputError, match="leader"):
        chinese.paatc_drm("8-0")


def test_chinese_nationality_chart_counters():
    chinese = DATA.nationality("chinese")
    squads = [c.printed for c in chinese.counters if c.kind == "squad"]
    assert squads == ["5²-3-7", "4¹-4-7", "3-3-7", "3-3-6"]
    assert [c.type for c in chinese.counters if c.kind == "half-squad"] == ["2-2-7", "2-3-7", "1-2-7", "1-2-6"]
    assert [c.type for c in chinese.counters if c.kind == "crew"] == ["2-2-7", "1-2-6"]
    assert [c.type for c in chinese.counters if c.kind == "leader"] == ["10-2", "9-2", "9-1", "8-1", "8-0", "7-0", "6+1"]
    assert chinese.counter("3-3-7").half_squad == "1-2-7"  # the Dare-Death Example's Casualty Reduction
    assert chinese.dare_death_excluded == ("5-3-7",)


def test_9_3_1_runway_tem_and_7_14_trucks():
    runway = DATA.terrain["runway"]
    assert runway["rule"] == "9.3.1" and runway["tem"] == -1 and runway["treated_as"] == "paved road"
    assert "unarmored" in runway["tem_applies"] and "FFMO/FFNAM" in runway["tem_applies"]
    truck = DATA.vehicle_class["truck"]
    assert truck["rule"] == "7.14" and "figure eight" in truck["symbol"]
    assert DATA.note("marmon-herrington-iii").movement == "truck"


def test_the_rules_numbers_the_checks_use():
    assert dict(DATA.human_wave) == {"rule": "8.5.1", "min_mmc": 6, "min_mmc_per_hex": 2, "min_hexes": 3}
    assert DATA.dare_death["percent"] == 10 and DATA.dare_death["max_mf_to_target"] == 8
    assert DATA.dare_death["cc_drm"] == -1
    assert DATA.dare_death["hand_to_hand_drm"] == -1  # the Dare-Death Example, either side in Hand-to-Hand CC
    assert DATA.berserk["mf"] == 8 and DATA.berserk["morale"] == 10 and DATA.berserk["max_sw_pp"] == 1


@pytest.mark.parametrize("note, bpv", [
    ("type-92-infantry-gun", 33), ("type-94-rapid-fire-gun", 31), ("year-41-type-mountain-gun", 34),
    ("type-93-twin-mount-hmg", 34), ("vickers-6-ton-mk-e", 29), ("krupp-m08-obice-75-13", 22),
    ("vcl-m1936", 27), ("ctls-4", 22), ("marmon-herrington-iii", 35),
    ("type-92-combat-car", {"Type 92A": 22, "Type 92B": 27}),
    ("type-89-heavy-grenade-launcher", None), ("oml-2in-mortar", None),
])
def test_notes_bpv_as_printed(note, bpv):
    assert DATA.note(note).bpv == bpv


@pytest.mark.parametrize("note, query, rf", [
    ("type-92-infantry-gun", dict(year=1933), "1.0"),
    ("type-92-infantry-gun", dict(year=1938, vs="Russians"), "1.3"),
    ("type-92-infantry-gun", dict(year=1946), "NA"),  # "1933-45": not available after
    ("type-92-combat-car", dict(year=1937), "1.3"),
    ("type-92-combat-car", dict(year=1940), "1.6"),  # +.1 a year thereafter
    ("type-92-combat-car", dict(year=1938, vs="Russians"), "NA"),
    ("type-94-rapid-fire-gun", dict(year=1939, where="China"), "1.2"),
    ("type-94-rapid-fire-gun", dict(year=1939, where="China", vs="Russians"), "1.0"),
    ("type-94-rapid-fire-gun", dict(year=1945, month=8, where="China", vs="Russians"), "1.1"),
    ("type-94-rapid-fire-gun", dict(year=1942, where="Burma"), "1.0"),  # "for use elsewhere"
    ("type-94-rapid-fire-gun", dict(year=1939, where="Burma"), "NA"),  # elsewhere only 1941-45
    ("type-94-rapid-fire-gun", dict(year=1942), None),  # depends on the theatre
    ("year-41-type-mountain-gun", dict(year=1938), "1.2"),
    ("type-93-twin-mount-hmg", dict(year=1943, month=10), "1.4"),
    ("type-93-twin-mount-hmg", dict(year=1943, month=11), "1.3"),
    ("type-93-twin-mount-hmg", dict(year=1943), None),  # depends on the month
    ("type-93-twin-mount-hmg", dict(year=1939, vs="Russians"), "NA"),
    ("vickers-6-ton-mk-e", dict(year=1944), "1.6"),
    ("krupp-m08-obice-75-13", dict(year=1925), "1.4"),
    ("vcl-m1936", dict(year=1942, month=3, where="Java"), "1.5"),
    ("ctls-4", dict(year=1942, month=1, where="Java"), "NA"),  # "in Java 2-3/42"
    ("marmon-herrington-iii", dict(year=1942, month=2, where="Java"), "1.4"),
    ("type-89-heavy-grenade-launcher", dict(year=1942), None),
])
def test_notes_rf_by_date_theatre_and_opponent(note, query, rf):
    assert DATA.note(note).rf_for(**query).value == rf


def test_note_texts_are_the_excerpts_words():
    excerpt = EXCERPT.read_text(encoding="utf-8") if EXCERPT.exists() else None
    for note in DATA.notes:
        for paragraph in (*note.text, *note.special):
            assert paragraph.strip()
            if excerpt is not None:
                assert paragraph in excerpt, f"{note.id}: not the excerpt's text: {paragraph[:60]!r}"
    for section in DATA.sections:
        for paragraph in section.text:
            if excerpt is not None:
                assert paragraph in excerpt


def test_dates_for_burma():
    krupp = DATA.note("krupp-m08-obice-75-13")
    (burma,) = krupp.dates
    assert (burma.where, burma.start, burma.end) == ("Burma", (1942, 3), (1942, 5))
    (vickers,) = DATA.note("vickers-6-ton-mk-e").dates
    assert vickers.where == "Burma" and vickers.na


# --------------------------------------------------------------------------- look-up


@pytest.mark.parametrize("query, name", [
    ("Type 92 Infantry Gun", "Type 92 Infantry Gun"),
    ("type 92 infantry gun", "Type 92 Infantry Gun"),
    ("TYPE-92 infantry-gun", "Type 92 Infantry Gun"),
    ("Type 92 Infantry Gnu", "Type 92 Infantry Gun"),  # a typo
    ("battalion gun", "Type 92 Infantry Gun"),
    ("knee mortar", "Type 89 Heavy Grenade Launcher"),
    ("Type 92B", "Types 92A & 92B Combat Cars"),
    ("marmon herrington iii", "Marmon-Herrington III(b) Armored Cars"),
    ("runway", "9.3.1 Runway"),
    ("8.5.2", "8.5.2 Dare-Death Squads"),
    ("trucks", "7.14 Trucks"),
])
def test_lookup_is_fuzzy_and_case_insensitive(query, name):
    match, _ = best_match(DATA, query)
    assert match is not None and match.entry.name == name


def test_lookup_ambiguous_and_missing():
    match, candidates = best_match(DATA, "type 92")
    assert match is None
    assert {m.entry.name for m in candidates} == {"Type 92 Infantry Gun", "Types 92A & 92B Combat Cars"}
    assert best_match(DATA, "panzer IV") == (None, [])
    with pytest.raises(InputError):
        lookup(DATA, "  ")


# --------------------------------------------------------------------------- validation


def broken(tmp_path: Path, name: str, old: str, new: str) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    path = target / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    asl_data._parse.cache_clear()
    return target


@pytest.mark.parametrize("name, old, new, message", [
    ("notes.toml", 'rf = "1.0"', 'rf = "one"', "notes.toml, line \\d+: note\\[\\d+\\].rf\\[\\d+\\].rf: 'one' is not a decimal"),
    ("notes.toml", 'bpv = 33', 'bpv = "33"', "notes.toml, line \\d+: note\\[\\d+\\].bpv: expected an integer"),
    ("notes.toml", 'nationality = "japanese"', 'nationality = "german"', "'german' is not in nationalities.toml"),
    ("notes.toml", 'from = "1933"', 'from = "33"', "'33' is not a date"),
    ("notes.toml", 'kind = "ordnance"', 'kind = "aircraft"', "'aircraft' is not one of vehicle, ordnance"),
    ("nationalities.toml", 'kind = "half-squad"\nclass = "E"', 'kind = "half-squad"',
     "needs its class letter"),
    ("nationalities.toml", 'printed = "5²-3-7"', 'printed = "5²-3-8"', "does not read as type"),
    ("nationalities.toml", 'half_squad = "1-2-7"', 'half_squad = "1-2-9"', "is not an HS on the chart"),
    ("rules.toml", "min_mmc = 6", "min_mmc = \"six\"", "rules.toml, line \\d+: human_wave.min_mmc: expected an integer"),
    ("rules.toml", "tem = -1", "tem = \"-1\"", "terrain.runway.tem: expected an integer"),
])
def test_invalid_data_names_file_line_and_key(tmp_path, name, old, new, message):
    directory = broken(tmp_path, name, old, new)
    with pytest.raises(DataError, match=message):
        load(directory)


def test_a_data_override_changes_the_ruleset_hash(tmp_path):
    from pbem.games.asl.game import AslGame
    from pbem.match.session import ruleset_hash

    directory = broken(tmp_path, "rules.toml", "tem = -1", "tem = -2")
    assert ruleset_hash(AslGame(data_dir=directory)) != ruleset_hash(AslGame())
    assert AslGame(data_dir=directory).data.terrain["runway"]["tem"] == -2


def test_module_examples_run():
    import doctest

    from pbem.games.asl import board, dare_death

    for module in (board, asl_data, dare_death):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


# --------------------------------------------------------------------------- RF against availability


def rf(note: str, **query):
    return DATA.note(note).rf_for(**query)


@pytest.mark.parametrize("query, value, reason", [
    (dict(year=1943, where="Burma"), "NA", "Dates for use in Burma are 3-5/42."),
    (dict(year=1942, month=6, where="Burma"), "NA", "Dates for use in Burma are 3-5/42."),
    (dict(year=1942, month=2, where="burma"), "NA", "Dates for use in Burma are 3-5/42."),
    (dict(year=1942, month=3, where="Burma"), "1.4", "1.4 1925-1945"),
    (dict(year=1942, month=5, where="Burma"), "1.4", "1.4 1925-1945"),
    (dict(year=1943, where="China"), "1.4", "1.4 1925-1945"),
])
def test_rf_krupp_m08_honours_the_dates_for_burma(query, value, reason):
    """Krupp M08: "RF is 1.4 1925-45. Dates for use in Burma are 3-5/42." """
    answer = rf("krupp-m08-obice-75-13", **query)
    assert answer.value == value and reason in answer.why
    assert answer.available is (value != "NA")
    if value == "NA":
        assert answer.why.startswith("not available")


def test_rf_krupp_m08_in_burma_in_1942_depends_on_the_month():
    answer = rf("krupp-m08-obice-75-13", year=1942, where="Burma")
    assert answer.value is None and answer.available is None
    assert answer.why == ("depends on the month: 1/42-2/42 not available (Dates for use in Burma are 3-5/42.); "
                          "3/42-5/42 1.4; 6/42-12/42 not available (Dates for use in Burma are 3-5/42.)")


def test_rf_without_a_theatre_names_the_theatre_limits():
    answer = rf("krupp-m08-obice-75-13", year=1943)
    assert answer.value == "1.4" and "in Burma only 3/42-5/42" in answer.why
    answer = rf("vickers-6-ton-mk-e", year=1943)
    assert answer.value == "1.6" and "NA in Burma (This vehicle was not used by the Chinese in Burma.)" in answer.why


@pytest.mark.parametrize("query, value", [
    (dict(year=1939, where="Burma"), "NA"),
    (dict(year=1944, where="Burma"), "NA"),
    (dict(year=1939, where="China"), "1.6"),
    (dict(year=1937, where="China"), "1.2"),
])
def test_rf_vickers_6_ton_not_used_in_burma(query, value):
    """Vickers 6-Ton: "This vehicle was not used by the Chinese in Burma." """
    answer = rf("vickers-6-ton-mk-e", **query)
    assert answer.value == value
    if value == "NA":
        assert answer.why == "not available: This vehicle was not used by the Chinese in Burma."


@pytest.mark.parametrize("query, value", [
    (dict(year=1938), "1.3"),
    (dict(year=1938, where="China"), "1.3"),
    (dict(year=1939, where="Manchuria"), "1.0"),
    (dict(year=1939), "1.0"),
    (dict(year=1945, month=8), "1.1"),
    (dict(year=1945, month=8, where="Manchuria"), "1.1"),
    (dict(year=1945, month=8, where="China"), "1.1"),
    (dict(year=1937, where="China"), "NA"),
    (dict(year=1941), "NA"),
    (dict(year=1941, where="China"), "NA"),
    (dict(year=1942, where="Burma"), "NA"),
    (dict(year=1945, month=7, where="Manchuria"), "NA"),
    (dict(year=1945), None),  # 8/45 only: depends on the month
])
def test_rf_type_94_vs_russians_exactly_three_dates(query, value):
    """Type 94 RFG: "Dates and RF for use in China is 1937-1945 (1.2) [EXC: vs
    Russians they are 1938 (1.3), 1939 (1.0), and 8/45 (1.1)]": against the
    Russians those three dates only, in whatever theatre, NA otherwise."""
    answer = rf("type-94-rapid-fire-gun", vs="Russians", **query)
    assert answer.value == value, answer.why
    if value == "NA":
        assert answer.why == "not available: vs Russians the dates are 1938, 1939, 8/45 only"


def test_rf_type_94_vs_others_is_unchanged():
    assert rf("type-94-rapid-fire-gun", year=1941, where="China").value == "1.2"
    assert rf("type-94-rapid-fire-gun", year=1941, where="China", vs="Chinese").value == "1.2"
    assert rf("type-94-rapid-fire-gun", year=1941, where="Burma", vs="British").value == "1.0"


@pytest.mark.parametrize("note, query, why", [
    ("type-92-infantry-gun", dict(year=1932), "not available: the notes give RF for 1933-1945 only"),
    ("vcl-m1936", dict(year=1942, month=5, where="Java"), "not available: the notes give RF for 1940-3/42 in Java only"),
    ("vcl-m1936", dict(year=1941, where="China"), "not available: the notes give RF for 1940-3/42 in Java only"),
    ("type-92-combat-car", dict(year=1938, vs="Russians"), "not available: NA 1938 vs Russians"),
    ("type-93-twin-mount-hmg", dict(year=1939, vs="Russians"), "not available: NA 1938-1939 vs Russians"),
])
def test_rf_outside_the_dates_or_na_is_not_available(note, query, why):
    answer = rf(note, **query)
    assert (answer.value, answer.available, answer.why) == ("NA", False, why)


def test_rf_a_year_split_at_a_month_lists_each_part():
    answer = rf("type-93-twin-mount-hmg", year=1943)
    assert answer.value is None
    assert answer.why == "depends on the month: 1/43-10/43 1.4; 11/43-12/43 1.3"
    answer = rf("vcl-m1936", year=1942, where="Java")
    assert answer.why.startswith("depends on the month: 1/42-3/42 1.5; 4/42-12/42 not available")


@pytest.mark.parametrize("old, new, message", [
    ('vs = "Russians"\nexclusive = true\n\n[[note.rf]]\nrf = "1.0"\nfrom = "1939"', 'exclusive = true\n\n[[note.rf]]\nrf = "1.0"\nfrom = "1939"',
     "note\\[\\d+\\].rf\\[\\d+\\].exclusive: only an entry with vs"),
    ('rf = "1.0"\nfrom = "1939"\nto = "1939"\nvs = "Russians"\nexclusive = true', 'rf = "1.0"\nfrom = "1939"\nto = "1939"\nvs = "Russians"',
     "note\\[\\d+\\].rf\\[\\d+\\]: every entry vs 'Russians' must say exclusive = true"),
])
def test_invalid_exclusive_rf_entries_name_the_key(tmp_path, old, new, message):
    directory = broken(tmp_path, "notes.toml", old, new)
    with pytest.raises(DataError, match=message):
        load(directory)
