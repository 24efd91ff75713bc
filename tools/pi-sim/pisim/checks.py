"""The checks of `tools/pi-sim/check`, one line each: `ok N ...` or `FAIL N reason`."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.simulator import Simulator
from pisim import card, doc, image
from pisim.host import CACHE, Failure, Log
from pisim.image import Target
from pisim.screens import Mirror, wait_for
from pisim.vm import Machine

APP = "companion.cli app"


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


def run_doctor(vm: Machine, expected_model: str) -> str:
    """The guide's doctor step in a terminal of the desktop session; every line must say ok, and the gpio
    line must name the pin library and the simulated Pi."""
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
    gpio = lines["gpio"][1]
    if "LGPIOFactory" not in gpio or expected_model not in gpio:
        raise Failure(f"doctor's gpio line does not name lgpio and the {expected_model}: {gpio}")
    return gpio


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
            pi5 = Machine(target, folder(f"{target.name}-pi5"), run.log, board="pi5", pico_port=run.pico_port)
            pi5.create_disks(base=installed)
            pi5.start()
            try:
                pi5.wait_ready(card.BOOT_TIMEOUT)
                text += f"; on a Pi 5: {run_doctor(pi5, 'Raspberry Pi 5')}"
            finally:
                pi5.shutdown()
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
        vm.shutdown()
        mirror = Mirror(run.log)
        try:
            mirror.ask(power_off=True)  # a desktop session's user may power off (logind), so Settings shows it
            home = mirror.shot(shots / "home-expected.png")
            vm.start()
            boot = wait_for(vm, home, shots, 900, "Home after power on")
            seconds = time.monotonic() - vm.booted_at
            vm.ssh(f"pkill -KILL -f '{APP}'")
            wait_for(vm, home, shots, 600, "Home after the app was killed")
            restarts = vm.ssh("systemctl --user show goldtable -p NRestarts --value").strip()
            if restarts in ("", "0"):
                raise Failure("the app came back, but not by the unit's restart (NRestarts is 0)")
            vm.tap(*mirror.where("Settings", press=True))
            vm.tap(*mirror.where("quit", press=True))
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
                f"looking); killed, it came back by the unit's restart; Quit kept it closed")

    run.check(2, "kiosk at boot", body)


GOLDTABLE = "~/goldtable/.venv/bin/goldtable"
#: The default pin map's lines (firmware_bridge/pinmap.default.json): Digger's colour buttons, Stop, the
#: hourglass's tilt switch.
COLOUR_LINES = {"B": 25, "Y": 8, "R": 2, "G": 3, "W": 14, "K": 15}
STOP_LINE, TILT_LINE = 13, 26
#: A table that has changed from the twin's (its own dice, another deal) still differs less than this.
SAME_TABLE = 12.0


def start_game(vm: Machine, mirror: Mirror, title: str, shots: Path) -> None:
    """From Home to the game's table by taps, each screen checked against the twin's."""
    for selector, screen in ((title, "Home"), ("New game", "Players"), ("Next", "Options"), ("Next", "Setup"),
                             ("Start the game", "Table")):
        vm.tap(*mirror.where(selector, press=True))
        expected = mirror.shot(shots / f"{title}-{screen}.png".replace(" ", "-"))
        wait_for(vm, expected, shots, 300, f"{title}: {screen}", SAME_TABLE if screen == "Table" else 6.0)


def latest_game(vm: Machine) -> dict[str, Any]:
    """The newest game in the guest's journal, as a game record (read while the app runs)."""
    games = vm.ssh(f"{GOLDTABLE} games --json")
    newest = max(json.loads(games), key=lambda game: game["id"])
    record: dict[str, Any] = json.loads(vm.ssh(f"{GOLDTABLE} export {newest['id']}"))
    return record


def check_gpio(run: Run, vm: Machine) -> None:
    """Check 3: a whole Digger turn by GPIO buttons only, every press bouncing: the journal holds exactly
    the pressed actions, each once."""
    shots = folder("shots")

    def body() -> str:
        press = vm.push_tool("pi-sim-press")
        vm.ssh("systemctl --user start goldtable")
        mirror = Mirror(run.log)
        try:
            mirror.ask(power_off=True)
            wait_for(vm, mirror.shot(shots / "home-expected.png"), shots, 600, "Home")
            start_game(vm, mirror, "Digger", shots)
        finally:
            mirror.close()
        rolls = (("B", "Y", "R", "G", "K"), ("W", "W", "R", "B", "K"))
        presses = [f"{TILT_LINE}=closed"] + [str(COLOUR_LINES[face]) for face in rolls[0]]
        presses += [str(COLOUR_LINES[face]) for face in rolls[1]] + [str(STOP_LINE)]
        vm.ssh(f"sudo {press} --bounce 4 --gap 600 {' '.join(presses)}", timeout=300)
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
        return (f"{len(presses)} switches, each bouncing 4 times within 5 ms: the journal holds the two rolls "
                f"and Stop, each once, from gpio")

    run.check(3, "Digger by GPIO", body)


