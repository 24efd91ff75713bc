"""View-models of the screens around the table: players, options, end, rules.

Plain Python over the engine, exposed as Kivy properties so the .kv files only bind.  None of these
talk to hardware or block; they are driven by taps on the UI thread.
"""

from __future__ import annotations

import enum
import re
import types
import typing
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, Literal

from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, DictProperty, ListProperty, NumericProperty, StringProperty
from pydantic import BaseModel, ValidationError

from companion.app.history import save_new_file
from companion.app.i18n import _, choice_text, game_text
from companion.app.rules_doc import rule_book
from companion.app.settings import DEFAULT_GAME, SEAT_COLOURS, AppSettings, RememberedPlayer
from companion.engine.core import Game, Player
from companion.engine.errors import describe_validation_error
from companion.engine.session import Session

REMEMBERED_PLAYERS = 12


class PlayersModel(EventDispatcher):
    """Seats in order (name, colour), the first player, and names remembered from earlier games; first
    among them the seat Goldtable can play itself (`bot_name`, Chinagold's Pi) while nobody has it."""

    seats = ListProperty([])
    first_player = NumericProperty(0)
    remembered = ListProperty([])
    #: Whether any earlier game left names to remember (seated now or not).
    knows_names = BooleanProperty(False)
    bot_name = StringProperty("")
    min_players = NumericProperty(2)
    max_players = NumericProperty(6)
    problem = StringProperty("")

    def load(self, game: Game[Any, Any], settings: AppSettings, bot_name: str | None = None) -> None:
        """Start from the last table (as many remembered players as the game allows, at least its minimum)."""
        self.min_players, self.max_players = game.min_players, game.max_players
        self.bot_name = bot_name or ""
        people = [player for player in settings.players if not self._is_placeholder(player.name)]
        self._all_remembered = [player.name for player in settings.players if self._is_someone(player.name)]
        self.knows_names = bool(self._all_remembered)
        seats = [{"name": p.name, "colour": p.colour} for p in people[:game.max_players]]
        while len(seats) < game.min_players:
            seats.append({"name": _("Player {n}").format(n=len(seats) + 1), "colour": self._free_colour(seats)})
        self.seats = seats
        self.first_player = min(self.first_player, len(seats) - 1)
        self._update()

    def _is_bot(self, name: str) -> bool:
        """Whether this name is the seat Goldtable plays in this game (any case)."""
        return bool(self.bot_name) and name.strip().casefold() == self.bot_name.casefold()

    @staticmethod
    def _is_placeholder(name: str) -> bool:
        """Whether this is a seat's stand-in name ("Player 2"), which is nobody to remember."""
        return re.fullmatch(re.escape(_("Player {n}")).replace(re.escape("{n}"), r"\d+"), name.strip()) is not None

    def _is_someone(self, name: str) -> bool:
        """Whether this name is a person to remember: neither Goldtable's seat nor a stand-in."""
        return not self._is_bot(name) and not self._is_placeholder(name)

    def _free_colour(self, seats: list[dict[str, str]]) -> str:
        used = {seat["colour"] for seat in seats}
        return next((colour for colour in SEAT_COLOURS if colour not in used), SEAT_COLOURS[0])

    def _update(self) -> None:
        seated = {seat["name"].strip().casefold() for seat in self.seats}
        offered = [self.bot_name] if self.bot_name else []
        self.remembered = [name for name in offered + self._all_remembered if name.casefold() not in seated]
        self.problem = self.find_problem()

    def add(self, name: str | None = None) -> None:
        if len(self.seats) >= self.max_players:
            return
        name = name or _("Player {n}").format(n=len(self.seats) + 1)
        self.seats = [*self.seats, {"name": name, "colour": self._free_colour(list(self.seats))}]
        self._update()

    def seat_remembered(self, name: str) -> None:
        """A remembered name was tapped: it takes the first seat still called "Player N", else a new seat,
        else (a full table) the last seat, whose name then comes back among the remembered ones."""
        free = next((index for index, seat in enumerate(self.seats) if self._is_placeholder(seat["name"])), None)
        if free is None and len(self.seats) < self.max_players:
            self.add(name)
            return
        seats = list(self.seats)
        index = len(seats) - 1 if free is None else free
        seats[index] = {**seats[index], "name": name}
        self.seats = seats
        self._update()

    def remove(self, seat: int) -> None:
        if len(self.seats) <= self.min_players:
            return
        seats = list(self.seats)
        del seats[seat]
        self.seats = seats
        if self.first_player >= len(seats):
            self.first_player = len(seats) - 1
        self._update()

    def move(self, seat: int, delta: int) -> None:
        """Change the seat order (play passes to the next seat)."""
        target = seat + delta
        if not 0 <= target < len(self.seats):
            return
        seats = list(self.seats)
        seats[seat], seats[target] = seats[target], seats[seat]
        self.seats = seats
        if self.first_player in (seat, target):
            self.first_player = target if self.first_player == seat else seat
        self._update()

    def rename(self, seat: int, name: str) -> None:
        """Typing in a seat's name field.  The dict is changed in place so the seat rows are not rebuilt
        (which would take the keyboard focus away after every letter)."""
        if seat < len(self.seats) and self.seats[seat]["name"] != name.strip()[:24]:
            self.seats[seat]["name"] = name.strip()[:24]
            self._update()

    def next_colour(self, seat: int) -> None:
        """Tap on the swatch: the next colour no other seat uses."""
        seats = list(self.seats)
        used = {s["colour"] for index, s in enumerate(seats) if index != seat}
        start = SEAT_COLOURS.index(seats[seat]["colour"]) if seats[seat]["colour"] in SEAT_COLOURS else -1
        for step in range(1, len(SEAT_COLOURS) + 1):
            colour = SEAT_COLOURS[(start + step) % len(SEAT_COLOURS)]
            if colour not in used:
                seats[seat] = {**seats[seat], "colour": colour}
                break
        self.seats = seats

    def set_first(self, seat: int) -> None:
        self.first_player = seat

    def find_problem(self) -> str:
        names = [seat["name"].strip() for seat in self.seats]
        if any(not name for name in names):
            return _("Every player needs a name.")
        if len({name.lower() for name in names}) != len(names):
            return _("Two players have the same name.")
        if not self.min_players <= len(names) <= self.max_players:
            return _("This game needs {low} to {high} players.").format(low=self.min_players, high=self.max_players)
        return ""

    def players(self) -> tuple[Player, ...]:
        return tuple(Player(name=seat["name"].strip(), colour=seat["colour"]) for seat in self.seats)

    def remember(self, settings: AppSettings) -> AppSettings:
        """Settings with these players first in the remembered list (for the next game).  The seat
        Goldtable played is left out: it is offered anyway where it can play, and is nobody elsewhere; so
        are seats still called "Player N" (the next table would seat a second "Player 2" beside them)."""
        current = [RememberedPlayer(name=s["name"].strip(), colour=s["colour"]) for s in self.seats
                   if self._is_someone(s["name"])]
        names = {player.name for player in current}
        older = [player for player in settings.players if player.name not in names and self._is_someone(player.name)]
        return settings.model_copy(update={"players": tuple((current + older)[:REMEMBERED_PLAYERS])})


