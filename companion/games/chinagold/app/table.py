"""Chinagold's table panel: the hex board with every marker, the tiles in play, and the Pi as opponent.

A player taps the first and the last site of the line they turned (the same site twice for one marker);
with "Bury" pressed, a tap on a gold site buries it.  Tile results come from the sensors (the app's
hardware roll), from the face buttons here, or from "Throw for me".  A seat whose player is named "Pi"
is played by the bot: after the throw the panel marks the markers to turn, the table turns them on the
real board and confirms with "Done" (or the hardware `confirm` button).  The panel only draws and
forwards taps to the ChinagoldController (controller.py here).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from kivy.properties import BooleanProperty, ObjectProperty, StringProperty

from companion.app.boards.loupe import BoardLoupe
from companion.app.i18n import _ as app_text
from companion.app.i18n import catalog
from companion.app.table import TableModel
from companion.app.tables.common import TablePanel, die_face_button
from companion.app.widgets import resize
from companion.engine.core import ActionModel, Setup
from companion.games.chinagold.app.board import BoardView, ChinagoldBoard
from companion.games.chinagold.app.controller import ChinagoldController, is_pi
from companion.games.chinagold.board import layout_for, overlaid
from companion.games.chinagold.rules import Bury, ChinagoldState, Turn
from companion.games.chinagold.words import site_words

#: The game's catalog domain (its id).
DOMAIN = "chinagold"


def _(message: str) -> str:
    """A panel string from the game's own catalog (companion/locale/*/chinagold.po), else the app's."""
    translated = catalog(DOMAIN).gettext(message)
    return translated if translated != message else app_text(message)


def action_label(table: TableModel, action: ActionModel) -> str:
    """`Turn row 3, marker 5 from the left to row 3, marker 7 from the left`, `Bury row 2, marker 1 …`
    (words, not an arrow: the bold app font has no arrow glyph)."""
    state = table.session.state if table.session is not None else None
    if not isinstance(state, ChinagoldState):
        return action.type

    def site(number: int) -> str:
        return site_words(number, state).text(_)

    if isinstance(action, Bury):
        return _("Bury {site}").format(site=site(action.site))
    if isinstance(action, Turn):
        if action.start == action.end:
            return _("Turn {site}").format(site=site(action.start))
        return _("Turn {start} to {end}").format(start=site(action.start), end=site(action.end))
    return action.type


def setup_steps(setup: Setup) -> list[str]:
    """Chinagold's setup guide."""
    board = setup.options.get("board", "default")
    overlay = int(setup.options.get("overlay", 0))
    steps = [
        _("Lay out the board.") if board == "default" else _("Lay out the board ({board}).").format(board=board),
        _("Put a marker on every site, gold side down."),
        _("{name} digs in the mountains, {other} in the rivers.").format(
            name=setup.players[0].name, other=setup.players[1].name if len(setup.players) > 1 else "?"),
        _("Put the three throw tiles 0|1, 0|2 and 1|2 in the box lid."),
    ]
    if overlay:
        steps.insert(1, _("Turn the river sheet to position {overlay} as shown on the screen.").format(
            overlay=overlay))
    if any(is_pi(player.name) for player in setup.players):
        steps.append(_("The Pi plays the seat named Pi: turn the markers it marks, then press Done."))
    return steps


