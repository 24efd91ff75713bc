"""GC-1 ... GC-5: the vault, the deal, the chips supply, start safes and arrows."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from companion.engine.errors import UserError
from companion.games.gold_connection.board import LAYOUT_FILE, load_vault
from companion.games.gold_connection.rules import ALL_BARS, CHIP_SUPPLY, row_ids
from companion.layout import check_layout
from tests.gold_connection.gc_helpers import GAME, act, assert_all_bars, fresh, refusal, setup


def test_vault_has_fourteen_safes_and_two_choice_points() -> None:
    """GC-R1: our drawing of the vault (14 safes, W and E the two choice points) is what the engine plays."""
    vault = load_vault()
    assert len(vault.safe_ids) == 14
    assert sorted(n for n in vault.numbers.values() if n is not None) == list(range(1, 13))
    choice_points = [safe for safe in vault.safe_ids if vault.is_choice_point(safe)]
    assert sorted(choice_points) == ["E", "W"]
    for safe in vault.safe_ids:
        assert len(vault.neighbours[safe]) == (3 if safe in choice_points else 2)
    assert check_layout("layouts/gold_connection.json") == []


def test_layout_with_a_dangling_connection_is_refused_with_reason_and_rule(tmp_path: Path) -> None:
    data = json.loads(LAYOUT_FILE.read_text(encoding="utf-8"))
    data["connections"].append(["S2", "S13"])
    path = tmp_path / "vault.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UserError, match=r"connections\[17\]: unknown safe 'S13' \(GC-1\)"):
        load_vault(path)


def test_walls_remove_passages_from_the_movement_graph() -> None:
    vault = load_vault()
    for a, b in vault.layout.walls:
        assert b not in vault.neighbours[a] and a not in vault.neighbours[b]


def test_bar_set_has_84_bars_per_colour_six_ones_to_one_six() -> None:
    assert len(ALL_BARS) == 84
    counts = Counter(ALL_BARS)
    for colour in "BGRY":
        assert [counts[f"{colour}{n}"] for n in range(1, 7)] == [6, 5, 4, 3, 2, 1]


def test_app_deal_puts_six_bars_in_every_safe_from_the_seed() -> None:
    state = fresh(seed=7)
    assert all(len(bars) == 6 for bars in state.safes.values())
    assert len(state.safes) == 14
    assert_all_bars(state)
    assert fresh(seed=7).safes == state.safes
    assert fresh(seed=8).safes != state.safes
    assert state.phase == "start_roll"


def test_table_deal_enters_each_safe_and_refuses_impossible_sets() -> None:
    state = fresh(deal="table")
    assert state.phase == "enter_safes"
    assert GAME.prompt(state).expects == ("enter_safe",)
    assert refusal(state, {"type": "enter_safe", "safe": "S1", "bars": ["B1"] * 5}).code == "setup.six_bars"
    assert refusal(state, {"type": "enter_safe", "safe": "S1", "bars": ["B6", "B6", "B1", "B1", "B1", "B1"]}
                   ).code == "setup.too_many"
    assert refusal(state, {"type": "enter_safe", "safe": "S1", "bars": ["X1", "B1", "B1", "B1", "B1", "B1"]}
                   ).rule == "GC-2"
    assert refusal(state, {"type": "enter_safe", "safe": "S99", "bars": ["B1"] * 6}).rule == "GC-1"
    dealt = fresh(seed=3)
    for safe, bars in dealt.safes.items():
        state, _ = act(state, {"type": "enter_safe", "safe": safe, "bars": list(bars)})
        if state.phase == "enter_safes":
            assert refusal(state, {"type": "enter_safe", "safe": safe, "bars": list(bars)}).code == "setup.safe_filled"
    assert state.phase == "start_roll"
    assert state.safes == dealt.safes
    assert_all_bars(state)


def test_chip_supply_starts_at_twenty_and_boxes_have_rows_of_four_five_six() -> None:
    """GC-3: twenty chips in the supply; each colour has rows of 4, 5 and 6 in every box."""
    state = fresh(players=3)
    assert state.chip_supply == CHIP_SUPPLY == 20
    assert all(robber.chips == 0 for robber in state.robbers)
    assert set(state.robbers[0].rows) == set(row_ids(3))
    assert {row[1:] for row in state.robbers[0].rows} == {"4", "5", "6"}


def test_player_count_outside_two_to_four_is_refused() -> None:
    with pytest.raises(UserError):
        GAME.initial_state(setup(players=1))


def test_start_safe_is_one_die_or_the_sum() -> None:
    state, _ = act(fresh(), {"type": "roll", "values": [2, 5]})
    assert state.phase == "start_choose"
    assert GAME.start_numbers(state) == [2, 5, 7]
    refused = refusal(state, {"type": "choose_start", "safe": "S3"})
    assert (refused.rule, refused.code) == ("GC-4", "start.not_rolled")
    assert refusal(state, {"type": "choose_start", "safe": "W"}).rule == "GC-4"
    state, _ = act(state, {"type": "choose_start", "safe": "S7"})
    assert state.robbers[0].stone == "S7" and state.current == 1


def test_start_safe_taken_is_refused_and_all_taken_means_reroll() -> None:
    state, _ = act(fresh(players=3), {"type": "roll", "values": [1, 1]}, {"type": "choose_start", "safe": "S2"},
                   {"type": "roll", "values": [1, 1]})
    assert GAME.start_numbers(state) == [1]
    assert refusal(state, {"type": "choose_start", "safe": "S2"}).code == "start.taken"
    state, _ = act(state, {"type": "choose_start", "safe": "S1"})
    before = state
    state, events = act(state, {"type": "roll", "values": [1, 1]})
    assert [event.kind for event in events] == ["start.reroll"]
    assert state == before and state.phase == "start_roll"


def test_impossible_start_die_is_refused_with_rule() -> None:
    refused = refusal(fresh(), {"type": "roll", "values": [0, 7]})
    assert (refused.code, refused.rule) == ("dice.impossible", "GC-9")
    assert refusal(fresh(), {"type": "roll", "values": [3]}).code == "dice.count"


@pytest.mark.parametrize(("dice", "language", "ending"), [
    ((3, 4), "en", "on safe 3, 4 or 7."), ((3, 4), "de", "auf Schrank 3, 4 oder 7."),
    ((3, 4), "fr", "3, 4 ou 7."), ((2, 2), "en", "on safe 2 or 4."), ((2, 2), "de", "auf Schrank 2 oder 4.")])
def test_the_start_safes_are_offered_as_alternatives(dice: tuple[int, int], language: str, ending: str) -> None:
    """GC-4: the table names the safes the roll allows as a choice ("3, 4 or 7"), not as a bare list."""
    from companion.app.i18n import game_text

    state, _ = act(fresh(), {"type": "roll", "values": list(dice)})
    prompt = GAME.prompt(state)
    assert game_text("gold_connection", prompt.message, prompt.params, language).endswith(ending)


def test_arrows_are_laid_from_the_highest_safe_in_seat_order_who_then_starts() -> None:
    state, _ = act(fresh(players=3), {"type": "roll", "values": [1, 2]}, {"type": "choose_start", "safe": "S3"},
                   {"type": "roll", "values": [5, 6]}, {"type": "choose_start", "safe": "S11"},
                   {"type": "roll", "values": [4, 4]}, {"type": "choose_start", "safe": "S8"})
    assert state.phase == "arrows"
    assert state.arrow_order == (1, 2, 0) and state.current == 1
    assert refusal(state, {"type": "place_arrow", "heading": "S3"}).code == "move.not_adjacent"
    own = refusal(state, {"type": "place_arrow", "heading": "S11"})
    assert (own.code, own.rule) == ("move.stays", "GC-5")
    state, _ = act(state, {"type": "place_arrow", "heading": "S12"})
    assert state.current == 2
    assert refusal(state, {"type": "place_arrow", "heading": "S12"}).rule == "GC-5"
    state, _ = act(state, {"type": "place_arrow", "heading": "E"})
    assert refusal(state, {"type": "place_arrow", "heading": "W"}).code == "move.wall"
    state, events = act(state, {"type": "place_arrow", "heading": "S2"})
    assert state.phase == "turn" and state.current == 1 and state.counter == 1
    assert state.robbers[1].heading == "S12" and state.robbers[0].heading == "S2"
    assert events[-1].kind == "turn.start"


def test_start_rolls_begin_with_the_first_player_of_the_setup() -> None:
    """GC-R4: the start rolls begin with the setup's first player and go on in seat order."""
    state = GAME.initial_state(setup(players=3).evolve(first_player=2))
    assert GAME.prompt(state).player == 2
