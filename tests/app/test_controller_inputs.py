"""One input path per game: the same roll entered by touch, keyboard, GPIO buttons and a serial sensor
reaches the game's controller whatever screen is showing, and the sensor hears back only after the
journal has the action."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kivy.core.window import Window

from companion.app.launch import pump
from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.session import Session
from firmware_bridge.events import ButtonEvent, RollEvent, StatusEvent, TimerEvent
from tests.app.conftest import ManualClock
from tests.app.ui import tap

#: Per game: players, and the roll that value_1 enters (the first face of every die that is due).
GAMES: dict[str, tuple[tuple[str, ...], list[str]]] = {
    "digger": (("Anna", "Ben"), ["B"] * 5),
    "gold_connection": (("Anna", "Ben"), ["1", "1"]),
    "goldgraeber": (("Anna", "Ben", "Chloé"), ["L"]),
    "chinagold": (("Anna", "Ben"), ["0", "0", "1"]),
}


def sensor_roll(values: tuple[str, ...] | list[str], seq: int, uncertain: bool = False) -> RollEvent:
    """A serial roll as the bridge delivers it; its frame reference (`sensor:<seq>`) is what the journal keeps."""
    return RollEvent(source="sensor", seq=seq, values=tuple(values), uncertain=uncertain)


class Answers:
    """Stands in for the bridge's `HardwareLink.settle`: records each answer with the journal rows of
    the game at that moment."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.calls: list[tuple[Any, bool, str | None, int]] = []

    def __call__(self, event: Any, recorded: bool, reason: str | None = None) -> None:
        session = self.app.table.session
        rows = len(self.app.journal.actions(session.game_id)) if session is not None else -1
        self.calls.append((event, recorded, reason, rows))


@pytest.fixture(autouse=True)
def own_journal(fresh_app: Any, tmp_path: Path) -> Iterator[None]:
    """A journal of this test's own: frame references are answered from the whole journal, so frames
    of other tests' games must not look like resends."""
    shared = fresh_app.journal.path
    fresh_app.journal_desk.open(Journal(tmp_path / "journal.sqlite3"))
    yield
    fresh_app.flow.controller.open(None)
    fresh_app.journal_desk.open(Journal(shared))


@pytest.fixture
def answers(fresh_app: Any, monkeypatch: pytest.MonkeyPatch) -> Answers:
    recorder = Answers(fresh_app)
    monkeypatch.setattr(fresh_app.hardware, "settle", recorder, raising=False)
    return recorder


def open_game(app: Any, game: str) -> Session:
    names, _ = GAMES[game]
    session = Session.new(Setup(game=game, players=tuple(Player(name=name) for name in names), seed=5), app.journal)
    app.flow.open_table(session)
    pump(2)
    return session


def key(codepoint: str) -> None:
    Window.dispatch("on_key_down", ord(codepoint), 0, codepoint, [])
    pump(1)


def hardware(app: Any, event: Any) -> None:
    """An event as the hardware link hands it to the app on the UI thread."""
    app.hardware.dispatch("on_event", event)
    pump(1)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_input_reaches_the_game_on_any_screen(fresh_app: Any, answers: Answers, game: str) -> None:
    app = fresh_app
    session = open_game(app, game)
    roll = GAMES[game][1]
    played: list[tuple[str, list[str]]] = []

    def last_roll() -> tuple[str, list[str]]:
        entry = session.actions[-1]
        return entry.source, [str(value) for value in entry.action["values"]]

    for face in roll:  # touch, on the table
        tap(app, face)
    played.append(last_roll())
    app.flow.controller.undo()

    app.go("rules")
    for _ in roll:  # keyboard: 1 is the value_1 button
        key("1")
    assert app.root.current == "rules"
    played.append(last_roll())
    app.flow.controller.undo()

    app.go("settings")
    for _ in roll:
        hardware(app, ButtonEvent(source="gpio", name="value_1", action="down"))
    assert app.root.current == "settings"
    played.append(last_roll())
    app.flow.controller.undo()

    app.go("hardware")
    frame = sensor_roll(values=tuple(roll), seq=7)
    hardware(app, frame)
    assert app.root.current == "hardware"
    played.append(last_roll())

    assert played == [("touch", roll), ("keyboard", roll), ("gpio", roll), ("serial", roll)]
    assert session.actions[-1].ref == "sensor:7"
    rows = len(app.journal.actions(session.game_id))
    assert (frame, True, None, rows) in answers.calls  # answered with the row already in the journal


