"""GC-16 ... GC-19 and GC-21: plundering, the end of the game, scoring, tie-breaks and the variant."""

from __future__ import annotations

from companion.games.gold_connection.rules import Robber, box_score
from tests.gold_connection.gc_helpers import (
    GAME,
    act,
    assert_all_bars,
    refusal,
    turn_state,
    with_chips,
    with_rows,
    with_safe,
)

RICH_BOX = {"B6": (1, 2, 3, 4), "G5": (1, 2), "R4": (1, 2, 3), "Y6": (1,)}


def plunder_table():
    """Seat 0 on S6 pointing to S7; seat 1 on S8 with ten bars in the box; S7 holds a yellow 2."""
    state = turn_state({0: ("S6", "S7"), 1: ("S8", "S9")})
    state = with_rows(state, 1, RICH_BOX)
    return with_safe(state, "S7", ("Y2",))


def after_loot_at_s7_then_to_s8():
    state, _ = act(plunder_table(), {"type": "move", "path": ["S7"]}, {"type": "loot", "bars": ["Y2"]},
                   {"type": "roll", "values": [6, 6]}, {"type": "move", "path": ["E", "S8"]})
    return state


# -- GC-16 who may be plundered and how --------------------------------------------------------------
def test_plunder_takes_from_the_top_of_rows_and_counts_like_a_loot() -> None:
    state = after_loot_at_s7_then_to_s8()
    state, _ = act(state, {"type": "plunder", "victim": 1, "take": {"B6": 1, "G5": 1}})
    assert state.announcement is not None
    assert sorted(state.announcement.bars) == ["B4", "G2"]
    assert state.announcement.target == 3 + 4 + 2


def test_plunder_needs_ten_bars_the_victims_stone_and_sane_rows() -> None:
    poor = turn_state({0: ("S7", "E"), 1: ("S8", "S9")})
    poor = with_rows(poor, 1, {"B6": (1, 2, 3)})
    poor, _ = act(poor, {"type": "move", "path": ["E", "S8"]})
    refused = refusal(poor, {"type": "plunder", "victim": 1, "take": {"B6": 1}})
    assert (refused.code, refused.rule) == ("plunder.too_few", "GC-16")
    state = after_loot_at_s7_then_to_s8()
    assert refusal(state, {"type": "plunder", "victim": 0, "take": {"B6": 1}}).code == "plunder.victim"
    assert refusal(state, {"type": "plunder", "victim": 1, "take": {"B6": 5}}).code == "plunder.row_count"
    assert refusal(state, {"type": "plunder", "victim": 1, "take": {"B5": 1}}).code == "plunder.row_count"
    assert refusal(state, {"type": "plunder", "victim": 1, "take": {"X9": 1}}).code == "plunder.unknown_row"
    assert refusal(state, {"type": "plunder", "victim": 1, "take": {}}).code == "plunder.no_bars"
    elsewhere, _ = act(plunder_table(), {"type": "move", "path": ["S7"]})
    assert refusal(elsewhere, {"type": "plunder", "victim": 1, "take": {"B6": 1}}).code == "plunder.not_there"


def test_a_box_falling_below_ten_is_allowed_and_no_box_twice_in_a_turn() -> None:
    state, _ = act(after_loot_at_s7_then_to_s8(), {"type": "plunder", "victim": 1, "take": {"B6": 2}},
                   {"type": "roll", "values": [6, 6]})
    assert state.robbers[1].bar_count() == 8
    assert_all_bars(state)
    state = state.evolve(robbers=(state.robbers[0], state.robbers[1].evolve(
        rows=state.robbers[1].rows | {"B6": (1, 2, 3, 4)})))
    state = state.evolve(tray=tuple(bar for bar in state.tray if bar != "B4"))
    state, _ = act(state, {"type": "move", "path": ["S9", "S10", "S11", "S12", "E", "S8"]})
    assert refusal(state, {"type": "plunder", "victim": 1, "take": {"B6": 1}}).code == "plunder.twice"


