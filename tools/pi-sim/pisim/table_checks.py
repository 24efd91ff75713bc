"""Checks 4, 6 and 7 of `tools/pi-sim/check`: a game played at the simulated Pi's table with the sensor board
and the card, each input followed into the journal: by the Pico on USB (4), on a slow card (6), across
power cuts (7)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from firmware_bridge.simulator import Simulator
from pisim import card
from pisim.checks import (
    FRAME_LOG,
    ONE_THREAD_RENDERER,
    SAME_TABLE,
    Run,
    folder,
    latest_game,
    on_home,
    on_sd_card,
    start_game,
    wait_app_started,
)
from pisim.host import Failure
from pisim.screens import Mirror, wait_for
from pisim.vm import Machine


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

    def journalled(self, count: int, what: str, timeout: float = 300) -> None:
        """Wait until the guest's game holds `count` actions: its screen can look done (the button pressed)
        before the app has the tap, and the board's next roll must not overtake it."""
        deadline = time.monotonic() + timeout
        while len(latest_game(self.vm)["actions"]) < count:
            if time.monotonic() > deadline:
                raise Failure(f"{what} was not in the guest's journal after {timeout:.0f} s")
            time.sleep(2)

    def offered(self, kind: str) -> list[dict[str, Any]]:
        actions: list[dict[str, Any]] = self.mirror.ask(offered=kind)["actions"]
        return actions

    def expects(self) -> list[str]:
        expects: list[str] = self.mirror.ask(expects=True)["expects"]
        return expects


def sensor_roll(acks: Acks, table: Table, values: tuple[str, ...], unplug: bool = False) -> str:
    """A roll from the sensor board; with `unplug`, the Pico's cable is pulled before the app can answer and
    plugged back in. Returns the frame's sequence number once the board heard its ACK."""
    heard = len(acks.answers())  # the next answer is this roll's, however many the rolls before got
    acks.roll(*values)
    if unplug:
        try:
            table.vm.unplug_sensor()
            time.sleep(3)
        finally:
            table.vm.plug_sensor()  # a failed unplug must not leave the next checks without the board
    kind, line, reason = acks.wait(heard + 1, timeout=300)[heard]
    if kind != "ACK":
        played = [entry["action"]["type"] for entry in latest_game(table.vm)["actions"]]
        raise Failure(f"the roll {' '.join(values)} was refused ({reason}); the guest's game holds {played}, "
                      f"the twin expects {table.expects()}")
    table.mirror.ask(roll=list(values))
    return frame_seq(line)


def frame_seq(answer: bytes) -> str:
    """The sequence number of the frame an answer (`ACK,<seq>...`, as the board heard it) is for."""
    return answer.decode().split(",")[1]


def check_sensor(run: Run, vm: Machine) -> None:
    """Check 4: the opening and a whole Gold Connection turn with every roll from the sensor board (a
    Pico on USB), the cable pulled out and put back in while a roll waits: each roll ACKed, and in the
    journal exactly once with the frame that carried it."""
    shots = folder("shots")

    def body() -> str:
        sent: list[str] = []
        acks = Acks(run.sensor)
        with on_home(run, vm, shots) as mirror:
            start_game(vm, mirror, "Gold Connection", shots)
            table = Table(run, vm, mirror, shots)
            table.load_guest_game()
            dice = iter([("3", "4"), ("6", "6"), ("5", "2"), ("2", "1")])
            while "move" not in table.expects():
                kind = table.expects()[0]
                if kind == "roll":
                    values = next(dice)
                    sent.append(sensor_roll(acks, table, values, unplug=len(sent) == 1))
                else:
                    played = len(latest_game(vm)["actions"])
                    if kind == "choose_start":
                        table.tap(*mirror.where(f"Start on safe {table.offered(kind)[0]['safe'][1:]}", press=False))
                    else:
                        table.tap_place(str(table.offered("place_arrow")[0]["heading"]))
                    table.journalled(played + 1, f"the tap for {kind}")
                table.settle(kind)
            move = next(action for action in table.offered("move")
                        if action["heading"] is None and len(action["path"]) >= 2)
            table.tap_place(str(move["path"][-1]))
            table.settle("the move")
            bar = mirror.ask(offered="loot")
            run.log.write(f"loot offers {bar}")
        record = latest_game(vm)
        refs = [entry.get("ref") for entry in record["actions"] if entry["action"]["type"] == "roll"]
        wanted = [f"serial:{seq}" for seq in sent]
        if sorted(ref.rsplit(":", 1)[-1] for ref in refs if ref) != sorted(sent) or len(refs) != len(sent):
            raise Failure(f"the journal's rolls carry the frames {refs}, the board sent {wanted}")
        return (f"{len(sent)} rolls from the Pico on /dev/ttyACM0, each ACKed and journalled once with its frame; "
                f"the cable pulled and put back while the second waited")

    run.check(4, "sensor on USB", body)


