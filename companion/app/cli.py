"""`goldtable app` (start the touchscreen app) and `goldtable screenshot` (render a screen to PNG).

Kivy is imported only inside the handlers, so other `goldtable` commands stay fast.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from companion.app.settings import DEFAULT_GAME
from companion.engine.errors import UserError

VERBOSE_HELP = "show Kivy's log on stderr too (it always goes to kivy.log in the data folder)"
SIZE = re.compile(r"^(\d{3,4})x(\d{3,4})$")
#: Smaller than this the screens do not fit; larger is beyond any screen and slow to draw offscreen.
MIN_SIZE, MAX_SIDE = (320, 240), 4096


def parse_size(text: str | None) -> tuple[int, int] | None:
    """`800x480` -> (800, 480); a bad value is a one-line UserError."""
    if text is None:
        return None
    match = SIZE.match(text)
    if not match:
        raise UserError(f"--size: {text!r} is not WIDTHxHEIGHT, e.g. 800x480")
    width, height = int(match.group(1)), int(match.group(2))
    if not (MIN_SIZE[0] <= width <= MAX_SIDE and MIN_SIZE[1] <= height <= MAX_SIDE):
        raise UserError(f"--size: {text} is outside {MIN_SIZE[0]}x{MIN_SIZE[1]} ... {MAX_SIDE}x{MAX_SIDE}")
    return width, height


def cmd_app(args: argparse.Namespace) -> int:
    from companion.cli import journal_option
    from companion.engine.journal import JournalLock, default_path, refuse_if_not_a_journal
    from firmware_bridge.cli import check_serial_url

    size = parse_size(args.size)
    if args.serial is not None:
        check_serial_url(args.serial)  # the same refusal as `goldtable bridge monitor --serial`
    given = journal_option(args.journal)
    journal = _journal_path(given) if given is not None else None
    refuse_if_not_a_journal(journal or default_path())  # e.g. `--journal game.json`: one line, file untouched
    with JournalLock(journal):  # a second app on the same journal stops here, before a window opens
        from companion.app.launch import run_app

        run_app(size=size, fullscreen=args.fullscreen, serial_url=args.serial, gpio=not args.no_gpio,
                journal=journal, offscreen=args.offscreen, verbose=args.verbose)
    return 0


def _journal_path(path: Path) -> Path:
    """`--journal FILE` checked before the window opens: a folder is no journal, and a folder that cannot
    be made would only fail once the app is on screen."""
    if path.is_dir():
        raise UserError(f"--journal: {path} is a folder; give the journal's file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"--journal: cannot create {path.parent}: {error.strerror or error}") from None
    return path


def cmd_screenshot(args: argparse.Namespace) -> int:
    from companion.app.launch import BOARD_SCREENS, SCREENSHOT_SCREENS, run_screenshot
    from companion.engine.registry import all_games, plugin_for
    from companion.headless import check_png_output

    known = (*SCREENSHOT_SCREENS, *BOARD_SCREENS)
    if args.screen not in known:
        raise UserError(f"SCREEN: {args.screen!r} is not a screen (known: {', '.join(known)})")
    games = sorted(all_games())
    if args.screen in BOARD_SCREENS and args.game in games:
        with_board = [game for game in games if any(layout.board for layout in plugin_for(game).layouts)]
        if args.game not in with_board:
            raise UserError(f"SCREEN: {args.screen!r} shows a game's board: add --game with one "
                            f"({', '.join(with_board)})")
    if args.lang not in ("en", "de", "fr"):
        raise UserError(f"--lang: {args.lang!r} is not one of en, de, fr")
    if args.game not in games:
        raise UserError(f"--game: {args.game!r} is not a game (known: {', '.join(games)})")
    if args.moves < 0:
        raise UserError(f"--moves: {args.moves} is less than 0")
    size = parse_size(args.size) or (800, 480)
    output = Path(args.output)
    check_png_output(output, "OUTPUT", args.replace)
    run_screenshot(args.screen, output, size, args.lang, args.game, verbose=args.verbose, moves=args.moves)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("app", help="start the touchscreen app")
    p.add_argument("--size", help="window size WIDTHxHEIGHT (default 800x480, the Pi 7\" screen)")
    p.add_argument("--fullscreen", action="store_true", help="full screen (default on a Raspberry Pi)")
    p.add_argument("--serial", metavar="URL", help="serial sensor, e.g. /dev/ttyACM0 or socket://localhost:7777")
    p.add_argument("--no-gpio", action="store_true", help="do not use the GPIO pins even on a Pi")
    p.add_argument("--journal", metavar="FILE", help="game journal (default: the user's data directory)")
    p.add_argument("--offscreen", action="store_true",
                   help="run without a screen (tests, checks); otherwise a missing display is an error")
    p.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    p.set_defaults(handler=cmd_app)

    p = subparsers.add_parser("screenshot", help="render one app screen with a demo game to a PNG")
    p.add_argument("screen", help="home, players, options, setup, table, timer, end, hardware, settings, rules, "
                                  "refusal, notice, history, stats, clocks, undo, loupe; "
                                  "line (a board's first tap: --game with a board)")
    p.add_argument("output", help="PNG file to write")
    p.add_argument("--replace", action="store_true", help="draw over OUTPUT if it is already there")
    p.add_argument("--size", help="WIDTHxHEIGHT (default 800x480)")
    p.add_argument("--lang", default="en", help="en, de or fr")
    p.add_argument("--game", default=DEFAULT_GAME, help=f"game id for the game screens (default {DEFAULT_GAME})")
    p.add_argument("--moves", type=int, default=0,
                   help="the table's screens: play this many more demo moves first (fewer if the game ends)")
    p.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    p.set_defaults(handler=cmd_screenshot)
