"""4.1 and 4.2: a setup's mistakes reported as they are (issue 26: "One
misplaced unit in a setup gives 10 errors, 9 of them spurious").  The
finished setup is checked as a whole, so a unit in the wrong hex is one
mistake -- not a mistake in every order after it -- and independent
mistakes are each reported once."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import last_line

SPELLED_OUT = (Path(__file__).parent.parent / "examples" / "ambon" / "1-allied-setup.toml").read_text()


def moved(text: str, **where: str) -> str:
    """The spelled-out historical Allied setup with ``unit_or_piece = hex`` changed."""
    for unit, hexlabel in where.items():
        unit = unit.replace("_dot_", ".").replace("_", "-")  # NEI_2_dot_A -> NEI-2.A
        line = next(f'{verb} = "{unit}"\nhex = "' for verb in ("place", "conceal") if f'{verb} = "{unit}"' in text)
        start = text.index(line) + len(line)
        text = text[:start] + hexlabel + text[start + 4:]
    return text


@pytest.fixture
def proposal(players):
    a, b = players
    r = a.run("new", a.game, "--game", "ambon", "--as", "japanese", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    return last_line(r.output)


def join_with(b, proposal, tmp_path, text):
    orders = tmp_path / "setup.toml"
    orders.write_text(text)
    return b.run("join", proposal, "--dir", b.game, "--orders", orders)


def error_of(output: str) -> str:
    return output[output.index("Error: "):].rstrip("\n")


def test_4_1_one_misplaced_unit_is_one_error(players, proposal, tmp_path):
    _, b = players
    r = join_with(b, proposal, tmp_path, moved(SPELLED_OUT, AUS_A="1115"))
    assert r.exit_code == 1
    assert error_of(r.output) == "Error: 4.1: Eri (1114): AUS A Company and 1 NEI company: AUS-A is in 1115"
    assert not b.game.exists()


def test_4_1_independent_setup_mistakes_are_each_reported_once(players, proposal, tmp_path):
    """Three mistakes, three lines: no "has not been placed" for the orders
    after them, no surplus-company line for the Paso company moved away."""
    _, b = players
    r = join_with(b, proposal, tmp_path, moved(SPELLED_OUT, AUS_A="1115", NEI_2_dot_A="1708", AUS_D="0612"))
    assert r.exit_code == 1
    assert error_of(r.output) == (
        "Error: 4.1: the Allied setup breaks 3 requirements:\n"
        "  Eri (1114): AUS A Company and 1 NEI company: AUS-A is in 1115\n"
        "  Paso (1809): 3 NEI companies: 1809 holds 2 NEI companies\n"
        "  south of Laha (0813): AUS D Company: AUS-D is in 0612")


def test_4_1_an_order_refused_on_its_own_is_named_without_the_setup_cut_short(players, proposal, tmp_path):
    """A concealed piece inland is refused by its own order (4.1); the setup
    without it would lack X8, which is not another mistake."""
    _, b = players
    r = join_with(b, proposal, tmp_path, moved(SPELLED_OUT, X8="1314"))
    assert r.exit_code == 1
    assert error_of(r.output) == ('Error: order 27 (conceal = "X8"): 4.1: concealed piece X8 must be placed on a '
                                  "coastal hex, not 1314 (the orders as a whole are checked once this is fixed)")


def six_real_mines(text: str) -> str:
    """The setup with M8 real: 6 real mines and 2 dummies, against 4.1's 5 and 3."""
    return text.replace('mine = "M8"\nbox = "mine-3"\nis = "dummy"', 'mine = "M8"\nbox = "mine-3"\nis = "real"')


def test_4_1_wrong_counts_and_a_misplaced_unit_are_both_reported(players, proposal, tmp_path):
    """The sealed values' check (4.1's counts) and the setup's are about the
    orders together: each is reported, and no order is blamed for either."""
    _, b = players
    text = six_real_mines(moved(SPELLED_OUT, AUS_A="1115"))
    r = join_with(b, proposal, tmp_path, text)
    assert r.exit_code == 1
    assert error_of(r.output) == (
        "Error: 2 mistakes in these orders:\n"
        "  4.1: M1-M8 must be exactly 5 real and 3 dummy mines, are {'real': 6, 'dummy': 2}\n"
        "  4.1: Eri (1114): AUS A Company and 1 NEI company: AUS-A is in 1115")


def test_4_1_dry_run_of_a_setup_reports_the_misplaced_unit_only(players, tmp_path):
    """The Allies propose, so their setup is message 2: pbem play --dry-run."""
    a, b = players
    r = a.run("new", a.game, "--game", "ambon", "--as", "allied", "--opponent", b.pub())
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    orders = tmp_path / "setup.toml"
    orders.write_text(moved(SPELLED_OUT, NEI_1_dot_D="1015"))
    r = a.run("play", a.game, "--orders", orders, "--dry-run")
    assert r.exit_code == 1
    assert error_of(r.output) == "Error: 4.1: Latuhalat (1016): 1 NEI company: 1016 holds 0 NEI companies"


def test_4_2_a_japanese_setup_mistake_is_not_blamed_on_the_landing_orders(players, tmp_path):
    """4.2 is checked when the landing orders end the setup phase: the
    mistake is reported, not the land order that came after it."""
    a, b = players
    r = a.run("new", a.game, "--game", "ambon", "--as", "allied", "--opponent", b.pub())
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    setup = tmp_path / "allied.toml"
    setup.write_text(SPELLED_OUT)
    r = a.run("play", a.game, "--orders", setup)
    assert r.exit_code == 0, r.output
    assert b.run("receive", b.game, last_line(r.output)).exit_code == 0
    japanese = tmp_path / "japanese.toml"
    japanese.write_text('[[order]]\nwave = "fw-liang"\nunits = ["Kure-HQ", "Kure-1", "Kure-2", "Kure-3"]\n'
                        '[[order]]\nwave = "fw-laha"\nunits = ["Kure-MG", "228-HQ", "3.A", "3.B", "3.C", "3.D"]\n'
                        '[[order]]\nwave = "sw-hitu-lama"\nunits = ["1.A", "1.B", "1.C", "1.D", "228-Art"]\n'
                        '[[order]]\nwave = "sw-laha"\nunits = ["2.A", "2.B", "2.C", "2.D"]\n'
                        '[[order]]\nland = "fw-liang"\n[[order]]\nland = "fw-laha"\n')
    r = b.run("play", b.game, "--orders", japanese, "--dry-run")
    assert r.exit_code == 1
    assert error_of(r.output) == ("Error: 4.2: all Kure 1 Special units must be in one First Wave box, "
                                  "not fw-laha, fw-liang")


def test_4_1_wrong_counts_and_an_order_refused_on_its_own_are_both_reported(players, proposal, tmp_path):
    _, b = players
    text = six_real_mines(moved(SPELLED_OUT, X8="1314"))
    r = join_with(b, proposal, tmp_path, text)
    assert r.exit_code == 1
    assert error_of(r.output) == (
        "Error: 2 mistakes in these orders (the orders as a whole are checked once these are fixed):\n"
        "  4.1: M1-M8 must be exactly 5 real and 3 dummy mines, are {'real': 6, 'dummy': 2}\n"
        '  order 27 (conceal = "X8"): 4.1: concealed piece X8 must be placed on a coastal hex, not 1314')
    assert not b.game.exists()
