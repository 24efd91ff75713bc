"""The setup guide: one row per step, a bullet column and the step's text, so a step that wraps goes on
under its own first word, not under the bullet; the rows are kept and refilled on the next visit."""

from __future__ import annotations

from typing import Any

from companion.app.launch import pump, show_screen


def _rows(app: Any) -> list[Any]:
    return list(reversed(app.root.get_screen("setup").ids.steps.children))


def test_a_long_step_wraps_under_its_own_text_and_rows_are_kept(fresh_app: Any) -> None:
    app = fresh_app
    app.flow.game_id = "gold_connection"  # its first step is longer than one line at 800x480
    show_screen(app, "setup")
    pump(3)
    rows = _rows(app)
    assert len(rows) >= 3
    bullet, body = rows[0].children[1], rows[0].ids.body  # (children are listed last first)
    assert bullet.text == "•" and body.text.startswith("Give each player")
    assert body.height >= 1.8 * bullet.height, "the first step should take two lines or more"
    assert body.x >= bullet.right - 1, "wrapped lines start right of the bullet"
    assert {round(row.ids.body.x) for row in rows} == {round(body.x)}  # every step starts in the same column
    assert bullet.top == body.top  # the bullet stands at the first line
    english = [row.ids.body.text for row in rows]

    app.go("home")
    app.preferences.set_language("de")
    pump(1)
    show_screen(app, "setup")
    pump(3)
    again = _rows(app)
    assert [id(row) for row in again[:len(rows)]] == [id(row) for row in rows[:len(again)]]  # kept, not rebuilt
    assert again[0].ids.body.text.startswith("Jeder erhält") and again[0].ids.body.text not in english
    app.go("home")
    app.preferences.set_language("en")
    pump(1)
