"""The shipped pin map, docs/hardware.md's pin table and the wiring picture agree, and the map has the parts
issue 12 asks for: six Digger colour buttons and Chinagold's hint button."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

from PIL import Image

from companion.games.digger.rules import FACES
from firmware_bridge.config import load_pin_map

ROOT = Path(__file__).resolve().parents[2]
HARDWARE = ROOT / "docs" / "hardware.md"
PICTURE = ROOT / "docs" / "wiring" / "gpio-wiring.png"


def drawing() -> ModuleType:
    spec = importlib.util.spec_from_file_location("draw_wiring", ROOT / "docs" / "wiring" / "draw_wiring.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_default_map_has_colour_and_hint_buttons_on_free_pins() -> None:
    pin_map = load_pin_map()
    assert {name for name in pin_map.buttons if name.startswith("colour_")} == {f"colour_{face}" for face in FACES}
    assert "hint" in pin_map.buttons
    assert sorted(pin for pin, _ in pin_map.pin_uses()) == list(range(2, 28))  # each GPIO once, all of them


def test_the_pin_table_in_hardware_md_is_the_shipped_map() -> None:
    pin_map = load_pin_map()
    draw = drawing()
    header_pin = {bcm: pin for pin, bcm in draw.BCM_AT_PIN.items()}
    section = HARDWARE.read_text(encoding="utf-8").split("### Pin map (shipped default")[1].split("###")[0]
    rows = re.findall(r"^\| (.+?) \| (\d+) \| (\d+) \| (\d+) \|$", section, re.M)
    documented = {}
    for what, bcm, pin, ground in rows:
        name = re.search(r"`(\w+)`", what)
        label = f"buttons.{name.group(1)}" if what.startswith("button") else (
            f"leds.{name.group(1)}" if what.startswith("LED") else name.group(1) if name else "buzzer")
        documented[label] = int(bcm)
        assert header_pin[int(bcm)] == int(pin), what
        assert int(ground) == draw.nearest_ground(int(pin)) and int(ground) in draw.GROUND, what
    assert documented == {label: pin for pin, label in pin_map.pin_uses()}


def test_the_wiring_picture_is_drawn_from_the_map(tmp_path: Path) -> None:
    draw = drawing()
    out = draw.render(tmp_path / "wiring.png")
    with Image.open(out) as fresh, Image.open(PICTURE) as committed:
        assert fresh.size == committed.size == (draw.W, draw.H)
    wired = draw.uses({"buttons": {"colour_Y": 8, "hint": 24}, "leds": {"seat1": 4}, "buzzer": 18,
                       "timer_tilt": 26})
    assert wired == {8: ("colour", "colour_Y  (Digger die Y)"), 24: ("button", "button hint"),
                     4: ("led", "LED seat1 + 330 Ω"), 18: ("buzzer", "buzzer  (1 kΩ to NPN base)"),
                     26: ("switch", "timer_tilt  (tilt switch, hourglass)")}
    assert "gpio-wiring.png" in HARDWARE.read_text(encoding="utf-8")
