"""`goldtable bridge monitor|simulate` as separate processes: the acceptance check of issue 3."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.simulator import Simulator
from tests.bridge.bridge_helpers import wait_for

REPO = Path(__file__).resolve().parents[2]


class Proc:
    """A `goldtable` subprocess whose stdout lines are collected on a thread."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "companion.cli", *args], cwd=REPO,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        env={**os.environ, **(env or {})})
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def finish(self, sig: int = signal.SIGINT) -> tuple[int, str]:
        """Send `sig`, wait for the exit; (exit code, stderr)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        self._reader.join(timeout=5)
        assert self.process.stderr is not None
        return code, self.process.stderr.read()

    def events(self) -> list[dict]:
        return [json.loads(line) for line in list(self.lines)]


@pytest.fixture
def cleanup() -> Iterator[list[Proc]]:
    procs: list[Proc] = []
    yield procs
    for proc in procs:
        if proc.process.poll() is None:
            proc.process.kill()
            proc.process.wait()


def table(events: list[dict]) -> list[tuple]:
    out: list[tuple] = []
    for e in events:
        if e["event"] == "roll":
            out.append(("roll", *e["values"]))
        elif e["event"] == "button":
            out.append(("button", e["name"], e["action"]))
        elif e["event"] == "timer":
            out.append(("timer", e["state"]))
    return out


def test_monitor_against_simulate_shows_the_table_through_noise_and_a_disconnect(
        tmp_path: Path, cleanup: list[Proc]) -> None:
    script = tmp_path / "game.txt"
    script.write_text("# a short turn\nwait 0.3\nrolling\nroll 3 5\npress confirm\ntimer flip\n"
                      "disconnect 0.5\nroll L ?\nbutton undo held\ntimer flat\n", encoding="utf-8")
    sim = Proc("bridge", "simulate", "--script", str(script), "--noise", "checksum=0.2,split=0.3,merge,garbage",
               "--seed", "5")
    cleanup.append(sim)
    assert wait_for(lambda: any(line.startswith("listening on socket://") for line in sim.lines), timeout=10)
    url = next(line for line in sim.lines if line.startswith("listening on")).split()[-1]
    monitor = Proc("bridge", "monitor", "--serial", url, "--json")
    cleanup.append(monitor)
    expected = [("roll", "3", "5"), ("button", "confirm", "down"), ("button", "confirm", "up"),
                ("timer", "flip"), ("roll", "L", "?"), ("button", "undo", "held"), ("timer", "flat")]
    assert wait_for(lambda: len(table(monitor.events())) >= len(expected), timeout=20)
    code, stderr = monitor.finish(signal.SIGINT)
    assert (code, stderr) == (0, "")
    events = monitor.events()  # every stdout line is one JSON object (json.loads would fail otherwise)
    assert table(events) == expected
    assert all({"event", "source"} <= set(e) for e in events)
    states = [e["state"] for e in events if e["event"] == "status"]
    assert states[0] == "connected" and "disconnected" in states and states.count("connected") >= 2
    assert any(e["event"] == "rejected" and e["reason"] for e in events)
    uncertain = [e for e in events if e["event"] == "roll" and "?" in e["values"]]
    assert uncertain[0]["uncertain"] is True and isinstance(uncertain[0]["seq"], int)
    assert sim.finish(signal.SIGTERM)[0] == 0


def test_monitor_prints_json_lines_only_and_stops_cleanly_on_sigterm(cleanup: list[Proc]) -> None:
    with Simulator(resend_ms=40, heartbeat_ms=200) as device:
        monitor = Proc("bridge", "monitor", "--serial", device.url, "--json")
        cleanup.append(monitor)
        assert wait_for(lambda: any(e["event"] == "status" and e["state"] == "hello" for e in monitor.events()),
                        timeout=10)
        device.press("stop")
        assert wait_for(lambda: table(monitor.events()) == [("button", "stop", "down"), ("button", "stop", "up")])
        code, stderr = monitor.finish(signal.SIGTERM)
    assert (code, stderr) == (0, "")
    hello = next(e for e in monitor.events() if e.get("state") == "hello")
    assert (hello["device"], hello["firmware"]) == ("sim-1", "sim-1.0")


def test_monitor_with_mock_gpio_runs_until_signalled(cleanup: list[Proc]) -> None:
    monitor = Proc("bridge", "monitor", "--gpio", "--json", env={"GPIOZERO_PIN_FACTORY": "mock"})
    cleanup.append(monitor)
    assert wait_for(lambda: bool(monitor.lines), timeout=10)
    code, stderr = monitor.finish(signal.SIGINT)
    assert (code, stderr) == (0, "")
    [status] = monitor.events()
    assert (status["event"], status["source"], status["state"]) == ("status", "gpio", "connected")


@pytest.mark.parametrize(("args", "message"), [
    (["bridge", "simulate", "--noise", "sparks"], "goldtable: --noise: unknown kind 'sparks'"),
    (["bridge", "simulate", "--noise", "checksum=2"], "goldtable: --noise: checksum: Input should be less than"),
    (["bridge", "simulate", "--faces", "12x"], "goldtable: --faces: use face tokens"),
    (["bridge", "monitor", "--serial", "bogus://x"], "goldtable: --serial: bogus://x: invalid URL"),
    (["bridge", "monitor", "--config", "pins.json"], "goldtable: --config: only used with --gpio"),
])
def test_bad_options_end_in_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = subprocess.run([sys.executable, "-m", "companion.cli", *args], cwd=REPO, capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1


def test_bad_script_and_pin_map_files_name_the_file_and_place(tmp_path: Path) -> None:
    script = tmp_path / "s.txt"
    script.write_text("roll 3\nroll 9\n", encoding="utf-8")
    pins = tmp_path / "pins.json"
    pins.write_text('{"buttons": {"confirm": 99}}', encoding="utf-8")
    for args, message in ((["bridge", "simulate", "--script", str(script)], f"{script}: line 2: roll: '9'"),
                          (["bridge", "monitor", "--gpio", "--config", str(pins)], f"{pins}: buttons.confirm")):
        result = subprocess.run([sys.executable, "-m", "companion.cli", *args], cwd=REPO, capture_output=True,
                                text=True, timeout=30, env={**os.environ, "GPIOZERO_PIN_FACTORY": "mock"})
        assert result.returncode == 2 and result.stderr.startswith(f"goldtable: {message}")
        assert result.stderr.count("\n") == 1
