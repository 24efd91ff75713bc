"""The Goldgräber table panel, headless: highlighted destinations, taps, refusals, chips, fights step by step."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from companion.engine.record import load_record
from tests.table_helpers import kivy_ready_fixture, make_controller, played, shown_panel, tap_cell  # noqa: F401 - a fixture

pytestmark = pytest.mark.ui

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "goldgraeber.json"


@contextmanager
def make_table(kivy_ready: Any, upto: int = 0) -> Iterator[tuple[Any, Any]]:
    """A table playing the example game's first `upto` actions, with the Goldgräber panel on screen until
    the block ends (then detached and taken off)."""
    from companion.engine.session import Session

    record = load_record(EXAMPLE)
    partial = record.evolve(actions=record.actions[:upto])
    controller = make_controller(Session.from_record(partial))
    with shown_panel(kivy_ready, controller, "goldgraeber", (760, 400)) as panel:
        yield controller.table, panel


def tap_field(panel: Any, field: str) -> None:
    """Real touches through the window on a field."""
    tap_cell(panel.board, field)


def first_index(kind: str) -> int:
    """Index of the first action in the example game whose state before it is in phase `kind`."""
    from companion.engine.record import parse_recorded
    from companion.games.goldgraeber.rules import Goldgraeber

    game = Goldgraeber()
    record = load_record(EXAMPLE)
    state = game.initial_state(record.setup())
    for index, entry in enumerate(record.actions):
        if state.phase == kind:
            return index
        state, _ = game.apply(state, parse_recorded(game, entry, "example", index))
    raise AssertionError(f"the example game never reaches {kind}")


def test_table_module_is_found() -> None:
    from companion.app.tables import table_for

    assert table_for("goldgraeber").__name__ == "companion.games.goldgraeber.app.table"


def test_roll_highlight_tap_and_refusal(kivy_ready: Any, tmp_path: Path) -> None:
    with make_table(kivy_ready) as (table, panel):
        state = table.session.state
        assert panel.rolling and panel.board.view.locomotive == "R1" and len(panel.board.view.face_down) == 64
        assert "rail field 1 of 12" in panel.train_text and "25%" in panel.odds_text
        assert not played(table.session, panel.enter_face, "1") and table.refusal_rule.startswith("GG-2")
        assert played(table.session, panel.enter_face, "3")
        state = table.session.state
        destinations = panel.game.destinations(state)
        assert panel.board.view.highlights == destinations
        for field in panel.game.board.ids:  # the whole map stays in view: train, figures, every field
            assert panel.board.collide_point(*panel.board.centre_of(field))
        assert state.figures[0] not in destinations
        tap_field(panel, state.figures[0])  # the house itself is not 3 steps away
        assert table.refusal_rule.startswith("GG-") and table.session.state == state
        target = sorted(destinations)[0]
        tap_field(panel, target)
        assert table.session.state.figures[0] == target and table.session.state.current == 1
        panel.export_to_png(str(tmp_path / "table.png"))
        assert (tmp_path / "table.png").stat().st_size > 5000


def test_train_progress_follows_the_locomotive(kivy_ready: Any) -> None:
    with make_table(kivy_ready) as (table, panel):
        assert played(table.session, panel.enter_face, "L")
        assert table.session.state.locomotive == 1 and panel.board.view.locomotive == "R2"
        assert "rail field 2 of 12" in panel.train_text and panel.train_progress == pytest.approx(1 / 11)
        assert table.log[-1].endswith("rail field 2.")  # the log and the train line count alike


def test_chip_buttons_follow_the_pool(kivy_ready: Any) -> None:
    with make_table(kivy_ready, first_index("reveal")) as (table, panel):
        assert panel.revealing and len(panel.ids.chips.children) == 10
        robber_one = next(b for b in panel.ids.chips.children if b.text.startswith("Robber 1"))
        assert not robber_one.disabled
        before = table.session.state
        assert played(table.session, panel.enter_chip, "gold", 5)
        assert table.session.state.unseen[4] == before.unseen[4] - 1 and not panel.revealing


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_the_chip_buttons_and_the_lines_above_them_fit_beside_the_board(kivy_ready: Any, language: str) -> None:
    """Ten chip buttons under the train's line: in French the step line said again which chip to turn (four
    lines), and the column grew over the screen's header.  Every text and button of the column stays
    inside the panel, in every language."""
    from kivy.uix.behaviors import ButtonBehavior
    from kivy.uix.label import Label

    from companion.app.i18n import set_language
    from companion.app.launch import pump

    set_language(language)
    try:
        with make_table(kivy_ready, first_index("reveal")) as (_table, panel):
            panel.refresh()
            pump(2)
            column = panel.ids.chips.parent
            shown = [widget for widget in column.children if widget.height > 0 and widget.opacity > 0
                     and (isinstance(widget, ButtonBehavior) or (isinstance(widget, Label) and widget.text))]
            assert panel.revealing and panel.ids.chips in column.children and shown
            for widget in [*shown, *panel.ids.chips.children]:
                assert panel.y - 1 <= widget.y and widget.top <= panel.top + 1, getattr(widget, "text", widget)
    finally:
        set_language("en")


def test_brawl_is_shown_step_by_step(kivy_ready: Any) -> None:
    with make_table(kivy_ready, first_index("brawl")) as (table, panel):
        state = table.session.state
        attacker, defender = table.player_name(state.current), table.player_name(state.defender)
        assert panel.rolling and f"{attacker} rolls" in panel.step_text
        assert panel.odds_text == ""  # what a dig may find is no matter in a fight; its line needs the room
        assert played(table.session, panel.enter_face, "4")
        assert f"{attacker} rolled 4" in panel.step_text and f"{defender} rolls" in panel.step_text
        assert played(table.session, panel.enter_face, "4")  # a tie: the attacker rolls again
        assert f"{attacker} rolls" in panel.step_text
        assert played(table.session, panel.enter_face, "6") and played(table.session, panel.enter_face, "L")
        assert "won the brawl" in panel.step_text and table.session.state.actor == state.current


def test_a_figure_on_a_robbers_stack_leaves_its_strength_readable(kivy_ready: Any) -> None:
    """A figure fighting a robber stands on the robber's stack: drawn in the middle it hid the strength
    written there, so it stands below the middle."""
    from kivy.graphics import Mesh

    with make_table(kivy_ready, first_index("robber")) as (table, panel):
        state = table.session.state
        field = state.figures[state.actor]
        board = panel.board
        assert field in board.view.stacks
        meshes = [item for item in board._pieces.groups["figures"].children if isinstance(item, Mesh)]
        cx, cy = board.centre_of(field)
        near = [sum(mesh.vertices[1::4]) / (len(mesh.vertices) // 4) for mesh in meshes
                if abs(sum(mesh.vertices[0::4]) / (len(mesh.vertices) // 4) - cx) < board._radius]
        assert near and all(y < cy - board._radius * 0.3 for y in near)


def test_setup_guide_names_each_players_house() -> None:
    from companion.engine.core import Player, Setup
    from companion.games.goldgraeber.app.table import setup_steps

    setup = Setup(game="goldgraeber", players=(Player(name="Anna", colour="green"), Player(name="Ben"),
                                              Player(name="Chloé")), options={"look_variant": True})
    steps = setup_steps(setup)
    assert "Anna plays the green house." in steps and "Ben plays the red house." in steps
    assert any("64 dig fields" in step for step in steps) and any("Variant" in step for step in steps)


def test_undo_marks_the_fields_to_put_back_on_the_board(kivy_ready: Any) -> None:
    """After an undone move the board highlights the two fields the put-back sentence names (where the
    figure stands now, where it goes back to); dismissing the notice brings the usual marks back."""
    with make_table(kivy_ready, first_index("move") + 1) as (table, panel):
        controller = panel.controller
        assert played(table.session, controller.undo)
        places = set(table.put_back_places)
        assert len(places) == 2 and panel.board.view.highlights == places
        controller.answer_notice("dismiss")
        assert table.put_back_places == [] and panel.board.view.highlights != places


def test_highlighting_every_field_adds_no_draw_calls(kivy_ready: Any) -> None:
    """The highlighted fields are one mesh, however many a 6 reaches (one wide line each cost a draw call
    apiece on the table's busiest frame)."""
    from companion.games.goldgraeber.app.board import BoardView

    with make_table(kivy_ready) as (_table, panel):
        board = panel.board
        sizes = {}
        for name, highlights in (("one", set(board.board.ids[:1])), ("all", set(board.board.ids))):
            board.view = BoardView(highlights=highlights, selected=board.board.ids[1])
            sizes[name] = len(list(board._pieces.instructions()))
        assert sizes["one"] == sizes["all"]


def test_without_room_beside_the_board_the_loupe_covers_the_half_away_from_the_finger(kivy_ready: Any) -> None:
    """A board as wide as the window (a small screen): the loupe goes over the board's other half, so the
    finger's side stays in view."""
    from companion.app.boards.loupe import BoardLoupe
    from companion.app.launch import pump
    from companion.games.goldgraeber.app.board import GoldgraeberBoard
    from companion.games.goldgraeber.board import load_board

    board = GoldgraeberBoard(load_board().layout, size_hint=(None, None), size=kivy_ready.size, pos=(0, 0))
    kivy_ready.add_widget(board)
    try:
        loupe = BoardLoupe(board, choose=lambda _cell: None, choosable=set, state=lambda: None)
        pump(1)
        half = board.width / 2
        for finger_x, expected_x in ((half / 2, half), (board.width - half / 2, 0.0)):
            view = loupe.open((finger_x, board.center_y))
            pump(1)
            lens = view.lens  # the magnified board, inside the frame the loupe chose
            assert lens.x == pytest.approx(expected_x) and lens.right <= expected_x + half + 0.5
            assert lens.y >= board.y - 0.5 and view.header.top <= board.top + 0.5
        loupe.close()
    finally:
        kivy_ready.remove_widget(board)


def test_die_face_buttons_are_built_once_for_the_whole_game(kivy_ready: Any) -> None:
    """Hidden after each roll and shown for the next, the face buttons are the same widgets (building six
    buttons was the largest part of a move's frame)."""
    from companion.games.goldgraeber.rules import DIE_FACES

    with make_table(kivy_ready) as (_table, panel):
        seen: set[int] = set()
        for recorded in load_record(EXAMPLE).actions[:40]:
            if panel.rolling:
                buttons = list(reversed(panel.ids.faces.children))
                assert [button.text for button in buttons] == list(DIE_FACES)
                seen |= set(map(id, buttons))
            assert played(panel.controller.session, panel.controller.submit, dict(recorded.action))
        assert len(seen) == len(DIE_FACES)


def test_a_robber_guarding_nothing_is_told_without_a_count(kivy_ready: Any) -> None:
    """GG-10: a robber just turned up guards no chips, and the fight's line says nothing of them (it read
    "guarding 0 chips")."""
    with make_table(kivy_ready, first_index("robber")) as (table, panel):
        state = table.session.state
        stack = next(s for s in state.stacks if s.field == state.fight_field)
        assert not stack.loot and panel.step_text.startswith(f"Robber of strength {stack.robber[1]} on ")
        assert panel.step_text.endswith(": roll higher to win.") and "guarding" not in panel.step_text