def shut_down_by_touch(vm: Machine, mirror: Mirror, shots: Path) -> float:
    """Settings -> Shut down -> Shut down; seconds until the machine is off (QEMU exits)."""
    vm.tap(*mirror.where("Settings", press=True))
    wait_for(vm, mirror.shot(shots / "settings-expected.png"), shots, 300, "Settings with Shut down")
    vm.tap(*mirror.where("shutdown", press=True))
    vm.tap(*mirror.where("confirm_yes"))
    started = time.monotonic()
    if not vm.wait_off(300):
        raise Failure("Settings -> Shut down did not power the Pi off in 300 s")
    return time.monotonic() - started


def check_shutdown_desktop(run: Run, vm: Machine) -> float | None:
    """Check 5, desktop half: Settings -> Shut down powers off without a password."""
    shots = folder("shots")
    result: list[float] = []

    def body() -> str:
        vm.ssh("systemctl --user start goldtable")
        mirror = Mirror(run.log)
        try:
            mirror.ask(power_off=True)
            wait_for(vm, mirror.shot(shots / "home-expected.png"), shots, 600, "Home")
            result.append(shut_down_by_touch(vm, mirror, shots))
        finally:
            mirror.close()
        return f"desktop: off {result[0]:.0f} s after the tap"

    return result[0] if run.check(5, "Shut down", body) else None


def check_rotation(run: Run, vm: Machine) -> None:
    """Check 8: with --rotate 90/180/270 the drawing and the touch turn together: the screen shows Home
    turned, and a tap where Settings is drawn opens Settings."""
    shots = folder("shots")

    def body() -> str:
        seen = []
        for rotation in (90, 180, 270):
            vm.ssh(f"{GOLDTABLE} kiosk install --force --rotate {rotation} && systemctl --user daemon-reload && "
                   f"systemctl --user restart goldtable")
            mirror = Mirror(run.log, rotation=rotation)
            try:
                mirror.ask(power_off=True)
                wait_for(vm, mirror.shot(shots / f"home-{rotation}.png"), shots, 600, f"Home turned {rotation}")
                vm.tap(*mirror.where("Settings", press=True))
                wait_for(vm, mirror.shot(shots / f"settings-{rotation}.png"), shots, 300,
                         f"Settings turned {rotation}, after a tap where its button is drawn")
            finally:
                mirror.close()
            seen.append(str(rotation))
        vm.ssh(f"{GOLDTABLE} kiosk install --force && systemctl --user daemon-reload && "
               f"systemctl --user restart goldtable")
        return f"turned {', '.join(seen)} degrees: Home drawn turned, a tap on Settings opened Settings"

    run.check(8, "rotation", body)


def check_console(run: Run, target: Target) -> None:
    """Check 9 (and 5's console half): the guide's console steps, then Goldtable on KMS/DRM at boot with
    working touch, and Shut down without a password."""
    shots = folder("shots")
    installed = card.installed(target, run.repository, run.log)
    vm = Machine(target, folder(f"{target.name}-console"), run.log, pico_port=run.pico_port)
    vm.create_disks(base=installed)
    off: list[float] = []

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
            driver = vm.ssh(f"grep -o 'SDL_VIDEODRIVER=[a-z]*' /proc/$(pgrep -f '{APP}' | head -1)/environ")
            vm.tap(*mirror.where("History", press=True))
            wait_for(vm, mirror.shot(shots / "console-history.png"), shots, 300, "History after a tap")
            vm.tap(*mirror.where("Back", press=True))
            off.append(shut_down_by_touch(vm, mirror, shots))
        finally:
            mirror.close()
        return (f"Home {seconds:.0f} s after power on with no desktop ({driver.strip()}); a tap opened History; "
                f"Shut down powered off in {off[0]:.0f} s")

    try:
        run.check(9, "console mode", body)
    finally:
        vm.shutdown()


class Table:
    """The guest's table and its twin, given the same taps and the same sensor input, so the twin is always
    in the guest's state (the guest's game loaded into it once, seed and all) and can say where to tap."""

    def __init__(self, run: Run, vm: Machine, mirror: Mirror, shots: Path) -> None:
        self.run, self.vm, self.mirror, self.shots = run, vm, mirror, shots
        self.steps = 0

    def load_guest_game(self) -> dict[str, Any]:
        record = latest_game(self.vm)
        path = self.shots / "guest-game.json"
        path.write_text(json.dumps(record))
        self.mirror.ask(record=str(path))
        return record

    def tap(self, x: float, y: float) -> None:
        self.vm.tap(x, y)
        self.mirror.ask(tap=[x, y])

    def tap_place(self, place: str) -> None:
        """A finger on a board place: a second touch in the loupe when the first one opened it."""
        self.tap(*self.mirror.where_place(place))
        if self.mirror.ask(loupe=True)["open"]:
            self.tap(*self.mirror.where_place(place))

    def settle(self, name: str, timeout: float = 300) -> None:
        """Wait until the guest's screen shows what the twin's does."""
        self.steps += 1
        expected = self.mirror.shot(self.shots / f"table-{self.steps:03d}.png")
        wait_for(self.vm, expected, self.shots, timeout, f"the table after {name}", SAME_TABLE)

    def offered(self, kind: str) -> list[dict[str, Any]]:
        actions: list[dict[str, Any]] = self.mirror.ask(offered=kind)["actions"]
        return actions

    def expects(self) -> list[str]:
        expects: list[str] = self.mirror.ask(expects=True)["expects"]
        return expects