OptionKind = Literal["bool", "choice", "int", "text", "other"]


def _literal_choices(annotation: Any) -> tuple[Any, ...] | None:
    if typing.get_origin(annotation) is Literal:
        return typing.get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return tuple(member.value for member in annotation)
    return None


def describe_field(name: str, info: Any) -> dict[str, Any]:
    """How the Options form shows one pydantic field: bool -> switch, Literal/Enum -> choices,
    int -> stepper with its bounds, optional str -> text, anything else -> left to the game's panel."""
    annotation = info.annotation
    optional = False
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        annotation = args[0] if len(args) == 1 else annotation
    low = high = None
    for meta in info.metadata:
        low = getattr(meta, "ge", low)
        high = getattr(meta, "le", high)
    choices = _literal_choices(annotation)
    kind: OptionKind
    if annotation is bool:
        kind = "bool"
    elif choices is not None:
        kind = "choice"
    elif annotation is int:
        kind = "int"
    elif annotation is str:
        kind = "text"
    else:
        kind = "other"
    return {"name": name, "kind": kind, "choices": list(choices or ()), "min": low, "max": high,
            "optional": optional, "description": info.description or name.replace("_", " ").capitalize()}


class OptionsModel(EventDispatcher):
    """The chosen game's options as a generic form built from its pydantic model."""

    fields = ListProperty([])
    values = DictProperty({})
    problem = StringProperty("")
    game_id = StringProperty("")
    #: The players' names in seat order (a game's own panel may offer a choice per seat).
    seats = ListProperty([])

    def load(self, game: Game[Any, Any], values: dict[str, Any] | None = None,
             seats: list[str] | None = None) -> None:
        self.game = game
        self.game_id = game.id
        self.seats = list(seats or [])
        model: type[BaseModel] = game.options_model
        self.fields = [describe_field(name, info) for name, info in model.model_fields.items()]
        defaults = game.options({}).model_dump(mode="json")
        self.values = {**defaults, **(values or {})}
        self.problem = ""

    def label(self, field: dict[str, Any]) -> str:
        """The field's description in the game's language catalog."""
        return game_text(self.game_id, field["description"])

    def choice_label(self, value: Any) -> str:
        """One choice of an option in the game's language (`no_step_back` is looked up as `no step back`)."""
        return choice_text(self.game_id, value)

    def set(self, name: str, value: Any) -> None:
        self.values = {**self.values, name: value}
        self.problem = ""

    def step(self, name: str, delta: int) -> None:
        field = next(f for f in self.fields if f["name"] == name)
        value = int(self.values.get(name) or 0) + delta
        if field["min"] is not None:
            value = max(field["min"], value)
        if field["max"] is not None:
            value = min(field["max"], value)
        self.set(name, value)

    def validated(self) -> dict[str, Any] | None:
        """The options as the game accepts them, or None with `problem` saying what is wrong."""
        raw = {key: value for key, value in self.values.items() if value not in ("", None)}
        try:
            options: dict[str, Any] = self.game.options(raw).model_dump(mode="json")
            return options
        except ValidationError as error:
            self.problem = describe_validation_error(_("Options"), error)
            return None


