"""The checks of `tools/pi-sim/check`, one line each: `ok N ...` or `FAIL N reason`."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.config import load_pin_map
from firmware_bridge.simulator import Simulator
from pisim import card, doc, image
from pisim.host import CACHE, Failure, Log
from pisim.image import Target
from pisim.screens import SAME_SCREEN, Mirror, wait_for
from pisim.vm import Machine

#: The app's command line, as a pattern that does not match the shell running pgrep with it.
APP = "[c]ompanion.cli app"


@dataclass
class Run:
    """What the checks share: the log, the repository server's address, the results so far."""

    log: Log
    repository: str
    only: set[int]
    sensor: Simulator
    pico_port: int
    results: list[tuple[int, bool, str]] = field(default_factory=list)

    def report(self, number: int, ok: bool, text: str) -> None:
        self.results.append((number, ok, text))
        print(f"{'ok' if ok else 'FAIL'} {number} {text}", flush=True)
        self.log.write(f"RESULT {'ok' if ok else 'FAIL'} {number} {text}")

    def wanted(self, number: int) -> bool:
        return not self.only or number in self.only

    def check(self, number: int, label: str, body: Callable[[], str]) -> bool:
        """Run one check; its Failure (or any error) becomes the FAIL line."""
        try:
            text = body()
        except Failure as failure:
            self.report(number, False, f"{label}: {failure}")
            return False
        except Exception as error:  # noqa: BLE001 — a bug in a check is still one FAIL line, not a traceback
            self.log.write(f"check {number} crashed: {error!r}")
            self.report(number, False, f"{label}: the check itself failed: {error!r}")
            return False
        self.report(number, True, f"{label}: {text}")
        return True


def folder(name: str) -> Path:
    path = CACHE / "runs" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def doctor_lines(output: str) -> dict[str, tuple[bool, str]]:
    """`goldtable doctor`'s lines by check name: (ok, text)."""
    lines = {}
    for line in output.splitlines():
        match = re.match(r"^(\w+)\s+(ok|PROBLEM)\s+(.*)$", line)
        if match:
            lines[match.group(1)] = (match.group(2) == "ok", match.group(3))
    return lines


def wait_desktop(vm: Machine, timeout: float) -> None:
    """Wait until the autologin session has handed its display to the user manager (the kiosk's autostart
    entry does the same): only then does a terminal "on the desktop" exist."""
    deadline = time.monotonic() + timeout
    while "DISPLAY=" not in vm.ssh("systemctl --user show-environment", check=False):
        if time.monotonic() > deadline:
            raise Failure(f"no desktop session {timeout:.0f} s after boot (autologin or the compositor failed)")
        time.sleep(3)


def run_doctor(vm: Machine, expected_model: str) -> str:
    """The guide's doctor step in a terminal of the desktop session; every line must say ok, the gpio
    line must name the pin library and the simulated Pi, and the serial line the Pico by its USB id."""
    wait_desktop(vm, 600)
    steps = doc.steps(("doctor",), "")
    outputs = []
    for step in steps:
        assert step.script is not None
        outputs.append(vm.ssh("bash -e", input_text=card.DESKTOP_TERMINAL + step.script, check=False))
    lines = doctor_lines("\n".join(outputs))
    if len(lines) < 6:
        raise Failure(f"doctor printed {len(lines)} check lines: {' | '.join(outputs)[-300:]}")
    problems = [f"{name}: {text}" for name, (ok, text) in lines.items() if not ok]
    if problems:
        raise Failure("doctor: " + "; ".join(problems))
    gpio, serial = lines["gpio"][1], lines["serial"][1]
    if "LGPIOFactory" not in gpio or expected_model not in gpio:
        raise Failure(f"doctor's gpio line does not name lgpio and the {expected_model}: {gpio}")
    if PICO_ID not in serial.upper():
        raise Failure(f"doctor's serial line does not list the Pico ({PICO_ID}): {serial}")
    if not lines["display"][1].startswith("desktop session"):
        raise Failure(f"doctor did not see the desktop session: {lines['display'][1]}")
    return f"{gpio}; {serial}"


