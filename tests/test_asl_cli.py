"""`pbem asl ...`: note look-up, Berserk, Charge and Human Wave checks at the
command line, with their exit statuses (0 ok, 1 a rule fails, 2 bad input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.games.asl.cli import register

register(main)
register(main)  # twice is harmless
EXAMPLE = Path(__file__).parent.parent / "examples" / "asl" / "dare-death-example.toml"


def run(*args: str):
    return CliRunner().invoke(main, ["asl", *map(str, args)], env={"COLUMNS": "200"}, catch_exceptions=False)


def test_note_prints_the_type_92_infantry_gun():
    r = run("note", "Type 92 Infantry Gun")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == "Type 92 Infantry Gun -- Japanese Ordnance Notes"
    assert "BPV: 33" in lines and "RF: 1.0 1933-1945" in lines and "RF: 1.3 1938 vs Russians" in lines
    assert any(line.startswith('Commonly referred to as the "battalion gun"') for line in lines)
    assert '† RF is 1.0 1933-45 [EXC: vs Russians in 1938 it is 1.3]. BPV is 33.' in lines


def test_note_is_case_insensitive_and_fuzzy_with_json():
    r = run("note", "type 92 infantry gnu", "--json", "--year", "1938", "--vs", "russians")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["name"] == "Type 92 Infantry Gun" and data["bpv"] == 33 and data["kind"] == "ordnance"
    assert data["rf_for"]["value"] == "1.3"
    assert data["rf"][0] == {"rf": "1.0", "na": False, "period": "1933-1945", "where": "", "vs": "", "step": None,
                             "exclusive": False}


def test_note_cli_says_not_available_with_the_reason():
    """Krupp M08 "Dates for use in Burma are 3-5/42"; Type 94 vs Russians
    "1938 (1.3), 1939 (1.0), and 8/45 (1.1)" only."""
    r = run("note", "Krupp M08", "--year", "1943", "--where", "Burma")
    assert r.exit_code == 0, r.output
    assert "RF for the date asked: not available (Dates for use in Burma are 3-5/42.)" in r.output.splitlines()
    r = run("note", "Type 94 RFG", "--year", "1941", "--vs", "Russians", "--json")
    assert json.loads(r.output)["rf_for"] == {
        "value": "NA", "available": False, "why": "not available: vs Russians the dates are 1938, 1939, 8/45 only"}


def test_note_finds_rule_sections_and_vehicle_notes():
    r = run("note", "runway")
    assert r.exit_code == 0 and r.output.startswith("9.3.1 Runway") and "The TEM of a Runway hex is -1" in r.output
    r = run("note", "marmon-herrington iii", "--json")
    data = json.loads(r.output)
    assert data["movement"] == "truck" and data["bpv"] == 35 and data["rf"][0]["where"] == "Java"


def test_note_ambiguous_or_unknown_is_a_usage_error():
    r = run("note", "type 92")
    assert r.exit_code == 2 and "matches several entries: Type 92 Infantry Gun; Types 92A & 92B Combat Cars" in r.output
    r = run("note", "Tiger II")
    assert r.exit_code == 2 and "no note or rule section matches 'Tiger II'" in r.output


def test_check_berserk_on_the_dare_death_example():
    r = run("check-berserk", EXAMPLE)  # the file declares A going Berserk
    assert r.exit_code == 0, r.output
    assert r.output.startswith("A may go Berserk (targets: J)")
    assert "Y1 Y2 X2 for 3 MF" in r.output
    r = run("check-berserk", EXAMPLE, "--all", "--json")
    units = {u["unit"]: u["eligible"] for u in json.loads(r.output)["units"]}
    assert units == {"A": True, "B": False, "C": False, "D": False, "E": False}


@pytest.mark.parametrize("unit, reason", [
    ("B", "B cannot move: marked Prep Fire"),
    ("C", "7-0 in AA2 is marked with a Prep Fire counter"),
    ("D", "J (4-4-8 in X2) is not in LOS of D (AA1)"),
    ("E", "E is not a Dare-Death Squad"),
])
def test_check_berserk_refuses_b_c_d_e_with_exit_1(unit, reason):
    r = run("check-berserk", EXAMPLE, "--unit", unit, "--target", "J")
    assert r.exit_code == 1
    assert reason in r.output and "not all may go Berserk" in r.output


def test_check_berserk_input_errors(tmp_path):
    r = run("check-berserk", EXAMPLE, "--unit", "A")
    assert r.exit_code == 2 and "--unit needs --target" in r.output
    bad = tmp_path / "bad.toml"
    bad.write_text('[[unit]]\nid = "A"\ntype = "3-3-7"\nhex = "ZZ9"\n')
    r = run("check-berserk", bad)
    assert r.exit_code == 2 and "position: unit A: hex: hex 'ZZ9'" in r.output


def test_charge_route():
    r = run("charge", EXAMPLE, "--unit", "A", "--target", "J", "--route", "Y1 Y2 X2")
    assert r.exit_code == 0 and "shortest Charge route for A (3-3-7 in Z0) into X2: Y1 Y2 X2 (3 MF)" in r.output
    r = run("charge", EXAMPLE, "--unit", "A", "--target", "J", "--route", "Y1 X1 X2")
    assert r.exit_code == 1 and "Y1 X1 X2 costs 4 MF" in r.output


def test_charge_of_the_examples_hs_from_y2_into_x2(tmp_path):
    """Dare-Death Example: the 1-2-7 HS "must now enter the 4-4-8's hex"."""
    hs = tmp_path / "hs.toml"
    hs.write_text(EXAMPLE.read_text().replace('id = "A"\ntype = "3-3-7"\nhex = "Z0"\nmarkers = ["CX"]',
                                              'id = "A"\ntype = "1-2-7"\nhex = "Y2"\nmarkers = ["Berserk"]'))
    r = run("charge", hs, "--unit", "A", "--target", "J", "--route", "X2")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == ["shortest Charge route for A (1-2-7 in Y2) into X2: X2 (1 MF)",
                                     "[Berserk] yes: X2 is a shortest route in MF (1 MF)"]


WAVE = """
[[unit]]
id = "S1"
type = "3-3-7"
hex = "P4"
[[unit]]
id = "S2"
type = "3-3-7"
hex = "P4"
[[unit]]
id = "S3"
type = "3-3-7"
hex = "P5"
[[unit]]
id = "S4"
type = "3-3-6"
hex = "P5"
[[unit]]
id = "S5"
type = "4-4-7"
hex = "P6"
[[unit]]
id = "S6"
type = "1-2-7"
hex = "P6"
[[unit]]
id = "J"
type = "4-4-8"
hex = "T9"
enemy = true

