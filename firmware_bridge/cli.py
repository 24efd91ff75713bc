"""`goldtable bridge monitor|simulate`: watch hardware events, or pretend to be a GTP/1 device."""

from __future__ import annotations

import argparse
import math
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from companion.engine.errors import UserError
from firmware_bridge.events import BridgeEvent
from firmware_bridge.hub import Bridge

_AUTO = "auto"
#: Mean seconds between random rolls of `bridge simulate`: faster floods the link, slower is a stopped game.
MIN_INTERVAL, MAX_INTERVAL = 0.05, 3600.0


def _human(event: BridgeEvent) -> str:
    """A short line for people watching the monitor without --json."""
    data = event.model_dump(exclude_none=True)
    kind, source = data.pop("event"), data.pop("source")
    details = " ".join(f"{key}={'/'.join(value) if isinstance(value, tuple) else value}"
                       for key, value in data.items())
    return f"{source:8s} {kind:9s} {details}"


@contextmanager
def _signals_stop() -> Iterator[threading.Event]:
    """Install SIGINT/SIGTERM handlers that set the returned event (before anything is printed, so a
    signal right after the first line cannot arrive unhandled); restore the old handlers after."""
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _wait(stop: threading.Event) -> None:
    """Sleep in short steps so the main thread gets to run the signal handler promptly."""
    while not stop.wait(0.5):
        pass


def check_serial_url(url: str) -> None:
    """Refuse now, in one line, a serial URL that can never work (unknown scheme, socket:// without a
    port number, ...), instead of retrying it forever.  A device that is merely absent is retried."""
    import serial

    if url == _AUTO:
        return
    try:
        port = serial.serial_for_url(url, do_not_open=True)  # unknown scheme -> ValueError
        scheme = url.partition("://")[0].lower() if "://" in url else ""
        if scheme in ("socket", "rfc2217"):
            parts = urlsplit(url)
            try:
                number = parts.port  # ValueError when not a number 0-65535
            except ValueError:
                number = None
            if not parts.hostname or number is None:
                raise UserError(f"--serial: {url}: expected {scheme}://HOST:PORT with a port number 0-65535")
            try:
                port.from_url(url)  # pyserial's own check of the ?options (its messages can be a KeyError)
            except (ValueError, KeyError, serial.SerialException):
                raise UserError(f"--serial: {url}: pyserial does not accept the options {parts.query!r}") \
                    from None
    except (ValueError, serial.SerialException) as error:
        raise UserError(f"--serial: {url}: {error}") from None


def build_bridge(serial_url: str | None, use_gpio: bool, config: str | None,
                 usb_ids: list[str] | None = None) -> Bridge:
    """The bridge the monitor (and the app) runs: a serial source and/or the GPIO source."""
    from firmware_bridge.serial_source import PICO_USB_IDS, SerialSource, parse_usb_id

    bridge = Bridge(auto_settle=True)  # nothing is recorded here: answer every event once printed
    if serial_url is not None:
        check_serial_url(serial_url)
        try:
            ids = tuple(parse_usb_id(text) for text in usb_ids) if usb_ids else PICO_USB_IDS
            bridge.add_source(SerialSource(None if serial_url == _AUTO else serial_url, usb_ids=ids))
        except ValueError as error:
            raise UserError(f"--serial: {error}") from None
    if use_gpio:
        from firmware_bridge.config import load_pin_map
        from firmware_bridge.gpio import GpioSource

        bridge.add_source(GpioSource(load_pin_map(config)))
    return bridge