def name_list(names: list[str]) -> str:
    """Names as a sentence lists them: "Anna", "Anna and Ben", "Anna, Ben and Chloé"."""
    if len(names) < 2:
        return "".join(names)
    return _("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])


def headline(names: list[str], scores: list[int], winners: list[int], over: bool) -> str:
    """Who won: one winner, a tie (winners with the same score), or a shared win."""
    if not over or not winners:
        return _("Game not finished")
    if len(winners) == 1:
        return _("{name} wins!").format(name=names[winners[0]])
    winning = {scores[seat] for seat in winners}
    together = name_list([names[seat] for seat in winners])
    if len(winning) == 1:
        return _("Tie: {names}, {score} each").format(names=together, score=scores[winners[0]])
    return _("Shared win: {names}").format(names=together)


class EndModel(EventDispatcher):
    """Final scores, winners and the scores after every turn of a finished game."""

    ranking = ListProperty([])  # [{"seat", "name", "score", "colour", "winner"}], best first
    winner_text = StringProperty("")
    history = ListProperty([])  # scores at the start and after every turn (companion.app.chart)
    colours = ListProperty([])
    names = ListProperty([])  # in seat order, for the chart's legend
    export_text = StringProperty("")

    def load(self, session: Session, colours: list[str]) -> None:
        from companion.app.chart import session_turn_scores
        from companion.app.screens.table_text import standings

        self.session = session
        game = session.game
        scores = list(session.scores())
        over = session.is_over()
        winners = game.winners(session.state) if over else []
        names = [player.name for player in session.setup.players]
        self.ranking = standings([{"seat": seat, "name": names[seat], "score": scores[seat],
                                   "colour": colours[seat], "winner": seat in winners}
                                  for seat in range(len(scores))])
        self.winner_text = headline(names, scores, winners, over)
        self.history = session_turn_scores(game, session.states)
        self.colours = colours
        self.names = names
        self.export_text = ""

    def times_text(self, totals: list[dict[str, str]], language: str) -> str:
        """The chess clock's time per player, names in their colours ("" when the game had no clock)."""
        from companion.app.clocks import times_markup

        return times_markup(totals, self.names, self.colours, language)

    def export(self, directory: Path) -> None:
        """Write the game record (JSON, replayable with `goldtable replay`) into `directory`; "Saved" is said
        once it is on the card (`save_new_file`)."""
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        save_new_file(lambda: directory, f"{self.session.setup.game}-{stamp}.json",
                      self.session.record().to_json().encode("utf-8"), partial(setattr, self, "export_text"))


class RulesModel(EventDispatcher):
    """Every rule of one game, filtered by a search text."""

    game_id = StringProperty(DEFAULT_GAME)
    query = StringProperty("")
    results = ListProperty([])
    title = StringProperty("")

    def on_game_id(self, *_args: Any) -> None:
        self.search()

    def on_query(self, *_args: Any) -> None:
        self.search()

    def search(self) -> None:
        book = rule_book(self.game_id)
        self.title = book.title or self.game_id
        self.results = [{"rule_id": rule.id, "title": rule.title, "text": rule.text}
                        for rule in book.search(self.query)]
