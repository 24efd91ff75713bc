"""`goldtable app` (start the touchscreen app) and `goldtable screenshot` (render a screen to PNG).

Kivy is imported only inside the handlers, so other `goldtable` commands stay fast.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from companion.engine.errors import UserError

SIZE = re.compile(r"^(\d{3,4})x(\d{3,4})$")


def parse_size(text: str | None) -> tuple[int, int] | None:
    """`800x480` -> (800, 480); a bad value is a one-line UserError."""
    if text is None:
        return None
    match = SIZE.match(text)
    if not match:
        raise UserError(f"--size: {text!r} is not WIDTHxHEIGHT, e.g. 800x480")
    return int(match.group(1)), int(match.group(2))


def cmd_app(args: argparse.Namespace) -> int:
    from companion.app.launch import run_app

    run_app(size=parse_size(args.size), fullscreen=args.fullscreen, serial_url=args.serial,
            gpio=not args.no_gpio, journal=Path(args.journal) if args.journal else None)
    return 0


def cmd_screenshot(args: argparse.Namespace) -> int:
    from companion.app.launch import SCREENSHOT_SCREENS, run_screenshot

    if args.screen not in SCREENSHOT_SCREENS:
        raise UserError(f"SCREEN: {args.screen!r} is not a screen (known: {', '.join(SCREENSHOT_SCREENS)})")
    if args.lang not in ("en", "de", "fr"):
        raise UserError(f"--lang: {args.lang!r} is not one of en, de, fr")
    run_screenshot(args.screen, Path(args.output), parse_size(args.size) or (800, 480), args.lang, args.game)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("app", help="start the touchscreen app")
    p.add_argument("--size", help="window size WIDTHxHEIGHT (default 800x480, the Pi 7\" screen)")
    p.add_argument("--fullscreen", action="store_true", help="full screen (default on a Raspberry Pi)")
    p.add_argument("--serial", metavar="URL", help="serial sensor, e.g. /dev/ttyACM0 or socket://localhost:7777")
    p.add_argument("--no-gpio", action="store_true", help="do not use the GPIO pins even on a Pi")
    p.add_argument("--journal", metavar="FILE", help="game journal (default: the user's data directory)")
    p.set_defaults(handler=cmd_app)

    p = subparsers.add_parser("screenshot", help="render one app screen with a demo game to a PNG")
    p.add_argument("screen", help="home, players, options, setup, table, timer, end, hardware, settings, rules, "
                                  "refusal, notice, history, stats, clocks, undo")
    p.add_argument("output", help="PNG file to write")
    p.add_argument("--size", help="WIDTHxHEIGHT (default 800x480)")
    p.add_argument("--lang", default="en", help="en, de or fr")
    p.add_argument("--game", default="digger", help="game id for the game screens (default digger)")
    p.set_defaults(handler=cmd_screenshot)
