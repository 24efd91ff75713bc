"""The pin backend check (firmware_bridge.gpio.open_pin_factory): quiet, and one sentence that says what to
install on this machine — never the PC advice on a Pi."""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

import firmware_bridge.gpio as gpio
from firmware_bridge import machine
from firmware_bridge.config import load_pin_map
from firmware_bridge.events import BridgeEvent
from firmware_bridge.gpio import GpioSource, GpioUnavailable, open_pin_factory
from firmware_bridge.machine import raspberry_pi_model

PI5 = "Raspberry Pi 5 Model B Rev 1.0"


@pytest.fixture
def pi5(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """This machine pretends to be a Pi 5 with none of the Pi pin libraries importable."""
    model = tmp_path / "model"
    model.write_bytes(PI5.encode() + b"\x00")
    monkeypatch.setattr(machine, "MODEL_FILE", model)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    for module in ("lgpio", "RPi", "RPi.GPIO", "pigpio"):
        monkeypatch.setitem(sys.modules, module, None)  # `import lgpio` now raises ImportError
    return PI5


@pytest.fixture
def broken_lgpio(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An importable lgpio whose chip cannot be opened (as for a user outside the gpio group)."""
    fake = types.ModuleType("lgpio")

    def refuse(_chip: int) -> int:
        raise PermissionError("can not open gpiochip")

    fake.gpiochip_open = refuse  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lgpio", fake)
    yield
    sys.modules.pop("gpiozero.pins.lgpio", None)  # imported against the fake: forget it


def test_the_model_is_read_from_the_device_tree(pi5: str, tmp_path: Path) -> None:
    assert raspberry_pi_model() == PI5
    other = tmp_path / "other"
    other.write_text("Some Other Board\x00")
    assert raspberry_pi_model(other) is None
    assert raspberry_pi_model(tmp_path / "missing") is None


def test_a_pi_without_a_pin_library_gets_one_sentence_on_what_to_install(pi5: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(GpioUnavailable) as error:
            open_pin_factory(raspberry_pi_model())
    message = str(error.value)
    assert "sudo apt install python3-lgpio" in message
    assert "--system-site-packages" in message
    assert PI5 in message
    assert "mock" not in message.lower()
    assert "\n" not in message and message.count(". ") == 0
    assert caught == []  # gpiozero's fallback warnings stay silent


def test_lgpio_present_but_the_chip_refused_points_at_the_gpio_group(pi5: str, broken_lgpio: None) -> None:
    with pytest.raises(GpioUnavailable, match=r"lgpio is installed but cannot open the GPIO chip .*usermod -aG gpio"):
        open_pin_factory(PI5)


def test_a_pc_is_told_it_has_no_pins_and_how_to_go_on() -> None:
    message = gpio.pin_backend_advice(None, {"lgpio": ImportError("No module named 'lgpio'")})
    assert "not a Raspberry Pi" in message and "--no-gpio" in message


def test_an_explicit_backend_is_obeyed_or_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    factory = open_pin_factory(None)
    assert isinstance(factory, MockFactory)
    factory.close()
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "nosuch")
    with pytest.raises(GpioUnavailable, match=r"=nosuch names no gpiozero pin backend \(known: .*lgpio"):
        open_pin_factory(None)


def test_gpio_source_checks_the_backend_before_anything_starts(pi5: str) -> None:
    with pytest.raises(GpioUnavailable, match="python3-lgpio"):
        GpioSource(load_pin_map(), tick_interval=None)


def test_the_app_goes_on_without_gpio_and_says_why(pi5: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's hardware set-up skips the GPIO source with the one sentence, so a serial sensor still works."""
    import companion.app.hardware as hardware

    monkeypatch.setattr(hardware, "on_raspberry_pi", lambda: True)
    sources, problems = hardware.default_sources(gpio=True, serial_url="socket://127.0.0.1:9")
    assert [type(source).__name__ for source in sources] == ["SerialSource"]
    assert len(problems) == 1 and "sudo apt install python3-lgpio" in problems[0] and "mock" not in problems[0]


def test_gpio_source_uses_the_backend_it_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    source = GpioSource(load_pin_map(), tick_interval=None)
    events: list[BridgeEvent] = []
    source.start(events.append)
    try:
        assert source.describe()["pin_factory"] == "MockFactory"
        assert "via MockFactory" in events[0].detail  # type: ignore[union-attr]
    finally:
        source.stop()
        source._factory.close()