def test_refused_roll_is_answered_refused_and_a_resend_is_not_played_twice(fresh_app: Any, answers: Answers) -> None:
    app = fresh_app
    session = open_game(app, "goldgraeber")
    app.go("rules")
    first = sensor_roll(values=("3",), seq=1)
    hardware(app, first)
    assert len(session.actions) == 1 and session.state.phase == "move"
    assert answers.calls[-1] == (first, True, None, 1)  # settled after the journal had the row

    hardware(app, first)  # the same frame again (as after a restart): answered, not played again
    assert len(session.actions) == 1 and answers.calls[-1] == (first, True, None, 1)

    second = sensor_roll(values=("4",), seq=2)  # a move is due, not a roll
    hardware(app, second)
    assert len(session.actions) == 1
    assert answers.calls[-1][:3] == (second, False, "roll.not_expected")

    app.go("table")
    app.flow.controller.undo()
    wrong = sensor_roll(values=("1",), seq=3)  # the Goldgräber die has no 1 (it shows the locomotive)
    hardware(app, wrong)
    assert answers.calls[-1][:3] == (wrong, False, "roll.bad_face") and session.actions == []
    assert "Die 1 showed '1', which it cannot show; please enter the roll by touch." in app.table.notice_text


def test_keys_that_make_an_impossible_roll_are_told_which_die_cannot_show_it(fresh_app: Any) -> None:
    """Chinagold's tiles differ (0|1, 0|2, 1|2): the 0 key enters a face of some tiles, not of the 1|2 tile.
    A roll that gives that tile a 0 is refused before the rules see it, naming the die."""
    app = fresh_app
    session = open_game(app, "chinagold")
    dice = app.table.dice
    blank = next(index for index, faces in enumerate(dice) if "0" not in faces)
    for index in range(len(dice)):
        key("0" if index == blank else "1")  # 1: the value_1 button, the first face of the tile due
    assert f"Die {blank + 1} showed '0', which it cannot show" in app.table.notice_text
    assert session.actions == []


@pytest.mark.parametrize("game", sorted(GAMES))
def test_roll_for_me_rolls_what_the_session_rolls_so_a_replay_rolls_alike(game: str) -> None:
    """The table's Roll for me (Space) and `Session.virtual_roll` (the CLI, examples) draw from one seed."""
    from tests.table_helpers import make_controller

    names, _ = GAMES[game]
    for seed in range(4):
        setup = Setup(game=game, players=tuple(Player(name=name) for name in names), seed=seed)
        at_the_table, elsewhere = Session.new(setup), Session.new(setup)
        make_controller(at_the_table).virtual_roll()
        assert elsewhere.virtual_roll() is not None
        assert [entry.action for entry in at_the_table.actions] == [entry.action for entry in elsewhere.actions]
        assert at_the_table.actions[0].source == "virtual"


def test_rules_refusal_code_goes_back_to_the_device(fresh_app: Any, answers: Answers) -> None:
    app = fresh_app
    session = open_game(app, "digger")
    app.go("hardware")
    hardware(app, ButtonEvent(source="gpio", name="stop", action="down"))  # Stop before any roll
    _event, recorded, reason, rows = answers.calls[-1]
    assert not recorded and reason == app.table.session.game.validate(session.state, session.game.parse_action(
        {"type": "stop"})).code
    assert rows == 0 and app.table.refusal_rule.startswith("DIG-")


def test_digger_colour_buttons_enter_a_roll_from_gpio(fresh_app: Any, answers: Answers) -> None:
    """The six colour buttons of the pin map: five presses are one Digger roll, journalled once, each press
    answered; a colour button in a game whose dice have no colours has no use and is refused."""
    app = fresh_app
    session = open_game(app, "digger")
    app.go("rules")
    for face in "YRGWK":
        hardware(app, ButtonEvent(source="gpio", name=f"colour_{face}", action="down"))
    assert session.actions[-1].action == {"type": "roll", "values": ["Y", "R", "G", "W", "K"]}
    assert session.actions[-1].source == "gpio" and len(session.actions) == 1
    assert [recorded for _event, recorded, _reason, _rows in answers.calls] == [True] * 5
    open_game(app, "gold_connection")
    hardware(app, ButtonEvent(source="gpio", name="colour_B", action="down"))
    assert answers.calls[-1][1:3] == (False, "input.no_use")


