"""Goldgräber readings (GG-R1 ... GG-R16), each option in both settings, and the rules that refusals cite."""

from __future__ import annotations

from typing import Any

from companion.games.goldgraeber.board import HEX_DIRECTIONS, Board
from companion.games.goldgraeber.rules import Goldgraeber, GoldgraeberState, Move, Stack
from tests.goldgraeber.gg_helpers import at, make_setup, with_figure, with_open
from tests.goldgraeber.test_gg_rules import brawl, dig_with_path_neighbour, refusal, robber_fight, roll


def option(state: GoldgraeberState, **update: Any) -> GoldgraeberState:
    return at(state, options=state.options.model_validate(state.options.model_dump() | update))


def test_reading_shuttle_default_refuses_any_step_back(game: Goldgraeber, board: Board,
                                                       start: GoldgraeberState) -> None:
    """GG-R1 and GG-20 (default `no_step_back`): door, field, door, house with a 3 is a step back, refused."""
    door, house = board.ids[board.doors[start.houses[0]]], board.ids[board.houses[start.houses[0]]]
    state = roll(game, with_figure(start, 0, door), "3")
    assert house not in game.destinations(state)
    assert refusal(game, state, Move(to=house)) == ("GG-20", "move.shuttle")
    assert "P100" in game.destinations(with_figure(start, 0, "P100"), 0, 3)  # a loop of three fields is fine


def test_reading_shuttle_literal_forbids_only_two_fields(game: Goldgraeber, board: Board,
                                                        start: GoldgraeberState) -> None:
    """GG-R1 and GG-20 (`two_fields_only`): stepping back is allowed once a third field is reached."""
    door, house = board.ids[board.doors[start.houses[0]]], board.ids[board.houses[start.houses[0]]]
    literal = option(start, shuttle="two_fields_only")
    state = roll(game, with_figure(literal, 0, door), "3")
    assert house in game.destinations(state)
    assert game.apply(state, Move(to=house))[0].figures[0] == house
    back_and_forth = roll(game, with_figure(literal, 0, "P100"), "2")
    assert "P100" not in game.destinations(back_and_forth)  # there and straight back: only two fields
    assert refusal(game, back_and_forth, Move(to="P100")) == ("GG-20", "move.shuttle")


def locomotive_corner(game: Goldgraeber, board: Board, start: GoldgraeberState) -> tuple[GoldgraeberState, int]:
    """A figure next to the train's field and a count that ends on the train's field without passing it."""
    rail = [board.ids[r] for r in board.rail]
    base = at(with_figure(start, 0, rail[4]), locomotive=5)
    ends_there = option(base, locomotive_field="may_end_there")
    for steps in range(2, 7):
        if rail[5] in game.destinations(ends_there, 0, steps):
            return base, steps
    raise AssertionError("the train's field cannot be reached")


def test_reading_locomotive_field_closed_by_default(game: Goldgraeber, board: Board,
                                                    start: GoldgraeberState) -> None:
    """GG-R2 and GG-4 (default `closed`): the locomotive's field may not be entered, nor passed."""
    base, steps = locomotive_corner(game, board, start)
    rail = [board.ids[r] for r in board.rail]
    state = roll(game, base, str(steps))
    assert rail[5] not in game.destinations(state)
    assert refusal(game, state, Move(to=rail[5])) == ("GG-4", "move.locomotive")


