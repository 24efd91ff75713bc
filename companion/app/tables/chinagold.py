"""Chinagold's table panel: the hex board with every marker, the tiles in play, and the Pi as opponent.

A player taps the first and the last site of the line he turned (the same site twice for one marker);
with "Bury" pressed, a tap on a gold site buries it.  Tile results come from the sensors (the app's
hardware roll), from the face buttons here, or from "Throw for me".  A seat whose player is named "Pi"
is played by the bot: after the throw the panel marks the markers to turn, the table turns them on the
real board and confirms with "Done" (or the hardware `confirm` button).
"""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import BooleanProperty, DictProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.app.boards.chinagold import BoardView, ChinagoldBoard
from companion.app.i18n import _ as app_text
from companion.app.i18n import catalog
from companion.app.table import TableModel
from companion.engine.core import ActionModel, Setup
from companion.games.chinagold.board import layout_for, overlaid
from companion.games.chinagold.bot import hint
from companion.games.chinagold.rules import Bury, ChinagoldState, Turn

GAME_ID = "chinagold"
PI_NAME = "pi"
#: Thinking time for the Pi's own moves and for hints (the brief allows at most one second).
BOT_SECONDS = 0.8


def _(message: str) -> str:
    """A panel string from the game's own catalog (companion/locale/*/chinagold.po), else the app's."""
    translated = catalog(GAME_ID).gettext(message)
    return translated if translated != message else app_text(message)


def action_label(table: TableModel, action: ActionModel) -> str:
    """`Turn 12 → 14`, `Turn 7`, `Bury 30`."""
    if isinstance(action, Bury):
        return _("Bury {site}").format(site=action.site)
    if isinstance(action, Turn):
        if action.start == action.end:
            return _("Turn {site}").format(site=action.start)
        return _("Turn {start} → {end}").format(start=action.start, end=action.end)
    return action.type


def setup_steps(setup: Setup) -> list[str]:
    """Chinagold's setup guide."""
    board = setup.options.get("board", "default")
    overlay = int(setup.options.get("overlay", 0))
    steps = [
        _("Lay out the board ({board}).").format(board=board),
        _("Put a marker on every site, gold side down."),
        _("{name} digs in the mountains, {other} in the rivers.").format(
            name=setup.players[0].name, other=setup.players[1].name if len(setup.players) > 1 else "?"),
        _("Put the three throw tiles 0|1, 0|2 and 1|2 in the box lid."),
    ]
    if overlay:
        steps.insert(1, _("Turn the river sheet to position {overlay} as shown on the screen.").format(
            overlay=overlay))
    if any(player.name.strip().lower() == PI_NAME for player in setup.players):
        steps.append(_("The Pi plays the seat named Pi: turn the markers it marks, then press Done."))
    return steps


def pi_seat(table: TableModel) -> int | None:
    """The seat the Pi plays (the player named "Pi"), if any."""
    if table.session is None:
        return None
    for seat, player in enumerate(table.session.setup.players):
        if player.name.strip().lower() == PI_NAME:
            return seat
    return None


_PANELS: dict[int, ChinagoldPanel] = {}


def on_button(table: TableModel, name: str, source: str = "keyboard") -> bool:
    """`confirm` plays the Pi's marked move; `hint` marks a suggestion for the player to move."""
    panel = _PANELS.get(id(table))
    if panel is None:
        return False
    if name == "confirm" and panel.suggestion is not None and panel.pi_to_move:
        return panel.confirm_pi_move()
    if name == "hint":
        panel.show_hint()
        return True
    return False


