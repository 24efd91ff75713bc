"""Quit, Restart and Shut down for the Settings screen: a kiosk has no keyboard and no window buttons.

Nothing is saved here: every accepted move is already in the journal, so stopping is always safe.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any

Run = Callable[..., Any]

CAN_POWER_OFF = ["busctl", "--system", "call", "org.freedesktop.login1", "/org/freedesktop/login1",
                 "org.freedesktop.login1.Manager", "CanPowerOff"]


def can_power_off(run: Run = subprocess.run) -> bool:
    """Whether `systemctl poweroff` will work for this user without a password prompt (logind's own answer:
    "yes" in a desktop session; in console mode only with the polkit rule `goldtable kiosk install` writes).
    Slow where polkit is (its rules are JavaScript): call it off the UI thread."""
    if shutil.which("systemctl") is None or shutil.which("busctl") is None:
        return False
    try:
        result = run(CAN_POWER_OFF, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return bool(result.returncode == 0 and result.stdout.strip() == 's "yes"')


def power_off(run: Run = subprocess.run) -> str | None:
    """Ask systemd to power the machine off; None once it has accepted, else why not (one line)."""
    try:
        result = run(["systemctl", "poweroff"], capture_output=True, text=True, timeout=15)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if result.returncode == 0:
        return None
    lines = (result.stderr or "").strip().splitlines()
    return lines[-1] if lines else f"systemctl poweroff exited with {result.returncode}"


def restart_command(argv: Sequence[str] | None = None) -> list[str]:
    """The command line that starts this app again with the same arguments (`goldtable app ...`)."""
    return [sys.executable, "-m", "companion.cli", *(sys.argv[1:] if argv is None else argv)]


def restart(execv: Callable[[str, list[str]], Any] = os.execv, argv: Sequence[str] | None = None) -> None:
    """Replace this process with a fresh app (after the app has stopped): same PID, so a systemd unit
    keeps watching it."""
    command = restart_command(argv)
    execv(command[0], command)