def check_install(run: Run, target: Target) -> Machine | None:
    """Check 1 for one release: the image, the guide's install commands, doctor on a Pi 4 (and a Pi 5)."""
    machine: list[Machine] = []

    def body() -> str:
        started = time.monotonic()
        built = image.build(target, run.log)
        installed = card.installed(target, run.repository, run.log)
        vm = Machine(target, folder(f"{target.name}-desktop"), run.log, pico_port=run.pico_port)
        vm.create_disks(base=installed)
        vm.start()
        machine.append(vm)
        vm.wait_ready(card.BOOT_TIMEOUT)
        pi4 = run_doctor(vm, "Raspberry Pi 4")
        commands = len([s for s in doc.steps(("card", "install", "doctor"), "") if s.script])
        text = (f"{'built' if built else 'cached'} image, the guide's {commands} install steps ran, doctor ok on "
                f"every line ({pi4})")
        if target.suite == "trixie":
            # one Pico, one Pi: its cable goes from the Pi 4 to the Pi 5 and back (the simulated Pico
            # serves one machine at a time; the Pi 5 would wait for it, unlisted, while the Pi 4 held it)
            vm.unplug_sensor()
            pi5 = Machine(target, folder(f"{target.name}-pi5"), run.log, board="pi5", pico_port=run.pico_port)
            pi5.create_disks(base=installed)
            pi5.start()
            try:
                pi5.wait_ready(card.BOOT_TIMEOUT)
                text += f"; on a Pi 5: {run_doctor(pi5, 'Raspberry Pi 5')}"
            finally:
                pi5.shutdown()
                vm.plug_sensor()
        return f"{text}; {time.monotonic() - started:.0f} s"

    ok = run.check(1, f"{target.suite} ({target.desktop})", body)
    if not ok and machine:
        machine[0].shutdown()
        return None
    return machine[0] if machine else None


def check_kiosk(run: Run, vm: Machine) -> None:
    """Check 2: the guide's kiosk steps, then power on -> Home full screen by the autostart entry and the
    unit alone; a killed app comes back; Settings -> Quit keeps it closed."""
    shots = folder("shots")

    def body() -> str:
        card.run_steps(vm, doc.steps(("desktop",), run.repository))  # ends with the guide's reboot
        log_frames(vm)
        vm.shutdown()
        mirror = Mirror(run.log)
        try:
            mirror.ask(power_off=True)  # a desktop session's user may power off (logind), so Settings shows it
            home = mirror.shot(shots / "home-expected.png")
            vm.start()
            boot = wait_for(vm, home, shots, 900, "Home after power on")
            seconds = time.monotonic() - vm.booted_at
            timing = boot_timing(vm)
            killed = app_pid(vm)
            vm.ssh(f"kill -KILL {killed}")
            wait_app_started(vm, 600, not_pid=killed)
            wait_for(vm, home, shots, 600, "Home after the app was killed")
            restarts = vm.ssh("systemctl --user show goldtable -p NRestarts --value").strip()
            if restarts in ("", "0"):
                raise Failure("the app came back, but not by the unit's restart (NRestarts is 0)")
            press(vm, mirror, "Settings", shots, "Settings")
            press(vm, mirror, "quit", shots, "Settings asking to quit")
            vm.tap(*mirror.where("confirm_yes"))
            deadline = time.monotonic() + 300
            while vm.ssh(f"pgrep -f '{APP}' || true").strip():
                if time.monotonic() > deadline:
                    raise Failure("Settings -> Quit did not close the app")
                time.sleep(2)
            time.sleep(10)  # longer than the unit's RestartSec
            state = vm.ssh("systemctl --user is-active goldtable || true").strip()
            if state != "inactive" or vm.ssh(f"pgrep -f '{APP}' || true").strip():
                raise Failure(f"after Quit the app came back (unit {state})")
        finally:
            mirror.close()
        return (f"Home full screen {seconds:.0f} s after power on (drawn {boot:.0f} s after the check began "
                f"looking; {timing}); killed, it came back by the unit's restart; Quit kept it closed")

    run.check(2, "kiosk at boot", body)


def boot_timing(vm: Machine) -> str:
    """Where the time to Home went, on the guest's own clock (from its kernel's start): the boot, then the
    app.  The host's count from power on adds the emulated firmware before the kernel."""
    seen = float(vm.ssh("cut -d' ' -f1 /proc/uptime").strip())
    started = int(vm.ssh("systemctl --user show goldtable -p ExecMainStartTimestampMonotonic --value").strip()
                  or 0) / 1e6
    booted = vm.ssh("systemd-analyze time 2>/dev/null | head -1 || true").strip() or "systemd-analyze: no answer"
    return (f"in the guest: the app's unit started {started:.0f} s after the kernel, Home seen {seen - started:.0f} s "
            f"after that; {booted}")


