"""Panels reuse their widgets: `resize` keeps what a box drops and gives it back when the box grows, so
Digger's five die squares, cleared after every roll, are not built anew for the next one (building
them was most of a roll's slowest tap)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from companion.app.demo import demo_setup, play_move
from companion.app.launch import pump
from companion.app.widgets import resize
from companion.engine.journal import Journal
from companion.engine.session import Session
from tests.app.ui import history_read


def test_a_box_that_shrinks_and_grows_gets_its_own_widgets_back() -> None:
    box = BoxLayout()
    built: list[Label] = []

    def new_label() -> Label:
        built.append(Label())
        return built[-1]

    first = resize(box, 5, new_label)
    assert len(built) == 5 and list(reversed(box.children)) == first
    assert resize(box, 0, new_label) == [] and not box.children
    again = resize(box, 5, new_label)
    assert len(built) == 5 and set(map(id, again)) == set(map(id, first))  # none built anew
    more = resize(box, 7, new_label)
    assert len(built) == 7 and more[:5] == again and list(reversed(box.children)) == more
    assert resize(box, 2, new_label) == more[:2]


def test_the_players_screen_refills_its_rows_in_place(fresh_app: Any) -> None:
    """Adding, moving and removing players changes what the rows show, not the rows: every seat row has
    a text field, and building one per change grew the screen's memory with every tap."""
    app = fresh_app
    app.flow.choose_game("digger")
    app.flow.new_game()
    pump(2)
    model, seats = app.players_model, app.root.get_screen("players").ids.seats

    def fields() -> list[Any]:
        return [row.ids.name for row in reversed(seats.children)]

    while len(model.seats) < 4:
        model.add()
    model.seats = [{**seat, "name": name} for seat, name in zip(model.seats, ("Anna", "Ben", "Chloé", "David"))]
    pump(1)
    rows = fields()
    assert [field.text for field in rows] == ["Anna", "Ben", "Chloé", "David"]
    model.move(0, 1)
    model.remove(3)
    pump(1)
    assert [field.text for field in fields()] == ["Ben", "Anna", "Chloé"]
    model.add()
    pump(1)
    assert fields() == rows  # the same four text fields throughout
    fields()[1].text = "Zoé"  # typing after a move renames the seat the row now shows
    assert [seat["name"] for seat in model.seats][:3] == ["Ben", "Zoé", "Chloé"]


def test_only_the_arrows_that_can_move_a_seat_are_live(fresh_app: Any) -> None:
    """The first seat cannot move up nor the last down: their arrows are greyed, and follow the rows
    as players are added and removed."""
    app = fresh_app
    app.flow.choose_game("digger")
    app.flow.new_game()
    pump(2)
    model, seats = app.players_model, app.root.get_screen("players").ids.seats

    def live_arrows() -> list[tuple[bool, bool]]:
        rows = list(reversed(seats.children))
        return [tuple(not button.disabled for button in row.children if button.text in ("↑", "↓"))[::-1]
                for row in rows]

    while len(model.seats) > model.min_players:
        model.remove(len(model.seats) - 1)
    model.add()
    pump(1)
    assert live_arrows() == [(False, True), (True, True), (True, False)]
    model.remove(2)
    pump(1)
    assert live_arrows() == [(False, True), (True, False)]


def test_history_rows_and_rule_cards_are_refilled_not_rebuilt(fresh_app: Any, tmp_path: Path) -> None:
    """A tap on a game in History changes the selection and a letter typed in the rules' search changes
    the results; both refill the rows they have instead of building every row again."""
    from kivy.tests.common import UnitTestTouch

    app = fresh_app
    journal = Journal(tmp_path / "journal.sqlite3")
    for moves in (3, 5, 7):
        session = Session.new(demo_setup("digger", seed=moves), journal)
        for _ in range(moves):
            play_move(session)
    app.journal_desk.open(journal)
    app.go("history")
    history_read(app.root.get_screen("history").model)
    pump(1)
    screen = app.root.get_screen("history")
    toggles = sorted(screen.ids.rows.children, key=lambda toggle: -toggle.game_id)  # newest first, as listed
    assert [toggle.game_id for toggle in toggles] == [row["id"] for row in screen.model.rows]
    for row in screen.model.rows:
        toggle = next(toggle for toggle in screen.ids.rows.children if toggle.game_id == row["id"])
        touch = UnitTestTouch(*toggle.to_window(*toggle.center))  # the rows may read alike: touch each one
        touch.touch_down()
        touch.touch_up()
        pump(1)
        assert set(screen.ids.rows.children) == set(toggles)
        assert {toggle.game_id: toggle.state for toggle in toggles} == {
            r["id"]: "down" if r["id"] == row["id"] else "normal" for r in screen.model.rows}
        assert screen.model.selected == row["id"]
    screen.model.select(-1)  # History opens on the newest game again for the tests after this one

    app.rules_model.game_id, app.rules_model.query = "digger", ""
    app.go("rules")
    pump(2)
    cards = app.root.get_screen("rules").ids.cards
    every = list(reversed(cards.children))
    every_rule = [card.rule_id for card in every]
    app.rules_model.query = "blue"
    pump(1)
    shown = list(reversed(cards.children))
    assert 0 < len(shown) < len(every) and shown == every[:len(shown)]
    assert [card.rule_id for card in shown] == [result["rule_id"] for result in app.rules_model.results]
    app.rules_model.query = ""
    pump(1)
    assert set(map(id, cards.children)) == set(map(id, every))  # the same cards back, none built anew
    assert [card.rule_id for card in reversed(cards.children)] == every_rule
