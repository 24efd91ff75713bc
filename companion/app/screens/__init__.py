"""Screen classes: thin glue between the .kv layouts (one per screen, in this folder) and view-models.

Only widgets that must be generated from data (option rows, seat rows, rule cards, the game panel)
are built here; everything else is declared in the .kv files.
"""

from __future__ import annotations

import threading
from functools import partial
from types import ModuleType
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.factory import Factory
from kivy.graphics import Color, Rectangle
from kivy.graphics.texture import Texture
from kivy.properties import BooleanProperty, DictProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.utils import get_color_from_hex

from companion.app.i18n import _
from companion.app.widgets import fill, make, resize


class HomeScreen(Screen):
    """New game (with the game chooser), resume, settings, rules, hardware."""

    def build_games(self) -> None:
        from companion.engine.registry import all_games

        app = App.get_running_app()
        box = self.ids.games
        box.clear_widgets()
        for game_id, game in sorted(all_games().items(), key=lambda item: item[1].title):
            button = Factory.GToggle(text=game.title, group="game", allow_no_selection=False,
                                     state="down" if game_id == app.flow.game_id else "normal")
            button.bind(on_release=lambda _b, gid=game_id: app.flow.choose_game(gid))
            box.add_widget(button)


class PlayersScreen(Screen):
    """Seat rows are generated from the PlayersModel; the .kv holds the frame.  Rows and chips are kept
    and refilled when the seats change (a new TextInput per row on every added player or arrow tap was
    most of the screen's memory and time)."""

    def on_pre_enter(self, *_args: Any) -> None:
        model = App.get_running_app().players_model
        model.unbind(seats=self._show_seats, first_player=self._show_seats, remembered=self._show_chips)
        model.bind(seats=self._show_seats, first_player=self._show_seats, remembered=self._show_chips)
        self._show_seats()
        self._show_chips()

    def _show_seats(self, *_args: Any) -> None:
        model = App.get_running_app().players_model
        for seat, (row, info) in enumerate(zip(resize(self.ids.seats, len(model.seats), partial(make, "SeatRow")),
                                               model.seats)):
            row.seat = seat  # before the name: a changed name is written to the row's seat
            row.colour, row.first = info["colour"], seat == model.first_player
            row.ids.name.text = info["name"]

    def _show_chips(self, *_args: Any) -> None:
        model = App.get_running_app().players_model
        for chip, name in zip(resize(self.ids.remembered, len(model.remembered), partial(self._chip, model)),
                              model.remembered):
            chip.text = name

    @staticmethod
    def _chip(model: Any) -> Any:
        chip = Factory.GButton(size_hint_y=None, height=48)
        chip.bind(on_release=lambda pressed: model.seat_remembered(pressed.text))
        return chip

    @staticmethod
    def earlier_hint(remembered: list[str], knows_names: bool, bot_name: str, _lang: str) -> str:
        """The line over the earlier players: how to let Goldtable play a seat where it can, else why the
        column is empty (no game played yet, or everyone in it already seated)."""
        if bot_name:
            if bot_name in remembered:
                return _("Tap {name} and Goldtable plays that seat.").format(name=bot_name)
            return _("Goldtable plays {name}'s seat.").format(name=bot_name)
        if remembered:
            return ""
        return _("Everyone from your earlier games is seated.") if knows_names else \
            _("Names from your games will appear here.")