def sensor_roll(run: Run, table: Table, values: tuple[str, ...], unplug: bool = False) -> str:
    """A roll from the sensor board; with `unplug`, the Pico's cable is pulled before the app can answer and
    plugged back in. Returns the frame's sequence number once the board heard its ACK."""
    answered = len(run.sensor.answers)
    run.sensor.roll(*values)
    if unplug:
        table.vm.unplug_sensor()
        time.sleep(3)
        table.vm.plug_sensor()
    deadline = time.monotonic() + 300
    while len(run.sensor.answers) == answered:
        if time.monotonic() > deadline:
            raise Failure(f"the sensor's roll {' '.join(values)} was never answered")
        time.sleep(0.2)
    kind, line, reason = run.sensor.answers[answered]
    if kind != "ACK":
        raise Failure(f"the roll {' '.join(values)} was refused ({reason})")
    table.mirror.ask(roll=list(values))
    return line.decode().split(",")[1]


def check_sensor(run: Run, vm: Machine) -> None:
    """Check 4: the opening and a whole Gold Connection turn with every roll from the sensor board (a
    Pico on USB), the cable pulled out and put back in while a roll waits: each roll ACKed, and in the
    journal exactly once with the frame that carried it."""
    shots = folder("shots")

    def body() -> str:
        vm.ssh("systemctl --user restart goldtable")
        mirror = Mirror(run.log)
        sent: list[str] = []
        try:
            mirror.ask(power_off=True)
            wait_for(vm, mirror.shot(shots / "home-expected.png"), shots, 600, "Home")
            start_game(vm, mirror, "Gold Connection", shots)
            table = Table(run, vm, mirror, shots)
            table.load_guest_game()
            dice = iter([("3", "4"), ("6", "6"), ("5", "2"), ("2", "1")])
            while "move" not in table.expects():
                kind = table.expects()[0]
                if kind == "roll":
                    values = next(dice)
                    sent.append(sensor_roll(run, table, values, unplug=len(sent) == 1))
                elif kind == "choose_start":
                    table.tap(*mirror.where(f"Start on safe {table.offered(kind)[0]['safe'][1:]}", press=False))
                else:
                    table.tap_place(str(table.offered("place_arrow")[0]["heading"]))
                table.settle(kind)
            move = next(action for action in table.offered("move")
                        if action["heading"] is None and len(action["path"]) >= 2)
            table.tap_place(str(move["path"][-1]))
            table.settle("the move")
            bar = mirror.ask(offered="loot")
            run.log.write(f"loot offers {bar}")
        finally:
            mirror.close()
        record = latest_game(vm)
        refs = [entry.get("ref") for entry in record["actions"] if entry["action"]["type"] == "roll"]
        wanted = [f"serial:{seq}" for seq in sent]
        if sorted(ref.rsplit(":", 1)[-1] for ref in refs if ref) != sorted(sent) or len(refs) != len(sent):
            raise Failure(f"the journal's rolls carry the frames {refs}, the board sent {wanted}")
        return (f"{len(sent)} rolls from the Pico on /dev/ttyACM0, each ACKed and journalled once with its frame; "
                f"the cable pulled and put back while the second waited")

    run.check(4, "sensor on USB", body)


def run_all(run: Run, targets: list[Target]) -> None:
    """Check 1 on every release; the others on trixie (today's Raspberry Pi OS)."""
    for target in targets:
        vm = check_install(run, target) if run.wanted(1) or target.suite == "trixie" else None
        if vm is None:
            continue
        try:
            if target.suite == "trixie" and run.wanted(2):
                check_kiosk(run, vm)
            if target.suite == "trixie" and run.wanted(3):
                check_gpio(run, vm)
            if target.suite == "trixie" and run.wanted(4):
                check_sensor(run, vm)
            if target.suite == "trixie" and run.wanted(8):
                check_rotation(run, vm)
            if target.suite == "trixie" and run.wanted(5):
                check_shutdown_desktop(run, vm)
        finally:
            vm.shutdown()
        if target.suite == "trixie" and run.wanted(9):
            check_console(run, target)