class ChinagoldPanel(BoxLayout):
    """Board on the left; tiles, bury, hint and the Pi's move on the right."""

    table = ObjectProperty(None)
    info_text = StringProperty("")
    tile_text = StringProperty("")
    bury_mode = BooleanProperty(False)
    can_bury = BooleanProperty(False)
    throwing = BooleanProperty(False)
    pi_to_move = BooleanProperty(False)
    suggestion: ActionModel | None = ObjectProperty(None, allownone=True)  # type: ignore[assignment]
    #: Button texts in the current language (set in Python so the panel needs no running App).
    labels = DictProperty({})

    def __init__(self, table: TableModel, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.table = table
        self.selected: int | None = None
        self._suggested_at = -1
        self._board_key: tuple[str, int] | None = None
        self.board: ChinagoldBoard | None = None
        _PANELS[id(table)] = self
        table.bind(revision=self.refresh)
        self.refresh()

    def detach(self) -> None:
        """Called when another game takes the table."""
        self.table.unbind(revision=self.refresh)
        _PANELS.pop(id(self.table), None)

    @property
    def state(self) -> ChinagoldState | None:
        session = self.table.session
        if session is None or session.game.id != GAME_ID:  # another game is being put on the table
            return None
        return session.state  # type: ignore[no-any-return]

    # -- showing -------------------------------------------------------------------------------------
    def _ensure_board(self, state: ChinagoldState) -> ChinagoldBoard:
        key = (state.board, state.overlay)
        if self.board is None or self._board_key != key:
            holder = self.ids.board_holder
            holder.clear_widgets()
            self.board = ChinagoldBoard(overlaid(layout_for(state.board), state.overlay))
            self.board.bind(on_touch_down=self._board_touched)
            holder.add_widget(self.board)
            self._board_key = key
        return self.board

    def refresh(self, *_args: Any) -> None:
        state = self.state
        if state is None:
            return
        board = self._ensure_board(state)
        self.labels = {"Throw for me": _("Throw for me"), "Bury": _("Bury"), "Done": _("Done"),
                       "Hint": _("Hint")}
        if self.table.session is not None and len(self.table.session.actions) != self._suggested_at:
            self.suggestion = None
        self.throwing = state.phase == "throw"
        self.can_bury = state.phase == "move" and state.total is not None and "g" in state.sites
        if not self.can_bury:
            self.bury_mode = False
        self.pi_to_move = state.phase == "move" and pi_seat(self.table) == state.to_move
        self.tile_text = self._tiles_line(state)
        mountains, rivers = state.sites.count("M"), state.sites.count("R")
        self.info_text = _("Gold: mountains {m}, rivers {r}\nStill hidden: {h}").format(
            m=mountains, r=rivers, h=state.sites.count("h"))
        self._rebuild_faces()
        highlights = self._highlight_sites(state)
        board.view = BoardView(sites=state.sites, selected=self.selected, highlights=highlights,
                               line_length=state.total or 0)
        if self.pi_to_move and self.suggestion is None:
            Clock.schedule_once(lambda _dt: self.plan_pi_move(), 0)

    def _tiles_line(self, state: ChinagoldState) -> str:
        if state.phase == "over":
            return _("Game over.")
        if not state.tiles:
            return _("No tiles left: turn one marker or two neighbours.")
        tiles = "  ".join(state.tiles)
        if state.total is None:
            return _("Tiles in play: {tiles}").format(tiles=tiles)
        return _("Thrown: {total} (tiles {tiles})").format(total=state.total, tiles=tiles)

    def _highlight_sites(self, state: ChinagoldState) -> set[int]:
        action = self.suggestion
        if isinstance(action, Bury):
            return {action.site}
        if isinstance(action, Turn) and self.board is not None:
            return set(self.board.grid.line_between(action.start, action.end) or ())
        return set()

    def _rebuild_faces(self) -> None:
        """Two buttons per tile still to enter (touch input of a throw)."""
        box = self.ids.faces
        box.clear_widgets()
        dice = self.table.dice
        entered = len(self.table.entered)
        if not dice or entered >= len(dice):
            return
        state = self.state
        tile = state.tiles[entered] if state is not None and entered < len(state.tiles) else ""
        box.add_widget(Factory.Label(text=tile, size_hint_x=None, width=44, font_size="18sp"))
        for face in dice[entered]:
            button = Factory.GButton(text=face)
            button.bind(on_release=lambda _b, f=face: self._enter_face(f))
            box.add_widget(button)

    def _enter_face(self, face: str) -> None:
        self.table.enter_die(face)
        self._rebuild_faces()

    # -- input ---------------------------------------------------------------------------------------
    def _board_touched(self, board: ChinagoldBoard, touch: Any) -> bool:
        if not board.collide_point(*touch.pos):
            return False
        site = board.site_at(*touch.pos)
        if site is not None:
            self.tap_site(site)
        return True

    def tap_site(self, site: int) -> bool:
        """A tap on a site: bury it (bury mode), start a line, or finish the line and submit it."""
        state = self.state
        if state is None or state.phase != "move" or self.pi_to_move:
            return False
        if self.bury_mode:
            self.bury_mode = False
            return self.table.submit({"type": "bury", "site": site})
        if self.selected is None:
            self.selected = site
            self.refresh()
            return True
        start, self.selected = self.selected, None
        accepted = self.table.submit({"type": "turn", "start": start, "end": site})
        if not accepted:
            self.refresh()
        return accepted

    def throw_for_me(self) -> None:
        self.table.virtual_roll("virtual")

    def toggle_bury(self) -> None:
        self.bury_mode = not self.bury_mode and self.can_bury
        self.selected = None
        self.refresh()

    def show_hint(self) -> None:
        """Mark the bot's suggestion for whoever is to move (nothing while tiles must be thrown)."""
        state = self.state
        if state is None or self.table.session is None:
            return
        self.suggestion = hint(state, BOT_SECONDS)
        self._suggested_at = len(self.table.session.actions)
        self.refresh()

    # -- the Pi as opponent --------------------------------------------------------------------------
    def plan_pi_move(self) -> None:
        """Work out the Pi's move and mark it on the board for the table to turn."""
        if not self.pi_to_move or self.suggestion is not None:
            return
        self.show_hint()

    def suggestion_text(self) -> str:
        action = self.suggestion
        if action is None:
            return ""
        who = _("Pi") if self.pi_to_move else _("Suggestion")
        return f"{who}: {action_label(self.table, action)}"

    def confirm_pi_move(self) -> bool:
        """The table has turned the marked markers: play the Pi's move."""
        if self.suggestion is None or not self.pi_to_move:
            return False
        action, self.suggestion = self.suggestion, None
        return self.table.submit(action, "bot")


def build_panel(table: TableModel) -> ChinagoldPanel:
    return ChinagoldPanel(table)

