"""The table controller: the one input path of a game at the table.

Every input — a tap forwarded by a panel, a key, a GPIO button, a serial roll, the hourglass — comes
here whatever screen is showing.  The controller submits through the Session (which validates and
journals) and only then answers the hardware: a frame is settled "recorded" once its action is in the
journal, or refused with a reason code.  It holds no widgets; panels draw from the TableModel and from
the controller's own fields, and redraw when `listen` callbacks fire.

The journal commits on its writer thread (`companion.engine.writer`), so the answer to an input comes
later than the input: `submit` and `undo` take `then(accepted)` for what follows it.  Every input method
is marked `@in_turn`: while a write is in flight it waits, and runs in order once the write has been
answered, so no input is validated against a state about to change, dropped or reordered.

Refusal reasons sent to a device besides the rules' own codes: `table.no_game`, `table.game_over`,
`input.no_use`, `roll.not_expected`, `roll.wrong_count`, `roll.bad_face`, `roll.entered_by_touch`,
`roll.refused` (a value button that completed a refused roll), `roll.superseded` (a roll left unanswered
when the next one came), `journal.failed`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate, ParamSpec, TypeVar

from companion.app.hardware import GONE_WORDS
from companion.app.i18n import _, n_
from companion.app.journal_desk import notice_text
from companion.engine.core import N_, dice_misfit
from firmware_bridge.events import BridgeEvent, ButtonEvent, RejectedEvent, RollEvent, RollingEvent, StatusEvent

if TYPE_CHECKING:
    from companion.app.hardware import CameraDoubts, HardwareLink
    from companion.app.table import TableModel
    from companion.app.timer import TimerModel
    from companion.engine.core import ActionModel, Event
    from companion.engine.record import ActionSource
    from companion.engine.session import Outcome, Session

#: Keyboard stand-ins for the hardware on a PC (also listed on the Hardware screen).
KEY_BUTTONS: dict[str, str] = {"s": "stop", "h": "hourglass", "f": "flat", "c": "confirm", "u": "undo",
                               "n": "next", "i": "hint"}
#: Letters enter that face; digits 1-6 are the value_1 … value_6 buttons; 0 is Chinagold's blank face.
KEY_FACES = "byrgwk0"
KEY_VALUES = "123456"
SPACE, ESCAPE = 32, 27
#: What the table is told while a device's roll waits for Resume (also on Home, `GameFlow.held_message`).
HELD_ROLL = N_("A roll came from the dice tray while no game is open. Resume the game to play it; a new game "
               "does not take it.")

P = ParamSpec("P")
C = TypeVar("C", bound="TableController")
#: What an input's caller hears once its action was journalled (True) or refused or not saved (False).
Then = Callable[[bool], None] | None


def in_turn(method: Callable[Concatenate[C, P], None]) -> Callable[Concatenate[C, P], None]:
    """An input to the table: while a journal write is in flight it waits its turn (`run_in_turn`)."""
    @functools.wraps(method)
    def take_turn(self: C, /, *args: P.args, **kwargs: P.kwargs) -> None:
        self.run_in_turn(partial(method, self, *args, **kwargs))

    return take_turn


def tell(then: Then, accepted: bool) -> None:
    """Let an input's caller know how it ended (see `Then`)."""
    if then is not None:
        then(accepted)


def table_key(keycode: int, codepoint: str | None, modifiers: list[str]) -> bool:
    """Whether a key stands in for table input (`TableController.on_key`); the app passes the others on."""
    char = (codepoint or "").lower()
    return keycode == SPACE or ("ctrl" in modifiers and char == "z") or (
        bool(char) and (char in KEY_BUTTONS or char in KEY_VALUES or char in KEY_FACES))


def settle(hardware: HardwareLink | None, event: BridgeEvent | None, recorded: bool, reason: str | None = None) -> None:
    """Answer the device that sent `event`: recorded (ACK) or refused with a reason (NAK).  Touch and keys
    (no event) and tables without hardware (tests, screenshots) have nobody to answer."""
    if hardware is not None and event is not None:
        hardware.settle(event, recorded=recorded, reason=reason)


def frame_ref(event: BridgeEvent | None) -> str | None:
    """The reference of the hardware frame behind an input (`<source>:<seq>`), None for touch and keys."""
    return None if event is None else event.ref


