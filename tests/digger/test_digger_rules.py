"""One or more tests per Digger rule (DIG-n) and reading (DIG-Rn); docs/rules/digger.md names them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from companion.engine.core import IllegalAction
from companion.engine.errors import UserError
from companion.games.digger.rules import ALL_ROLLS, FACES, Fumble, Rob, Stop, Take, TimeUp
from tests.digger.digger_helpers import ALL_STONES, GAME, new_state, play, roll, setup, stone_counts, with_boxes


def refusal_of(state, action):  # type: ignore[no-untyped-def]
    refusal = GAME.validate(state, action)
    assert refusal is not None, f"{action} was allowed"
    return refusal


# -- DIG-1 players and setup ------------------------------------------------------------------------
def test_two_to_five_players_start_with_fifty_stones_in_the_middle() -> None:
    for players in range(2, 6):
        state = new_state(players)
        assert state.middle.model_dump() == ALL_STONES
        assert all(box.total() == 0 for box in state.boxes) and state.tin == 0
        assert state.turn == 1 and not state.over
    for players in (1, 6):
        with pytest.raises(UserError, match="players: Digger needs 2-5 players"):
            new_state(players)


def test_first_player_digs_first() -> None:
    state = GAME.initial_state(setup(4, first_player=2))
    assert state.digger == 2 and GAME.prompt(state).player == 2


# -- DIG-2 the dice -----------------------------------------------------------------------------------
def test_roll_needs_five_dice_with_colour_faces() -> None:
    state = new_state()
    assert refusal_of(state, roll("RRGG")).code == "roll.dice_count"
    assert refusal_of(state, roll("RRGGBY")).code == "roll.dice_count"
    bad = refusal_of(state, roll("RRGG6"))
    assert (bad.code, bad.rule, bad.params["face"]) == ("roll.bad_face", "DIG-2", "6")
    assert GAME.validate(state, roll("KKKKK")) is None


def test_prompt_asks_for_five_colour_dice() -> None:
    prompt = GAME.prompt(new_state())
    assert prompt.dice == (("B", "Y", "R", "G", "W", "K"),) * 5 and prompt.roll_action == "roll"
    assert prompt.expects == ("roll",)


# -- DIG-3 roles: digger, timer keeper, passing to the left ---------------------------------------------
def test_keeper_is_right_of_digger_and_dice_pass_left() -> None:
    """DIG-3: digger, keeper of the time, and passing on."""
    state = new_state(4)
    assert (state.digger, state.keeper) == (0, 3)
    assert GAME.prompt(state).params["keeper"] == "Dan"
    for expected_digger in (1, 2, 3, 0):
        keeper_before = state.digger
        state = play(state, roll("KKKKK"), Stop())
        assert (state.digger, state.keeper) == (expected_digger, keeper_before)
    assert state.turn == 5


# -- DIG-4 only colours on exactly one die -------------------------------------------------------------
def test_only_colours_on_exactly_one_die_can_be_taken() -> None:
    state = play(new_state(), roll("RRGBY"))
    assert GAME.validate(state, Take(colour="B")) is None
    assert GAME.validate(state, Take(colour="Y")) is None
    refused = refusal_of(state, Take(colour="R"))
    assert (refused.code, refused.rule, refused.params["count"]) == ("claim.not_unique", "DIG-4", 2)
    assert refusal_of(state, Take(colour="W")).params["count"] == 0


def test_one_stone_per_colour_per_roll() -> None:
    state = play(new_state(), roll("RYGBK"), Take(colour="R"))
    assert refusal_of(state, Take(colour="R")).code == "claim.already"
    assert play(state, roll("RYGBK"), Take(colour="R")).waiting.R == 2


# -- DIG-5 taking from the middle --------------------------------------------------------------------
def test_taken_stone_leaves_the_middle() -> None:
    state = play(new_state(), roll("RYGBK"), Take(colour="G"))
    assert state.middle.G == 9 and state.waiting.G == 1


def test_colour_run_out_in_the_middle_cannot_be_taken() -> None:
    state = with_boxes(new_state(), Ben={"W": 10})
    state = play(state, roll("WRRGG"))
    refused = refusal_of(state, Take(colour="W"))
    assert (refused.code, refused.rule) == ("take.none_left", "DIG-5")
    assert Take(colour="W") not in GAME.legal_actions(state)


# -- DIG-6 robbing -----------------------------------------------------------------------------------
def test_single_black_allows_robbing_unique_colours_from_other_boxes() -> None:
    state = with_boxes(new_state(), Ben={"Y": 2})
    state = play(state, roll("YKRRG"), Rob(colour="Y", victim=1))
    assert state.boxes[1].Y == 1 and state.waiting.Y == 1 and state.middle.Y == 8


def test_robbing_needs_exactly_one_black() -> None:
    state = with_boxes(new_state(), Ben={"Y": 2})
    for faces in ("YKKRG", "YRRGG"):
        refused = refusal_of(play(state, roll(faces)), Rob(colour="Y", victim=1))
        assert (refused.code, refused.rule) == ("rob.no_black", "DIG-6")


def test_blue_can_never_be_robbed() -> None:
    """DIG-6: a robbery of blue is read, then refused by the robbing rule itself (not as unreadable input)."""
    state = play(new_state(), roll("BKRRG"))
    assert not [a for a in GAME.legal_actions(state) if isinstance(a, Rob)]
    found = refusal_of(state, Rob.model_validate({"type": "rob", "colour": "B", "victim": 1}))
    assert (found.code, found.rule) == ("rob.blue", "DIG-6")
    with pytest.raises(ValidationError):
        Rob.model_validate({"type": "rob", "colour": "K", "victim": 1})  # black is no stone at all


def test_robbing_needs_a_stone_of_another_player() -> None:
    state = with_boxes(new_state(), Ada={"Y": 3})
    state = play(state, roll("YKRRG"))
    assert refusal_of(state, Rob(colour="Y", victim=1)).code == "rob.empty"
    assert refusal_of(state, Rob(colour="Y", victim=0)).code == "rob.self"
    assert refusal_of(state, Rob(colour="Y", victim=7)).code == "rob.no_such_player"
    assert refusal_of(state, Rob(colour="R", victim=1)).code == "claim.not_unique"


def test_each_colour_is_either_taken_or_robbed_once_per_roll() -> None:
    state = with_boxes(new_state(), Ben={"Y": 2})
    state = play(state, roll("YKRRG"), Take(colour="Y"))
    assert refusal_of(state, Rob(colour="Y", victim=1)).code == "claim.already"
    state = play(state, roll("YKRRG"), Rob(colour="Y", victim=1))
    assert refusal_of(state, Take(colour="Y")).code == "claim.already"


# -- DIG-7 rerolling ---------------------------------------------------------------------------------
def test_reroll_any_time_taking_nothing_is_allowed() -> None:
    """DIG-7: rolling again."""
    state = play(new_state(), roll("RYGBK"), roll("RRGGB"), roll("KKKKK"))
    assert state.rolls == 3 and state.waiting.total() == 0 and state.claimed == ()
    assert roll("BBBBB") in GAME.legal_actions(state)


# -- DIG-8 taken stones wait beside the box ------------------------------------------------------------
def test_taken_stones_wait_until_stowed() -> None:
    """DIG-8: stones wait beside the box."""
    state = play(new_state(), roll("RYGBK"), Take(colour="R"), Take(colour="B"))
    assert state.waiting.model_dump() == {"B": 1, "Y": 0, "R": 1, "G": 0, "W": 0}
    assert state.boxes[0].total() == 0 and state.tin == 0
    assert GAME.scores(state) == [0, 0, 0]


# -- DIG-9 fumble --------------------------------------------------------------------------------------
def test_fumble_returns_every_stone_of_the_turn_blue_included_and_ends_the_turn() -> None:
    """DIG-9: a fumble while robbing."""
    state = with_boxes(new_state(), Ben={"Y": 2}, Ada={"G": 1})
    state = play(state, roll("RYGBW"), Take(colour="B"), Take(colour="R"), roll("YKRRG"),
                 Rob(colour="Y", victim=1), Fumble())
    assert state.waiting.total() == 0
    assert state.middle.B == 10 and state.middle.R == 10 and state.middle.Y == 9
    assert state.boxes[0].G == 1 and state.boxes[1].Y == 1
    assert state.digger == 1 and state.roll == ()
    assert stone_counts(state) == ALL_STONES


# -- DIG-10 stop ---------------------------------------------------------------------------------------
def test_stop_stows_by_colour_and_blue_goes_into_the_tin() -> None:
    """DIG-10: stowing and calling Stop."""
    state = play(new_state(), roll("RYGBK"), Take(colour="R"), Take(colour="B"), Take(colour="Y"), Stop())
    assert state.boxes[0].model_dump() == {"B": 0, "Y": 1, "R": 1, "G": 0, "W": 0}
    assert state.tin == 1 and state.middle.B == 9 and state.waiting.total() == 0
    assert state.digger == 1 and not state.timer_running


def test_a_turn_that_ends_with_no_stone_says_so_without_a_count() -> None:
    """DIG-9, DIG-10, DIG-12: a Stop with nothing to keep, or a fumble or time up with nothing to send back,
    is told in words, never "keeps 0 stone(s)" or "0 stone(s) go back"."""
    rolled = play(new_state(), roll("YKRRG"))
    said = [next(event.text() for event in GAME.apply(rolled, action)[1] if event.kind == kind)
            for action, kind in ((Stop(), "stop"), (Fumble(), "fumble"), (TimeUp(), "time_up"))]
    assert said == ["Ada called Stop with no stone to keep.",
                    "Ada fumbled; no stone taken this turn has to go back.",
                    "Time is up for Ada; no stone has to go back."]


# -- DIG-11 the sand timer ---------------------------------------------------------------------------
def test_timer_starts_at_the_first_roll_and_stops_with_the_turn() -> None:
    state = new_state(timer_seconds=45)
    assert not state.timer_running and state.rules.timer_seconds == 45
    state, events = GAME.apply(state, roll("RRGGB"))
    assert state.timer_running
    assert events[0].kind == "timer_start" and events[0].params == {"keeper": "Cleo", "seconds": 45}
    state, events = GAME.apply(state, roll("RRGGB"))
    assert state.timer_running and [e.kind for e in events] == ["rolled"]
    assert not play(state, Stop()).timer_running


def test_a_turn_starts_with_a_roll() -> None:
    state = new_state()
    for action in (Stop(), Take(colour="B"), Fumble()):
        refused = refusal_of(state, action)
        assert (refused.code, refused.rule) == ("turn.roll_first", "DIG-11")


# -- DIG-12 time up ------------------------------------------------------------------------------------
def test_time_up_sends_unstowed_stones_back_to_the_middle() -> None:
    state = play(new_state(), roll("RYGBK"), Take(colour="R"), Take(colour="B"), TimeUp())
    assert state.middle.model_dump() == ALL_STONES
    assert state.boxes[0].total() == 0 and state.tin == 0 and state.digger == 1


def test_time_up_keeps_the_colours_the_table_marks_as_stowed() -> None:
    state = play(new_state(), roll("RYGBK"), Take(colour="R"), Take(colour="B"), Take(colour="G"),
                 TimeUp(stowed=("R", "B")))
    assert state.boxes[0].R == 1 and state.tin == 1 and state.middle.G == 10
    assert stone_counts(state) == ALL_STONES


def test_time_up_only_while_the_timer_runs_and_for_waiting_colours() -> None:
    state = play(new_state(), roll("RYGBK"), Take(colour="R"))
    assert refusal_of(state, TimeUp(stowed=("W",))).code == "time_up.nothing_to_stow"
    assert refusal_of(state, TimeUp(stowed=("R", "R"))).code == "time_up.repeated_colour"
    for not_running in (new_state(), play(state, TimeUp())):
        refused = refusal_of(not_running, TimeUp())
        assert (refused.code, refused.rule) == ("time_up.not_running", "DIG-12")


# -- DIG-13 end of the game ----------------------------------------------------------------------------
def test_game_ends_after_the_turn_that_empties_the_blue_stones() -> None:
    """DIG-13: the river runs dry."""
    state = with_boxes(new_state(), Ben={"Y": 1})
    state = state.evolve(middle=state.middle.evolve(B=1), tin=9)
    state = play(state, roll("BYRRK"), Take(colour="B"))
    assert not state.over and state.middle.B == 0
    state = play(state, roll("BYRRK"), Rob(colour="Y", victim=1))
    assert not GAME.is_over(state)
    state, events = GAME.apply(state, Stop())
    assert GAME.is_over(state) and events[-1].kind == "game_over"
    assert GAME.prompt(state).player is None and GAME.legal_actions(state) == []
    assert refusal_of(state, roll("RRGGB")).code == "game.over"


def test_blue_returned_by_time_up_keeps_the_game_going() -> None:
    """DIG-R2 (default `no_blue_after_turn`): blue the timer sends back to the middle keeps the game going."""
    state = new_state()
    state = state.evolve(middle=state.middle.evolve(B=1), tin=9)
    state = play(state, roll("BYRRK"), Take(colour="B"), TimeUp())
    assert not state.over and state.middle.B == 1


# -- DIG-14 scoring ------------------------------------------------------------------------------------
def test_score_is_stones_times_card_value_and_blue_scores_nothing() -> None:
    """DIG-14: scoring."""
    state = with_boxes(new_state(), Ada={"Y": 2, "R": 1, "G": 3, "W": 1}, Ben={"W": 2})
    state = state.evolve(tin=4, middle=state.middle.evolve(B=6))
    white = state.cards[0]
    assert GAME.scores(state) == [2 * white.Y + white.R + 3 * white.G + white.W, 2 * white.W, 0]
    assert GAME.winners(state) == [0]


def test_tie_is_shared_by_default() -> None:
    """DIG-R6 (default `shared`): players level on the best score share the win."""
    state = with_boxes(new_state(), Ada={"W": 1}, Ben={"W": 1})
    assert GAME.winners(state) == [0, 1]


# -- DIG-15 scoring cards ------------------------------------------------------------------------------
def test_white_side_cards_are_all_alike() -> None:
    """DIG-15: the scoring cards."""
    state = new_state(5)
    assert len(set(state.cards)) == 1 and state.cards[0].side == "white"


def test_black_side_cards_differ_total_fifteen_and_are_dealt_by_seed() -> None:
    dealt = GAME.initial_state(setup(4, seed=11, side="black")).cards
    assert len({card.id for card in dealt}) == 4
    assert all(card.Y + card.R + card.G + card.W == 15 for card in dealt)
    assert GAME.initial_state(setup(4, seed=11, side="black")).cards == dealt
    assert {GAME.initial_state(setup(4, seed=seed, side="black")).cards for seed in range(20)} != {dealt}


def test_black_cards_can_be_chosen_per_seat() -> None:
    state = GAME.initial_state(setup(3, side="black", black_cards=("3", "1", "5")))
    assert [card.id for card in state.cards] == ["3", "1", "5"]
    with pytest.raises(UserError, match=r"options: black_cards: 2 card ids for 3 players"):
        GAME.initial_state(setup(3, side="black", black_cards=("3", "1")))
    with pytest.raises(ValidationError, match=r"black_cards\n  Value error, seat 1: no black card '9'"):
        GAME.options({"side": "black", "black_cards": ["3", "9", "1"]})
    with pytest.raises(ValidationError, match=r"seat 2: card '3' is already held by seat 0"):
        GAME.options({"side": "black", "black_cards": ["3", "1", "3"]})


def test_black_card_values_score() -> None:
    state = GAME.initial_state(setup(2, side="black", black_cards=("1", "2")))
    state = with_boxes(state, Ada={"Y": 1, "W": 1}, Ben={"Y": 1, "W": 1})
    first, second = state.cards
    assert GAME.scores(state) == [first.Y + first.W, second.Y + second.W]


# -- readings -------------------------------------------------------------------------------------------
def test_reading_fumble_sends_robbed_stones_to_the_middle_or_back_to_their_owner() -> None:
    for where, ben_yellow, middle_yellow in (("middle", 1, 9), ("owner", 2, 8)):
        state = with_boxes(new_state(fumble_robbed_to=where), Ben={"Y": 2})
        state = play(state, roll("YKRRG"), Rob(colour="Y", victim=1), Fumble())
        assert (ben_yellow, middle_yellow) == (state.boxes[1].Y, state.middle.Y)
        assert stone_counts(state) == ALL_STONES


def test_reading_game_end_when_blue_ran_out_during_the_turn() -> None:
    """DIG-R2 in both settings: only `blue_ran_out_in_turn` ends a turn whose blue came back."""
    for game_end, over in (("no_blue_after_turn", False), ("blue_ran_out_in_turn", True)):
        state = new_state(game_end=game_end)
        state = state.evolve(middle=state.middle.evolve(B=1), tin=9)
        state = play(state, roll("BYRRK"), Take(colour="B"), TimeUp())
        assert state.over is over and state.middle.B == 1


def test_reading_fumble_only_on_a_robbing_roll() -> None:
    state = play(new_state(), roll("RRGGB"))
    refused = refusal_of(state, Fumble())
    assert (refused.code, refused.rule) == ("fumble.not_robbing", "DIG-R3")
    assert GAME.validate(play(new_state(fumble_needs_black=False), roll("RRGGB")), Fumble()) is None


def test_reading_blue_to_the_tin_at_once() -> None:
    """DIG-R4 in both settings: blue waits beside the box by default, goes into the tin at once with the option."""
    state = play(new_state(blue_to_tin_at_once=True), roll("BYRRK"), Take(colour="B"))
    assert state.tin == 1 and state.waiting.B == 0
    state = play(state, TimeUp())
    assert state.tin == 1 and state.middle.B == 9
    waiting = play(new_state(), roll("BYRRK"), Take(colour="B"))
    assert waiting.tin == 0 and waiting.waiting.B == 1
    assert play(waiting, TimeUp()).middle.B == 10


def test_reading_time_up_without_marking_stowed_colours() -> None:
    state = play(new_state(time_up_keeps_stowed=False), roll("BYRRK"), Take(colour="Y"))
    refused = refusal_of(state, TimeUp(stowed=("Y",)))
    assert (refused.code, refused.rule) == ("time_up.no_stowing", "DIG-R5")
    assert TimeUp(stowed=("Y",)) not in GAME.legal_actions(state)
    assert play(state, TimeUp()).middle.Y == 10


def test_reading_tie_break_by_most_stones() -> None:
    """DIG-R6 (`most_stones`): of the players level on the best score, the one with more stones wins."""
    state = with_boxes(new_state(tie_break="most_stones"), Ada={"W": 1}, Ben={"Y": 3})
    assert GAME.scores(state)[0] == GAME.scores(state)[1]
    assert GAME.winners(state) == [1]


# -- the contract ---------------------------------------------------------------------------------------
def test_legal_actions_agree_with_validate() -> None:
    state = with_boxes(new_state(), Ben={"Y": 2, "W": 1}, Cleo={"G": 1})
    state = play(state, roll("YKWGB"), Take(colour="B"))
    legal = GAME.legal_actions(state)
    assert all(GAME.validate(state, action) is None for action in legal)
    assert {a.model_dump_json() for a in legal if a.type != "roll"} == {
        a.model_dump_json() for a in (Take(colour="Y"), Take(colour="W"), Take(colour="G"),
                                      Rob(colour="Y", victim=1), Rob(colour="W", victim=1),
                                      Rob(colour="G", victim=2), Stop(), Fumble(), TimeUp(), TimeUp(stowed=("B",)))}
    assert len([a for a in legal if a.type == "roll"]) == len(ALL_ROLLS) == 252


def test_virtual_roll_uses_the_prompted_faces() -> None:
    from random import Random

    action = GAME.virtual_roll(new_state(), Random(4))
    assert action is not None and action.type == "roll"
    assert len(action.values) == 5 and set(action.values) <= set(FACES)  # type: ignore[attr-defined]


def test_illegal_action_raises_and_state_is_a_json_value() -> None:
    state = new_state()
    with pytest.raises(IllegalAction, match="DIG-11"):
        GAME.apply(state, Stop())
    assert GAME.state_from_json(GAME.state_to_json(state)) == state