class OptionsScreen(Screen):
    """One row per option field: switch, choice buttons or stepper; the game may add its own panel.
    Rows are kept and refilled on the next visit (Back and Next again, the next game of the same kind):
    building them all anew was most of the Players -> Options tap.  A row's control is built again only
    when the row shows another field; the game's panel is kept while the game stays the same."""

    #: The game whose `options_panel` is in `ids.extra` ("" before the first visit).
    panel_game = ""

    def on_pre_enter(self, *_args: Any) -> None:
        model = App.get_running_app().options_model
        fields = [field for field in model.fields if field["kind"] not in ("other", "text")]
        for row, field in zip(resize(self.ids.fields, len(fields), partial(make, "OptionRow")), fields):
            if row.field != field:  # another option in this place: its own control
                row.ids.control.clear_widgets()
                self._build_control(row.ids.control, field, model)
                row.field = field
            self._fill(row, field, model)
        if self.panel_game != model.game_id:
            self._show_panel(model)
        self.ids.rows.parent.scroll_y = 1  # the form opens at its first option, not where the last visit left it

    @staticmethod
    def _build_control(control: Any, field: dict[str, Any], model: Any) -> None:
        name = field["name"]
        if field["kind"] == "bool":
            switch = Factory.Switch(size_hint_x=None, width=110)
            switch.bind(active=lambda _w, active: model.set(name, active))
            control.add_widget(switch)
            control.add_widget(Factory.Widget())
        elif field["kind"] == "choice":
            for value in field["choices"]:
                button = Factory.GToggle(group=f"option-{name}", allow_no_selection=False)
                button.bind(on_release=lambda _b, chosen=value: model.set(name, chosen))
                control.add_widget(button)
        elif field["kind"] == "int":
            control.add_widget(make("Stepper", name=name))

    @staticmethod
    def _fill(row: Any, field: dict[str, Any], model: Any) -> None:
        """The row's texts in the current language and its control showing the model's value (which a
        new game may have reset since the last visit)."""
        row.label = model.label(field)
        value = model.values.get(field["name"])
        control = list(reversed(row.ids.control.children))
        if field["kind"] == "bool":
            control[0].active = bool(value)
        elif field["kind"] == "choice":
            for button, choice in zip(control, field["choices"]):
                button.text = model.choice_label(choice)
                button.state = "down" if value == choice else "normal"

    def _show_panel(self, model: Any) -> None:
        """The game's own panel (if any) in place of the previous game's, which stops listening."""
        from companion.app.tables import table_for

        holder = self.ids.extra
        for old_panel in holder.children:
            getattr(old_panel, "detach", lambda: None)()
        holder.clear_widgets()
        extra = getattr(table_for(model.game_id), "options_panel", None)
        panel = extra(model) if extra is not None else None
        if panel is not None:
            holder.add_widget(panel)
        self.panel_game = model.game_id


class SetupScreen(Screen):
    """What to put where: the game's own steps, then the seats; one row per step (a bullet, and the text
    wrapping under its own first word), kept and refilled on the next visit."""

    problem = StringProperty("")

    def on_pre_enter(self, *_args: Any) -> None:
        self.problem = ""
        from companion.app.tables import table_for

        app = App.get_running_app()
        setup = app.flow.setup_for_guide()
        module = table_for(setup.game)
        steps = list(getattr(module, "setup_steps", lambda _s: [])(setup))
        seats = ", ".join(f"{index + 1}. {player.name}" for index, player in enumerate(setup.players))
        steps.append(_("Sit in this order (play passes to the left): {seats}.").format(seats=seats))
        steps.append(_("{name} begins.").format(name=setup.players[setup.first_player].name))
        for row, step in zip(resize(self.ids.steps, len(steps), partial(make, "SetupStep")), steps):
            row.text = step


class MessageBox(BoxLayout):
    """The refusal/notice box over the game panel: while shown it takes every touch that lands on it
    (so nothing underneath is pressed by accident); while hidden it takes none.  With `shield` (a
    question the table must answer first, such as an uncertain roll) it takes every touch on the whole
    panel, so an old choice cannot be played while the question is up."""

    shield = BooleanProperty(False)

    def on_touch_down(self, touch: Any) -> bool:
        area = self.parent if self.shield and self.parent is not None else self
        if self.opacity == 0 or not area.collide_point(*touch.pos):
            return False
        super().on_touch_down(touch)
        return True


def picture_texture(picture: Any) -> Texture:
    """A texture showing a camera picture (BGR bytes, top row first, as OpenCV gives it)."""
    height, width = picture.shape[:2]
    texture = Texture.create(size=(width, height), colorfmt="rgb")
    texture.blit_buffer(picture[::-1].tobytes(), colorfmt="bgr", bufferfmt="ubyte")
    return texture


class NoticeDice(BoxLayout):
    """The dice a notice is about, one square per die with its face on it; the uncertain ones are framed
    and marked with a question mark (`dice`: [{"face", "uncertain", "crop"}]; `face_colours` as the
    keypad's).  A die the camera read is shown as the camera saw it (`crop`: its picture, BGR bytes)."""

    dice = ListProperty([])
    face_colours = DictProperty({})
    #: How a face token is written in the current language (the game module's `face_letter`, if any).
    face_text = ObjectProperty(None, allownone=True)

    def on_dice(self, *_args: Any) -> None:
        self.clear_widgets()
        for die in self.dice:
            colour = self.face_colours.get(die["face"], "#e9e4d4")
            red, green, blue, _alpha = get_color_from_hex(colour)
            dark = 0.3 * red + 0.59 * green + 0.11 * blue > 0.5
            face = self.face_text(die["face"]) if self.face_text is not None else die["face"]
            crop = die.get("crop")
            self.add_widget(make("NoticeDie", face=face, uncertain=die["uncertain"], colour=colour,
                                 text_colour=(0, 0, 0, 1) if dark else (1, 1, 1, 1),
                                 crop=None if crop is None else picture_texture(crop)))

    def on_face_colours(self, *_args: Any) -> None:
        self.on_dice()