GOLDTABLE = "~/goldtable/.venv/bin/goldtable"
#: The guest's data folder (the journal, the app's settings), on the simulated SD card.
DATA = "~/.local/share/goldtable"
#: The default pin map's lines (firmware_bridge/pinmap.default.json): Digger's colour buttons, Stop, the
#: hourglass's tilt switch.
COLOUR_LINES = {"B": 25, "Y": 8, "R": 2, "G": 3, "W": 14, "K": 15}
STOP_LINE, TILT_LINE = 13, 26
#: A table that has changed from the twin's (its own dice, another deal) still differs less than this.
SAME_TABLE = 12.0


#: The sensor board's USB id as doctor lists it (Raspberry Pi's vendor id, the Pico's MicroPython product).
PICO_ID = "2E8A:0005"


#: Where the app writes its frame log in the guest (GOLDTABLE_FRAME_LOG, in the user manager's environment):
#: a tmpfs, so the log costs the simulated SD card nothing.
FRAME_LOG = "/run/user/1000/goldtable-frames.log"


def on_sd_card(vm: Machine) -> None:
    """The app's data folder is on the simulated SD card (pi-sim-sdcard.service at boot): without it the
    journal would be on the root disk, and checks 6 and 7 would measure the wrong disk."""
    source = vm.ssh("findmnt -n -o SOURCE ~/.local/share/goldtable || true").strip()
    if source != "/dev/mapper/sdcard":
        said = vm.ssh("journalctl -b -u pi-sim-sdcard --no-pager | tail -2", check=False).strip()
        raise Failure(f"the simulated SD card is not the data folder ({source or 'not mounted'}): {said}")


#: Mesa's software renderer without helper threads (check 6).
ONE_THREAD_RENDERER = "LP_NUM_THREADS=0"


def app_pid(vm: Machine) -> int:
    """The unit's main process (0 when it is not running)."""
    return int(vm.ssh("systemctl --user show goldtable -p MainPID --value").strip() or 0)


def wait_app_started(vm: Machine, timeout: float, not_pid: int = 0) -> int:
    """Wait until the unit runs an app other than `not_pid` whose loop is turning (its frame log has grown
    past its first second): a picture of the screen alone cannot tell, the compositor may still show the
    last frame of an app that has gone. Returns the new app's process id."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pid = app_pid(vm)
        if pid and pid != not_pid:
            lines = vm.ssh(f"test -f {FRAME_LOG} && wc -l < {FRAME_LOG} || echo 0", check=False).strip()
            started = vm.ssh(f"stat -c %Y {FRAME_LOG} 2>/dev/null; stat -c %Y /proc/{pid}", check=False).split()
            if lines.isdigit() and int(lines) > 60 and len(started) == 2 and int(started[0]) >= int(started[1]):
                return pid
        time.sleep(2)
    raise Failure(f"the app did not start in {timeout:.0f} s")


def log_frames(vm: Machine) -> None:
    """Every app the unit starts from now on writes its frame log, also after a reboot (environment.d is
    read by the user manager at each start; set-environment lasts only until the next boot)."""
    vm.ssh(f"mkdir -p ~/.config/environment.d && echo GOLDTABLE_FRAME_LOG={FRAME_LOG} > "
           f"~/.config/environment.d/60-pi-sim-frames.conf && systemctl --user set-environment "
           f"GOLDTABLE_FRAME_LOG={FRAME_LOG}")


def restart_app(vm: Machine) -> None:
    """(Re)start the unit, as the guide's update step does, and wait for the new app's loop."""
    old = app_pid(vm)
    log_frames(vm)
    vm.ssh("systemctl --user restart goldtable")
    wait_app_started(vm, 600, not_pid=old)


def press(vm: Machine, mirror: Mirror, selector: str, shots: Path, then: str, threshold: float = SAME_SCREEN) -> None:
    """Tap a button on the guest's screen (found on the twin's, which presses it too) and wait until the
    guest shows what the twin then shows: the next tap must not land on a screen still being built."""
    vm.tap(*mirror.where(selector, press=True))
    expected = mirror.shot(shots / f"{then}-expected.png".replace(" ", "-"))
    wait_for(vm, expected, shots, 300, then, threshold)


def start_game(vm: Machine, mirror: Mirror, title: str, shots: Path) -> None:
    """From Home to the game's table by taps, each screen checked against the twin's."""
    for selector, screen in ((title, "Home"), ("New game", "Players"), ("Next", "Options"), ("Next", "Setup"),
                             ("Start the game", "Table")):
        press(vm, mirror, selector, shots, f"{title} {screen}", SAME_TABLE if screen == "Table" else 6.0)


def latest_game(vm: Machine) -> dict[str, Any]:
    """The newest game in the guest's journal, as a game record (read while the app runs)."""
    games = vm.ssh(f"{GOLDTABLE} games --json")
    newest = max(json.loads(games), key=lambda game: game["id"])
    record: dict[str, Any] = json.loads(vm.ssh(f"{GOLDTABLE} export {newest['id']}"))
    return record