def test_a_recorded_frame_resent_before_any_game_is_open_is_answered_recorded(fresh_app: Any,
                                                                             answers: Answers) -> None:
    """A restarted app hears the device's one unanswered frame again before the table has resumed: it is
    in the journal already, so it is ACKed (not refused as "no game") and not played again."""
    app = fresh_app
    session = open_game(app, "digger")
    frame = sensor_roll(values=("B", "Y", "R", "G", "W"), seq=77)
    hardware(app, frame)
    assert session.actions[-1].ref == "sensor:77" and answers.calls[-1][:2] == (frame, True)
    restarted(app)
    hardware(app, frame)
    assert answers.calls[-1][:3] == (frame, True, None) and len(session.actions) == 1
    assert app.journal.is_recorded("sensor:77") and not app.journal.is_recorded("sensor:76")


def restarted(app: Any) -> None:
    """The app right after a restart (a power cut, say): Home, no game on the table."""
    app.flow.controller.close()
    app.flow.controller = app.flow.new_controller("")
    app.flow.controller.open(None)
    app.go("home")
    pump(1)


def test_a_roll_the_device_resends_on_home_after_a_restart_is_played_on_resume(fresh_app: Any,
                                                                               answers: Answers) -> None:
    """A roll the device sent just before a power cut, never recorded: after the restart it comes again
    while Home shows.  It is kept unanswered (so the device keeps it too), the table is told, and Resume
    plays it into the game, journalled with its frame and then ACKed: nobody enters it again."""
    app = fresh_app
    session = open_game(app, "digger")
    restarted(app)
    frame = sensor_roll(values=("B", "Y", "R", "G", "W"), seq=31)
    hardware(app, frame)
    assert answers.calls == [] and "Resume the game" in app.announcer.text
    home_notice = app.root.get_screen("home").ids.notice
    assert app.flow.held_message and "Resume the game" in home_notice.text  # still said once the banner has gone
    app.flow.resume(session.game_id)
    pump(3)
    assert not app.flow.held_message and "Resume the game" not in home_notice.text
    played = app.table.session.actions
    assert [(action.action["values"], action.ref) for action in played] == [(["B", "Y", "R", "G", "W"], "sensor:31")]
    assert answers.calls == [(frame, True, None, 1)]


def test_an_undo_from_the_sensor_board_is_known_after_a_restart(fresh_app: Any, answers: Answers) -> None:
    """The board's undo button is journalled with its frame: if the ACK was lost in a power cut, the
    resend after the restart is answered "recorded" on Home (not refused), and nothing is undone twice."""
    app = fresh_app
    session = open_game(app, "digger")
    hardware(app, sensor_roll(values=("B", "Y", "R", "G", "W"), seq=40))
    undo = ButtonEvent(source="sensor", seq=41, name="undo", action="down")
    hardware(app, undo)
    assert session.actions == [] and answers.calls[-1][:3] == (undo, True, None)
    assert app.journal.history(session.game_id)[-1][0] == "undo"
    restarted(app)
    hardware(app, undo)
    assert answers.calls[-1][:3] == (undo, True, None) and len(app.journal.history(session.game_id)) == 2


def test_a_held_roll_is_refused_when_a_new_game_starts_instead(fresh_app: Any, answers: Answers) -> None:
    """The held roll belongs to the game that was cut off: a new game does not take it, and the device
    hears `table.no_game` (it drops the roll and goes on with the next)."""
    app = fresh_app
    restarted(app)
    frame = sensor_roll(values=("B", "Y", "R", "G", "W"), seq=32)
    hardware(app, frame)
    session = open_game(app, "digger")
    assert answers.calls[-1][:3] == (frame, False, "table.no_game") and session.actions == []
    assert not app.flow.held_message


def test_a_held_roll_is_forgotten_when_its_device_starts_numbering_again(fresh_app: Any, answers: Answers) -> None:
    """A device says HELLO only with nothing waiting for an answer: it no longer holds the roll (it was
    restarted too), so Resume must not play it."""
    app = fresh_app
    session = open_game(app, "digger")
    restarted(app)
    hardware(app, sensor_roll(values=("B", "Y", "R", "G", "W"), seq=33))
    hardware(app, StatusEvent(source="sensor", state="hello", device="tray-1", firmware="1.0.0"))
    assert not app.flow.held_message
    app.flow.resume(session.game_id)
    pump(3)
    assert app.table.session.actions == [] and answers.calls == []


