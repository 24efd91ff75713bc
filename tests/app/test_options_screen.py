"""The Options screen keeps its rows from visit to visit and refills them (values, language, the toggles'
states); Digger's scoring-card panel keeps its widgets through option taps that do not change it.
Building every row and the panel anew was most of the Players -> Options tap and of an option tap."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.uix.switch import Switch
from kivy.weakmethod import WeakMethod

from companion.app.i18n import _
from companion.app.launch import pump
from companion.games.digger.app.table import DiggerCardsPanel
from tests.app.ui import tap


def open_options(app: Any, game: str) -> Any:
    """A new game of `game` through Players to its Options screen."""
    app.flow.choose_game(game)
    app.flow.new_game()
    pump(2)
    return revisit(app)


def revisit(app: Any) -> Any:
    """Next on the Players screen (after Back from Options, or after a new game)."""
    app.flow.players_done()
    pump(2)
    assert app.root.current == "options"
    return app.root.current_screen


def back(app: Any) -> None:
    app.back()
    pump(1)
    assert app.root.current == "players"


def option_rows(screen: Any) -> list[Any]:
    return [widget for widget in screen.walk(restrict=True) if type(widget).__name__ == "OptionRow"]


def controls(screen: Any) -> list[list[Any]]:
    """Each row's control widgets (its switch, choice buttons or stepper), top to bottom."""
    return [list(reversed(row.ids.control.children)) for row in option_rows(screen)]


def panels(screen: Any) -> list[DiggerCardsPanel]:
    return [widget for widget in screen.walk(restrict=True) if isinstance(widget, DiggerCardsPanel)]


def panel_widgets(panel: DiggerCardsPanel) -> list[Any]:
    return list(panel.walk(restrict=True))


def shown_fields(model: Any) -> list[dict[str, Any]]:
    """The option fields that get a row (the others are the game panel's or not shown)."""
    return [field for field in model.fields if field["kind"] not in ("other", "text")]


def choice_states(screen: Any, name: str) -> dict[str, str]:
    """The choice buttons of option `name` (found by its label): text -> state."""
    model = App.get_running_app().options_model
    label = next(model.label(field) for field in model.fields if field["name"] == name)
    row = next(row for row in option_rows(screen) if row.label == label)
    return {button.text: button.state for button in reversed(row.ids.control.children)}


def observers(dispatcher: Any, name: str, cls: type) -> int:
    """How many bound methods of `cls` objects watch `dispatcher`'s property `name`."""
    callbacks = (observer() if isinstance(observer, WeakMethod) else observer
                 for observer in dispatcher.get_property_observers(name))
    return sum(isinstance(getattr(callback, "__self__", None), cls) for callback in callbacks)


def test_rows_are_kept_and_refilled_after_back_and_next(fresh_app: Any) -> None:
    """Back and Next again show the same row widgets, with the model's values: a new game has reset
    what the last visit chose, and the toggles and switches say so."""
    app = fresh_app
    screen = open_options(app, "digger")
    rows, shown = option_rows(screen), controls(screen)
    assert [row.label for row in rows] == [app.options_model.label(field) for field in shown_fields(app.options_model)]
    tap(app, "black")
    switch = next(widget for widget in screen.walk(restrict=True) if isinstance(widget, Switch))
    switch.active = not switch.active
    pump(1)
    assert app.options_model.values["side"] == "black" and choice_states(screen, "side") == {
        "white": "normal", "black": "down"}
    back(app)
    screen = revisit(app)  # a new load of the options: the defaults again
    assert option_rows(screen) == rows and controls(screen) == shown
    assert app.options_model.values["side"] == "white"
    assert choice_states(screen, "side") == {"white": "down", "black": "normal"}
    for row, field in zip(option_rows(screen), shown_fields(app.options_model)):
        value = app.options_model.values[field["name"]]
        if field["kind"] == "bool":
            assert row.ids.control.children[-1].active == value
        elif field["kind"] == "choice":
            states = choice_states(screen, field["name"])
            assert states[app.options_model.choice_label(value)] == "down"
            assert list(states.values()).count("down") == 1


