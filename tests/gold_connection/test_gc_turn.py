"""GC-6 ... GC-15 and GC-20: counter, movement, looting, the loot roll, chips, success, ending, sorting, failure."""

from __future__ import annotations

from fractions import Fraction

from companion.games.gold_connection.rules import auto_sort, chance
from companion.games.gold_connection.words import safe_words
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

TWO = {0: ("S1", "S2"), 1: ("S8", "S9")}


def rulebook_start():
    """Seat 0 on S1 pointing to S2; safe S3 holds blue 2 and 3, safe S4 blue 1 and yellow 1."""
    state = turn_state(TWO)
    state = with_safe(state, "S3", ("B2", "B3"))
    return with_safe(state, "S4", ("B1", "Y1"))


# -- GC-6 turn counter -------------------------------------------------------------------------------
def test_counter_moves_once_per_turn_and_not_when_continuing() -> None:
    """GC-6: the turn counter."""
    state = rulebook_start()
    state, _ = act(state, {"type": "move", "path": ["S2", "S3"]}, {"type": "loot", "bars": ["B2"]},
                   {"type": "roll", "values": [6, 6]})
    assert state.counter == 1
    state, _ = act(state, {"type": "move", "path": ["S4"]}, {"type": "loot", "bars": ["B1"]},
                   {"type": "roll", "values": [6, 6]})
    assert state.counter == 1
    state, _ = act(state, {"type": "end_turn"}, {"type": "sort", "rows": {"B6": [1, 2]}})
    assert state.current == 1 and state.counter == 2


# -- GC-7 movement -----------------------------------------------------------------------------------
def test_move_must_follow_the_arrow_and_cover_at_least_one_field() -> None:
    state = turn_state(TWO)
    assert refusal(state, {"type": "move", "path": ["W"]}).code == "move.against_arrow"
    assert refusal(state, {"type": "move", "path": []}).code == "move.at_least_one"
    assert refusal(state, {"type": "loot", "bars": ["B1"]}).code == "move.at_least_one"
    assert refusal(state, {"type": "stop"}).rule == "GC-7"
    assert refusal(state, {"type": "move", "path": ["S2", "S4"]}).code == "move.not_adjacent"
    assert refusal(state, {"type": "move", "path": ["S2", "S2"]}).code == "move.stays"


def test_no_turning_back_and_no_crossing_a_wall() -> None:
    state = turn_state(TWO)
    assert refusal(state, {"type": "move", "path": ["S2", "S1"]}).code == "move.reverse"
    at_s4 = turn_state({0: ("S4", "S3"), 1: ("S8", "S9")})
    wall = refusal(at_s4, {"type": "move", "path": ["S3", "W"]})
    assert (wall.code, wall.rule) == ("move.wall", "GC-7")


def test_direction_is_chosen_only_on_the_unnumbered_safes() -> None:
    state = turn_state({0: ("S5", "W"), 1: ("S8", "S9")})
    assert refusal(state, {"type": "move", "path": ["W"]}).code == "move.heading_needed"
    assert refusal(state, {"type": "move", "path": ["W"], "heading": "S5"}).code == "move.bad_heading"
    assert refusal(state, {"type": "move", "path": ["W", "S1"], "heading": "S1"}).code == "move.no_choice"
    assert refusal(state, {"type": "move", "path": ["W", "S5"]}).code == "move.reverse"
    left, _ = act(state, {"type": "move", "path": ["W", "S1"]})
    assert left.robbers[0].heading == "S2"
    corridor, _ = act(state, {"type": "move", "path": ["W"], "heading": "S6"})
    assert corridor.robbers[0].heading == "S6"
    looped, _ = act(state, {"type": "move", "path": ["W", "S6", "S7", "E", "S8"]})
    assert looped.robbers[0].arrow == "S8" and looped.distance == 5


def test_arrow_may_stop_on_other_players_stones() -> None:
    state, _ = act(turn_state({0: ("S7", "E"), 1: ("S8", "S9")}), {"type": "move", "path": ["E", "S8"]})
    assert state.robbers[0].arrow == "S8"