class TableScreen(Screen):
    """The shared table frame; the game's panel goes into `ids.panel`."""

    module: ModuleType | None = ObjectProperty(None, allownone=True)
    #: The game on the table times its turns with its own sand timer: the Timer screen is offered.
    sand_timer = BooleanProperty(False)
    #: Taller than wide (`--rotate 90/270`): the frame stacks its parts instead of setting them side by side.
    portrait = BooleanProperty(False)

    def on_size(self, *_args: Any) -> None:
        self.portrait = self.height > self.width

    def show_panel(self, module: ModuleType, controller: Any) -> None:
        """The game's panel, forwarding its taps to `controller`, replaces the previous one."""
        from companion.engine.registry import plugin_for

        self.module = module
        session = controller.session
        self.sand_timer = session is not None and plugin_for(session.setup.game).sand_timer
        holder = self.ids.panel
        for old_panel in holder.children:
            getattr(old_panel, "detach", lambda: None)()  # stop listening to the table and the timer
        holder.clear_widgets()
        holder.add_widget(module.build_panel(controller))


class AnnouncementBanner(Label):
    """`app.announcer.text` over whatever screen is showing (added to the window above the screens); it
    takes no touches, so it never hides a button from a tap."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(font_size="20sp", bold=True, size_hint=(None, None), halign="center", valign="middle",
                         **kwargs)
        announcer = App.get_running_app().announcer
        announcer.bind(text=self._show)
        Window.bind(size=self._place)
        with self.canvas.before:
            self._colour = Color(0.42, 0.35, 0.12, 0)
            self._box = Rectangle()
        self._show(announcer, announcer.text)

    def _place(self, *_args: Any) -> None:
        self.width = Window.width
        self.text_size = (Window.width - 24, None)
        self.texture_update()
        self.height = self.texture_size[1] + 24 if self.text else 0
        self.pos = (0, Window.height - self.height - 70)
        self._box.pos, self._box.size = self.pos, self.size

    def _show(self, _announcer: Any, text: str) -> None:
        self.text = text
        self._colour.a = 0.95 if text else 0
        self._place()


class TimerScreen(Screen):
    """The sand timer in very large type, with Stop."""


class EndScreen(Screen):
    """Final scores, winner, chart, export."""


class HardwareScreen(Screen):
    """Sources, recent events, LED and buzzer tests, and the camera: preview, calibration, teaching."""

    def on_pre_enter(self, *_args: Any) -> None:
        app = App.get_running_app()
        app.hardware.refresh_status()
        app.camera_setup.start_preview()

    def on_leave(self, *_args: Any) -> None:
        App.get_running_app().camera_setup.stop_preview()


class SettingsScreen(Screen):
    """Language, sound, fullscreen, GPIO, serial sensor, camera."""

    message = StringProperty("")
    #: Shut down is offered only where `systemctl poweroff` works without a password (companion.system.power)
    can_power_off = BooleanProperty(False)

    def ask_power_off(self) -> None:
        """Ask logind off the UI thread whether Shut down can work: the answer goes through polkit, which
        on a busy Pi (and on the simulated one, several seconds) is too slow to wait for in a frame."""
        def ask() -> None:
            from companion.system import power

            allowed = power.can_power_off()
            Clock.schedule_once(lambda _dt: setattr(self, "can_power_off", allowed))

        threading.Thread(target=ask, name="goldtable-can-power-off", daemon=True).start()


class RulesScreen(Screen):
    """Every rule of the current game, searchable; one card per rule."""

    def on_kv_post(self, *_args: Any) -> None:
        App.get_running_app().rules_model.bind(results=self._rebuild)
        self._rebuild()

    def _rebuild(self, *_args: Any) -> None:
        """The cards are kept and refilled: the results change with every letter typed in the search."""
        results = App.get_running_app().rules_model.results
        for card, result in zip(resize(self.ids.cards, len(results), partial(make, "RuleCard")), results):
            fill(card, **result)


from companion.app.clocks import ClocksScreen  # noqa: E402, F401 — these screens live with their models
from companion.app.history import HistoryScreen, StatsScreen  # noqa: E402, F401