def home_as_guest(vm: Machine, mirror: Mirror, shots: Path) -> Path:
    """The twin's Home as the guest's must look: the game the guest chose last, and its newest unfinished
    game offered to resume (an earlier check, or the family, may have left one)."""
    settings = json.loads(vm.ssh(f"cat {DATA}/app-settings.json 2>/dev/null || echo '{{}}'") or "{}")
    if settings.get("last_game"):
        mirror.ask(choose=settings["last_game"])
    unfinished = [game for game in json.loads(vm.ssh(f"{GOLDTABLE} games --json")) if not game["finished"]]
    if unfinished:
        newest = max(unfinished, key=lambda game: game["id"])
        path = shots / "guest-game.json"
        path.write_text(vm.ssh(f"{GOLDTABLE} export {newest['id']}"))
        mirror.ask(record=str(path))
    mirror.ask(go="home")
    return mirror.shot(shots / "home-expected.png")


@contextlib.contextmanager
def on_home(run: Run, vm: Machine, shots: Path, rotation: int = 0,
            threshold: float = SAME_SCREEN) -> Iterator[Mirror]:
    """A newly started app on the guest's Home, and the twin (which may power off, as logind lets the
    guest) showing the same: where a check's taps begin."""
    restart_app(vm)
    mirror = Mirror(run.log, rotation=rotation)
    try:
        mirror.ask(power_off=True)
        turned = f" turned {rotation}" if rotation else ""
        wait_for(vm, home_as_guest(vm, mirror, shots), shots, 600, f"Home{turned}", threshold)
        yield mirror
    finally:
        mirror.close()


def check_gpio(run: Run, vm: Machine) -> None:
    """Check 3: a whole Digger turn by GPIO buttons only, every press bouncing: the journal holds exactly
    the pressed actions, each once."""
    shots = folder("shots")

    def body() -> str:
        press = vm.push_tool("pi-sim-press")
        with on_home(run, vm, shots) as mirror:
            start_game(vm, mirror, "Digger", shots)
        rolls = (("B", "Y", "R", "G", "K"), ("W", "W", "R", "B", "K"))
        presses = [f"{TILT_LINE}=closed"] + [str(COLOUR_LINES[face]) for face in rolls[0]]
        presses += [str(COLOUR_LINES[face]) for face in rolls[1]] + [str(STOP_LINE)]
        said = vm.ssh(f"sudo {press} --bounce 4 --gap 600 {' '.join(presses)}", timeout=300)
        spreads = [float(ms) for line in said.splitlines() for ms in re.findall(r"([0-9.]+) ms", line.split(
            "bounce", 1)[1])]
        if len(spreads) != len(presses) * 2 - 1:
            raise Failure(f"pi-sim-press said {said!r}")
        debounce = load_pin_map().debounce_ms
        if max(spreads) >= debounce:  # flips that far apart are a second press, not a bounce
            raise Failure(f"the emulated Pi stretched a bounce to {max(spreads):.1f} ms, past the pin map's "
                          f"{debounce:.0f} ms debounce: rerun on a less loaded machine")
        spreads.sort()
        expected = [{"type": "roll", "values": list(rolls[0])}, {"type": "roll", "values": list(rolls[1])},
                    {"type": "stop"}]
        deadline = time.monotonic() + 120
        while True:
            record = latest_game(vm)
            actions = [entry["action"] for entry in record["actions"]]
            sources = {entry["source"] for entry in record["actions"]}
            if actions == expected and sources == {"gpio"}:
                break
            if time.monotonic() > deadline or len(actions) > len(expected):
                raise Failure(f"the journal holds {actions} from {sorted(sources)}, not the presses {expected}")
            time.sleep(3)
        edges = vm.ssh("journalctl --user -u goldtable -o cat | tail -n 50", check=False)
        run.log.write(edges)
        return (f"{len(presses)} switches, each change bouncing 4 times (median {spreads[len(spreads) // 2]:.1f} "
                f"ms, longest {spreads[-1]:.1f} ms: the emulated CPU cannot keep every bounce within 5 ms): the "
                f"journal holds the two rolls and Stop, each once, from gpio")

    run.check(3, "Digger by GPIO", body)