def cmd_monitor(args: argparse.Namespace) -> int:
    serial_url = args.serial if args.serial is not None or args.gpio else _AUTO
    if args.config is not None and not args.gpio:
        raise UserError("--config: only used with --gpio")
    bridge = build_bridge(serial_url, args.gpio, args.config, args.usb_id)
    lock = threading.Lock()

    def show(event: BridgeEvent) -> None:
        line = event.to_json_line() if args.json else _human(event)
        with lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    bridge.subscribe(show)
    with _signals_stop() as stop:
        try:
            bridge.start()
        except Exception as error:  # noqa: BLE001 — no pin backend (GpioUnavailable says what to do), pin busy
            raise UserError(f"--gpio: cannot claim the pins: {error}") from None
        try:
            _wait(stop)
        finally:
            bridge.stop()
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from firmware_bridge.simulator import Noise, Simulator, load_script

    script = load_script(args.script) if args.script else None
    noise = Noise.parse(args.noise) if args.noise else Noise()
    if not 0 <= args.port <= 65535:
        raise UserError(f"--port: {args.port} is not a TCP port")
    if not (math.isfinite(args.interval) and MIN_INTERVAL <= args.interval <= MAX_INTERVAL):
        raise UserError(f"--interval: {args.interval:g} is outside {MIN_INTERVAL:g}..{MAX_INTERVAL:g} seconds")
    if not 1 <= args.dice <= 30:
        raise UserError(f"--dice: {args.dice} is outside 1..30")
    from firmware_bridge.events import FACE_TOKENS

    if not args.faces or not set(args.faces) <= FACE_TOKENS:
        raise UserError(f"--faces: use face tokens from {''.join(sorted(FACE_TOKENS))}")

    def log(message: str) -> None:
        print(message, flush=True)

    simulator = Simulator(args.port, use_pty=args.pty, script=script, play_random=script is None,
                          seed=args.seed, noise=noise, interval=args.interval, dice=args.dice,
                          faces=args.faces, log=log)
    with _signals_stop() as stop:
        try:
            simulator.start()
        except OSError as error:
            raise UserError(f"--port: cannot listen on 127.0.0.1:{args.port}: {error.strerror or error}") \
                from None
        log(f"listening on {simulator.url}")
        try:
            _wait(stop)
        finally:
            simulator.stop()
    return 0


def register(sub: Any) -> None:
    bridge = sub.add_parser("bridge", help="hardware bridge: watch events, or simulate a sensor device")
    bridge_sub = bridge.add_subparsers(dest="bridge_command", metavar="ACTION", required=True)

    p = bridge_sub.add_parser("monitor", help="print hardware events until Ctrl-C (SIGINT/SIGTERM)")
    p.add_argument("--serial", nargs="?", const=_AUTO, metavar="URL",
                   help="GTP/1 device: /dev/ttyACM0, socket://HOST:PORT, rfc2217://..., loop://; without a "
                        "URL, find it by USB id (the default when neither --serial nor --gpio is given)")
    p.add_argument("--usb-id", action="append", metavar="VID:PID",
                   help="USB id to look for (default 2E8A:0005, a Pico with MicroPython); repeatable")
    p.add_argument("--gpio", action="store_true", help="buttons, tilt switch, LEDs and buzzer on the GPIO header")
    p.add_argument("--config", metavar="FILE", help="GPIO pin map (default: the shipped pinmap.default.json)")
    p.add_argument("--json", action="store_true", help="one JSON object per event and line, nothing else")
    p.set_defaults(handler=cmd_monitor)

    p = bridge_sub.add_parser("simulate", help="a fake GTP/1 device on 127.0.0.1 (or a pty)")
    p.add_argument("--port", type=int, default=0, help="TCP port (default: any free port, printed at start)")
    p.add_argument("--pty", action="store_true", help="speak on a pseudo-terminal instead of TCP")
    p.add_argument("--script", metavar="FILE", help="steps to play (see docs/protocol.md); default: random play")
    p.add_argument("--noise", metavar="SPEC",
                   help="damage on purpose, e.g. all or checksum=0.2,split,merge,garbage,disconnect,outage=1.5")
    p.add_argument("--seed", type=int, help="seed for random play and noise (repeatable runs)")
    p.add_argument("--interval", type=float, default=2.0, help="mean seconds between random rolls")
    p.add_argument("--dice", type=int, default=2, help="dice per random roll")
    p.add_argument("--faces", default="123456", help="face tokens random rolls choose from")
    p.set_defaults(handler=cmd_simulate)