# -- GC-8 which safes may be looted ------------------------------------------------------------------
def test_safe_under_another_robber_stone_cannot_be_looted() -> None:
    state, _ = act(turn_state({0: ("S7", "E"), 1: ("S8", "S9")}), {"type": "move", "path": ["E", "S8"]})
    refused = refusal(state, {"type": "loot", "bars": [state.safes["S8"][0]]})
    assert (refused.code, refused.rule) == ("loot.occupied", "GC-8")


def test_safe_where_the_turn_began_cannot_be_looted_even_after_a_loop() -> None:
    state = turn_state({0: ("S1", "S2"), 1: ("S8", "S9")})
    state, _ = act(state, {"type": "move", "path": ["S2", "S3", "S4", "S5", "W", "S1"]})
    assert refusal(state, {"type": "loot", "bars": [state.safes["S1"][0]]}).code == "loot.start_safe"


def test_bar_not_in_the_safe_is_refused_and_nothing_changes() -> None:
    state = rulebook_start()
    state, _ = act(state, {"type": "move", "path": ["S2", "S3"]})
    missing = next(bar for bar in ("G6", "R6", "Y6", "B6") if bar not in state.safes["S3"])
    refused = refusal(state, {"type": "loot", "bars": [missing]})
    assert (refused.code, refused.rule) == ("loot.bar_not_in_safe", "GC-8")
    one_too_many = ["B2"] * (state.safes["S3"].count("B2") + 1)
    assert refusal(state, {"type": "loot", "bars": one_too_many}).code == "loot.bar_not_in_safe"
    assert refusal(state, {"type": "loot", "bars": []}).code == "loot.no_bars"


def test_bars_named_from_another_safe_are_refused_naming_the_arrows_safe_and_never_recorded() -> None:
    state = rulebook_start()
    state, _ = act(state, {"type": "move", "path": ["S2", "S3"]})
    elsewhere = state.safes["S7"][0]
    refused = refusal(state, {"type": "loot", "bars": [elsewhere], "safe": "S7"})
    assert (refused.code, refused.rule) == ("loot.other_safe", "GC-8")
    assert refused.params["safe"] == safe_words("S3")  # in the table's words, translated with the sentence
    assert refused.text() == "Only bars in the safe under your arrow (safe 3) can be looted."
    named = GAME.parse_action({"type": "loot", "bars": ["B2"], "safe": "S3"})
    assert GAME.validate(state, named) is None
    assert named.model_dump(mode="json") == {"type": "loot", "bars": ["B2"]}  # the record is as before
    before_moving = rulebook_start()  # a move comes first, whichever safe the bars are in
    assert refusal(before_moving, {"type": "loot", "bars": [elsewhere], "safe": "S7"}).code == "move.at_least_one"


def test_a_safe_is_looted_at_most_once_per_turn() -> None:
    state = turn_state({0: ("S4", "S5"), 1: ("S8", "S9")})
    bar = state.safes["S5"][0]
    state, _ = act(state, {"type": "move", "path": ["S5"]}, {"type": "loot", "bars": [bar]},
                   {"type": "roll", "values": [6, 6]},
                   {"type": "move", "path": ["W", "S1", "S2", "S3", "S4", "S5"]})
    assert refusal(state, {"type": "loot", "bars": [state.safes["S5"][0]]}).code == "loot.twice"


# -- GC-9 the loot roll ------------------------------------------------------------------------------
def test_rulebook_example_two_fields_blue_two_and_three_needs_seven() -> None:
    state, events = act(rulebook_start(), {"type": "move", "path": ["S2", "S3"]},
                        {"type": "loot", "bars": ["B2", "B3"]})
    assert state.announcement is not None and state.announcement.target == 7
    assert GAME.prompt(state).params["target"] == 7
    assert events[-1].params["target"] == 7
    failed, _ = act(state, {"type": "roll", "values": [3, 3]})
    assert failed.current == 1
    done, _ = act(state, {"type": "roll", "values": [4, 3]})
    assert done.tray == ("B2", "B3")


