"""GPIO source: buttons, the hourglass tilt switch, seat LEDs and the buzzer on the Pi's header.

Debounce is our own (gpiozero's mock pins ignore `bounce_time`, and we want the same behaviour on the
bench and at the table): the *leading* edge of a change is accepted at once, so a press reaches the
app within a millisecond, and every edge in the following `debounce_ms` is contact bounce.  If the
bounce settles in the other state (a tap shorter than the debounce time) `tick()` catches up; `tick()`
also reports `held`.  The ticker thread runs `tick()` every few milliseconds only while an input is
settling or a button is down; otherwise it sleeps until the next edge (on the simulated Pi a 5 ms poll
of every input cost a third of a CPU core and took the interpreter from the UI thread 200 times a
second).  Time comes from an injected clock so tests can step it.

The pin backend is chosen by `open_pin_factory`, not by gpiozero's own search: that search warns four
times and ends in advice meant for a PC.  Ours tries the backends that work on Raspberry Pi OS quietly
and, if none loads, says in one sentence what to install on this machine.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Literal

from companion.engine.errors import UserError
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
from firmware_bridge.machine import raspberry_pi_model

log = logging.getLogger(__name__)

InputRole = Literal["button", "tilt", "flat"]

#: gpiozero pin factories that drive a Raspberry Pi's pins properly, in the order tried: lgpio (Raspberry
#: Pi OS Bookworm's python3-lgpio; the only one for a Pi 5), RPi.GPIO (or the rpi-lgpio shim that
#: provides it), pigpio.  gpiozero's experimental `native` fallback is not among them.
PI_FACTORIES: tuple[str, ...] = ("lgpio", "rpigpio", "pigpio")
#: With every input at rest the ticker looks at the pins this often, in case an edge's callback was lost.
IDLE_LOOK_SECONDS = 0.5


class GpioUnavailable(UserError):
    """No pin backend: the message is one sentence saying what to do on this machine."""


def open_pin_factory(model: str | None = None) -> Any:
    """A working gpiozero pin factory for this machine, tried without gpiozero's fallback warnings.

    `GPIOZERO_PIN_FACTORY` in the environment is obeyed as gpiozero would.  Otherwise the Pi backends are
    tried in turn; when none loads, GpioUnavailable says in one sentence what to install (`model` is
    `raspberry_pi_model()`, passed in so tests can pretend to be a Pi).
    """
    factories = {point.name: point for point in entry_points(group="gpiozero_pin_factories")}
    chosen = os.environ.get("GPIOZERO_PIN_FACTORY")
    if chosen:
        point = factories.get(chosen) or factories.get(chosen.lower())
        if point is None:
            raise GpioUnavailable(f"GPIOZERO_PIN_FACTORY={chosen} names no gpiozero pin backend "
                                  f"(known: {', '.join(sorted(factories))})")
        try:
            return point.load()()
        except Exception as error:  # noqa: BLE001 — any backend failure becomes one line
            raise GpioUnavailable(f"GPIOZERO_PIN_FACTORY={chosen} does not work here: {error}") from None
    failures: dict[str, Exception] = {}
    for name in PI_FACTORIES:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return factories[name].load()()
        except Exception as error:  # noqa: BLE001 — try the next backend, explain below
            failures[name] = error
    raise GpioUnavailable(pin_backend_advice(model, failures))


def pin_backend_advice(model: str | None, failures: dict[str, Exception]) -> str:
    """The one sentence for a machine where no Pi pin backend loaded."""
    if model is None:
        return ("no GPIO pins: this computer is not a Raspberry Pi (start the app with --no-gpio, or try the pin "
                "code with simulated pins: GPIOZERO_PIN_FACTORY=mock)")
    lgpio = failures.get("lgpio")
    if lgpio is not None and not isinstance(lgpio, ImportError):
        return (f"GPIO on this {model}: lgpio is installed but cannot open the GPIO chip ({lgpio}); add the user "
                f"to the gpio group (sudo usermod -aG gpio $USER) and log in again")
    return (f"GPIO on this {model}: no pin library for gpiozero; run `sudo apt install python3-lgpio` and make "
            f"Goldtable's venv with `python3 -m venv --system-site-packages` so it can import it "
            f"(docs/raspberry-pi.md)")


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
        """Without `pin_factory` the pin backend is checked here, so a machine without one fails before any
        source starts (GpioUnavailable, one sentence) and the app can go on with its other sources.
        `tick_interval=None` starts no ticker thread: the caller (a test) calls `tick()` itself."""
        self.name = name
        self.pin_map = pin_map
        self._factory = pin_factory if pin_factory is not None else open_pin_factory(raspberry_pi_model())
        self._clock = clock
        self._debounce = pin_map.debounce_ms / 1000.0
        self._hold = pin_map.hold_ms / 1000.0
        self._tick_interval = tick_interval
        self._inputs: list[_Input] = []
        self._leds: dict[str, Any] = {}
        self._buzzer: Any = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._edge = threading.Event()  # wakes the ticker: an input changed
        self._ticker: threading.Thread | None = None
        self.edges = 0
        self.bounces = 0
        self.events = 0

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "gpio",
            "name": self.name,
            "connected": self.connected,
            "pin_factory": type(self._factory).__name__,
            "pins": {label: pin for pin, label in self.pin_map.pin_uses()},
            "edges": self.edges,
            "bounces_ignored": self.bounces,
            "events": self.events,
        }

    def start(self, emit: Emit) -> None:
        """Claim the pins (gpiozero raises here if a pin is busy)."""
        from gpiozero import LED, Buzzer, DigitalInputDevice

        if self._emit is not None:
            return
        options = {"pin_factory": self._factory}
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
                device.when_activated = device.when_deactivated = self._edge_handler(channel)
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
        self._deliver(StatusEvent(source=self.name, state="connected",
                                  detail=f"{len(self._inputs)} inputs, {len(self._leds)} LEDs via "
                                         f"{type(self._factory).__name__}"))
        if self._tick_interval is not None:
            self._ticker = threading.Thread(target=self._tick_loop, name=f"{self.name}-ticker", daemon=True)
            self._ticker.start()

    def stop(self) -> None:
        self._stop.set()
        self._edge.set()
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
            try:
                device.close()
            except Exception as error:  # noqa: BLE001 — lgpio raises its own `lgpio.error`, not gpiozero's
                # gpiozero hands a closed pin back as an input; a line the kernel keeps busy ("GPIO busy", seen
                # on Bookworm) must not turn Settings -> Quit into a crash that the kiosk unit restarts.  The
                # process's lines are freed when it ends anyway.
                log.warning("%s: could not release %s: %s", self.name, device, error)

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

    def _edge_handler(self, channel: _Input) -> Callable[[], None]:
        """The callback for one input's edges.  The edge says only that the pin changed: what it changed
        to is read from the pin now.  Edges can arrive long after they happened (the pin library's
        callback thread waits for the interpreter while the UI thread draws a frame), and a switch's
        bounce replayed edge by edge, each more than the debounce time after the last, would read as
        several presses."""

        def on_edge() -> None:
            with self._lock:
                now = self._clock()
                self.edges += 1
                level = bool(channel.device.is_active)
                channel.raw = level
                if level != channel.stable and now - channel.changed_at >= self._debounce:
                    self._accept(channel, level, now)
                else:
                    self.bounces += 1
            self._edge.set()

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
        if self._emit is not None:
            self.events += 1
        super()._deliver(event)

    def _settling(self) -> bool:
        """Whether `tick()` has work soon: an input whose bounce may still settle, or a button down that
        has not yet been held long enough."""
        with self._lock:
            return any(channel.raw != channel.stable or (channel.role == "button" and channel.stable
                                                        and not channel.held_sent) for channel in self._inputs)

    def _tick_loop(self) -> None:
        interval = self._tick_interval or 0.005
        while not self._stop.is_set():
            if self._settling():
                self._stop.wait(interval)
            else:  # all quiet: sleep until an edge (and look now and then in case a pin's event was lost)
                self._edge.wait(IDLE_LOOK_SECONDS)
            self._edge.clear()
            if self._stop.is_set():
                return
            try:
                self.tick()
            except Exception:  # a pin read failing must not end debounce for every other input
                log.exception("%s: tick failed", self.name)