class Acks:
    """When each of the sensor's frames was sent and what the board heard answered since this check
    began (the one simulated sensor serves every check of a run)."""

    def __init__(self, sensor: Simulator) -> None:
        self.sensor = sensor
        self.sent: list[tuple[float, tuple[str, ...]]] = []
        self.first = len(sensor.answers)

    def answers(self) -> list[tuple[str, bytes, str | None]]:
        return self.sensor.answers[self.first:]

    def roll(self, *values: str) -> None:
        self.sent.append((time.monotonic(), values))
        self.sensor.roll(*values)

    def wait(self, count: int, timeout: float) -> list[tuple[str, bytes, str | None]]:
        """The first `count` answers since the check began, once they have all come."""
        deadline = time.monotonic() + timeout
        while len(self.answers()) < count:
            if time.monotonic() > deadline:
                raise Failure(f"the sensor heard {len(self.answers())} answers, not {count}")
            time.sleep(0.05)
        return self.answers()[:count]


def frame_rows(vm: Machine, since: float) -> list[list[float]]:
    """The guest's frame log from `since` on (its clock): [at, gap, cpu, runqueue, blocked] in s and ms."""
    text = vm.ssh(f"cat {FRAME_LOG}")
    rows = [[float(part) for part in line.split()] for line in text.splitlines() if line and line[0] != "#"]
    return [row for row in rows if row[0] >= since]


def guest_now(vm: Machine) -> float:
    """The guest's monotonic clock (the frame log's)."""
    return float(vm.ssh("cat /proc/uptime").split()[0])


#: How long check 6 holds every flush of the card. The issue names 200 ms, an SD card's worst; under emulation
#: the UI thread also sits blocked 100-350 ms in some frames with the card at full speed (the emulated
#: desktop: Xwayland, the compositor), so a 200 ms wait could not be told from them. Five times as long, a
#: single flush waited for on the UI thread stands out of that noise, and what holds for 1 s holds for 0.2.
SLOW_FLUSH_MS = 1000
#: The most the UI thread may be blocked in one frame of check 6: half a flush.
STALL_MS = SLOW_FLUSH_MS // 2