def test_impossible_loot_die_is_refused_with_state_unchanged() -> None:
    state, _ = act(rulebook_start(), {"type": "move", "path": ["S2", "S3"]}, {"type": "loot", "bars": ["B2"]})
    refused = refusal(state, {"type": "roll", "values": [7, 1]})
    assert (refused.code, refused.rule, refused.params["value"]) == ("dice.impossible", "GC-9", 7)


# -- GC-10 consolation chips added after the roll ----------------------------------------------------
def test_chips_make_up_a_short_roll_after_it_is_seen() -> None:
    """GC-10 and GC-R5: chips are asked for after a short roll, exactly the missing points."""
    state = with_chips(rulebook_start(), 0, 3, supply=17)
    state, _ = act(state, {"type": "move", "path": ["S2", "S3"]}, {"type": "loot", "bars": ["B2", "B3"]},
                   {"type": "roll", "values": [2, 3]})
    assert state.phase == "chips" and GAME.prompt(state).params["shortfall"] == 2
    assert refusal(state, {"type": "use_chips", "count": 3}).rule == "GC-10"
    paid, _ = act(state, {"type": "use_chips", "count": 2})
    assert paid.tray == ("B2", "B3") and paid.robbers[0].chips == 1 and paid.chip_supply == 19
    declined, _ = act(state, {"type": "use_chips", "count": 0})
    assert declined.robbers[0].chips == 5 and declined.current == 1


def test_roll_short_by_more_than_the_chips_fails_at_once() -> None:
    state = with_chips(rulebook_start(), 0, 1, supply=19)
    state, _ = act(state, {"type": "move", "path": ["S2", "S3"]}, {"type": "loot", "bars": ["B2", "B3"]},
                   {"type": "roll", "values": [2, 3]})
    assert state.phase == "turn" and state.current == 1 and state.robbers[0].chips == 3


# -- GC-11 success, continuing -----------------------------------------------------------------------
def test_rulebook_example_continued_loot_needs_five() -> None:
    """GC-11: success and going on."""
    state, _ = act(rulebook_start(), {"type": "move", "path": ["S2", "S3"]}, {"type": "loot", "bars": ["B2", "B3"]},
                   {"type": "roll", "values": [4, 3]})
    assert refusal(state, {"type": "loot", "bars": ["B1"]}).code == "turn.move_first"
    state, _ = act(state, {"type": "move", "path": ["S4"]}, {"type": "loot", "bars": ["B1", "Y1"]})
    assert state.announcement is not None and state.announcement.target == 5
    state, _ = act(state, {"type": "roll", "values": [1, 4]})
    assert state.tray == ("B1", "B2", "B3", "Y1")
    assert_all_bars(state)


# -- GC-12 ending the turn ---------------------------------------------------------------------------
def test_ending_moves_the_robber_stone_under_the_arrow_then_sorts() -> None:
    """GC-12: ending the turn."""
    state, _ = act(rulebook_start(), {"type": "move", "path": ["S2", "S3"]}, {"type": "loot", "bars": ["B2", "B3"]},
                   {"type": "roll", "values": [4, 3]}, {"type": "end_turn"})
    assert state.phase == "sort" and state.robbers[0].stone == "S3" and state.robbers[0].heading == "S4"
    assert GAME.prompt(state).message == "{player}: no row can take {tray}; put the tray's bars back into {safe}."
    state, _ = act(state, {"type": "sort", "rows": {}})
    assert state.safes["S3"].count("B2") >= 1 and state.robbers[0].bar_count() == 0
    assert_all_bars(state)


