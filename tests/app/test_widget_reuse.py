"""Panels reuse their widgets: `resize` keeps what a box drops and gives it back when the box grows, so
Digger's five die squares, cleared after every roll, are not built anew for the next one (building
them was most of a roll's slowest tap)."""

from __future__ import annotations

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from companion.app.tables.common import resize


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
