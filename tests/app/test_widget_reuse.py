"""Panels reuse their widgets: `resize` keeps what a box drops and gives it back when the box grows, so
Digger's five die squares, cleared after every roll, are not built anew for the next one (building
them was most of a roll's slowest tap)."""

from __future__ import annotations

from typing import Any

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from companion.app.launch import pump
from companion.app.widgets import resize


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
    app.choose_game("digger")
    app.new_game()
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