def test_labels_follow_a_language_switch_between_visits(fresh_app: Any) -> None:
    app = fresh_app
    screen = open_options(app, "digger")
    rows = option_rows(screen)
    english = [row.label for row in rows]
    panel = panels(screen)[0]
    assert panel.children[-1].text.startswith("Scoring-card values")
    back(app)
    app.preferences.set_language("de")
    screen = revisit(app)
    model = app.options_model
    assert option_rows(screen) == rows and panels(screen) == [panel]
    german = [row.label for row in rows]
    assert german == [model.label(field) for field in shown_fields(model)]
    assert sum(new != old for new, old in zip(german, english)) >= len(rows) - 1  # numbers may read alike
    assert choice_states(screen, "side") == {"weiß": "down", "schwarz": "normal"}
    assert panel.children[-1].text == _("Scoring-card values (our defaults; check them against your cards):")
    assert not panel.children[-1].text.startswith("Scoring-card values")


def test_another_game_gets_its_own_rows_in_the_same_places(fresh_app: Any) -> None:
    """Goldgräber's options where Digger's were: the rows stay, their controls are the new game's
    (a switch where Digger had choice buttons), and Digger's panel is gone and no longer listens."""
    app = fresh_app
    model = app.options_model
    screen = open_options(app, "digger")
    digger_rows = option_rows(screen)
    panel = panels(screen)[0]
    app.go("home")
    screen = open_options(app, "goldgraeber")
    rows = option_rows(screen)
    fields = shown_fields(model)
    assert len(rows) == len(fields)
    assert rows[:min(len(rows), len(digger_rows))] == digger_rows[:len(rows)]  # the rows themselves are kept
    for row, field in zip(rows, fields):
        assert row.label == model.label(field)
        widgets = list(reversed(row.ids.control.children))
        if field["kind"] == "bool":
            assert isinstance(widgets[0], Switch) and widgets[0].active == model.values[field["name"]]
        else:
            assert [button.text for button in widgets] == [model.choice_label(value) for value in field["choices"]]
    assert panels(screen) == [] and observers(model, "values", DiggerCardsPanel) == 0
    model.set("side", "black")  # nothing of Digger's reacts any more
    assert panel.children[-1].text.startswith("Scoring-card values") and len(panel.children) == 2


def test_an_option_tap_reaches_the_model_once_after_many_visits(fresh_app: Any, monkeypatch: Any) -> None:
    """Kept rows and a kept panel are bound once, however often the screen is visited."""
    app = fresh_app
    model = app.options_model
    screen = open_options(app, "digger")
    first = controls(screen), panels(screen)
    for _visit in range(3):
        back(app)
        screen = revisit(app)
    assert (controls(screen), panels(screen)) == first
    assert observers(model, "values", DiggerCardsPanel) == 1 and observers(app, "lang", DiggerCardsPanel) == 1
    calls: list[tuple[str, Any]] = []
    monkeypatch.setattr(model, "set", lambda name, value: calls.append((name, value)))
    tap(app, "black")
    switch = next(widget for widget in screen.walk(restrict=True) if isinstance(widget, Switch))
    switch.active = not switch.active
    pump(1)
    assert calls == [("side", "black"), (switch.parent.parent.field["name"], switch.active)]