def test_reading_locomotive_field_may_end_there(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    """GG-R2 and GG-4 (`may_end_there`): a move may end on the train's field, but still never pass it."""
    base, steps = locomotive_corner(game, board, start)
    rail = [board.ids[r] for r in board.rail]
    state = roll(game, option(base, locomotive_field="may_end_there"), str(steps))
    after = game.apply(state, Move(to=rail[5]))[0]
    assert after.figures[0] == rail[5] and after.current == 1
    two = roll(game, option(base, locomotive_field="may_end_there"), "2")
    assert refusal(game, two, Move(to=rail[6])) == ("GG-4", "move.past_locomotive")


def test_reading_rafts_lie_on_shore_fields(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    """GG-R4: every raft lies on a shore field, never on water, and a crossing ends on another free shore."""
    assert all(board.index[raft] in board.lake_of_shore for raft in start.rafts)
    assert all(board.types[board.index[raft]] != "lake" for raft in start.rafts)
    post = start.rafts[0]
    lake = board.lake_of_shore[board.index[post]]
    crossing = at(with_figure(start, 0, post), phase="raft")
    targets = {action.to for action in game.legal_actions(crossing)}  # type: ignore[attr-defined]
    assert targets == {board.ids[f] for f in board.lake_shores[lake]} - set(start.rafts) - set(start.figures)


def test_reading_several_figures_brawl_with_the_next_in_order(game: Goldgraeber, start: GoldgraeberState) -> None:
    """GG-R5: with two figures on the field the attacker brawls with the one next after him in play order."""
    state = with_figure(with_figure(with_figure(start, 0, "P100"), 3, "P57"), 1, "P57")
    after = game.apply(roll(game, state, "2"), Move(to="P57"))[0]
    assert after.phase == "brawl" and after.defender == 1
    state = at(with_figure(with_figure(with_figure(start, 2, "P100"), 3, "P57"), 0, "P57"), current=2, actor=2)
    after = game.apply(roll(game, state, "2"), Move(to="P57"))[0]
    assert after.defender == 3


def test_reading_moving_away_starts_no_brawl_but_goes_home(game: Goldgraeber, board: Board,
                                                          start: GoldgraeberState) -> None:
    """GG-R6: the brawl winner moving away starts no brawl where he ends, but does bring his chips home."""
    away = roll(game, roll(game, roll(game, brawl(game, start), "2"), "6"), "2")  # seat 2 wins, moves 2
    assert away.phase == "away" and away.actor == 2
    target = sorted(game.destinations(away))[0]
    crowded = with_figure(away, 3, target)
    after = game.apply(crowded, Move(to=target))[0]
    assert after.phase == "roll" and after.figures[2] == after.figures[3] == target and after.current == 1
    house = board.houses[away.houses[2]]
    near = next(board.ids[f] for f in range(len(board.ids)) if board.types[f] != "lake"
                and board.ids[house] in game.destinations(with_figure(away, 2, board.ids[f]), 2, 2))
    home = game.apply(with_figure(away, 2, near), Move(to=board.ids[house]))[0]
    assert home.home_chips[2] == ("G3", "G1") and home.open_chips[2] == ()


def test_reading_winners_move_away_roll_locomotive_counts_one(game: Goldgraeber, start: GoldgraeberState) -> None:
    """GG-R9: a locomotive on the brawl winner's move-away roll is a 1 and leaves the train where it is."""
    won = roll(game, roll(game, brawl(game, start), "2"), "6")
    assert won.phase == "away_roll"
    after = roll(game, won, "L")
    assert after.locomotive == won.locomotive
    assert after.phase == "roll" or (after.phase == "away" and after.steps == 1)
    assert after.phase == "roll" or all(game.board.index[f] in game.board.neighbours[game.board.index["P57"]]
                                        for f in game.destinations(after))


def test_reading_no_free_rail_field_behind_the_train(game: Goldgraeber, board: Board,
                                                     start: GoldgraeberState) -> None:
    """GG-R10: with every rail field behind taken, the figure hit goes to the field right behind the train."""
    rail = [board.ids[r] for r in board.rail]
    state = at(start, figures=[rail[0], rail[3], rail[1], rail[2]], locomotive=2)
    after = roll(game, state, "L")
    assert after.locomotive == 3 and after.figures[1] == rail[2]


def test_reading_figure_on_a_chip_is_brawled_and_the_chip_stays(game: Goldgraeber, board: Board,
                                                                start: GoldgraeberState) -> None:
    """GG-R11: ending on a field with a figure and a face-down chip starts a brawl; the chip is not turned."""
    dig, near = dig_with_path_neighbour(game, board, start)
    state = with_figure(with_figure(start, 2, dig), 0, near)
    after = game.apply(roll(game, state, "2"), Move(to=dig))[0]
    assert after.phase == "brawl" and after.defender == 2 and dig in after.face_down


def test_reading_train_takes_every_open_chip_by_default(game: Goldgraeber, board: Board,
                                                        start: GoldgraeberState) -> None:
    """GG-R13 and GG-7 (default `all_open_chips`): the driver gets gold and captured robbers alike."""
    rail = [board.ids[r] for r in board.rail]
    state = at(with_open(with_figure(start, 1, rail[3]), 1, "G4", "R2"), locomotive=2)
    after = roll(game, state, "L")
    assert after.open_chips[0] == ("G4", "R2") and after.open_chips[1] == ()


def test_reading_train_takes_only_open_gold(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    """GG-R13 and GG-7 (`open_gold`): the driver gets the open gold; captured robbers stay with their owner."""
    rail = [board.ids[r] for r in board.rail]
    state = at(with_open(with_figure(start, 1, rail[3]), 1, "G4", "R2", "G1"), locomotive=2)
    after = roll(game, option(state, train_takes="open_gold"), "L")
    assert after.open_chips[0] == ("G4", "G1") and after.open_chips[1] == ("R2",)
    robbers_only = roll(game, option(with_open(state, 1, "R5"), train_takes="open_gold"), "L")
    assert robbers_only.open_chips[0] == () and robbers_only.open_chips[1] == ("R5",)


def test_reading_open_robbers_at_the_end_score_nothing_by_default(game: Goldgraeber,
                                                                  start: GoldgraeberState) -> None:
    """GG-R14 and GG-18 (default): captured robbers still lying open count nothing, like open gold."""
    state = at(with_open(start, 1, "R3", "G5"), home_chips=[("G2",), ("R1",), (), ()])
    assert game.scores(state) == [2, 2, 0, 0]


def test_reading_open_robbers_at_the_end_score_two(game: Goldgraeber, start: GoldgraeberState) -> None:
    """GG-R14 and GG-18 (`open_robbers_score`): each open captured robber scores 2; open gold still nothing."""
    state = option(at(with_open(start, 1, "R3", "G5", "R4"), home_chips=[("G2",), ("R1",), (), ()]),
                   open_robbers_score=True)
    assert game.scores(state) == [2, 2 + 2 + 2, 0, 0]
    assert game.winners(state) == [1]


def last_gold_found(game: Goldgraeber, board: Board, start: GoldgraeberState, **options: Any) -> GoldgraeberState:
    """Four players, five gold chips and one robber face down; seat 0 digs up one of the gold chips."""
    dig, near = dig_with_path_neighbour(game, board, start)
    unseen = [0, 0, 0, 0, 5, 1, 0, 0, 0, 0]
    state = option(at(with_figure(start, 0, near), unseen=unseen, face_down=[dig, *start.face_down[:5]]), **options)
    assert game.gold_on_board(state) == (6 if options.get("end_counts_hidden_robbers") else 5)
    return game.apply(game.apply(roll(game, state, "2"), Move(to=dig))[0],
                      game.action_adapter.validate_python({"type": "reveal", "chip": "gold", "value": 5}))[0]


def test_reading_face_down_robbers_are_no_gold_for_the_early_end(game: Goldgraeber, board: Board,
                                                                 start: GoldgraeberState) -> None:
    """GG-R15 and GG-17 (default): face-down robbers do not count as gold chips when the early end is checked."""
    state = last_gold_found(game, board, start)
    assert game.is_over(state) and state.end_reason == "gold"


def test_reading_face_down_robbers_count_as_gold_chips(game: Goldgraeber, board: Board,
                                                      start: GoldgraeberState) -> None:
    """GG-R15 (`end_counts_hidden_robbers`): every face-down chip counts, so the same find does not end it."""
    state = last_gold_found(game, board, start, end_counts_hidden_robbers=True)
    assert not game.is_over(state) and game.gold_on_board(state) == 5
    assert game.gold_on_board(option(state, end_count="nuggets")) == 20  # robbers have no nuggets


def test_reading_a_robber_stack_must_be_fought(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    """GG-R16 and GG-11: ending a move on a robber stack starts the fight; only a roll is accepted."""
    dig, near = dig_with_path_neighbour(game, board, start)
    base = at(start, face_down=[f for f in start.face_down if f != dig], stacks=[Stack(field=dig, robber="R3")])
    state = game.apply(roll(game, with_figure(base, 0, near), "2"), Move(to=dig))[0]
    assert state.phase == "robber" and game.prompt(state).expects == ("roll",)
    assert {action.type for action in game.legal_actions(state)} == {"roll"}
    assert refusal(game, state, Move(to=near)) == ("GG-1", "action.not_now")


def test_leaving_the_house_through_its_wall_cites_the_door_rule(game: Goldgraeber, board: Board,
                                                                start: GoldgraeberState) -> None:
    """GG-5: a field only reachable by stepping out of the house through a wall is refused by the door rule."""
    house, door = board.houses[start.houses[0]], board.doors[start.houses[0]]
    hq, hr = board.coords[house]
    walls = [f for f, (q, r) in enumerate(board.coords) if (q - hq, r - hr) in HEX_DIRECTIONS
             and f != door and board.types[f] not in ("lake", "house")]
    state = roll(game, start, "2")
    target = next(board.ids[n] for wall in walls for n in board.neighbours[wall]
                  if n not in (door, house) and n not in board.neighbours[door])
    assert target not in game.destinations(state)
    assert refusal(game, state, Move(to=target)) == ("GG-5", "move.house_wall")


def test_moving_away_the_wrong_distance_cites_the_fight_rules(game: Goldgraeber, board: Board,
                                                              start: GoldgraeberState) -> None:
    """GG-10 after a lost robber fight and GG-13 after a won brawl: the distance is the roll, nothing else."""
    lost, dig = robber_fight(game, board, start, 5)
    lost = roll(game, lost, "3")
    assert lost.phase == "away"
    here = board.index[dig]
    wrong = sorted(board.ids[f] for f in game.walk_ends(lost, 0, here, 5)
                   - game.walk_ends(lost, 0, here, 3, back_steps=True))
    assert refusal(game, lost, Move(to=wrong[0])) == ("GG-10", "move.away_count")
    away = roll(game, roll(game, roll(game, brawl(game, start), "2"), "6"), "3")
    here = board.index["P57"]
    wrong = sorted(board.ids[f] for f in game.walk_ends(away, 2, here, 5)
                   - game.walk_ends(away, 2, here, 3, back_steps=True))
    assert refusal(game, away, Move(to=wrong[0])) == ("GG-13", "move.away_count")


def test_options_reach_the_state_from_the_setup(game: Goldgraeber) -> None:
    """GG-R1, GG-R2, GG-R13 ... GG-R15: the literal readings are chosen before the game and ride in the state."""
    literal = game.initial_state(make_setup(shuttle="two_fields_only", locomotive_field="may_end_there",
                                            train_takes="open_gold", open_robbers_score=True,
                                            end_counts_hidden_robbers=True)).options
    default = game.initial_state(make_setup()).options
    fields = ("shuttle", "locomotive_field", "train_takes", "open_robbers_score", "end_counts_hidden_robbers")
    assert [getattr(literal, name) for name in fields] == ["two_fields_only", "may_end_there", "open_gold", True, True]
    assert [getattr(default, name) for name in fields] == ["no_step_back", "closed", "all_open_chips", False, False]