# -- GC-17 plunder success and failure ---------------------------------------------------------------
def test_plunder_success_obliges_moving_on_without_ending_or_looting_there() -> None:
    state, _ = act(after_loot_at_s7_then_to_s8(), {"type": "plunder", "victim": 1, "take": {"B6": 1, "G5": 1}},
                   {"type": "roll", "values": [5, 4]})
    assert state.tray == ("B4", "G2", "Y2")
    assert state.robbers[1].rows["B6"] == (1, 2, 3) and state.robbers[1].rows["G5"] == (1,)
    for raw in ({"type": "end_turn"}, {"type": "stop"}, {"type": "loot", "bars": [state.safes["S8"][0]]}):
        refused = refusal(state, raw)
        assert (refused.code, refused.rule) == ("plunder.move_on", "GC-17")
    state, _ = act(state, {"type": "move", "path": ["S9"]}, {"type": "stop"}, {"type": "roll", "values": [6, 6]})
    assert state.phase == "sort"
    state, _ = act(state, {"type": "sort", "rows": {}})
    assert {"B4", "G2", "Y2"} <= set(state.safes["S9"]) and state.robbers[0].stone == "S9"
    assert_all_bars(state)


def test_plunder_failure_pays_the_victim_and_sends_the_plunderer_home() -> None:
    """GC-17 and GC-R7: named bars stay in their rows until the roll, so a failure leaves them there."""
    state, _ = act(after_loot_at_s7_then_to_s8(), {"type": "plunder", "victim": 1, "take": {"B6": 2}})
    safe_before = state.safes["S8"]
    state, _ = act(state, {"type": "roll", "values": [1, 2]})
    assert state.robbers[1].rows == with_rows(turn_state({0: ("S6", "S7"), 1: ("S8", "S9")}), 1,
                                              RICH_BOX).robbers[1].rows
    assert state.robbers[1].chips == 2 and state.robbers[0].chips == 0 and state.chip_supply == 18
    assert sorted(state.safes["S8"]) == sorted((*safe_before, "Y2"))
    assert state.robbers[0].arrow == "S6" and state.robbers[0].heading == "S7"
    assert state.current == 1
    assert_all_bars(state)


# -- GC-18 end of the game ---------------------------------------------------------------------------
def test_the_turn_that_moves_the_counter_to_36_is_the_last() -> None:
    state = turn_state({0: ("S1", "S2"), 1: ("S8", "S9")}).evolve(counter=35)
    state, _ = act(state, {"type": "move", "path": ["S2"]}, {"type": "stop"}, {"type": "roll", "values": [1, 1]})
    assert state.counter == 36 and state.current == 1 and not GAME.is_over(state)
    state, _ = act(state, {"type": "move", "path": ["S9"]}, {"type": "stop"}, {"type": "roll", "values": [1, 1]})
    assert GAME.is_over(state) and GAME.prompt(state).expects == ()
    refused = refusal(state, {"type": "move", "path": ["S10"]})
    assert (refused.code, refused.rule) == ("game.over", "GC-18")


def test_a_failed_last_turn_also_ends_the_game() -> None:
    state = turn_state({0: ("S1", "S2"), 1: ("S8", "S9")}).evolve(counter=36)
    state, _ = act(state, {"type": "move", "path": ["S2", "S3", "S4"]}, {"type": "stop"},
                   {"type": "roll", "values": [1, 1]})
    assert GAME.is_over(state)


# -- GC-19 scoring and ties --------------------------------------------------------------------------
def test_score_is_bar_numbers_plus_row_bonuses() -> None:
    """GC-19: scoring and ties."""
    rows = {"B4": (1, 2, 3, 4), "B5": (1, 2, 3, 4, 5), "B6": (1, 2, 3, 4, 5, 6), "G6": (1, 2, 3, 4, 5)}
    assert box_score(Robber(rows=rows)) == 10 + (15 + 5) + (21 + 10) + 15