def test_the_card_panel_keeps_its_widgets_through_an_unrelated_tap(fresh_app: Any) -> None:
    """A tap on the timer's stepper leaves the panel as it is; side and card choices still refill it."""
    app = fresh_app
    model = app.options_model
    screen = open_options(app, "digger")
    while len(model.seats) < 3:  # the panel's seat rows follow the players
        back(app)
        app.players_model.add()
        screen = revisit(app)
    names = list(model.seats)
    panel = panels(screen)[0]
    tap(app, "black", frames=2)
    screen.ids.rows.parent.scroll_y = 0  # the panel is at the end of the form
    pump(2)
    dealt = panel_widgets(panel)
    texts = [getattr(widget, "text", None) for widget in dealt]
    assert [text for text in texts if text and text.startswith("Card ")][:2] == [
        "Card 1: " + _card_line(panel, 0), "Card 2: " + _card_line(panel, 1)]
    screen.ids.rows.parent.scroll_y = 1
    pump(2)
    tap(app, "−")
    assert model.values["timer_seconds"] == 29
    assert panel_widgets(panel) == dealt and [getattr(widget, "text", None) for widget in dealt] == texts

    screen.ids.rows.parent.scroll_y = 0
    pump(2)
    tap(app, "Deal the black cards by chance", frames=2)  # each seat chooses its card
    assert model.values["black_cards"] == ["1", "2", "3"]
    seat_names = [widget.text for widget in panel.walk(restrict=True) if getattr(widget, "text", None) in names]
    assert seat_names == names
    chosen = panel_widgets(panel)
    seat_toggles = [widget for widget in chosen if getattr(widget, "text", None) in ("1", "2", "3", "4", "5")]
    assert [toggle.state for toggle in seat_toggles[:5]] == ["down", "normal", "normal", "normal", "normal"]
    seat_toggles[1].trigger_action(0)  # the first seat takes card 2: the second gets card 1
    pump(1)
    assert model.values["black_cards"] == ["2", "1", "3"]
    assert panel_widgets(panel) == chosen  # refilled, not rebuilt
    assert [toggle.state for toggle in seat_toggles[:10]] == ["normal", "down", "normal", "normal", "normal",
                                                              "down", "normal", "normal", "normal", "normal"]
    seat_toggles[1].trigger_action(0)  # the card the seat holds: nothing changes, the toggle stays down
    pump(1)
    assert model.values["black_cards"] == ["2", "1", "3"] and seat_toggles[1].state == "down"
    screen.ids.rows.parent.scroll_y = 1
    pump(2)
    tap(app, "white", frames=2)
    assert [widget.text for widget in panel.children[0].children] == [_card_line(panel, None)]
    model.set("side", "black")
    pump(1)
    assert panel_widgets(panel) == chosen


def _card_line(panel: DiggerCardsPanel, index: int | None) -> str:
    """The values of black card `index` (None: the white side) as the panel writes them."""
    from companion.games.digger.app.table import _card_text
    from companion.games.digger.cards import load_cards

    layout = load_cards(panel.model.values.get("cards_file") or None)
    return _card_text(layout.white if index is None else layout.black[index])


def test_cards_chosen_per_seat_follow_the_table_when_players_come_or_go(fresh_app: Any) -> None:
    """The last game's options come back with its black cards chosen per seat; at a table of another size
    the seats kept keep their cards and a new seat gets the first card nobody holds, so "Start the game"
    is not refused for a list of the wrong length (it was: "2 card ids for 4 players")."""
    app = fresh_app
    model = app.options_model
    screen = open_options(app, "digger")
    while len(model.seats) > 2:
        back(app)
        app.players_model.remove(len(app.players_model.seats) - 1)
        screen = revisit(app)
    model.set("side", "black")
    model.set("black_cards", ["3", "1"])
    pump(1)
    app.flow.options_done()  # Next: these are the options the next table starts from
    app.go("players")
    pump(1)
    app.players_model.add()
    app.players_model.add()
    screen = revisit(app)
    assert panels(screen) and model.values["black_cards"] == ["3", "1", "2", "4"]
    assert model.validated() is not None
    app.flow.options_done()
    app.go("players")
    pump(1)
    app.players_model.remove(3)
    app.players_model.remove(2)
    app.players_model.remove(1)  # (Digger needs two: this one is refused)
    revisit(app)
    assert model.values["black_cards"] == ["3", "1"]


def test_the_options_form_opens_at_its_first_option(fresh_app: Any) -> None:
    """Scrolled down to the card panel on one visit, the form starts at its top on the next."""
    app = fresh_app
    screen = open_options(app, "digger")
    screen.ids.rows.parent.scroll_y = 0
    pump(1)
    back(app)
    assert revisit(app).ids.rows.parent.scroll_y == 1
