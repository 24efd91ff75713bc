"""The table's log renders a line once: a new line or an undo renders no other line again.

The log used to be one label of thirty joined lines, wrapped and rendered whole again for every move
(docs/performance.md, App).  These tests record which texts the labels render.
"""

from __future__ import annotations

from typing import Any

import pytest
from kivy.uix.label import Label

from companion.app.launch import pump
from companion.app.widgets import LogLines


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The text of every label rendered from now on (Kivy's triggers look the method up by its name)."""
    texts: list[str] = []
    render = Label.texture_update

    def texture_update(self: Label, *args: Any) -> None:
        texts.append(self.text)
        render(self, *args)

    monkeypatch.setattr(Label, "texture_update", texture_update)
    return texts


@pytest.fixture
def log(app: Any) -> Any:
    """A log column of 300 x 400 px on the app's window (its labels need the window's text renderer)."""
    lines = LogLines(shown=5, size_hint=(None, None), size=(300, 400))
    app.root.current_screen.add_widget(lines)
    yield lines
    app.root.current_screen.remove_widget(lines)


def shown(log: Any) -> list[Any]:
    """The line labels from the top down (the spacer above them left out)."""
    return list(reversed(log.children))[1:]


def test_a_new_line_renders_only_itself(log: Any, rendered: list[str]) -> None:
    log.lines = [f"line {number}" for number in range(5)]
    pump(2)
    rendered.clear()
    log.lines = [*log.lines, "line 5"]
    pump(2)
    assert [label.text for label in shown(log)] == [f"line {number}" for number in range(1, 6)]
    assert rendered == ["line 5"]


def test_an_undo_drops_the_last_line_and_brings_back_the_one_above(log: Any, rendered: list[str]) -> None:
    log.lines = [f"line {number}" for number in range(7)]
    pump(2)
    rendered.clear()
    log.lines = log.lines[:-1]
    pump(2)
    assert [label.text for label in shown(log)] == [f"line {number}" for number in range(1, 6)]
    assert rendered == ["line 1"]


def test_a_line_like_the_one_scrolling_out_renders_nothing_else(log: Any, rendered: list[str]) -> None:
    log.lines = ["Roll 2 or more.", "Anna rolled 3.", "Ben rolled 4.", "Chloé rolled 5.", "Roll 2 or more."]
    pump(2)
    rendered.clear()
    log.lines = [*log.lines, "Anna rolled 6."]  # the first line scrolls out, its twin stays
    pump(2)
    assert [label.text for label in shown(log)] == ["Anna rolled 3.", "Ben rolled 4.", "Chloé rolled 5.",
                                                    "Roll 2 or more.", "Anna rolled 6."]
    assert rendered == ["Anna rolled 6."]


def test_a_line_said_again_renders_only_itself(log: Any, rendered: list[str]) -> None:
    """Gold Connection says "Roll 5 or more: 83.3 %." again and again; matched by text, the labels of such
    lines were shuffled and the whole log rendered anew (824 renders for 176 new lines in a game)."""
    log.lines = ["Anna: roll 5 or more.", "Roll 5 or more.", "Ben rolled 6.", "Roll 5 or more.", "Chloé rolled 4."]
    pump(2)
    rendered.clear()
    log.lines = [*log.lines, "Roll 5 or more."]
    pump(2)
    assert [label.text for label in shown(log)] == ["Roll 5 or more.", "Ben rolled 6.", "Roll 5 or more.",
                                                    "Chloé rolled 4.", "Roll 5 or more."]
    assert rendered == ["Roll 5 or more."]


def test_labels_are_reused_not_made_anew(log: Any) -> None:
    """A label made for every line was garbage in cycles: full collections of 30-65 ms inside later taps."""
    seen: set[int] = set()
    for number in range(40):
        log.lines = ["eins", "zwei"] if number == 20 else [*log.lines, f"line {number}", "Roll 2 or more."]
        seen.update(id(label) for label in shown(log))
    assert len(seen) <= log.shown


def test_other_lines_replace_all_and_keep_no_label_unused(log: Any) -> None:
    log.lines = ["one", "two", "three"]
    log.lines = ["eins", "zwei"]  # a language switch writes every line anew
    assert [label.text for label in shown(log)] == ["eins", "zwei"]
    log.lines = []
    assert shown(log) == []


def test_the_lines_sit_at_the_bottom_while_they_are_few(log: Any) -> None:
    log.lines = ["only line"]
    pump(2)
    (label,) = shown(log)
    assert label.y == pytest.approx(log.y) and label.top < log.top - 100