def test_ties_go_to_most_chips_then_are_shared() -> None:
    state = with_rows(turn_state({0: ("S1", "S2"), 1: ("S8", "S9"), 2: ("S4", "S5")}, players=3), 0, {"B6": (1, 2)})
    state = with_rows(state, 1, {"G6": (1, 2)})
    state = with_rows(state, 2, {"R6": (1,)})
    state = with_chips(with_chips(state, 0, 1), 1, 3)
    assert GAME.scores(state) == [3, 3, 1]
    assert GAME.winners(state) == [1]
    assert GAME.winners(with_chips(state, 0, 3)) == [0, 1]


# -- GC-21 the variant without counter ---------------------------------------------------------------
def nearly_two_sixes(**options: str):
    state = turn_state({0: ("S2", "S3"), 1: ("S8", "S9")}, game_end="series", **options)
    state = with_rows(state, 0, {"B6": (1, 2, 3, 4, 5, 6), "G6": (1, 2, 3, 4, 5), "R5": (1, 2, 3, 4, 5)})
    state = with_safe(state, "S3", ("G6",))
    state, _ = act(state, {"type": "move", "path": ["S3"]}, {"type": "loot", "bars": ["G6"]},
                   {"type": "roll", "values": [6, 1]}, {"type": "end_turn"})
    return state


def test_variant_has_no_counter_and_ends_with_two_complete_six_rows() -> None:
    state = nearly_two_sixes()
    assert state.counter == 0
    state, _ = act(state, {"type": "sort", "rows": {"G6": [6]}})
    assert GAME.is_over(state)


def test_variant_reading_two_six_or_three_five_does_not_end_on_six_plus_five() -> None:
    """GC-R3: one 6-row and one 5-row end the game only with `any_two`."""
    state = turn_state({0: ("S2", "S3"), 1: ("S8", "S9")}, game_end="series", series_reading="two_six_or_three_five")
    state = with_rows(state, 0, {"B6": (1, 2, 3, 4, 5, 6), "G5": (1, 2, 3, 4)})
    state = with_safe(state, "S3", ("G5",))
    state, _ = act(state, {"type": "move", "path": ["S3"]}, {"type": "loot", "bars": ["G5"]},
                   {"type": "roll", "values": [6, 1]}, {"type": "end_turn"}, {"type": "sort", "rows": {"G5": [5]}})
    assert not GAME.is_over(state) and state.current == 1 and state.counter == 0
    other = turn_state({0: ("S2", "S3"), 1: ("S8", "S9")}, game_end="series", series_reading="any_two")
    other = with_rows(other, 0, {"B6": (1, 2, 3, 4, 5, 6), "G5": (1, 2, 3, 4)})
    other = with_safe(other, "S3", ("G5",))
    other, _ = act(other, {"type": "move", "path": ["S3"]}, {"type": "loot", "bars": ["G5"]},
                   {"type": "roll", "values": [6, 1]}, {"type": "end_turn"}, {"type": "sort", "rows": {"G5": [5]}})
    assert GAME.is_over(other)


def test_variant_ends_with_three_complete_five_rows() -> None:
    state = turn_state({0: ("S2", "S3"), 1: ("S8", "S9")}, game_end="series")
    state = with_rows(state, 0, {"B5": (1, 2, 3, 4, 5), "G5": (1, 2, 3, 4, 5), "R5": (1, 2, 3, 4)})
    state = with_safe(state, "S3", ("R5",))
    state, _ = act(state, {"type": "move", "path": ["S3"]}, {"type": "loot", "bars": ["R5"]},
                   {"type": "roll", "values": [6, 1]}, {"type": "end_turn"}, {"type": "sort", "rows": {"R5": [5]}})
    assert GAME.is_over(state)
