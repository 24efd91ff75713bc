"""`goldtable doctor`: is this machine ready for the table?  One line per check, ok or PROBLEM with what to
do; exit 0 when every check is ok, 1 otherwise (so scripts and the install guide can rely on it).

Every check reads from an injectable root folder and environment, so the tests can build a fake Pi.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.engine.paths import local_exports, usb_folders

#: Below this much free space on the journal's disk, doctor warns (a game journal is kilobytes; the OS
#: itself misbehaves on a full card long before Goldtable does).
MIN_FREE_BYTES = 200 * 1024 * 1024
#: A USB stick with less free than this cannot take History's CSV of a busy club's year, nor a picture.
MIN_STICK_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Check:
    """The result of one check: its name, whether it is fine, and the line to show."""

    name: str
    ok: bool
    text: str

    def line(self) -> str:
        return f"{self.name:8s} {'ok' if self.ok else 'PROBLEM':8s} {self.text}"


def check_display(env: Mapping[str, str], root: Path) -> Check:
    """A desktop session's display, else a DRM card SDL's kmsdrm driver can draw on (console mode)."""
    for variable in ("WAYLAND_DISPLAY", "DISPLAY"):
        if env.get(variable):
            return Check("display", True, f"desktop session ({variable}={env[variable]})")
    cards = sorted((root / "dev" / "dri").glob("card*"))
    usable = [card for card in cards if os.access(card, os.R_OK | os.W_OK)]
    if usable:
        return Check("display", True, f"no desktop in this shell; console mode can draw on "
                                      f"/{usable[0].relative_to(root).as_posix()} (SDL_VIDEODRIVER=kmsdrm)")
    if cards:
        return Check("display", False, f"/dev/dri/{cards[0].name} is not usable by this user: "
                                       f"sudo usermod -aG video,render $USER, then log in again")
    return Check("display", False, "no DISPLAY or WAYLAND_DISPLAY and no /dev/dri card: run this in a terminal on "
                                   "the Pi's desktop, or see docs/raspberry-pi.md for the console mode")


def check_gpio(root: Path) -> Check:
    """The pin backend gpiozero will use here, through the same check the app makes when it starts."""
    from firmware_bridge.gpio import GpioUnavailable, open_pin_factory
    from firmware_bridge.machine import raspberry_pi_model

    model = raspberry_pi_model(root / "proc" / "device-tree" / "model")
    if model is None and not os.environ.get("GPIOZERO_PIN_FACTORY"):
        return Check("gpio", True, "not a Raspberry Pi: no pins to check (touch, keyboard and serial sensors work)")
    try:
        factory = open_pin_factory(model)
    except GpioUnavailable as error:
        return Check("gpio", False, str(error))
    name = type(factory).__name__
    factory.close()
    from companion.engine.errors import UserError
    from firmware_bridge.config import load_pin_map

    try:
        wired = len(load_pin_map().pin_uses())
    except UserError as error:
        return Check("gpio", False, f"{error}: correct the pin map (docs/hardware.md)")
    return Check("gpio", True, f"{name} on {model or 'this machine'}, {wired} pins in the pin map")


@dataclass(frozen=True)
class Port:
    """What doctor needs to know about a serial port (pyserial's ListPortInfo has more)."""

    device: str
    vid: int | None
    pid: int | None
    description: str


def serial_ports() -> list[Port]:
    from serial.tools import list_ports

    return [Port(info.device, info.vid, info.pid, info.description or "") for info in list_ports.comports()]


def check_serial(ports: Iterable[Port]) -> Check:
    """Every serial port with its USB id; a port this user may not open is a problem (dialout group)."""
    found = list(ports)
    if not found:
        return Check("serial", True, "no serial ports (needed only for the Pico sensor build)")
    parts = []
    blocked = []
    for port in found:
        usb = f" {port.vid:04X}:{port.pid:04X}" if port.vid is not None and port.pid is not None else ""
        pico = " (Raspberry Pi Pico)" if port.vid == 0x2E8A else ""
        parts.append(f"{port.device}{usb}{pico}")
        if os.path.exists(port.device) and not os.access(port.device, os.R_OK | os.W_OK):
            blocked.append(port.device)
    if blocked:
        return Check("serial", False, f"{', '.join(blocked)} not usable by this user: "
                                      f"sudo usermod -aG dialout $USER, then log in again")
    return Check("serial", True, ", ".join(parts))


def check_audio(root: Path) -> Check:
    """A sound card ALSA knows (HDMI, the headphone jack, a USB speaker) for the timer's warning sounds."""
    try:
        text = (root / "proc" / "asound" / "cards").read_text(errors="replace")
    except OSError:
        text = ""
    # lines like " 1 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones": the name after " - "
    names = [line.split("]:", 1)[1].split(" - ", 1)[-1].strip() for line in text.splitlines() if "]:" in line]
    if not names:
        return Check("audio", False, "no sound card: connect a speaker (HDMI, USB or the jack), or switch Sound "
                                     "off in Settings; the buzzer still beeps")
    return Check("audio", True, ", ".join(names))


def check_journal(folder: Path) -> Check:
    """The journal's folder exists (or can be made) and takes a new file."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-"):
            pass
    except OSError as error:
        return Check("journal", False, f"{folder}: cannot write ({error.strerror or error}): set GOLDTABLE_DATA "
                                       f"to a folder this user can write")
    return Check("journal", True, f"{folder} is writable")


def check_space(folder: Path, minimum: int = MIN_FREE_BYTES,
                usage: Callable[[Path], Any] = shutil.disk_usage) -> Check:
    """Enough free space where the journal lives."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = usage(probe).free
    text = f"{free / 1e9:.1f} GB free on {probe}"
    if free < minimum:
        return Check("space", False, f"only {text}: delete files or use a larger card (need {minimum // 10**6} MB)")
    return Check("space", True, text)


def check_usb(sticks: list[Path], statvfs: Callable[[Path], Any] = os.statvfs) -> Check:
    """Where History's exports go: the first USB stick in, which must take files, else the exports folder
    beside the journal.  When History says "Could not save", this line says why."""
    if not sticks:
        return Check("usb", True, f"no USB stick: History's exports go to {local_exports()}")
    stick = sticks[0]
    try:
        stats = statvfs(stick)
    except OSError as error:
        return Check("usb", False, f"{stick} cannot be read ({error.strerror or error}): take the stick out and put it "
                                   "in again")
    if stats.f_flag & os.ST_RDONLY:
        return Check("usb", False, f"{stick} is read-only (its lock switch, or a file system to repair on a "
                                   "computer): History cannot save there")
    free = stats.f_bavail * stats.f_frsize
    if free < MIN_STICK_BYTES:
        return Check("usb", False, f"{stick} is full: delete files on it, or use another stick")
    amount = f"{free / 1e9:.1f} GB" if free >= 10**9 else f"{free // 10**6} MB"
    return Check("usb", True, f"{stick}, {amount} free: History's exports go there")


def run_checks(env: Mapping[str, str] | None = None, root: Path = Path("/"), journal_folder: Path | None = None,
               ports: Iterable[Port] | None = None, sticks: list[Path] | None = None) -> list[Check]:
    """All checks, in the order shown."""
    from companion.engine.journal import default_path

    env = os.environ if env is None else env
    folder = journal_folder or default_path().parent
    return [check_display(env, root), check_gpio(root), check_serial(serial_ports() if ports is None else ports),
            check_audio(root), check_journal(folder), check_space(folder),
            check_usb(usb_folders() if sticks is None else sticks)]