def record_source(event_source: str) -> ActionSource:
    """The record's `source` for a bridge event: `gpio` for pin sources, `camera` for cameras, else `serial`."""
    if event_source.startswith("gpio"):
        return "gpio"
    return "camera" if event_source.startswith("camera") else "serial"


@dataclass(frozen=True)
class PendingRoll:
    """A roll the sensors or the camera were unsure of, waiting for the table to confirm it or tap it in;
    its frame stays unanswered until then."""

    values: list[str]
    uncertain: list[int]
    source: ActionSource
    event: BridgeEvent | None

    @property
    def ref(self) -> str | None:
        return frame_ref(self.event)


class TableController:
    """The flow of one game at the table (the base serves any game; subclasses add a game's own flow).

    `hardware` answers frames (`settle`), `timer` is the on-screen sand timer, `announce` tells the
    table something on whatever screen is showing, `show_table` brings the Table screen forward, and
    `call_soon` runs a function on the UI thread (Kivy's Clock in the app).
    """

    #: The name of a seat Goldtable itself plays (offered on the Players screen), if it can play one.
    bot_name: ClassVar[str | None] = None

    def __init__(self, table: TableModel, timer: TimerModel | None = None, hardware: HardwareLink | None = None,
                 announce: Callable[[str], None] | None = None, show_table: Callable[[], None] | None = None,
                 call_soon: Callable[[Callable[[], None]], None] | None = None,
                 play_sound: Callable[[str], None] | None = None, clocks: Any = None,
                 recorded: Callable[[str], bool] | None = None, held: Callable[[str], None] | None = None) -> None:
        self.table = table
        self.clocks = clocks  # the chess clock of games without a sand timer (companion.app.clocks)
        #: Whether a frame is already in the journal, whatever game is open (Journal.is_recorded).
        self._recorded = recorded or (lambda _ref: False)
        #: Told what Home says while a device's roll waits for Resume (`HELD_ROLL`, untranslated), "" after.
        self._tell_held = held or (lambda _message: None)
        self.timer = timer
        self.hardware = hardware
        self._announce = announce or (lambda _text: None)
        self._show_table = show_table or (lambda: None)
        self._play_sound = play_sound or (lambda _name: None)
        self.call_soon = call_soon or kivy_call_soon
        self._listeners: list[Callable[[], None]] = [self._update_leds, self._tell_camera]
        self._pending: PendingRoll | None = None
        #: Device rolls that came while no game was open, by source, kept unanswered for the next Resume.
        self._held: dict[str, RollEvent] = {}
        #: The "not answering" notice shown for a source, by source: taken down when the source is back.
        self._not_answering: dict[str, str] = {}
        self._lit: tuple[int, int] | None = None  # (session, seat) the seat LEDs show
        self._closed = False
        if timer is not None:
            timer.bind(on_warning=self._timer_warning)

    # -- life cycle ----------------------------------------------------------------------------------
    @property
    def session(self) -> Session | None:
        return self.table.session

    def expects(self) -> tuple[str, ...]:
        """The action types the game's phase table offers now (none without a game): what a tap may
        mean, asked of the rules rather than read from the phase's name."""
        session = self.session
        return () if session is None else session.game.expects(session.state)

    def open(self, session: Session | None) -> None:
        """Put a (new or resumed) session on the table; None clears it."""
        self._drop_pending("roll.entered_by_touch")
        self.table.attach(session)
        self.on_opened()
        self.changed()

    def close(self) -> None:
        """Another game takes the table: stop background work, answer what is still open.  Input still
        waiting for this table (its sand timer, a tap made before) is not played on the next one."""
        self._closed = True
        self._drop_pending("table.no_game")
        for event in self.take_held():
            settle(self.hardware, event, recorded=False, reason="table.no_game")
        if self.timer is not None:
            self.timer.unbind(on_warning=self._timer_warning)

    # -- signals to the table: seat LEDs, buzzer, speaker --------------------------------------------
    def _update_leds(self) -> None:
        """The seat LED of whoever must act is on, the others off."""
        session = self.session
        if session is None or self.hardware is None or self._lit == (id(session), self.table.player):
            return
        self._lit = (id(session), self.table.player)
        for seat in range(len(session.setup.players)):
            self.hardware.led(f"seat{seat + 1}", "on" if seat == self.table.player else "off")

    def _tell_camera(self) -> None:
        """The camera reads the dice that are due now (none between rolls), with the profile of the game at
        the table."""
        if self.hardware is None or not hasattr(self.hardware, "expect_dice"):
            return
        session = self.session
        self.hardware.expect_dice(None if session is None else session.setup.game,
                                  list(self.table.dice) if self.playing else [])

    def _timer_warning(self, _timer: Any, mark: float) -> None:
        """5 s: short beep; 0: long beep (speaker and buzzer) and the LED of whoever acts blinks."""
        self._play_sound("expired" if mark <= 0 else "warning")
        if self.hardware is None:
            return
        self.hardware.beep(800 if mark <= 0 else 150)
        if self.table.player >= 0:
            self.hardware.led(f"seat{self.table.player + 1}", "blink")

    def listen(self, callback: Callable[[], None]) -> None:
        """Call `callback` after every change a panel may draw (accepted action, undo, a selection)."""
        if callback not in self._listeners:
            self._listeners.append(callback)

    def unlisten(self, callback: Callable[[], None]) -> None:
        if callback in self._listeners:
            self._listeners.remove(callback)

    def changed(self) -> None:
        for callback in list(self._listeners):
            callback()

    @property
    def playing(self) -> bool:
        return self.session is not None and not self.session.is_over()

    def run_in_turn(self, callback: Callable[[], None]) -> None:
        """Run an input now, or, while the session's journal write is in flight, once it has been answered
        and the input before this one has run (`Writer.in_turn`); a table closed meanwhile takes none."""
        def run() -> None:
            if not self._closed:
                callback()

        if self.session is None:
            run()
        else:
            self.session.writer.in_turn(run)

    # -- hardware events -----------------------------------------------------------------------------
    @in_turn
    def on_bridge_event(self, event: BridgeEvent) -> None:
        """A bridge event on the UI thread: dice, buttons, the hourglass, a source coming or going."""
        if isinstance(event, StatusEvent):
            if event.state == "hello" and event.source in self._held:
                del self._held[event.source]  # the device numbers afresh: it no longer waits for that roll
                self._held_changed()
            if event.state in ("disconnected", "link_lost") and self.playing:
                if record_source(event.source) == "camera":
                    text = _("The camera is not answering: {state}. Carry on with touch input; nothing was lost.")
                elif event.source == "serial":  # the sensor board the app set up; others go by their names
                    text = _("The sensor board is not answering: {state}. Carry on with touch input; nothing "
                             "was lost.")
                else:
                    text = _("The sensor {source} is not answering: {state}. Carry on with touch input; nothing "
                             "was lost.")
                shown = self._not_answering[event.source] = text.format(source=event.source,
                                                                         state=_(GONE_WORDS[event.state]))
                self.table.show_notice(shown)
            elif event.state in ("connected", "hello") and \
                    self._not_answering.pop(event.source, None) == self.table.notice_text != "":
                # Back (a camera plugged in again, a sensor that answers): its warning, still up, is stale.
                self.table.clear_messages()
            return
        if isinstance(event, RejectedEvent):
            return
        if isinstance(event, RollingEvent) or (isinstance(event, ButtonEvent) and event.action != "down"):
            settle(self.hardware, event, recorded=True)  # dice moving, a button's `up` or `held`: heard, no more
            return
        source = record_source(event.source)
        ref = event.ref
        if ref is not None and (self._recorded(ref) or (self.session is not None and self.session.is_recorded(ref))):
            # A resend of a frame already in the journal (its answer was lost, or the app restarted since,
            # perhaps with no game or another game open now): answered, never played twice.
            settle(self.hardware, event, recorded=True)
            return
        if self.session is None:
            if isinstance(event, RollEvent) and ref is not None:
                self._hold(event)
            else:
                self._refuse_no_game(event)
            return
        if ref is not None and self._pending is not None and ref == self._pending.ref:  # resent while the table decides
            if not self.table.partial and "confirm" not in self.table.notice_choices:
                self._ask_about(self._pending)  # the question was cleared away meanwhile
            return  # answered together with the table's decision
        if isinstance(event, RollEvent):
            uncertain = [index for index, value in enumerate(event.values) if value == "?"]
            if event.uncertain and not uncertain:
                uncertain = list(range(len(event.values)))
            self.hardware_roll(list(event.values), uncertain, source, event)
        elif isinstance(event, ButtonEvent):
            self.press(event.name, source, event)
        else:  # the hourglass
            self.press("hourglass" if event.state == "flip" else "flat", source, event)

    def _hold(self, event: RollEvent) -> None:
        """A device's roll with no game open (the app restarted after a power cut, say, and the device
        resends the roll it never heard answered): kept unanswered, so the device keeps it too, and
        played once a game is resumed (`take_held`); a new game does not take it."""
        older = self._held.pop(event.source, None)
        if older is not None:  # stop and wait: a device's next roll means it gave up the older one
            settle(self.hardware, older, recorded=False, reason="table.no_game")
        self._held[event.source] = event
        self._held_changed()
        self._announce(_(HELD_ROLL))

    def take_held(self) -> list[RollEvent]:
        """The rolls held for the next Resume (see `_hold`), handed over and no longer held here."""
        held, self._held = list(self._held.values()), {}
        self._held_changed()
        return held

    def _held_changed(self) -> None:
        """Home says that a roll waits for Resume exactly while one is held."""
        self._tell_held(HELD_ROLL if self._held else "")

    def _refuse_no_game(self, event: BridgeEvent | None) -> None:
        """Input with no game to go to: the table is told on any screen, the device hears why."""
        if self.session is None:
            self._announce(_("No game is being played: start or resume one first. The input was not used."))
            settle(self.hardware, event, recorded=False, reason="table.no_game")
        else:
            self._announce(_("This game is over; start a new one to play on."))
            settle(self.hardware, event, recorded=False, reason="table.game_over")

    # -- buttons (GPIO, serial, keyboard, on-screen) -------------------------------------------------
    @in_turn
    def press(self, name: str, source: ActionSource = "keyboard", event: BridgeEvent | None = None) -> None:
        """A named button: the game's own meaning first (`button`), then the table-wide one.  Undo also
        works once the game is over (the last move was a mistake)."""
        if self.session is None or (self.session.is_over() and name != "undo"):
            self._refuse_no_game(event)
            return
        if name in ("confirm", "next") and self.table.notice_choices:
            settle(self.hardware, event, recorded=True)  # the confirmed roll is answered on its own
            self.answer_notice(self.table.notice_choices[0])
            return
        if name == "hourglass" and self.timer is not None and self.timer.paused:
            self.timer.resume()  # stood up again after lying flat: the sand runs on
            settle(self.hardware, event, recorded=True)
            return
        if self.button(name, source, event):
            return
        if name == "undo":
            self.undo(source, event)
        elif name == "flat" and self.timer is not None and self.timer.running:
            self.timer.pause()
            settle(self.hardware, event, recorded=True)
        elif name in ("flat", "hourglass", "next") and self.clocks is not None and self.clocks.active:
            self.clocks.hourglass(flat=name == "flat")  # laid flat: a break; stood up or next: play on
            settle(self.hardware, event, recorded=True)
        elif name.startswith("colour_") and len(name) == 8 and any(name[7] in faces for faces in self.table.dice):
            self.enter_die(name[7], source, event)  # Digger's colour buttons: one per face B Y R G W K
        elif name.startswith("value_") and name[6:].isdigit() and self.value_face(int(name[6:])) is not None:
            self.enter_die(self.value_face(int(name[6:])) or "", source, event)
        else:
            self.table.show_notice(_("The {button} button has no use right now; nothing changed.").format(
                button=name))
            settle(self.hardware, event, recorded=False, reason="input.no_use")

    def button(self, name: str, source: ActionSource, event: BridgeEvent | None) -> bool:
        """A game's own meaning of a button; True when handled (and the frame answered)."""
        if name == "confirm" or name == "next":
            action = self.confirm_action() if name == "confirm" else (self.confirm_action() or self.next_action())
            if action is not None:
                self.submit(action, source, event)
                return True
        return False

    def confirm_action(self) -> ActionModel | dict[str, Any] | None:
        """What `confirm` plays now besides answering a notice (e.g. the Pi's marked move)."""
        return None

    def next_action(self) -> ActionModel | dict[str, Any] | None:
        """What `next` plays to pass play on when nothing waits to be confirmed (e.g. End the turn)."""
        return None

    def value_face(self, number: int) -> str | None:
        """The face the button value_<number> enters: the number-th face of the die that is due, in the
        order the keypad shows them (1-6 on pip dice; L first on Goldgräber's; B Y R G W K in Digger)."""
        dice = self.table.dice
        if not dice:
            return None
        faces = dice[min(self.table.next_die(), len(dice) - 1)]
        return faces[number - 1] if 1 <= number <= len(faces) else None

    # -- keyboard ------------------------------------------------------------------------------------
    @in_turn
    def on_key(self, keycode: int, codepoint: str | None, modifiers: list[str]) -> None:
        """PC stand-ins (`table_key`): Space rolls for you, letters enter dice faces or press buttons,
        digits are the value buttons, Ctrl+Z undoes; a face letter no die due shows does nothing."""
        char = (codepoint or "").lower()
        if keycode == SPACE:
            self.virtual_roll("keyboard")
        elif "ctrl" in modifiers and char == "z":
            self.undo("keyboard")
        elif char in KEY_BUTTONS:
            self.press(KEY_BUTTONS[char], "keyboard")
        elif char and char in KEY_VALUES:
            self.press(f"value_{char}", "keyboard")
        elif char and any(char.upper() in faces for faces in self.table.dice):
            self.enter_die(char.upper(), "keyboard")

    # -- playing -------------------------------------------------------------------------------------
    @in_turn
    def submit(self, action: ActionModel | dict[str, Any], source: ActionSource = "touch",
               event: BridgeEvent | None = None, then: Then = None) -> None:
        """Play an action through the Session.  Once the journal has it the hardware frame is answered, the
        table shows the move and `then(True)` runs; refused or not saved, the table says why, the frame
        hears it and `then(False)` runs."""
        session = self.session
        if session is None or session.is_over():
            if event is not None:
                self._refuse_no_game(event)
            tell(then, False)
            return
        actor = session.prompt().player
        session.submit_soon(action, source, partial(self._submitted, session, actor, action, event, then),
                            ref=frame_ref(event))

    def _submitted(self, session: Session, actor: int | None, action: ActionModel | dict[str, Any],
                   event: BridgeEvent | None, then: Then, outcome: Outcome) -> None:
        """The session's answer: the action is on disk (or refused, or could not be saved)."""
        if outcome.unsaved is not None:
            self.table.show_notice(_("Could not save the move, so it was not played: {problem}. Everything "
                                     "before it is saved: once that is put right, play the move again.").format(
                problem=notice_text(outcome.unsaved)))
            settle(self.hardware, event, recorded=False, reason="journal.failed")
        elif not outcome.accepted:
            assert outcome.refusal is not None
            self.table.show_refusal(outcome.refusal)
            self.table.refused_put_back(session.check(action)[0])
            settle(self.hardware, event, recorded=False, reason=outcome.refusal.code)
            self.on_refused()
        else:
            settle(self.hardware, event, recorded=True)
            self.table.accepted(actor, outcome.events)
            self.on_accepted(outcome.events)
            self.changed()
            if session.is_over():
                self.table.dispatch("on_game_over")
        tell(then, outcome.accepted)

    @in_turn
    def undo(self, source: ActionSource = "touch", event: BridgeEvent | None = None, then: Then = None) -> None:
        """Take back the last action (the undo is journalled before the button is answered)."""
        session = self.session
        if session is None:
            if event is not None:
                self._refuse_no_game(event)
            tell(then, False)
            return
        session.undo_soon(partial(self._undone, session.is_over(), session.state, event, then), source,
                          frame_ref(event))

    def _undone(self, was_over: bool, before: Any, event: BridgeEvent | None, then: Then, outcome: Outcome) -> None:
        if outcome.unsaved is not None:
            self.table.show_notice(_("Could not save the undo, so the move stands: {problem}. Undo again once that "
                                     "is put right.").format(problem=notice_text(outcome.unsaved)))
            settle(self.hardware, event, recorded=False, reason="journal.failed")
        elif not outcome.accepted:
            assert outcome.refusal is not None
            self.table.show_refusal(outcome.refusal)
            settle(self.hardware, event, recorded=False, reason=outcome.refusal.code)
        else:
            settle(self.hardware, event, recorded=True)
            self.table.undone(before)
            self.on_undone()
            self.changed()
            if was_over:
                self.show_table()  # the last move of the game taken back: play goes on at the table
        tell(then, outcome.accepted)

    @in_turn
    def virtual_roll(self, source: ActionSource = "virtual", then: Then = None) -> None:
        """Let the Pi roll the dice that are due (keyboard Space / "Roll for me")."""
        session = self.session
        action = None
        if session is not None and not session.is_over() and self.table.dice:
            action = session.virtual_roll_action()
        if action is None:
            tell(then, False)
        else:
            self.submit(action, source, then=then)

    def redraw_if_refused(self, accepted: bool) -> None:
        """`then` for a choice made of several taps: refused, the panel draws the picks as they are again."""
        if not accepted:
            self.changed()

    # -- dice from touch, keys, value buttons or sensors ---------------------------------------------
    @in_turn
    def enter_die(self, face: str, source: ActionSource = "touch", event: BridgeEvent | None = None) -> None:
        """The next die shows `face` (after a partly unreadable roll: the next die the sensors could not
        read); the roll is submitted once every die is known.  The entry so far is the TableModel's
        `entered`/`partial`, which the keypads bind to (no full redraw per die)."""
        table = self.table
        if table.partial:
            filled = list(table.partial)
            filled[filled.index("?")] = face
            if "?" in filled:
                table.partial = filled
                settle(self.hardware, event, recorded=True)
                return
            pending, self._pending = self._pending, None
            table.partial = []
            # A reading with gaps tapped in stays the device's, as a confirmed one does; none read: all touch.
            reader = pending.source if pending is not None and set(pending.values) != {"?"} else None
            self.submit_roll(filled, reader or source,
                             None if pending is None else pending.event, then=lambda accepted: settle(
                self.hardware, event, recorded=accepted, reason=None if accepted else "roll.refused"))
            return
        if not table.dice or len(table.entered) >= len(table.dice):
            settle(self.hardware, event, recorded=False, reason="roll.not_expected")
            return
        table.entered = [*table.entered, face]
        if len(table.entered) == len(table.dice):
            self.submit_roll(list(table.entered), source, event)
        else:
            settle(self.hardware, event, recorded=True)

    @in_turn
    def clear_entry(self) -> None:
        """Clear the keypad (also drops a partly read roll: the table enters the whole roll by touch)."""
        self._drop_pending("roll.entered_by_touch")
        self.table.entered = []
        self.table.partial = []

    @in_turn
    def submit_roll(self, values: list[str], source: ActionSource, event: BridgeEvent | None = None,
                    then: Then = None) -> None:
        """Submit dice values; a value a die does not have, or a missing die, asks for touch entry."""
        table = self.table
        refused = self._roll_refusal(values)
        if refused is not None:
            table.show_notice(refused[0])
            settle(self.hardware, event, recorded=False, reason=refused[1])
            tell(then, False)
            return
        table.entered = []
        self.submit({"type": table.roll_action, "values": values}, source, event, then=then)

    def _roll_refusal(self, values: list[str]) -> tuple[str, str] | None:
        """Why these values cannot be the roll that is due (what the table is told, the device's reason)."""
        table = self.table
        if not table.roll_action or not table.dice:
            return _("No dice roll is expected now; the roll was ignored."), "roll.not_expected"
        misfit = dice_misfit(table.dice, values)
        if misfit is None:
            return None
        if misfit.die is None:
            got, want = misfit.got, misfit.want
            return _("{read} but {needed}; please enter the roll by touch.").format(
                read=n_("{got} die was read", "{got} dice were read", got).format(got=got),
                needed=n_("{want} is needed", "{want} are needed", want).format(want=want)), "roll.wrong_count"
        return _("Die {n} showed '{value}', which it cannot show; please enter the roll by touch.").format(
            n=misfit.die + 1, value=misfit.value), "roll.bad_face"

    @in_turn
    def hardware_roll(self, values: list[str], uncertain: list[int], source: ActionSource,
                      event: BridgeEvent | None = None) -> None:
        """A roll read by sensors: certain values are played, uncertain ones are confirmed first, and dice
        the sensors could not read at all (`?`) are tapped in on the keypad.  Until the table answers,
        the frame stays unanswered (the device keeps it), so a restart asks again."""
        table = self.table
        if not self.playing:
            self._refuse_no_game(event)
            return
        if self._pending is not None:  # rolled again before the table answered: the dice show this roll now
            self._drop_pending("roll.superseded")
            table.partial = []
            table.clear_messages()
        if not uncertain:
            self.submit_roll(values, source, event)
            return
        self._pending = pending = PendingRoll(values, uncertain, source, event)
        if "?" in values and len(values) == len(table.dice):
            table.clear_messages()
            table.entered = []
            doubts = self._camera_doubts(event)
            table.partial_reasons = [] if doubts is None else list(doubts.reasons)
            table.partial = list(values)  # the keypad asks for the unread dice only ("Clear": whole roll)
            return
        self._ask_about(pending)

    def _camera_doubts(self, event: BridgeEvent | None) -> CameraDoubts | None:
        """Which dice of the roll behind `event` the camera doubted, and why (None: not the camera's)."""
        return None if self.hardware is None else self.hardware.camera_doubts(event)

    def _face_text(self, face: str) -> str:
        """A die face as the table draws it in the current language (Digger's `Ge` for the wire's `Y`)."""
        from companion.app.tables import table_for

        written = None if self.session is None else getattr(table_for(self.session.setup.game), "face_letter", None)
        return face if written is None else str(written(face))

    def _ask_about(self, pending: PendingRoll) -> None:
        """Ask the table to confirm the uncertain reading (again, when the device resends it after the
        question was cleared away by other input)."""
        crops = (None if self.hardware is None else self.hardware.crops(pending.event)) or []
        doubts = self._camera_doubts(pending.event)
        doubtful = doubts.dice if doubts is not None and doubts.dice else pending.uncertain
        dice = ", ".join(str(index + 1) for index in doubtful)
        if doubts is not None and doubts.only_may_lean:
            text = n_("Die {dice} touches another die or the wall, so it may be cocked (read as {values}). If it "
                      "lies flat, confirm the reading; else enter the roll by touch.",
                      "Dice {dice} touch each other or the wall, so one may be cocked (read as {values}). If they "
                      "lie flat, confirm the reading; else enter the roll by touch.", len(doubtful))
        elif pending.source == "camera":  # the camera's own picture of each die is shown with it
            text = _("The camera is unsure about die {dice} (read as {values}). Confirm the reading, or enter "
                     "the roll by touch.")
        else:
            text = _("The sensors are unsure about die {dice} (read as {values}). Confirm the reading, or enter "
                     "the roll by touch.")
        text = text.format(dice=dice, values=" ".join(map(self._face_text, pending.values)))
        if doubts is not None and doubts.reasons and not doubts.only_may_lean:
            text += " " + _("Why: {reasons}.").format(reasons="; ".join(_(reason) for reason in doubts.reasons))
        self.table.show_notice(text, choices=["confirm", "touch"],
                               dice=[{"face": value, "uncertain": index in doubtful,
                                      "crop": crops[index] if index < len(crops) else None}
                                     for index, value in enumerate(pending.values)])

    @in_turn
    def answer_notice(self, choice: str) -> None:
        """The way on from a notice: confirm the uncertain reading, re-enter it by touch, or dismiss."""
        marked = bool(self.table.put_back_places)
        self.table.clear_messages()
        if marked:
            self.changed()  # the board stops marking what was to be put back
        if choice == "confirm" and self._pending is not None and not self.table.partial:
            pending, self._pending = self._pending, None
            self.submit_roll(pending.values, pending.source, pending.event)
        elif choice == "touch":
            self.clear_entry()

    def _drop_pending(self, reason: str) -> None:
        """An uncertain roll the table will not confirm: the device hears it was not recorded."""
        pending, self._pending = self._pending, None
        if pending is not None:
            settle(self.hardware, pending.event, recorded=False, reason=reason)

    # -- hooks for a game's flow ---------------------------------------------------------------------
    def on_opened(self) -> None:
        """A session was put on the table."""

    def on_accepted(self, events: tuple[Event, ...]) -> None:
        """An action was journalled and applied."""

    def on_refused(self) -> None:
        """An action was refused (the refusal is on screen)."""

    def on_undone(self) -> None:
        """The last action was taken back."""

    def show_table(self) -> None:
        """Bring the Table screen forward (e.g. the sand ran out while the Rules were open)."""
        self._show_table()


def kivy_call_soon(callback: Callable[[], None]) -> None:
    """Run `callback` on the UI thread before the next frame (from any thread: Kivy's Clock is thread-safe)."""
    from kivy.clock import Clock

    Clock.schedule_once(lambda _dt: callback(), -1)


def controller_class(game_id: str) -> type[TableController]:
    """The controller a game declares (`GamePlugin.controller`, imported now), or the base one for a game
    that declares none or is not installed (an empty table)."""
    from companion.engine.registry import GameUnavailable, load_part, plugin_for

    try:
        reference = plugin_for(game_id).controller
    except GameUnavailable:
        return TableController
    if reference is None:
        return TableController
    found = load_part(game_id, reference)
    assert isinstance(found, type) and issubclass(found, TableController), f"{reference} is no TableController"
    return found