def check_slow_card(run: Run, vm: Machine, flush_ms: int = SLOW_FLUSH_MS) -> None:
    """Check 6: every flush of the SD card held `flush_ms`: a Digger game by taps and by the sensor; the UI
    thread is never blocked on the card (the commits run on the journal's writer thread: no frame's blocked
    time comes near a flush), every sensor roll is ACKed only after the flush, and every input comes out in
    the journal once, in order."""
    shots = folder("shots")

    def body() -> str:
        on_sd_card(vm)
        vm.ssh(f"sudo pi-sim-sdcard delay {flush_ms}")
        # llvmpipe draws on threads of its own, and the UI thread waiting for them counts as blocked in the
        # frame log (seconds a frame under emulation, where a Pi's GPU takes milliseconds): drawn on the UI
        # thread itself, the drawing is its CPU time, and blocked is what this check is after
        vm.ssh(f"systemctl --user set-environment {ONE_THREAD_RENDERER}")
        try:
            with on_home(run, vm, shots, threshold=SAME_TABLE) as mirror:
                start_game(vm, mirror, "Digger", shots)
                began, began_host = guest_now(vm), time.monotonic()
                acks = Acks(run.sensor)
                # a roll from the sensor, and while its write waits for the card a roll by touch (five faces
                # tapped in a burst) and Stop: the frame reaches the app well before the taps, which travel
                # through the emulated USB tablet, the compositor and Xwayland
                acks.roll("W", "W", "R", "B", "K")
                mirror.ask(roll=["W", "W", "R", "B", "K"])
                time.sleep(0.3)
                for face in "BYRGK":
                    vm.tap(*mirror.where(face, press=True))
                if "stop" not in mirror.ask(expects=True)["expects"]:
                    raise Failure("the check's own game offers no Stop after its two rolls")
                saved_before_stop = bool(acks.answers())  # else Stop! is tapped while the roll is written
                vm.tap(*mirror.where("Stop!"))
                stop_tapped = time.monotonic()
                vm.screendump(shots / "slow-card-stop.png")  # the table as the Stop! tap found it
                answers = acks.wait(1, 300)
                heard = time.monotonic()
            deadline = time.monotonic() + 300
            while len(latest_game(vm)["actions"]) < 3 and time.monotonic() < deadline:
                time.sleep(3)
            rows = frame_rows(vm, began)
        finally:
            vm.ssh("sudo pi-sim-sdcard delay 0")
            vm.ssh(f"systemctl --user unset-environment {ONE_THREAD_RENDERER.split('=')[0]}")
        record = latest_game(vm)
        actions = [(entry["source"], entry["action"]) for entry in record["actions"]]
        expected = [("serial", {"type": "roll", "values": ["W", "W", "R", "B", "K"]}),
                    ("touch", {"type": "roll", "values": list("BYRGK")}), ("touch", {"type": "stop"})]
        if actions != expected:
            raise Failure(f"the journal holds {actions}, not the inputs in order {expected}")
        if answers[0][0] != "ACK":
            raise Failure(f"the sensor's roll was answered {answers[0]}")
        waited = heard - acks.sent[0][0]
        if waited < flush_ms / 1000:
            raise Failure(f"the sensor's roll was ACKed {waited * 1000:.0f} ms after it was sent, before a "
                          f"{flush_ms} ms flush could end")
        gaps = sorted(row[1] for row in rows)
        blocked = max(row[4] for row in rows)
        if blocked > STALL_MS:
            worst = sorted(rows, key=lambda row: -row[4])[:3]
            when = ", ".join(f"{row[4]:.0f} ms ending {row[0] - began:.1f} s after the game began" for row in worst)
            raise Failure(f"the UI thread was blocked more than {STALL_MS} ms in a frame: {when} (the sensor's "
                          f"roll was sent {acks.sent[0][0] - began_host:.1f} s, Stop tapped "
                          f"{stop_tapped - began_host:.1f} s after it)")
        stop_when = "after the sensor's roll was saved" if saved_before_stop else "while the sensor's roll was written"
        return (f"every flush held {flush_ms} ms: a sensor roll, then a touch roll, and Stop tapped {stop_when}, "
                f"came out in order, each once; the sensor's roll ACKed "
                f"{waited * 1000:.0f} ms after it was sent; {len(rows)} frames: UI thread blocked at most "
                f"{blocked:.0f} ms, gap p50 {gaps[len(gaps) // 2]:.0f} / p99 {gaps[int(len(gaps) * .99)]:.0f} / "
                f"max {gaps[-1]:.0f} ms under emulation")

    run.check(6, "slow SD card", body)