# -- GC-13 sorting -----------------------------------------------------------------------------------
def green_sort_state():
    """Rulebook example: green 1 and 2 already in a row; the tray holds green 1, 3, 3 and 4."""
    state = with_rows(turn_state({0: ("S2", "S3"), 1: ("S8", "S9")}), 0, {"G6": (1, 2)})
    state = with_safe(state, "S3", ("G1", "G3", "G3", "G4"))
    state, _ = act(state, {"type": "move", "path": ["S3"]}, {"type": "loot", "bars": ["G1", "G3", "G3", "G4"]},
                   {"type": "roll", "values": [6, 6]}, {"type": "end_turn"})
    return state


def test_rulebook_green_row_example() -> None:
    """GC-13: sorting into rows."""
    state = green_sort_state()
    assert GAME.prompt(state).message == "{player}: sort {tray} into your rows, lowest numbers first."
    assert state.tray == ("G1", "G3", "G3", "G4")
    assert refusal(state, {"type": "sort", "rows": {"G6": [3, 4]}}).code == "sort.must_place"
    assert refusal(state, {"type": "sort", "rows": {"G6": [3, 4], "G5": [1, 3]}}).code == "sort.order"
    state, _ = act(state, {"type": "sort", "rows": {"G6": [3, 4], "G5": [1]}})
    assert state.robbers[0].rows["G6"] == (1, 2, 3, 4) and state.robbers[0].rows["G5"] == (1,)
    assert state.safes["S3"].count("G3") >= 1 and "G3" in state.safes["S3"]
    assert_all_bars(state)


def test_sorting_refuses_bars_not_in_the_tray_full_rows_and_unknown_rows() -> None:
    state = green_sort_state()
    assert refusal(state, {"type": "sort", "rows": {"B6": [1]}}).code == "sort.not_in_tray"
    assert refusal(state, {"type": "sort", "rows": {"G7": [1]}}).code == "sort.unknown_row"
    assert refusal(state, {"type": "sort", "rows": {"G6": [1]}}).code == "sort.order"
    full = with_rows(turn_state(TWO), 0, {"G4": (1, 2, 3)})
    full = with_safe(full, "S3", ("G4",))
    full, _ = act(full, {"type": "move", "path": ["S2", "S3"]}, {"type": "loot", "bars": ["G4"]},
                  {"type": "roll", "values": [6, 6]}, {"type": "end_turn"})
    state, _ = act(full, {"type": "sort", "rows": {"G4": [4]}})
    assert state.robbers[0].rows["G4"] == (1, 2, 3, 4)


def test_no_four_rows_with_four_players() -> None:
    state = turn_state({0: ("S1", "S2"), 1: ("S8", "S9"), 2: ("S4", "S5"), 3: ("S11", "S12")}, players=4)
    assert {row[1:] for row in state.robbers[0].rows} == {"5", "6"}
    three = turn_state({0: ("S1", "S2"), 1: ("S8", "S9"), 2: ("S4", "S5")}, players=3)
    assert {row[1:] for row in three.robbers[0].rows} == {"4", "5", "6"}


# -- GC-14 ending without looting --------------------------------------------------------------------
def test_stop_needs_a_roll_of_the_distance_and_a_field_without_other_stones() -> None:
    """GC-14: ending a turn without looting."""
    state = turn_state({0: ("S7", "E"), 1: ("S9", "S10")})
    on_other, _ = act(state, {"type": "move", "path": ["E", "S8", "S9"]})
    assert refusal(on_other, {"type": "stop"}).code == "stop.occupied"
    assert refusal(on_other, {"type": "end_turn"}).code == "end.needs_roll"
    state, _ = act(state, {"type": "move", "path": ["E", "S8"]}, {"type": "stop"})
    assert state.announcement is not None and state.announcement.target == 2
    ended, _ = act(state, {"type": "roll", "values": [1, 1]})
    assert ended.robbers[0].stone == "S8" and ended.current == 1
    assert ended.robbers[0].heading == "S9"