[human_wave]
hexes = ["P4", "P5", "P6"]
"""


def test_human_wave_command(tmp_path):
    path = tmp_path / "wave.toml"
    path.write_text(WAVE)
    r = run("human-wave", path)
    assert r.exit_code == 0, r.output
    assert r.output.startswith("a valid Human Wave: 6 MMC in P4 P5 P6")
    r = run("human-wave", path, "--units", "S1,S2,S3,S4", "--json")
    assert r.exit_code == 1
    assert json.loads(r.output.split("Error:")[0])["valid"] is False
    path.write_text(WAVE.replace('hex = "T9"', 'hex = "Q6"'))
    r = run("human-wave", path)
    assert r.exit_code == 1 and "P5 is adjacent to J (4-4-8 in Q6)" in r.output


def test_asl_help_lists_the_commands():
    r = run("--help")
    assert r.exit_code == 0
    for command in ("note", "check-berserk", "human-wave", "charge"):
        assert command in r.output


@pytest.mark.parametrize("option, value, noun", [
    ("--hexes", ",,,", "hex"), ("--hexes", "", "hex"), ("--units", " , ", "unit")])
def test_human_wave_an_option_naming_nothing_is_a_usage_error(option, value, noun):
    r = run("human-wave", EXAMPLE, option, value)
    assert r.exit_code == 2, r.output
    assert f"Invalid value for '{option}': {value!r} names no {noun}; give them comma-separated" in r.output
    assert "contiguous" not in r.output


@pytest.mark.parametrize("option, value", [("--month", "5"), ("--where", "Burma"), ("--vs", "Russians")])
def test_note_a_date_option_without_year_is_a_usage_error(option, value):
    r = run("note", "Type 92 Infantry Gun", option, value)
    assert r.exit_code == 2 and f"Error: {option} needs --year" in r.output, r.output
    r = run("note", "Type 92 Infantry Gun", option, value, "--year", "1942")
    assert r.exit_code == 0, r.output


def test_note_echoes_at_most_60_printable_characters_of_the_query():
    r = run("note", "x" * 100_000)
    assert r.exit_code == 2
    assert r.output == f"Error: no note or rule section matches {'x' * 60!r} (the first 60 of 100000 characters)\n"
    binary = "".join(map(chr, range(1, 256))) * 4
    r = run("note", binary)
    assert r.exit_code == 2 and len(r.output) < 200, r.output
    shown = r.output.split("matches ", 1)[1]
    assert shown.startswith("'" + "?" * 31 + ' !"#$%&') and "\\x" not in shown  # chr(1)-chr(31) are shown as '?'
    assert shown.endswith("(the first 60 of 1020 characters)\n")
    assert all(c.isprintable() for c in r.output.rstrip("\n"))