def sensor_settled(sensor: Simulator, timeout: float) -> None:
    """Wait until the simulated board has nothing left to send or to hear answered (its queue empty, no
    frame awaiting an ACK); it is read from this thread, for a yes or no only."""
    deadline = time.monotonic() + timeout
    while sensor.device.queue or sensor.device.outstanding is not None:
        if time.monotonic() > deadline:
            raise Failure(f"the sensor still had frames to send after {timeout:.0f} s")
        time.sleep(0.5)
    time.sleep(2.0)  # the last answer's roll reaches the table's screen


def check_power_cuts(run: Run, vm: Machine, cuts: int = 10, seed: int = 25) -> None:
    """Check 7: power cut at random moments while the sensor rolls in a Digger game; after each boot Home
    offers Resume, and the journal holds every roll the board heard ACKed, each once."""

    shots = folder("shots")
    rng = random.Random(seed)
    faces = "BYRGWK"

    acks = Acks(run.sensor)

    def acked_refs() -> set[str]:
        """The rolls the board heard ACKed in this check."""
        return {"serial:" + frame_seq(line) for kind, line, _ in acks.answers() if kind == "ACK"}

    def journalled(heard: set[str], when: str) -> dict[str, Any]:
        """The guest's game as its journal holds it now: every roll `heard` ACKed there, each frame once."""
        record = latest_game(vm)
        refs = [entry.get("ref") for entry in record["actions"] if entry.get("ref")]
        missing = heard - set(refs)
        if missing:
            raise Failure(f"{when}: ACKed rolls missing from the journal: {sorted(missing)}")
        if len(refs) != len(set(refs)):
            raise Failure(f"{when}: a frame is in the journal twice")
        return record

    def twin_at_home(mirror: Mirror, record: dict[str, Any]) -> None:
        """The host's twin on Home with the guest's game to resume."""
        path = shots / "guest-game.json"
        path.write_text(json.dumps(record))
        mirror.ask(record=str(path))
        mirror.ask(go="home")

    def body() -> str:
        on_sd_card(vm)
        with on_home(run, vm, shots, threshold=SAME_TABLE) as mirror:
            start_game(vm, mirror, "Digger", shots)
        for cut in range(cuts):
            until = time.monotonic() + rng.uniform(3, 25)
            while time.monotonic() < until:
                acks.roll(*(rng.choice(faces) for _ in range(5)))
                time.sleep(rng.uniform(0.3, 2.5))
            vm.power_cut()
            heard = acked_refs()
            vm.start()
            vm.wait_ready(card.BOOT_TIMEOUT)
            on_sd_card(vm)
            wait_app_started(vm, 900)
            record = journalled(heard, f"after cut {cut + 1}")
            mirror = Mirror(run.log)
            try:
                mirror.ask(power_off=True)
                twin_at_home(mirror, record)
                wait_for(vm, mirror.shot(shots / "resume-expected.png"), shots, 600, f"Resume after cut {cut + 1}")
                resume = mirror.ask(resume_text=True)["text"]
                vm.tap(*mirror.where(resume, press=True))
                # Rolls the board sent before the cut and never heard answered are sent again, and the
                # table takes them once it is open: the journal, and the twin, are read once they are in.
                sensor_settled(run.sensor, 300)
                twin_at_home(mirror, journalled(heard, f"after cut {cut + 1} and Resume"))
                mirror.where(mirror.ask(resume_text=True)["text"], press=True)  # (counting those rolls too)
                wait_for(vm, mirror.shot(shots / f"table-after-cut-{cut + 1}-expected.png"), shots, 300,
                         f"the table after cut {cut + 1}", SAME_TABLE)
            finally:
                mirror.close()
        return (f"{cuts} power cuts at random moments of play: after each boot Home offered Resume and the journal "
                f"held all {len(acked_refs())} ACKed rolls, each once")

    run.check(7, "power cuts", body)