def test_buttons_with_no_game_are_still_refused(fresh_app: Any, answers: Answers) -> None:
    """Only a device's roll is kept for Resume; a button pressed on Home means nothing without a game."""
    app = fresh_app
    restarted(app)
    press = ButtonEvent(source="sensor", seq=34, name="stop", action="down")
    hardware(app, press)
    assert answers.calls[-1][:3] == (press, False, "table.no_game")


def test_chinagold_hint_before_the_throw_is_refused_not_acked(fresh_app: Any, answers: Answers) -> None:
    """No move to suggest while the tiles must be thrown: the hint button is refused with a notice."""
    app = fresh_app
    session = open_game(app, "chinagold")
    assert session.state.phase != "move"
    hardware(app, ButtonEvent(source="gpio", name="hint", action="down"))
    assert answers.calls[-1][1:3] == (False, "input.no_use") and "hint" in app.table.notice_text.lower()


def test_input_with_no_game_is_told_on_screen_and_refused(fresh_app: Any, answers: Answers) -> None:
    app = fresh_app
    app.go("settings")
    frame = ButtonEvent(source="sensor", seq=4, name="confirm", action="down")
    hardware(app, frame)
    assert answers.calls[-1][:3] == (frame, False, "table.no_game")
    assert "No game is being played" in app.announcer.text
    banner = next(widget for widget in Window.children if getattr(widget, "text", None) == app.announcer.text)
    assert banner.height > 0 and banner.top <= Window.height  # shown over the Settings screen
    assert app.root.current == "settings"


def test_uncertain_roll_is_answered_when_the_table_confirms_it(fresh_app: Any, answers: Answers) -> None:
    app = fresh_app
    session = open_game(app, "gold_connection")
    frame = sensor_roll(values=("2", "5"), seq=9, uncertain=True)
    hardware(app, frame)
    hardware(app, frame)  # resent while the table decides: asked once, not answered yet
    assert not answers.calls and "unsure" in app.table.notice_text
    app.table.clear_messages()  # other input cleared the question away; the device resends the frame
    hardware(app, frame)
    assert not answers.calls and app.table.notice_choices == ["confirm", "touch"]
    hardware(app, ButtonEvent(source="gpio", name="confirm", action="down"))
    assert session.actions[-1].action["values"] == [2, 5] and session.actions[-1].ref == "sensor:9"
    assert (frame, True, None, 1) in answers.calls


@pytest.mark.parametrize(("language", "written"), [("en", "(read as Y G K Y G)"), ("de", "(gelesen: Ge Gr Sw Ge Gr)"),
                                                  ("fr", "(lu : J V N J V)")])
def test_an_uncertain_digger_roll_is_told_in_the_faces_the_dice_show(
        fresh_app: Any, answers: Answers, language: str, written: str) -> None:
    """The question writes the reading as its dice are drawn beneath it (`Ge` in German), never in the
    wire's letters, which a German or French table does not know."""
    app = fresh_app
    app.preferences.set_language(language)
    try:
        open_game(app, "digger")
        hardware(app, sensor_roll(values=("Y", "G", "K", "Y", "G"), seq=3, uncertain=True))
        assert written in app.table.notice_text
    finally:
        app.preferences.set_language("en")


@pytest.mark.parametrize(("language", "state", "written"), [
    ("en", "disconnected", "The sensor board is not answering: disconnected."),
    ("de", "link_lost", "Die Sensorplatine antwortet nicht: Verbindung verloren (kein Lebenszeichen)."),
    ("fr", "disconnected", "La carte de capteurs ne répond pas : hors ligne.")])
def test_a_sensor_that_goes_away_is_told_in_the_tables_language(
        fresh_app: Any, language: str, state: str, written: str) -> None:
    """Why the sensor is not answering is said in the table's language, not in the bridge's state names; the
    sensor board the app set up is called so, a sensor set up under a name of its own goes by that name."""
    app = fresh_app
    app.preferences.set_language(language)
    try:
        open_game(app, "digger")
        hardware(app, StatusEvent(source="serial", state=state))  # type: ignore[arg-type]
        assert written in app.table.notice_text
        hardware(app, StatusEvent(source="pico-2", state=state))  # type: ignore[arg-type]
        assert " pico-2 " in app.table.notice_text
    finally:
        app.preferences.set_language("en")