def shut_down_by_touch(vm: Machine, mirror: Mirror, shots: Path) -> float:
    """Settings -> Shut down -> Shut down; seconds until the machine is off (QEMU exits)."""
    press(vm, mirror, "Settings", shots, "Settings with Shut down")
    press(vm, mirror, "shutdown", shots, "Settings asking to shut down")
    vm.tap(*mirror.where("confirm_yes"))
    started = time.monotonic()
    if not vm.wait_off(300):
        raise Failure("Settings -> Shut down did not power the Pi off in 300 s")
    return time.monotonic() - started


def shutdown_desktop(run: Run, vm: Machine) -> str:
    """Check 5, desktop half: Settings -> Shut down powers off without a password (reported with the
    console half, as one line)."""
    shots = folder("shots")
    with on_home(run, vm, shots) as mirror:
        return f"desktop: off {shut_down_by_touch(vm, mirror, shots):.0f} s after the tap"


def attempt(part: Callable[[], str]) -> str | Failure:
    """Run one half of a check now: its text, or its failure to report with the other half."""
    try:
        return part()
    except Failure as failure:
        return failure
    except Exception as error:  # noqa: BLE001 — a bug in a check is still its line, not a traceback
        return Failure(f"the check itself failed: {error!r}")


def joined(*parts: str | Failure) -> Callable[[], str]:
    """A check's body made of halves that have run: it fails with every failed half's reason."""
    def body() -> str:
        failures = [str(part) for part in parts if isinstance(part, Failure)]
        if failures:
            raise Failure("; ".join(failures))
        return "; ".join(str(part) for part in parts)
    return body


def check_rotation(run: Run, vm: Machine) -> None:
    """Check 8: with --rotate 90/180/270 the drawing and the touch turn together: the screen shows Home
    turned, and a tap where Settings is drawn opens Settings."""
    shots = folder("shots")

    def body() -> str:
        seen = []
        try:
            for rotation in (90, 180, 270):
                vm.ssh(f"{GOLDTABLE} kiosk install --rotate {rotation} && systemctl --user daemon-reload")
                with on_home(run, vm, shots, rotation=rotation) as mirror:
                    press(vm, mirror, "Settings", shots, f"Settings turned {rotation}, after a tap on its button")
                seen.append(str(rotation))
        finally:  # the later checks want the screen upright
            vm.ssh(f"{GOLDTABLE} kiosk install && systemctl --user daemon-reload")
            restart_app(vm)
        return f"turned {', '.join(seen)} degrees: Home drawn turned, a tap on Settings opened Settings"

    run.check(8, "rotation", body)


def check_console(run: Run, target: Target) -> str | Failure:
    """Check 9: the guide's console steps, then Goldtable on KMS/DRM at boot with working touch; returns
    check 5's console half (Shut down without a password)."""
    shots = folder("shots")
    installed = card.installed(target, run.repository, run.log)
    vm = Machine(target, folder(f"{target.name}-console"), run.log, pico_port=run.pico_port)
    vm.create_disks(base=installed)
    off: list[str | Failure] = [Failure("console: Shut down not tried, the console did not start")]

    def body() -> str:
        vm.start()
        vm.wait_ready(card.BOOT_TIMEOUT)
        card.run_steps(vm, doc.steps(("console",), run.repository))
        vm.shutdown()
        mirror = Mirror(run.log)
        try:
            mirror.ask(power_off=True)  # the polkit rule the guide installs allows it
            vm.start()
            wait_for(vm, mirror.shot(shots / "console-home.png"), shots, 900, "Home on the console")
            seconds = time.monotonic() - vm.booted_at
            driver = vm.ssh(f"tr '\\0' '\\n' < /proc/$(pgrep -f '{APP}' | head -1)/environ | grep '^SDL_VIDEODRIVER='")
            press(vm, mirror, "History", shots, "History on the console")
            press(vm, mirror, "Back", shots, "Home on the console again")
            off[0] = attempt(lambda: f"console: off {shut_down_by_touch(vm, mirror, shots):.0f} s after the tap")
        finally:
            mirror.close()
        return f"Home {seconds:.0f} s after power on with no desktop ({driver.strip()}); a tap opened History"

    try:
        run.check(9, "console mode", body)
    finally:
        vm.shutdown()
    return off[0]
