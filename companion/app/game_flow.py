"""A game's way through the screens: Home's choice, Players, Options, the setup guide, the table, the end.

Kv binds to it as `app.flow` (`app.flow.new_game()`, `app.flow.controller.undo()`).  It opens a journalled
`Session` and hands it to the game's `TableController` (`controller`), which receives every input whatever
screen is showing: hardware events and keys arrive here and wait their turn behind the journal write in
flight (`JournalDesk.in_turn`), so an input after "Start" goes to the new table.  The controller plays into
the session; the Table view-model (`app.table`) follows the session and the panels draw it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import ObjectProperty, StringProperty

from companion.app import i18n
from companion.app.heap import freeze_heap, release_free_heap
from companion.app.i18n import _, n_
from companion.app.settings import DEFAULT_GAME

if TYPE_CHECKING:
    from concurrent.futures import Future

    from companion.app.controllers import TableController
    from companion.app.main import GoldtableApp
    from companion.engine.core import Setup
    from companion.engine.record import ActionSource
    from companion.engine.session import Session
    from firmware_bridge.events import BridgeEvent


def playable_game(game_id: str) -> str:
    """`game_id` if that game is installed and can be played, else the app's default game (or the first
    installed one, should the default be missing): a game of an older version named in the settings."""
    from companion.engine.registry import all_games

    games = all_games()
    if game_id in games:
        return game_id
    return DEFAULT_GAME if DEFAULT_GAME in games or not games else next(iter(games))


class GameFlow(EventDispatcher):
    """The game chosen on Home (`game_id`), the table's controller (`controller`) and the buttons that lead
    from one screen of a game to the next."""

    game_id = StringProperty(DEFAULT_GAME)
    #: The installed games that cannot be played, and why (Home shows it under the journal's notices).
    games_notice = StringProperty("")
    #: The game's TableController: every input goes here (kv: `app.flow.controller.undo()`).
    controller: TableController = ObjectProperty(None)
    #: While a device's roll that came with no game open waits for Resume, what Home says of it (the
    #: untranslated `controllers.base.HELD_ROLL`; Home's kv translates it, so kv imports no controller).
    held_message = StringProperty("")

    def __init__(self, app: GoldtableApp, game_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._app = app
        self.game_id = game_id
        self._options: dict[str, Any] = {}
        self._options_game = ""
        self._starting = False  # a new game is being journalled (see `start_game`)

    # -- Home ----------------------------------------------------------------------------------------
    def show_games(self) -> None:
        """Home offers every installed game that can be played (the chosen one, or the default if it is
        gone) and says which cannot be played and why."""
        from companion.engine.registry import problems

        self.game_id = playable_game(self.game_id)
        self.games_notice = "\n".join(_("A game cannot be played: {problem}").format(problem=problem)
                                      for problem in problems())
        self._app.root.get_screen("home").build_games()

    def choose_game(self, game_id: str) -> None:
        self.game_id = game_id
        self._app.preferences.update(last_game=game_id)

    # -- Players, Options, setup guide ---------------------------------------------------------------
    def new_game(self) -> None:
        """Home -> Players for the chosen game."""
        app = self._app
        if not app.ready:
            app.ready_for_first_tap()
        from companion.app.controllers import controller_class
        from companion.engine.registry import get_game

        app.players_model.load(get_game(self.game_id), app.preferences.settings,
                               controller_class(self.game_id).bot_name)
        app.go("players")

    def players_done(self) -> None:
        from companion.engine.registry import get_game

        app = self._app
        if app.players_model.find_problem():
            return
        preferences = app.preferences
        preferences.settings = app.players_model.remember(preferences.settings)
        preferences.save()
        app.options_model.load(get_game(self.game_id), self._options if self._options_game == self.game_id
                               else None, [player.name for player in app.players_model.players()])
        app.go("options")

    def options_done(self) -> None:
        options = self._app.options_model.validated()
        if options is None:
            return
        self._options, self._options_game = options, self.game_id
        self._app.go("setup")

    def setup_for_guide(self) -> Setup:
        from companion.engine.core import Setup

        players = self._app.players_model
        return Setup(game=self.game_id, players=players.players(), options=self._options,
                     first_player=players.first_player)

    # -- opening a table -----------------------------------------------------------------------------
    def start_game(self, seed: int | None = None) -> None:
        """Setup guide -> Table: a new journalled session, its first row written on the writer thread at its
        turn (input from before the tap still goes to the old table); a second tap meanwhile starts nothing."""
        import secrets
        from functools import partial

        from companion.engine.session import Session

        desk = self._app.journal_desk
        if self._starting:
            return
        assert desk.writer is not None
        self._starting = True
        setup = self.setup_for_guide().evolve(seed=secrets.randbelow(2**31) if seed is None else seed)
        writer, journal = desk.writer, desk.in_use()
        desk.in_turn(lambda: writer.write(partial(Session.new, setup, journal), self._game_started))

    def _game_started(self, result: Future[Session]) -> None:
        from companion.app.journal_desk import notice_text
        from companion.engine.errors import UserError
        from companion.engine.journal import JournalError

        self._starting = False
        try:
            session = result.result()
        except JournalError as error:  # a full or read-only card: said in the table's language
            self._app.screen("setup").problem = i18n.capitalised(notice_text(error.notice))
            return
        except (UserError, ValueError) as error:
            self._app.screen("setup").problem = str(error)
            return
        self.open_table(session)

    def resume(self, game_id: int | None = None) -> None:
        """Home (or History) -> Table with the latest (or the given) unfinished game, exactly as journalled
        (once the write in flight, perhaps this game's last move, is on disk)."""
        self._app.journal_desk.in_turn(lambda: self._resume(game_id))

    def _resume(self, game_id: int | None) -> None:
        from companion.engine.errors import UserError
        from companion.engine.session import Session

        desk = self._app.journal_desk
        journal = desk.in_use()
        game_id = game_id if game_id is not None else journal.latest_unfinished()
        if game_id is None:
            return
        try:
            session = Session.resume(journal, game_id)
        except Exception as error:  # noqa: BLE001 — a record the rules now refuse must not crash Home
            problem = error.text(i18n.game_text) if isinstance(error, UserError) else str(error)
            desk.journal_notice = _("That game cannot be resumed: {problem}").format(problem=problem)
            return
        cut = journal.cut(game_id)  # read before the table opens: its clock starts running there
        self.game_id = session.setup.game
        held = self.controller.take_held()
        self.open_table(session)
        for event in held:  # device rolls that came while no game was open: played as if they came now
            self.hardware_event(event)
        if cut is not None and cut.since == 0:  # nobody has played on since the salvage
            lost = n_("{lost} move of this game was lost to a damaged page of the journal.",
                      "{lost} moves of this game were lost to a damaged page of the journal.", cut.lost)
            goes_on = _("It goes on after move {moves}: set up the table as the board now shows.") if cut.moves \
                else _("It starts again from the beginning: set up the table for a new start.")
            self._app.table.show_notice(f"{lost} {goes_on}".format(lost=cut.lost, moves=cut.moves))

    def new_controller(self, game_id: str) -> TableController:
        """The controller of `game_id`'s table ("" before any game: the base one), wired to the app's parts."""
        from companion.app.controllers import controller_class

        app = self._app
        return controller_class(game_id)(app.table, timer=app.timer, hardware=app.hardware,
                                         announce=app.announcer.announce, show_table=lambda: app.go("table"),
                                         play_sound=app.preferences.play_sound, clocks=app.clocks,
                                         recorded=app.journal_desk.is_recorded,
                                         held=lambda message: setattr(self, "held_message", message))

    def open_table(self, session: Session) -> None:
        """The Table screen with `session` on it, played through a new controller of its game."""
        from companion.app.tables import table_for

        app = self._app
        assert app.journal_desk.writer is not None
        session.writer = app.journal_desk.writer  # the table's moves are committed on the journal's writer thread
        self.controller.close()
        app.timer.reset()
        self.controller = self.new_controller(session.setup.game)
        self.controller.open(session)
        app.screen("table").show_panel(table_for(session.setup.game), self.controller)
        app.forget_history()
        app.go("table", remember=False)
        if session.is_over():
            self.show_end()
        Clock.schedule_once(lambda _dt: self._before_first_move(), 0)

    def _before_first_move(self) -> None:
        """Work no tap should pay for, done in the frame after the table opens: the End screen built with
        its chart's labels (the game's last move then only fills them in) and the heap frozen (see
        `freeze_heap`)."""
        self._app.screen("end").ids.chart.make_ready()
        freeze_heap()

    # -- input from outside the table's panel ---------------------------------------------------------
    def hardware_event(self, event: BridgeEvent) -> None:
        """A hardware event (already on the UI thread), for whichever table is open when its turn comes."""
        self._app.journal_desk.in_turn(lambda: self.controller.on_bridge_event(event))

    def press_button(self, name: str, source: ActionSource = "touch") -> None:
        """An on-screen stand-in for a hardware button (the Timer screen's Stop and Turn)."""
        self._app.journal_desk.in_turn(lambda: self.controller.press(name, source))

    # -- the end -------------------------------------------------------------------------------------
    def show_end(self) -> None:
        app = self._app
        session = app.table.session
        if session is None:
            return
        app.timer.reset()
        colours = [app.table.player_colour(seat) for seat in range(len(session.setup.players))]
        app.end_model.load(session, colours)
        app.go("end")
        Clock.schedule_once(lambda _dt: release_free_heap(), 0)  # after the End screen is drawn

    def play_again(self) -> None:
        """End -> Players with the same table."""
        self.new_game()

    def export_record(self) -> None:
        self._app.end_model.export(self._app.journal_desk.in_use().path.parent / "records")
