"""GPIO source: buttons, the hourglass tilt switch, seat LEDs and the buzzer on the Pi's header.

Debounce is our own (gpiozero's mock pins ignore `bounce_time`, and we want the same behaviour on the
bench and at the table): the *leading* edge of a change is accepted at once, so a press reaches the
app within a millisecond, and every edge in the following `debounce_ms` is contact bounce.  If the
bounce settles in the other state (a tap shorter than the debounce time) the periodic `tick()` catches
up; `tick()` also reports `held`.  Time comes from an injected clock so tests can step it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from firmware_bridge.config import PinMap
from firmware_bridge.events import (
    BeepCommand,
    BridgeEvent,
    ButtonEvent,
    LedCommand,
    OutputCommand,
    StatusEvent,
    TimerEvent,
)
from firmware_bridge.hub import Emit, Source

log = logging.getLogger(__name__)

InputRole = Literal["button", "tilt", "flat"]


@dataclass
class _Input:
    """One debounced input: what the pin last said, what we last accepted, and when."""

    name: str
    role: InputRole
    device: Any
    stable: bool = False
    raw: bool = False
    changed_at: float = float("-inf")
    held_sent: bool = False


class GpioSource(Source):
    """Inputs and outputs wired to the Pi's GPIO header as described by a `PinMap`."""

    has_outputs = True

    def __init__(self, pin_map: PinMap, pin_factory: Any = None, clock: Callable[[], float] = time.monotonic,
                 *, name: str = "gpio", tick_interval: float | None = 0.005) -> None:
        """`tick_interval=None` starts no ticker thread: the caller (a test) calls `tick()` itself."""
        self.name = name
        self.pin_map = pin_map
        self._factory = pin_factory
        self._clock = clock
        self._debounce = pin_map.debounce_ms / 1000.0
        self._hold = pin_map.hold_ms / 1000.0
        self._tick_interval = tick_interval
        self._inputs: list[_Input] = []
        self._leds: dict[str, Any] = {}
        self._buzzer: Any = None
        self._emit: Emit | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self.edges = 0
        self.bounces = 0
        self.events = 0

    @property
    def connected(self) -> bool:
        return self._emit is not None

    def describe(self) -> dict[str, Any]:
        factory = self._factory or _default_factory()
        return {
            "kind": "gpio",
            "name": self.name,
            "connected": self.connected,
            "pin_factory": type(factory).__name__ if factory is not None else None,
            "pins": {label: pin for pin, label in self.pin_map.pin_uses()},
            "edges": self.edges,
            "bounces_ignored": self.bounces,
            "events": self.events,
        }

    def start(self, emit: Emit) -> None:
        """Claim the pins (gpiozero raises here if a pin is busy or no pin factory is available)."""
        from gpiozero import LED, Buzzer, DigitalInputDevice

        if self._emit is not None:
            return
        options = {"pin_factory": self._factory} if self._factory is not None else {}
        claimed: list[Any] = []
        try:
            wiring: list[tuple[str, InputRole, int]] = [(n, "button", p) for n, p in self.pin_map.buttons.items()]
            if self.pin_map.timer_tilt is not None:
                wiring.append(("timer_tilt", "tilt", self.pin_map.timer_tilt))
            if self.pin_map.timer_flat is not None:
                wiring.append(("timer_flat", "flat", self.pin_map.timer_flat))
            for input_name, role, pin in wiring:
                device = DigitalInputDevice(pin, pull_up=self.pin_map.pull_up, bounce_time=None, **options)
                claimed.append(device)
                state = bool(device.is_active)
                channel = _Input(input_name, role, device, stable=state, raw=state)
                device.when_activated = self._edge_handler(channel, True)
                device.when_deactivated = self._edge_handler(channel, False)
                self._inputs.append(channel)
            for led_name, pin in self.pin_map.leds.items():
                self._leds[led_name] = LED(pin, **options)
                claimed.append(self._leds[led_name])
            if self.pin_map.buzzer is not None:
                self._buzzer = Buzzer(self.pin_map.buzzer, **options)
                claimed.append(self._buzzer)
        except BaseException:
            for device in claimed:
                device.close()
            self._inputs.clear()
            self._leds.clear()
            self._buzzer = None
            raise
        self._emit = emit
        self._stop.clear()
        factory = self._factory or _default_factory()
        self._deliver(StatusEvent(source=self.name, state="connected",
                                  detail=f"{len(self._inputs)} inputs, {len(self._leds)} LEDs via "
                                         f"{type(factory).__name__}"))
        if self._tick_interval is not None:
            self._ticker = threading.Thread(target=self._tick_loop, name=f"{self.name}-ticker", daemon=True)
            self._ticker.start()

    def stop(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        with self._lock:
            self._emit = None
            devices = [channel.device for channel in self._inputs] + list(self._leds.values())
            if self._buzzer is not None:
                devices.append(self._buzzer)
            self._inputs.clear()
            self._leds.clear()
            self._buzzer = None
        for device in devices:
            device.close()

    def send(self, command: OutputCommand) -> None:
        """LEDs on/off/blink (a quarter second each way) and beeps; unknown LED names are logged."""
        if isinstance(command, LedCommand):
            led = self._leds.get(command.name)
            if led is None:
                log.warning("%s: no LED named %r in the pin map", self.name, command.name)
            elif command.mode == "on":
                led.on()
            elif command.mode == "off":
                led.off()
            else:
                led.blink(on_time=0.25, off_time=0.25, background=True)
        elif isinstance(command, BeepCommand) and self._buzzer is not None:
            self._buzzer.blink(on_time=command.ms / 1000.0, off_time=0.0, n=1, background=True)

    def tick(self) -> None:
        """Settle inputs whose bounce ended in the other state, and report buttons held long enough."""
        with self._lock:
            now = self._clock()
            for channel in self._inputs:
                channel.raw = bool(channel.device.is_active)
                if channel.raw != channel.stable and now - channel.changed_at >= self._debounce:
                    self._accept(channel, channel.raw, now)
                if (channel.role == "button" and channel.stable and not channel.held_sent
                        and now - channel.changed_at >= self._hold):
                    channel.held_sent = True
                    self._deliver(ButtonEvent(source=self.name, name=channel.name, action="held"))

    def _edge_handler(self, channel: _Input, active: bool) -> Callable[[], None]:
        def on_edge() -> None:
            with self._lock:
                now = self._clock()
                self.edges += 1
                channel.raw = active
                if active != channel.stable and now - channel.changed_at >= self._debounce:
                    self._accept(channel, active, now)
                else:
                    self.bounces += 1

        return on_edge

    def _accept(self, channel: _Input, active: bool, now: float) -> None:
        """A real change of state: remember it and say what it means."""
        channel.stable = active
        channel.changed_at = now
        if channel.role == "button":
            channel.held_sent = False
            self._deliver(ButtonEvent(source=self.name, name=channel.name, action="down" if active else "up"))
        elif channel.role == "tilt":
            self._deliver(TimerEvent(source=self.name, state="flip"))
        elif active:
            self._deliver(TimerEvent(source=self.name, state="flat"))

    def _deliver(self, event: BridgeEvent) -> None:
        emit = self._emit
        if emit is not None:
            self.events += 1
            emit(event)

    def _tick_loop(self) -> None:
        interval = self._tick_interval or 0.005
        while not self._stop.wait(interval):
            try:
                self.tick()
            except Exception:  # a pin read failing must not end debounce for every other input
                log.exception("%s: tick failed", self.name)


def _default_factory() -> Any:
    from gpiozero import Device

    return Device.pin_factory
