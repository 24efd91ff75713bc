"""A chess clock for games without a sand timer: a time bank per player and an optional per-turn limit.

Pure and clock-injected like `countdown.py`: the app calls `poll()` as often as it likes and hears each
alert once (turn or bank running low, turn or bank used up).  Time never enters the rules: running
over is an alert for the table, not a move, so records stay deterministic.  `snapshot()` and
`TimeBank.restored()` carry a bank across a restart of the app (the journal keeps the snapshot); time
while no bank ran is charged to no one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pydantic import TypeAdapter

Clock = Callable[[], float]
AlertKind = Literal["turn_low", "turn_over", "bank_low", "bank_over"]


@dataclass(frozen=True)
class Alert:
    """Something the table should hear about now, for one seat."""

    kind: AlertKind
    seat: int


@dataclass(frozen=True)
class Reading:
    """What the clock shows for the seat whose time runs (None before the first turn)."""

    seat: int | None
    paused: bool
    turn_used: float
    turn_left: float | None  # None without a per-turn limit
    bank_left: float | None  # None without a bank; negative in overtime
    overtime: bool


@dataclass(frozen=True)
class BankState:
    """A bank at one moment, all a restarted app needs to go on: the limits it was started with, time
    charged per seat, the running turn (whose, how long so far, paused or not) and the alerts that
    turn already heard.  Overtime is not kept apart: it follows from the time used and the limits."""

    used: tuple[float, ...]
    seat: int | None = None
    turn: float = 0.0
    paused: bool = False
    fired: tuple[AlertKind, ...] = ()
    bank_seconds: float | None = None
    turn_seconds: float | None = None

    def __post_init__(self) -> None:
        if not self.used or min(self.used) < 0 or self.turn < 0:
            raise ValueError("a time bank needs one non-negative time per seat")
        if self.seat is not None and not 0 <= self.seat < len(self.used):
            raise ValueError(f"seat {self.seat} is not one of {len(self.used)} seats")
        if any(limit is not None and limit <= 0 for limit in (self.bank_seconds, self.turn_seconds)):
            raise ValueError("limits must be positive")

    def totals(self) -> list[float]:
        """Seconds used per seat, the running turn included (what the End screen shows)."""
        return [used + (self.turn if seat == self.seat else 0.0) for seat, used in enumerate(self.used)]

    def to_json(self) -> str:
        return _state_adapter().dump_json(self).decode()

    @classmethod
    def from_json(cls, text: str | bytes) -> BankState:
        """The state saved by `to_json`; ValueError (pydantic's ValidationError) when it is not one."""
        return _state_adapter().validate_json(text)


@cache
def _state_adapter() -> TypeAdapter[BankState]:
    """Built on the first save or restore: the Home screen imports this module before its first frame,
    and building the adapter there (importing pydantic with it) cost that frame about 100 ms."""
    from pydantic import TypeAdapter

    return TypeAdapter(BankState)


class TimeBank:
    """Time per seat.  `bank_seconds` is each player's whole allowance (None: no bank, only counting);
    `turn_seconds` limits one turn (None: no limit).  `warn_seconds` before either runs out, a
    `*_low` alert fires once per turn; at zero, a `*_over` alert."""

    def __init__(self, players: int, bank_seconds: float | None = None, turn_seconds: float | None = None,
                 warn_seconds: float = 10.0, clock: Clock = time.monotonic) -> None:
        if players < 1:
            raise ValueError(f"a time bank needs at least one player, not {players}")
        for name, value in (("bank_seconds", bank_seconds), ("turn_seconds", turn_seconds)):
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, not {value}")
        self.bank_seconds = bank_seconds
        self.turn_seconds = turn_seconds
        self.warn_seconds = warn_seconds
        self._clock = clock
        self._used = [0.0] * players  # charged time, the running turn not included
        self._seat: int | None = None
        self._since: float | None = None  # when the running stretch began; None while paused
        self._turn_before = 0.0  # time of this turn before the last pause
        self._fired: set[AlertKind] = set()

    # -- control -----------------------------------------------------------------------------------
    def start_turn(self, seat: int) -> None:
        """`seat`'s turn begins now (the previous seat is charged up to now).  Keeps a pause in force."""
        self._charge()
        paused = self._seat is not None and self._since is None
        self._seat = seat
        self._turn_before = 0.0
        self._since = None if paused else self._clock()
        self._fired = set()

    def pause(self) -> None:
        """Stop the running clock (a break, the hourglass laid flat)."""
        if self._since is not None:
            self._turn_before += self._clock() - self._since
            self._since = None

    def resume(self) -> None:
        """Run the clock of the current seat again."""
        if self._seat is not None and self._since is None:
            self._since = self._clock()

    @property
    def paused(self) -> bool:
        return self._seat is not None and self._since is None

    def _charge(self) -> None:
        if self._seat is not None:
            self._used[self._seat] += self._turn_time()

    def _turn_time(self) -> float:
        running = self._clock() - self._since if self._since is not None else 0.0
        return self._turn_before + running

    # -- keeping across a restart ----------------------------------------------------------------------
    def snapshot(self) -> BankState:
        """The bank now, the running turn's time included (see `restored`)."""
        return BankState(used=tuple(self._used), seat=self._seat, turn=self._turn_time(), paused=self.paused,
                         fired=tuple(sorted(self._fired)), bank_seconds=self.bank_seconds,
                         turn_seconds=self.turn_seconds)

    @classmethod
    def restored(cls, state: BankState, warn_seconds: float = 10.0, clock: Clock = time.monotonic) -> TimeBank:
        """A bank that goes on where `state` stopped: the running turn runs again from now (unless it was
        paused), so the time between the snapshot and now is charged to no one."""
        bank = cls(len(state.used), state.bank_seconds, state.turn_seconds, warn_seconds, clock)
        bank._used = list(state.used)
        bank._seat = state.seat
        if state.seat is not None:
            bank._turn_before = state.turn
            bank._since = None if state.paused else clock()
            bank._fired = set(state.fired)
        return bank

    # -- reading -----------------------------------------------------------------------------------
    def used(self, seat: int) -> float:
        """Seconds `seat` has used so far, the running turn included."""
        return self._used[seat] + (self._turn_time() if seat == self._seat else 0.0)

    def totals(self) -> list[float]:
        """Seconds used per seat (for the End screen)."""
        return [self.used(seat) for seat in range(len(self._used))]

    def reading(self) -> Reading:
        seat = self._seat
        turn = self._turn_time() if seat is not None else 0.0
        turn_left = None if self.turn_seconds is None else self.turn_seconds - turn
        bank_left = None if self.bank_seconds is None or seat is None else self.bank_seconds - self.used(seat)
        over = (turn_left is not None and turn_left <= 0) or (bank_left is not None and bank_left <= 0)
        return Reading(seat=seat, paused=self.paused, turn_used=turn, turn_left=turn_left, bank_left=bank_left,
                       overtime=seat is not None and over)

    def poll(self) -> list[Alert]:
        """Alerts newly due since the last poll (each kind once per turn), most urgent last."""
        now = self.reading()
        if now.seat is None:
            return []
        due: list[AlertKind] = []
        for left, low, over in ((now.turn_left, "turn_low", "turn_over"), (now.bank_left, "bank_low", "bank_over")):
            if left is None:
                continue
            if left <= self.warn_seconds:
                due.append(low)  # type: ignore[arg-type]
            if left <= 0:
                due.append(over)  # type: ignore[arg-type]
        fresh = [kind for kind in due if kind not in self._fired]
        self._fired.update(fresh)
        return [Alert(kind=kind, seat=now.seat) for kind in fresh]


def clock_text(seconds: float, left: bool = True) -> str:
    """`m:ss`, a minus sign in overtime (`-0:07`).  Time left rounds up (4.2 s left shows 0:05, as a
    counting-down clock does); time used (`left=False`) rounds down."""
    sign = "-" if seconds < 0 else ""
    whole = math.ceil(seconds) if left and seconds > 0 else int(abs(seconds))
    return f"{sign}{whole // 60}:{whole % 60:02d}"
