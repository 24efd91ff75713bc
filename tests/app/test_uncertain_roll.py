"""The uncertain-roll notice: it shows which die the sensors are unsure about, and while it is up the
choice buttons under it take no touches (an old choice cannot be played by mistake)."""

from __future__ import annotations

from typing import Any

from kivy.uix.button import Button

from companion.app.launch import pump
from companion.app.screens import NoticeDice
from tests.app.test_controller_inputs import hardware, open_game, sensor_roll
from tests.app.test_play_touch import set_up_four_players
from tests.app.ui import label_texts, tap, visible_widgets
from tests.table_helpers import played, touch_at


def take_buttons(app: Any) -> list[Button]:
    return [w for w in visible_widgets(app.root.current_screen)
            if isinstance(w, Button) and w.text.startswith("Take ") and not w.disabled]


def rolled_by_touch(app: Any) -> Any:
    """A four-player Digger game whose first roll (B Y R G W) was entered by touch; its session."""
    set_up_four_players(app)
    assert played(app.table.session, app.flow.controller.submit, {"type": "roll", "values": list("BYRGW")}, "touch")
    pump(2)
    return app.table.session


def notice_dice(app: Any) -> list[tuple[str, bool]]:
    """(text, uncertain) of every die the notice shows, left to right."""
    boxes = [w for w in visible_widgets(app.root.current_screen) if isinstance(w, NoticeDice)]
    assert len(boxes) == 1, "the notice shows one row of dice"
    return [(die.text, die.uncertain) for die in reversed(boxes[0].children)]


def test_notice_marks_the_uncertain_die_and_covers_old_choices(fresh_app: Any) -> None:
    app = fresh_app
    session = rolled_by_touch(app)
    old = take_buttons(app)
    assert old, "the roll offers colours to take"
    old_centres = [old_button.to_window(*old_button.center) for old_button in old]

    app.flow.controller.hardware_roll(list("YRRBK"), [1], "serial")
    pump(2)
    assert notice_dice(app) == [("Y", False), ("R?", True), ("R", False), ("B", False), ("K", False)]

    played = len(session.actions)
    for x, y in old_centres:
        touch_at(x, y)
        pump(1)
    assert len(session.actions) == played, "a touch on an old choice under the notice played it"
    assert app.table.notice_choices == ["confirm", "touch"]

    tap(app, "Confirm reading", frames=2)
    assert session.state.roll == tuple("YRRBK") and len(session.actions) == played + 1
    assert not app.table.notice_text and not notice_dice_shown(app)

    # The question answered, the choices of the new roll take touches again.
    fresh = take_buttons(app)
    assert fresh
    touch_at(*fresh[0].to_window(*fresh[0].center))
    pump(1)
    assert len(session.actions) == played + 2 and session.actions[-1].action["type"] == "take"


def notice_dice_shown(app: Any) -> bool:
    return any(isinstance(w, NoticeDice) for w in visible_widgets(app.root.current_screen))


def test_plain_notice_leaves_the_panel_usable(fresh_app: Any) -> None:
    """Only a question shields the panel: a notice that just informs can be left standing."""
    app = fresh_app
    session = rolled_by_touch(app)
    app.table.show_notice("Just so you know.")
    pump(2)
    assert not notice_dice_shown(app)
    button = take_buttons(app)[0]
    played = len(session.actions)
    touch_at(*button.to_window(*button.center))
    pump(1)
    assert len(session.actions) == played + 1


def test_drop_clears_the_dice(fresh_app: Any) -> None:
    """Entering the roll by touch instead takes the dice (and the shield) away with the question."""
    app = fresh_app
    set_up_four_players(app)
    app.flow.controller.hardware_roll(list("BBRGW"), [0, 4], "serial")
    pump(2)
    assert [uncertain for _text, uncertain in notice_dice(app)] == [True, False, False, False, True]
    tap(app, "Enter by touch", frames=2)
    assert app.table.notice_dice == [] and not notice_dice_shown(app)
    assert app.table.session.actions == []


def test_a_roll_read_with_nothing_certain_asks_for_the_whole_roll(fresh_app: Any) -> None:
    """The camera saw a die too many, so every die is `?`: the keypad says no die could be read (not
    "Unreadable die"), in the app's language, and the roll tapped in is played."""
    app = fresh_app
    session = rolled_by_touch(app)
    played = len(session.actions)
    app.flow.controller.hardware_roll(["?"] * 5, [0, 1, 2, 3, 4], "camera")
    pump(2)
    assert "No die could be read, tap the roll in: _ _ _ _ _" in label_texts(app)
    app.preferences.set_language("de")
    try:
        pump(2)
        assert "Kein Würfel lesbar, bitte den Wurf antippen: _ _ _ _ _" in label_texts(app)
    finally:
        app.preferences.set_language("en")  # the language is process-wide: later tests expect English
    pump(2)
    for face in "GGRBK":
        tap(app, face)
    assert session.state.roll == tuple("GGRBK") and len(session.actions) == played + 1
    assert session.actions[-1].source == "touch"


def test_gold_connections_table_shows_the_dice_tapped_and_those_left_to_tap(fresh_app: Any) -> None:
    """Its two dice are tapped one by one: the first tap shows; and a roll the sensor read only in part
    says so and which die is left (before, the panel showed nothing of either)."""
    app = fresh_app
    session = open_game(app, "gold_connection")
    assert not any(text.startswith("Roll by touch") for text in label_texts(app)), "nothing before the first tap"
    tap(app, "3", frames=2)
    assert "Roll by touch: 3 _" in label_texts(app)
    hardware(app, sensor_roll(("?", "5"), seq=3))  # the sensor's roll comes before the second tap
    assert "Unreadable die, tap it: _ 5" in label_texts(app)
    tap(app, "2", frames=2)
    assert [str(value) for value in session.actions[-1].action["values"]] == ["2", "5"]
    assert not any(text.startswith(("Roll by touch", "Unreadable")) for text in label_texts(app))


def test_chinagold_offers_the_faces_of_the_tile_the_sensor_could_not_read(fresh_app: Any) -> None:
    """Each tile has its own two faces: with the first tile read and the second not, the buttons are the
    second tile's, not the first's (tapping one of those was refused by the rules)."""
    app = fresh_app
    session = open_game(app, "chinagold")
    dice = [list(die) for die in app.table.dice]
    assert dice == [["0", "1"], ["0", "2"], ["1", "2"]]
    hardware(app, sensor_roll(("1", "?", "2"), seq=4))
    faces = [w.text for w in visible_widgets(app.root.current_screen) if getattr(w, "face", None) and w.text]
    assert faces == ["0", "2"]
    assert "Unreadable die, tap it: 1 _ 2" in label_texts(app)
    tap(app, "2", frames=2)
    assert [str(value) for value in session.actions[-1].action["values"]] == ["1", "2", "2"]


def test_goldgraebers_table_says_its_die_was_not_read(fresh_app: Any) -> None:
    app = fresh_app
    session = open_game(app, "goldgraeber")
    assert not any(text.startswith("Unreadable") for text in label_texts(app))
    hardware(app, sensor_roll(("?",), seq=5))
    assert "Unreadable die, tap it: _" in label_texts(app)
    tap(app, "4", frames=2)
    assert [str(value) for value in session.actions[-1].action["values"]] == ["4"]
