"""Prepare Kivy before its first import (window driver, its log in a file), find out whether there is a
screen to open a window on, and save widgets as PNG files.

Kivy reads its environment when first imported, so every entry point that draws (the app, screenshots,
board renders, tests) calls `prepare_kivy` first.  Kivy logs a lot on every start, including tracebacks
for optional libraries a PC lacks (libmtdev, xclip); none of that is ours to show, so it goes to
`kivy.log` beside Kivy's config in the data folder, and to stderr only with `--verbose`.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import sys
from collections.abc import Mapping
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

from companion.engine.errors import UserError

_LOG_HANDLER = "goldtable-kivy-log"
#: How long to wait for a display server to accept a connection before calling it dead.
DISPLAY_TIMEOUT = 3.0


def kivy_home() -> Path:
    """Kivy's own folder (config.ini, kivy.log): `$KIVY_HOME`, else `kivy/` beside the journal."""
    if "KIVY_HOME" in os.environ:
        return Path(os.environ["KIVY_HOME"])
    from companion.engine.paths import data_dir

    return data_dir() / "kivy"


def prepare_kivy(size: tuple[int, int] | None = None, offscreen: bool = True, verbose: bool = False) -> None:
    """Set Kivy's environment, log and window size.  `offscreen` draws without any screen (SDL's
    offscreen driver); otherwise the caller has chosen a real driver (see `find_display`)."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ["KIVY_LOG_MODE"] = "PYTHON"  # Kivy adds no handlers and leaves sys.stderr alone
    home = kivy_home()
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"{home}: cannot create Kivy's folder: {error.strerror or error}") from None
    os.environ["KIVY_HOME"] = str(home)  # Kivy's config and log live beside our journal, not in ~/.kivy
    _route_kivy_log(home / "kivy.log", verbose)
    if offscreen:
        os.environ["SDL_VIDEODRIVER"] = "offscreen"
    from kivy.config import Config

    if offscreen:  # no touch screen to read: skip the device probe (and the mtdev provider it starts)
        Config.remove_option("input", "%(name)s")
    if size is not None:
        Config.set("graphics", "width", str(size[0]))
        Config.set("graphics", "height", str(size[1]))
        Config.set("graphics", "resizable", "0")


def flush_offscreen_frames() -> None:
    """After each frame of SDL's offscreen window, let the renderer finish drawing it (`glFinish`).

    A real window's buffer swap does that (Mesa's llvmpipe waits until the frame is drawn before showing
    it); the offscreen window's swap does nothing. Without it the software renderer kept every frame's
    commands queued (64 KB and more a frame, up to some 1,000 frames). With only a flush, a loop faster
    than the renderer's threads still made llvmpipe set up a new "scene" per frame, up to 64, each kept
    for good with the textures it used: a starved renderer kept 94 MB once (tests/app/test_offscreen_flush.py).
    """
    from kivy.core.window import Window
    from kivy.graphics.opengl import glFinish

    Window.bind(on_flip=lambda *_args: glFinish())


def _route_kivy_log(path: Path, verbose: bool) -> None:
    """Kivy's logger (a plain `logging` logger in PYTHON mode) writes to `path`, not to stderr; so does the
    bridge's (sources coming and going, writes that failed), from INFO up: when a sensor drops out, the log
    says when and why.  The bridge's warnings still reach stderr (the kiosk unit's journal) as well."""
    logger = logging.getLogger("kivy")
    logger.propagate = False  # else Python's last-resort handler prints warnings on stderr
    bridge = logging.getLogger("firmware_bridge")
    if not any(handler.get_name() == _LOG_HANDLER for handler in logger.handlers):
        handler: logging.Handler
        try:
            handler = RotatingFileHandler(path, maxBytes=1_000_000, backupCount=1, encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
        except OSError:  # a read-only data folder: Kivy's chatter is not worth failing for
            handler = logging.NullHandler()
        handler.set_name(_LOG_HANDLER)
        handler.addFilter(_no_cut_buffer_probe)
        logger.addHandler(handler)
        bridge.addHandler(handler)
        bridge.setLevel(logging.INFO)
    if verbose and not any(getattr(handler, "stream", None) is sys.stderr for handler in logger.handlers):
        logger.addHandler(logging.StreamHandler(sys.stderr))


def _no_cut_buffer_probe(record: logging.LogRecord) -> bool:
    """Drop Kivy's report that it found no X11 cut buffer (the middle-click selection, probed through the
    `xclip` and `xsel` programs when a text field first appears): a CRITICAL line and two stack traces
    at every start on a Pi, where neither program is installed and nothing needs them (the clipboard is
    SDL's), which would send anyone reading the log after a fault the wrong way."""
    return not (record.levelno == logging.CRITICAL and str(record.msg).startswith("Cutbuffer: Unable"))


# -- is there a screen? -------------------------------------------------------------------------------

NO_DISPLAY_HELP = ("run it on the desktop of the Pi (or set DISPLAY / WAYLAND_DISPLAY to a running one), "
                   "with SDL_VIDEODRIVER=kmsdrm on a console without a desktop, or with --offscreen to run "
                   "without a screen")


def find_display(environ: Mapping[str, str] | None = None) -> str:
    """The SDL video driver list to open the window with, checked before any window is opened.

    Without this SDL falls back to its offscreen driver when no display answers, and the app runs
    forever with nothing shown.  The answer never includes `offscreen` unless the user asked for it.
    Raises UserError with one line saying what is missing and how to run instead.
    """
    env = os.environ if environ is None else environ
    requested = env.get("SDL_VIDEODRIVER", "").strip().lower()
    if requested:
        return _check_requested(requested, env)
    drivers: list[str] = []
    problems: list[str] = []
    display = env.get("DISPLAY", "")
    if display:  # SDL prefers X11 (XWayland on a Wayland desktop); keep its order
        problem = _x11_problem(display)
        (problems.append(problem) if problem else drivers.append("x11"))
    wayland = env.get("WAYLAND_DISPLAY", "")
    if wayland:
        problem = _wayland_problem(wayland, env)
        (problems.append(problem) if problem else drivers.append("wayland"))
    if drivers:
        return ",".join(drivers)
    reason = "; ".join(problems) if problems else "neither DISPLAY nor WAYLAND_DISPLAY is set"
    raise UserError(f"no display: {reason}; {NO_DISPLAY_HELP}")


def _check_requested(requested: str, env: Mapping[str, str]) -> str:
    """A driver the user chose with SDL_VIDEODRIVER, if what it needs is there."""
    first = requested.split(",")[0]
    problem = None
    if first == "kmsdrm":
        if not any(Path("/dev/dri").glob("card*")):
            problem = f"SDL_VIDEODRIVER={requested} but there is no /dev/dri/card* (no KMS graphics driver)"
    elif first == "x11":
        problem = _x11_problem(env.get("DISPLAY", "")) if env.get("DISPLAY") else "SDL_VIDEODRIVER=x11 without DISPLAY"
    elif first == "wayland":
        name = env.get("WAYLAND_DISPLAY", "wayland-0")
        problem = _wayland_problem(name, env)
    if problem:
        raise UserError(f"no display: {problem}; {NO_DISPLAY_HELP}")
    return requested


def _connects(family: int, address: Any) -> str | None:
    """None when something accepts a connection at `address`, else why not."""
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(DISPLAY_TIMEOUT)
            sock.connect(address)
    except TimeoutError:
        return "no answer"
    except OSError as error:
        return os.strerror(error.errno) if error.errno else str(error)
    return None


def _x11_problem(display: str) -> str | None:
    """Why no X server listens at DISPLAY (`[host]:number[.screen]`), or None if one does."""
    host, _, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not number.isdigit():
        return f"DISPLAY={display} is not of the form :0 or host:0"
    if host in ("", "unix") or host.startswith("/"):
        path = f"{host}:{number}" if host.startswith("/") else f"/tmp/.X11-unix/X{number}"
        # X servers on Linux also listen on the abstract socket of the same name (works inside sandboxes)
        for address in ("\0" + path, path):
            if _connects(socket.AF_UNIX, address) is None:
                return None
        return f"no X server is listening on DISPLAY={display}"
    try:
        infos = socket.getaddrinfo(host, 6000 + int(number), type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, ValueError):
        return f"DISPLAY={display}: unknown host {host!r}"
    for family, _, _, _, sockaddr in infos:
        if _connects(family, sockaddr) is None:
            return None
    return f"no X server is listening on DISPLAY={display}"


def _wayland_problem(name: str, env: Mapping[str, str]) -> str | None:
    """Why no Wayland compositor listens at WAYLAND_DISPLAY, or None if one does."""
    if os.path.isabs(name):
        path = name
    elif env.get("XDG_RUNTIME_DIR"):
        path = os.path.join(env["XDG_RUNTIME_DIR"], name)
    else:
        return f"WAYLAND_DISPLAY={name} but XDG_RUNTIME_DIR is not set"
    why = _connects(socket.AF_UNIX, path)
    if why is None:
        return None
    return f"no Wayland compositor is listening on WAYLAND_DISPLAY={name} ({path}: {why})"


# -- PNG files ----------------------------------------------------------------------------------------

def check_png_output(path: Path, option: str, replace: bool) -> None:
    """Refuse, before anything is drawn, an output name that cannot become a PNG file, or names a picture
    already there that `--replace` did not say may be drawn over (someone's earlier screenshot)."""
    if path.is_dir():
        raise UserError(f"{option}: {path} is a folder; give a file name ending in .png")
    if path.suffix.lower() != ".png":
        raise UserError(f"{option}: {path}: give a file name ending in .png")
    if not replace and (path.exists() or path.is_symlink()):
        raise UserError(f"{option}: {path} already exists; add --replace to draw over it, or choose a new name")


def export_png(widget: Any, output: Path, background: tuple[float, ...] | None = None) -> None:
    """Save `widget` as `output` through a temporary file beside it, so a failed export neither
    leaves half a file nor passes for a success (Kivy only logs when it cannot save).  `background`
    fills the picture behind the widget (the app's screens leave it to the window's clear colour)."""
    from kivy.graphics import Color, InstructionGroup, Rectangle

    from companion.app.widgets import png_of
    from companion.engine.paths import write_durably

    behind = InstructionGroup()
    if background:
        behind.add(Color(*background))
        behind.add(Rectangle(pos=widget.pos, size=widget.size))
    widget.canvas.before.insert(0, behind)
    try:
        png = png_of(widget)
        if not png:
            raise OSError(errno.EIO, "the picture could not be saved (see kivy.log in the data folder)")
        write_durably(output, png)
    except OSError as error:
        raise UserError(f"{output}: cannot write: {error.strerror or error}") from None
    finally:
        widget.canvas.before.remove(behind)
