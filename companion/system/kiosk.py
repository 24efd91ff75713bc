"""`goldtable kiosk install`: write the files that start Goldtable at boot on Raspberry Pi OS Bookworm.

Two modes.  `desktop`: Bookworm's labwc/wayfire sessions never start `graphical-session.target`, so a unit
wanted by it never runs; instead an XDG autostart entry (which those sessions run at login) imports
WAYLAND_DISPLAY/DISPLAY into the systemd user manager and starts `goldtable.service`, which restarts the app
after a crash.  `console`: no desktop at all; the unit is wanted by the user manager's `default.target`
(started at boot with lingering) and SDL draws through KMS/DRM.  Rotation is Kivy's own
(`KCFG_GRAPHICS_ROTATION`), which turns drawing and touch together in both modes.

The templates live in `companion/system/kiosk/` (package data).  A file the user already has with other
content is never replaced silently: the command asks on a terminal, and refuses without `--force` otherwise.
"""

from __future__ import annotations

import getpass
import os
import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template
from typing import Literal

from companion.engine.errors import UserError
from companion.engine.paths import write_durably

Mode = Literal["desktop", "console"]
ROTATIONS = (0, 90, 180, 270)


@dataclass(frozen=True)
class KioskFile:
    """One file to write: where, what, and why (printed by the command)."""

    path: Path
    text: str
    purpose: str


def _template(name: str) -> Template:
    return Template(resources.files(__package__).joinpath("kiosk", name).read_text(encoding="utf-8"))


def app_command(python: str | None = None) -> str:
    """The command line that starts the app full screen with this very installation's Python."""
    return f"{shlex.quote(python or sys.executable)} -m companion.cli app --fullscreen"


def config_home(env: Mapping[str, str], home: Path) -> Path:
    return Path(env.get("XDG_CONFIG_HOME") or home / ".config")


def kiosk_files(mode: Mode, rotate: int, home: Path, env: Mapping[str, str] | None = None,
                python: str | None = None, user: str | None = None) -> list[KioskFile]:
    """The files `mode` needs, filled in for this user and this installation."""
    if rotate not in ROTATIONS:
        raise UserError(f"--rotate: {rotate} is not one of 0, 90, 180, 270")
    env = os.environ if env is None else env
    config = config_home(env, home)
    environment = ["Environment=PYTHONUNBUFFERED=1"]
    if rotate:
        environment.append(f"Environment=KCFG_GRAPHICS_ROTATION={rotate}")
    if mode == "console":
        environment.append("Environment=SDL_VIDEODRIVER=kmsdrm")
        unit_extra = "# started at boot by the user manager (sudo loginctl enable-linger USER); no desktop"
        install = "[Install]\nWantedBy=default.target"
    else:
        unit_extra = "# started at login by ~/.config/autostart/goldtable.desktop, which passes the display"
        install = "# no [Install]: the desktop session's autostart entry starts it with its display variables"
    unit = _template("goldtable.service").substitute(
        mode=mode, unit_extra=unit_extra, environment="\n".join(environment),
        command=app_command(python), install=install)
    files = [KioskFile(config / "systemd" / "user" / "goldtable.service", unit,
                       "systemd user unit: runs the app, restarts it after a crash")]
    if mode == "desktop":
        files.append(KioskFile(config / "autostart" / "goldtable.desktop",
                               _template("goldtable.desktop").substitute(),
                               "desktop autostart entry: starts the unit at login with the session's display"))
    else:
        rule = _template("50-goldtable-poweroff.rules").substitute(user=user or getpass.getuser())
        files.append(KioskFile(config / "goldtable" / "50-goldtable-poweroff.rules", rule,
                               "polkit rule for Shut down without a desktop session (copy it with sudo, below)"))
    return files


def next_steps(mode: Mode, files: list[KioskFile]) -> list[str]:
    """What the user runs after the files are written (printed; needs sudo, so not done for them)."""
    steps = ["systemctl --user daemon-reload"]
    if mode == "console":
        rule = files[-1].path
        steps += ["systemctl --user enable goldtable.service",
                  'sudo loginctl enable-linger "$USER"',
                  "sudo raspi-config nonint do_boot_behaviour B1   # console, no desktop",
                  f"sudo cp {shlex.quote(str(rule))} /etc/polkit-1/rules.d/   # lets Settings shut the Pi down"]
    else:
        steps += ["sudo raspi-config nonint do_boot_behaviour B4   # desktop, logged in automatically"]
    return [*steps, "sudo reboot"]


Ask = Callable[[str], bool]


def ours(path: Path, home: Path, env: Mapping[str, str] | None = None, python: str | None = None,
         user: str | None = None) -> set[str]:
    """Every text `kiosk install` writes at `path` in any mode and rotation: a file that holds one of them is
    our own, unedited, and switching mode or rotation may replace it without asking."""
    return {file.text for mode in ("desktop", "console") for rotate in ROTATIONS
            for file in kiosk_files(mode, rotate, home, env, python, user) if file.path == path}


def write_files(files: list[KioskFile], *, force: bool, dry_run: bool, ask: Ask | None,
                out: Callable[[str], None] = print, unedited: Callable[[Path], set[str]] | None = None) -> None:
    """Write each file; one that exists with other content is replaced only with --force or a yes to `ask`
    (None: no terminal to ask on, so refuse), unless it is one `kiosk install` wrote itself and nobody edited
    (`unedited(path)`: what this command writes there in any mode and rotation).  `dry_run` shows
    everything and writes nothing."""
    for file in files:
        old = file.path.read_text(encoding="utf-8") if file.path.exists() else None
        own = old is not None and unedited is not None and old in unedited(file.path)
        if dry_run:
            state = "new" if old is None else "unchanged" if old == file.text else "would replace"
            out(f"--- {file.path} ({state}): {file.purpose}")
            out(file.text.rstrip("\n"))
            continue
        if old == file.text:
            out(f"unchanged  {file.path}")
            continue
        if old is not None and not force and not own:
            if ask is None:
                raise UserError(f"{file.path}: exists with other content; compare with --dry-run, then use --force "
                                f"to replace it")
            if not ask(f"{file.path} exists with other content. Replace it? [y/N] "):
                out(f"kept       {file.path}")
                continue
        try:  # whole or not at all: a Pi switched off before its reboot still starts with a unit it can read
            write_durably(file.path.resolve(), file.text)  # (a symlinked dotfile keeps its link)
        except OSError as error:
            raise UserError(f"{file.path}: cannot write: {error.strerror or error}") from None
        out(f"{'replaced' if old is not None else 'written':10s} {file.path}")


def retire_desktop_entry(home: Path, env: Mapping[str, str] | None = None, out: Callable[[str], None] = print) -> None:
    """Console mode: the desktop's autostart entry `kiosk install` wrote would start the console unit in a
    desktop session, should the Pi boot to the desktop again; removed if nobody edited it."""
    env = os.environ if env is None else env
    entry = config_home(env, home) / "autostart" / "goldtable.desktop"
    if entry.exists() and entry.read_text(encoding="utf-8") in ours(entry, home, env):
        entry.unlink()
        out(f"removed    {entry}")


def ask_on_terminal(question: str) -> bool:
    return input(question).strip().lower() in ("y", "yes")