# -- GC-15 failure -----------------------------------------------------------------------------------
def test_failure_returns_the_tray_to_the_safe_under_the_arrow_and_the_arrow_home() -> None:
    """GC-15: failure."""
    state, _ = act(rulebook_start(), {"type": "move", "path": ["S2", "S3"]}, {"type": "loot", "bars": ["B2", "B3"]},
                   {"type": "roll", "values": [4, 3]}, {"type": "move", "path": ["S4"]},
                   {"type": "loot", "bars": ["B1", "Y1"]})
    s4_before = state.safes["S4"]
    state, events = act(state, {"type": "roll", "values": [1, 1]})
    assert sorted(state.safes["S4"]) == sorted((*s4_before, "B2", "B3"))
    assert state.robbers[0].arrow == "S1" and state.robbers[0].heading == "S2" and state.robbers[0].stone == "S1"
    assert state.robbers[0].chips == 2 and state.chip_supply == 18 and state.tray == ()
    assert any(event.kind == "roll.failed" for event in events)
    assert_all_bars(state)


def test_consolation_is_two_then_one_at_four_never_above_five_nor_beyond_the_supply() -> None:
    state = turn_state(TWO)
    for held, supply, expected in ((0, 20, 2), (3, 20, 5), (4, 20, 5), (5, 20, 5), (2, 1, 3), (2, 0, 2)):
        after, given = GAME.consolation(with_chips(state, 0, held, supply), 0)
        assert after.robbers[0].chips == expected and given == expected - held
        assert after.chip_supply == supply - given


def test_a_failure_that_gives_no_chips_says_why() -> None:
    """GC-15: a player who fails holding five chips, or when the supply is empty, is told why none come,
    never "gets 0 chips"."""
    said = []
    for held, supply in ((5, 15), (1, 0)):
        state = with_chips(rulebook_start(), 0, held, supply=supply)
        state, _ = act(state, {"type": "move", "path": ["S2", "S3"]}, {"type": "loot", "bars": ["B2", "B3"]},
                       {"type": "roll", "values": [2, 4]})  # 6 against 7: one short, and no chip spent
        state, events = act(state, {"type": "use_chips", "count": 0})
        said += [event.message for event in events if event.kind == "roll.failed"]
    assert said == ["The roll fails; {player} holds five chips, the most there may be, and gets none.",
                    "The roll fails; no chips are left for {player}."]  # the turn's first loot: no bars go back


def test_a_failure_names_the_bars_that_go_back_and_only_when_there_are_some() -> None:
    """GC-15: the table moves the tray's bars back by hand, so the failure names them; a turn's first loot
    has put none in the tray, and then no bars are said to go anywhere."""
    from companion.app.i18n import game_text

    state, _ = act(rulebook_start(), {"type": "move", "path": ["S2", "S3"]}, {"type": "loot", "bars": ["B2", "B3"]},
                   {"type": "roll", "values": [4, 3]}, {"type": "move", "path": ["S4"]},
                   {"type": "loot", "bars": ["B1", "Y1"]})
    assert state.tray == ("B2", "B3")
    _, events = act(state, {"type": "roll", "values": [1, 1]})
    failed = next(event for event in events if event.kind == "roll.failed")
    assert failed.message == "The roll fails: put {bars} back into {safe}; {player} gets {chips} chips."
    assert game_text("gold_connection", failed.message, failed.params) == \
        "The roll fails: put blue 2, blue 3 back into safe 4; Ada gets 2 chips."
    state, _ = act(rulebook_start(), {"type": "move", "path": ["S2", "S3"]}, {"type": "loot", "bars": ["B2", "B3"]})
    assert state.tray == ()
    _, events = act(state, {"type": "roll", "values": [1, 1]})
    failed = next(event for event in events if event.kind == "roll.failed")
    assert game_text("gold_connection", failed.message, failed.params) == "The roll fails; Ada gets 2 chips."