class ChinagoldPanel(TablePanel):
    """Board on the left; tiles, bury, hint and the Pi's move on the right.  The flow (selection, bury
    mode, the bot on its worker thread) is the ChinagoldController's."""

    info_text = StringProperty("")
    tile_text = StringProperty("")
    suggestion_line = StringProperty("")
    bury_mode = BooleanProperty(False)
    can_bury = BooleanProperty(False)
    can_hint = BooleanProperty(False)
    throwing = BooleanProperty(False)
    pi_to_move = BooleanProperty(False)
    thinking = BooleanProperty(False)
    suggestion: ActionModel | None = ObjectProperty(None, allownone=True)

    def __init__(self, controller: ChinagoldController, **kwargs: Any) -> None:
        super().__init__(controller, **kwargs)
        self._board_key: tuple[str, int] | None = None
        self.board: ChinagoldBoard | None = None
        self._faces_shown: tuple[int, tuple[str, ...]] | None = None
        self.watch(self.table, entered=self._rebuild_faces, partial=self._rebuild_faces)
        self.start()

    @property
    def state(self) -> ChinagoldState | None:
        controller: ChinagoldController = self.controller
        return controller.state

    # -- showing -------------------------------------------------------------------------------------
    def _ensure_board(self, state: ChinagoldState) -> ChinagoldBoard:
        key = (state.board, state.overlay)
        if self.board is None or self._board_key != key:
            holder = self.ids.board_holder
            holder.clear_widgets()
            if self.loupe is not None:
                self.loupe.close()
            self.board = ChinagoldBoard(overlaid(layout_for(state.board), state.overlay))
            self.loupe = BoardLoupe(self.board, self.controller.tap_site, self._choosable, lambda: self.state,
                                    stays_open=lambda: self.controller.selected is not None, table=self.table)
            holder.add_widget(self.board)
            self._board_key = key
        return self.board

    def refresh(self, *_args: Any) -> None:
        """Everything drawn anew from the state, the phase table and the controller (after an action, a
        tap, the bot's answer or a language switch)."""
        state = self.state
        if state is None:
            return
        controller = self.controller
        board = self._ensure_board(state)
        self.labels = {"Throw for me": _("Throw for me"), "Bury": _("Bury"), "Done": _("Done"),
                       "Hint": _("Hint")}
        game = self.controller.session.game
        expects = game.expects(state)
        self.suggestion = controller.suggestion
        self.suggestion_line = self.suggestion_text()
        self.thinking = controller.thinking
        self.throwing = "throw" in expects
        self.can_bury = bool(game.offered(state, "bury"))  # offered once thrown, with gold to bury
        self.can_hint = "turn" in expects
        self.bury_mode = controller.bury_mode
        self.pi_to_move = controller.pi_to_move
        self.tile_text = self._tiles_line(state)
        mountains, rivers = state.sites.count("M"), state.sites.count("R")
        names = self.controller.table.player_name
        self.info_text = _("Gold: {first} {m}, {second} {r}\nStill hidden: {h}").format(
            first=names(0), second=names(1), m=mountains, r=rivers, h=state.sites.count("h"))
        self._rebuild_faces()
        board.view = BoardView(sites=state.sites, selected=controller.selected,
                               highlights=self._highlight_sites(),
                               line_length=state.total or 0)

    def _tiles_line(self, state: ChinagoldState) -> str:
        if self.controller.session.game.is_over(state):
            return _("Game over.")
        if not state.tiles:
            return _("No tiles left: turn one marker or two neighbours.")
        if state.total is None:
            return _("Tiles in play: {tiles}").format(tiles="  ".join(state.tiles))
        # the faces the tiles show, as the table sees them (a 4 thrown as 1 + 2 + 1)
        return _("Thrown: {total} ({faces})").format(total=state.total, faces=" + ".join(map(str, state.thrown)))

    def _highlight_sites(self) -> set[int]:
        if self.table.put_back_places:  # after an undo: the sites the put-back sentences name
            return {int(place) for place in self.table.put_back_places if place.isdigit()}
        action = self.suggestion
        if isinstance(action, Bury):
            return {action.site}
        if isinstance(action, Turn) and self.board is not None:
            return set(self.board.grid.line_between(action.start, action.end) or ())
        return set()

    def _rebuild_faces(self, *_args: Any) -> None:
        """Two buttons per tile still to enter (touch input of a throw): the next tile, or after a throw the
        sensors or the camera read only partly, the first tile they could not read; rebuilt only when the
        tile changes."""
        dice, tile = self.table.dice, self.table.next_die()
        due = (tile, tuple(dice[tile])) if dice and tile < len(dice) else None
        if due == self._faces_shown:
            return
        self._faces_shown = due
        faces = due[1] if due is not None else ()
        for button, face in zip(resize(self.ids.faces, len(faces), partial(die_face_button, self.controller)), faces):
            button.face = button.text = face
        state = self.state
        self.ids.tile.text = (state.tiles[tile] if due is not None and state is not None
                              and tile < len(state.tiles) else "")

    # -- taps, forwarded -----------------------------------------------------------------------------
    def _choosable(self) -> set[int]:
        """The sites the next tap may choose (a touch between several of them opens the board's loupe):
        a gold to bury, a hidden marker to start a line, or a ringed far end of the line begun."""
        state, controller = self.state, self.controller
        if state is None or "turn" not in controller.expects() or controller.pi_to_move or self.board is None:
            return set()
        if controller.bury_mode:
            return {site for site, mark in enumerate(state.sites) if mark == "g"}
        if controller.selected is None:
            return {site for site, mark in enumerate(state.sites) if mark == "h"}
        lengths = (state.total,) if state.total is not None else (1, 2)
        return {line[-1] for length in lengths for line in self.board.lines_from(controller.selected, length)}

    def suggestion_text(self) -> str:
        action = self.suggestion
        if action is None:
            return ""
        who = _("Pi") if self.pi_to_move else _("Suggestion")
        return _("{who}: {move}").format(who=who, move=action_label(self.table, action))


def build_panel(controller: ChinagoldController) -> ChinagoldPanel:
    return ChinagoldPanel(controller)