@pytest.mark.parametrize("unread", [False, True], ids=["unsure", "unread"])
def test_a_roll_that_comes_before_the_last_one_was_answered_replaces_its_question(
        fresh_app: Any, answers: Answers, unread: bool) -> None:
    """The dice were picked up and rolled again while the table asked about the last roll: the new roll is
    played, the old one is answered not recorded, and neither its question nor its keypad comes back."""
    app = fresh_app
    session = open_game(app, "gold_connection")
    asked = sensor_roll(values=("2", "?") if unread else ("2", "5"), seq=9, uncertain=not unread)
    hardware(app, asked)
    assert app.table.partial if unread else app.table.notice_choices == ["confirm", "touch"]
    again = sensor_roll(values=("3", "4"), seq=10)
    hardware(app, again)
    assert [action.action["values"] for action in session.actions] == [[3, 4]]
    assert (asked, False, "roll.superseded", 0) in answers.calls and (again, True, None, 1) in answers.calls
    assert not app.table.partial and not app.table.notice_choices
    hardware(app, ButtonEvent(source="gpio", name="confirm", action="down"))  # a late answer plays nothing
    app.flow.controller.enter_die("6")  # nor does a die tapped in for the old roll's unread one
    pump(1)
    assert len(session.actions) == 1


def test_hourglass_flat_pauses_and_flip_resumes_the_sand(fresh_app: Any, clock: ManualClock) -> None:
    app = fresh_app
    open_game(app, "digger")
    for _ in range(5):
        key("2")  # value_2: yellow
    assert app.timer.running
    clock.advance(10)
    pump(2)
    hardware(app, TimerEvent(source="gpio", state="flat"))
    assert app.timer.paused and not app.timer.running
    left = app.timer.remaining
    clock.advance(15)
    pump(2)
    assert app.timer.remaining == left
    hardware(app, TimerEvent(source="gpio", state="flip"))
    assert app.timer.running and not app.timer.paused
    assert left - 1 < app.timer.remaining <= left


def test_next_button_passes_play_on(fresh_app: Any) -> None:
    app = fresh_app
    session = open_game(app, "digger")
    app.go("rules")
    for _ in range(5):
        key("2")
    hardware(app, ButtonEvent(source="gpio", name="value_2", action="down"))  # no die due until it is taken
    app.flow.controller.submit({"type": "take", "colour": "Y"})
    hardware(app, ButtonEvent(source="gpio", name="next", action="down"))
    assert session.actions[-1].action == {"type": "stop"} and session.state.digger == 1


def test_resuming_a_game_with_colour_names_shows_the_table(fresh_app: Any) -> None:
    from pathlib import Path

    from companion.engine.record import load_record

    app = fresh_app
    record = load_record(Path(__file__).resolve().parents[2] / "docs" / "examples" / "goldgraeber.json")
    partial = record.model_copy(update={"actions": record.actions[:5]})
    Session.from_record(partial, app.journal)
    app.go("settings")
    app.go("home")
    pump(2)
    tap(app, app.journal_desk.resume_text)
    pump(2)
    assert app.root.current == "table"
    assert app.table.turn_colour.startswith("#") and len(app.table.turn_colour) == 7
    assert [row["colour"] for row in app.table.scores] == ["#ff0000", "#0000ff", "#008000", "#ffff00"]


def test_a_table_opening_freezes_the_heap(fresh_app: Any) -> None:
    """What lives on after a table opens is kept out of later collections (no full GC inside a tap)."""
    import gc

    app = fresh_app
    gc.unfreeze()
    open_game(app, "goldgraeber")
    pump(2)
    assert gc.get_freeze_count() > 10000