# -- GC-20 odds --------------------------------------------------------------------------------------
def test_exact_odds_with_and_without_chips() -> None:
    """GC-20: odds before every roll."""
    assert chance(2) == 1 and chance(13) == 0 and chance(7) == Fraction(21, 36)
    assert chance(12) == Fraction(1, 36) and chance(14, 2) == Fraction(1, 36) and chance(9, 5) == Fraction(11, 12)
    assert chance(7, 5) == 1
    state = with_chips(rulebook_start(), 0, 2, supply=18)
    state, _ = act(state, {"type": "move", "path": ["S2", "S3"]})
    assert GAME.target(state, ("B2", "B3")) == 7
    preview = GAME.odds(state, GAME.target(state, ("B2", "B3")))
    assert (preview.without_chips, preview.with_chips) == (Fraction(7, 12), Fraction(5, 6))
    state, _ = act(state, {"type": "loot", "bars": ["B2", "B3"]})
    prompt = GAME.prompt(state)
    assert (prompt.params["chance"], prompt.params["chance_with_chips"]) == (58.3, 83.3)
    assert "with your {chips} chips" in prompt.message


def test_odds_without_chips_say_nothing_of_chips() -> None:
    """GC-20: a player without chips is told the one chance there is, never "with your 0 chips" the same."""
    state = with_chips(rulebook_start(), 0, 0, supply=20)
    state, _ = act(state, {"type": "move", "path": ["S2", "S3"]})
    state, events = act(state, {"type": "loot", "bars": ["B2", "B3"]})
    announced = next(event for event in events if event.kind == "roll.target")
    prompt = GAME.prompt(state)
    for message in (announced.message, prompt.message):
        assert "{chance}%" in message and "chips" not in message


def test_odds_of_a_sure_roll_name_no_chips_beside_it() -> None:
    """GC-20: chips cannot better a roll that is already sure, so a player holding some is told the one
    chance, not "100 %; with your 2 chips 100 %"."""
    state = with_chips(rulebook_start(), 0, 2, supply=18)
    state, _ = act(state, {"type": "move", "path": ["S2"]})
    state, events = act(state, {"type": "stop"})
    odds = GAME.odds(state)
    assert odds.without_chips == 1 and odds.chips == 2 and not odds.chips_help
    assert odds.params()["chance"] == 100 and isinstance(odds.params()["chance"], int)  # "100 %", not "100,0 %"
    announced = next(event for event in events if event.kind == "roll.target")
    for message in (announced.message, GAME.prompt(state).message):
        assert "{chance}%" in message and "chips" not in message


# -- readings ----------------------------------------------------------------------------------------
def test_reading_distance_counts_every_step_travelled() -> None:
    """GC-R2: the distance counts every field entered this turn, a whole loop included."""
    state = turn_state({0: ("S4", "S5"), 1: ("S8", "S9")})
    state, _ = act(state, {"type": "move", "path": ["S5", "W", "S1", "S2", "S3"]})
    assert state.distance == 5
    state, _ = act(state, {"type": "move", "path": ["S4"]}, {"type": "stop"})
    assert state.announcement is not None and state.announcement.target == 6


def test_reading_moving_on_from_a_field_with_nothing_to_do() -> None:
    """GC-R6: on a stone whose box cannot be plundered the player may move on."""
    state, _ = act(turn_state({0: ("S7", "E"), 1: ("S8", "S9")}), {"type": "move", "path": ["E", "S8"]})
    assert refusal(state, {"type": "stop"}).code == "stop.occupied"
    state, _ = act(state, {"type": "move", "path": ["S9"]}, {"type": "stop"})
    assert state.announcement is not None and state.announcement.target == 3


def test_suggested_sortings_are_legal_and_differ_in_the_rows_they_fill() -> None:
    state = green_sort_state()
    rows = state.robbers[0].rows
    long_first = auto_sort(rows, state.tray, "long")
    short_first = auto_sort(rows, state.tray, "short")
    assert long_first == {"G6": (3, 4), "G5": (1,)} and short_first == {"G6": (3, 4), "G4": (1,)}
    for suggestion in (long_first, short_first):
        assert GAME.validate(state, GAME.parse_action({"type": "sort", "rows": suggestion})) is None