def test_hardware_undo_after_the_last_move_goes_back_to_the_table(fresh_app: Any) -> None:
    from companion.app.demo import demo_session

    app = fresh_app
    finished = demo_session(None, moves=None, game="digger")
    session = Session.new(finished.setup, app.journal)
    for entry in finished.actions:
        assert session.submit(entry.action, entry.source).accepted
    app.flow.open_table(session)
    pump(2)
    assert app.root.current == "end"
    played = len(session.actions)
    hardware(app, ButtonEvent(source="gpio", name="undo", action="down"))
    assert len(session.actions) == played - 1 and not session.is_over()
    assert app.root.current == "table"


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_a_roll_of_too_few_or_too_many_dice_is_told_with_each_count_in_its_number(
        fresh_app: Any, answers: Answers, language: str) -> None:
    """"1 die was read but 2 are needed", "2 dice were read but 1 is needed" (each count its own plural)."""
    expected = {"en": ("1 die was read but 2 are needed", "2 dice were read but 1 is needed"),
                "de": ("1 Würfel gelesen, aber 2 nötig", "2 Würfel gelesen, aber 1 nötig"),
                "fr": ("1 dé lu mais 2 attendus", "2 dés lus mais 1 attendu")}[language]
    app = fresh_app
    app.preferences.set_language(language)
    try:
        for game, values, words in (("gold_connection", ("3",), expected[0]), ("goldgraeber", ("3", "4"), expected[1])):
            session = open_game(app, game)
            frame = sensor_roll(values=values, seq=len(answers.calls) + 1)
            hardware(app, frame)
            assert answers.calls[-1][:3] == (frame, False, "roll.wrong_count") and session.actions == []
            assert words in app.table.notice_text
    finally:
        app.preferences.set_language("en")


def test_a_roll_that_cannot_be_saved_is_not_played_and_says_how_to_go_on(fresh_app: Any, answers: Answers) -> None:
    """A journal that cannot take the row (a full card): the roll is not played, the device hears it was
    not recorded, the table says why and what to do; sent again once the journal takes it, it is played."""
    from tests.engine.test_journal_commit import _fail_on

    app = fresh_app
    session = open_game(app, "goldgraeber")
    _fail_on(app.journal, "entries", "INSERT")
    roll = sensor_roll(values=("3",), seq=1)
    hardware(app, roll)
    assert session.actions == [] and answers.calls[-1][:3] == (roll, False, "journal.failed")
    assert app.table.notice_text.startswith("Could not save the move, so it was not played: ")
    assert app.table.notice_text.endswith("Everything before it is saved: once that is put right, play the move "
                                          "again.")
    app.preferences.set_language("de")  # the journal's own words are the table's language too
    try:
        hardware(app, roll)
        assert app.table.notice_text.startswith("Der Zug konnte nicht gespeichert werden und gilt daher nicht: ins "
                                                f"Spieljournal {app.journal.path} konnte nicht gespeichert werden")
    finally:
        app.preferences.set_language("en")
    app.journal._write.execute("DROP TRIGGER fail_entries_INSERT")
    hardware(app, roll)
    assert len(session.actions) == 1 and answers.calls[-1] == (roll, True, None, 1) and not app.table.notice_text
    _fail_on(app.journal, "entries", "INSERT")  # an undo the journal cannot take leaves the roll played
    app.flow.controller.undo()
    pump(1)
    assert len(session.actions) == 1 and app.table.notice_text.startswith(
        "Could not save the undo, so the move stands: ") and app.table.notice_text.endswith(
        "Undo again once that is put right.")
    app.journal._write.execute("DROP TRIGGER fail_entries_INSERT")


def test_a_game_the_journal_cannot_start_is_told_on_the_setup_screen_in_the_tables_language(fresh_app: Any) -> None:
    """Start the game with a journal that refuses the new game's row: the Setup screen stays, saying why as a
    sentence in French (the reason is the journal's own, not an English line), and no game is open."""
    from tests.app.ui import tap as tap_text
    from tests.engine.test_journal_commit import _fail_on

    app = fresh_app
    app.preferences.set_language("fr")
    try:
        tap_text(app, "Digger")
        tap_text(app, "Nouvelle partie")
        tap_text(app, "Suivant", frames=2)
        tap_text(app, "Suivant", frames=2)
        assert app.root.current == "setup"
        _fail_on(app.journal, "games", "INSERT")
        tap_text(app, "Commencer", frames=2)
        problem = app.screen("setup").problem
    finally:
        app.preferences.set_language("en")
        app.journal._write.execute("DROP TRIGGER IF EXISTS fail_games_INSERT")
    assert app.root.current == "setup" and app.table.session is None
    assert problem.startswith(f"L'enregistrement dans le journal de parties {app.journal.path} a échoué : ")
