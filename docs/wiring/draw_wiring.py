"""Draw docs/wiring/gpio-wiring.png, the GPIO build's wiring diagram, from the shipped pin map.

    python docs/wiring/draw_wiring.py [OUT.png]

The picture is made from `firmware_bridge/pinmap.default.json`, so it cannot drift from what the app
reads: the 40-pin header in the middle, every wired pin led out to its part on the side it sits on, the
ground pin to use beside it, and the three circuits (switch, LED, buzzer) drawn once at the bottom.
Pillow comes with Kivy; the fonts are the ones Kivy ships.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[2]
PIN_MAP = ROOT / "firmware_bridge" / "pinmap.default.json"
OUT = Path(__file__).with_name("gpio-wiring.png")

#: Header pin -> BCM GPIO number (40-pin header of the Pi 2 and later, the Pi 4 and the Pi 5).
BCM_AT_PIN = {3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24, 19: 10, 21: 9,
              22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12, 33: 13, 35: 19, 36: 16, 37: 26,
              38: 20, 40: 21}
POWER = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V"}
GROUND = (6, 9, 14, 20, 25, 30, 34, 39)
RESERVED = {27: "ID_SD", 28: "ID_SC"}

W, H = 1800, 1190
HEADER_X, TOP, ROW = 830, 120, 38
BG, INK, DIM = "#ffffff", "#1d2621", "#7a847e"
COLOURS = {"button": "#2e6fba", "colour": "#8e44ad", "switch": "#c27c0e", "led": "#2e9e5b", "buzzer": "#c0392b"}
DIE_FILL = {"B": "#2f6fd6", "Y": "#f1c40f", "R": "#d63a2f", "G": "#2e9e5b", "W": "#f4f4f4", "K": "#222222"}


def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    spec = importlib.util.find_spec("kivy")
    assert spec is not None and spec.submodule_search_locations
    name = "Roboto-Bold.ttf" if bold else "Roboto-Regular.ttf"
    return ImageFont.truetype(str(Path(spec.submodule_search_locations[0]) / "data" / "fonts" / name), size)


def nearest_ground(pin: int) -> int:
    """The ground pin closest on the header (rows of two: pin p sits in row (p - 1) // 2)."""
    row, side = (pin - 1) // 2, (pin - 1) % 2
    return min(GROUND, key=lambda g: (abs((g - 1) // 2 - row) + (0.5 if (g - 1) % 2 != side else 0), g))


def uses(pin_map: dict[str, object]) -> dict[int, tuple[str, str]]:
    """BCM pin -> (kind, label) for everything the pin map wires."""
    wired: dict[int, tuple[str, str]] = {}
    for name, bcm in pin_map["buttons"].items():  # type: ignore[attr-defined]
        if name.startswith("colour_"):
            wired[bcm] = ("colour", f"{name}  (Digger die {name[-1]})")
        else:
            wired[bcm] = ("button", f"button {name}")
    if pin_map.get("timer_tilt") is not None:
        wired[pin_map["timer_tilt"]] = ("switch", "timer_tilt  (tilt switch, hourglass)")  # type: ignore[index]
    if pin_map.get("timer_flat") is not None:
        wired[pin_map["timer_flat"]] = ("switch", "timer_flat  (microswitch, pause cradle)")  # type: ignore[index]
    for name, bcm in pin_map["leds"].items():  # type: ignore[attr-defined]
        wired[bcm] = ("led", f"LED {name} + 330 Ω")
    if pin_map.get("buzzer") is not None:
        wired[pin_map["buzzer"]] = ("buzzer", "buzzer  (1 kΩ to NPN base)")  # type: ignore[index]
    return wired


def pin_xy(pin: int) -> tuple[int, int]:
    row, side = (pin - 1) // 2, (pin - 1) % 2
    return HEADER_X + side * 44, TOP + row * ROW


def symbol(draw: ImageDraw.ImageDraw, kind: str, x: int, y: int, label: str) -> None:
    """A small part symbol centred at (x, y)."""
    colour = COLOURS[kind]
    if kind in ("button", "colour"):
        fill = DIE_FILL.get(label.split()[0][-1], BG) if kind == "colour" else BG
        draw.ellipse((x - 11, y - 11, x + 11, y + 11), fill=fill, outline=colour, width=3)
    elif kind == "switch":
        draw.line((x - 12, y + 6, x + 10, y - 8), fill=colour, width=3)
        draw.ellipse((x - 15, y + 3, x - 9, y + 9), fill=colour)
    elif kind == "led":
        draw.polygon([(x - 9, y - 10), (x - 9, y + 10), (x + 9, y)], fill=colour)
        draw.line((x + 10, y - 10, x + 10, y + 10), fill=colour, width=3)
    else:
        draw.rectangle((x - 11, y - 9, x + 11, y + 9), outline=colour, width=3)
        draw.ellipse((x - 4, y - 4, x + 4, y + 4), fill=colour)


def draw_header(draw: ImageDraw.ImageDraw, wired: dict[int, tuple[str, str]]) -> None:
    x0, y0 = HEADER_X - 30, TOP - 28
    draw.rounded_rectangle((x0, y0, x0 + 104, y0 + 20 * ROW + 18), radius=10, fill="#20352a")
    small, tiny = font(15), font(13)
    for pin in range(1, 41):
        x, y = pin_xy(pin)
        bcm = BCM_AT_PIN.get(pin)
        if pin in GROUND:
            fill = "#111111"
        elif pin in POWER:
            fill = "#d63a2f" if POWER[pin] == "5V" else "#f39c12"
        elif bcm in wired:
            fill = COLOURS[wired[bcm][0]]
        else:
            fill = "#9aa39d"
        draw.ellipse((x - 13, y - 13, x + 13, y + 13), fill=fill, outline="#e8c85a", width=2)
        draw.text((x, y), str(pin), font=tiny, fill="#ffffff", anchor="mm")
        side_text = "GND" if pin in GROUND else POWER.get(pin) or RESERVED.get(pin) or f"GPIO{bcm}"
        if (pin - 1) % 2 == 0:
            draw.text((x - 36, y), side_text, font=small, fill=INK, anchor="rm")
        else:
            draw.text((x + 36, y), side_text, font=small, fill=INK, anchor="lm")


def draw_parts(draw: ImageDraw.ImageDraw, wired: dict[int, tuple[str, str]]) -> None:
    text = font(19)
    grey = font(15)
    for pin in range(1, 41):
        bcm = BCM_AT_PIN.get(pin)
        if bcm not in wired:
            continue
        kind, label = wired[bcm]
        x, y = pin_xy(pin)
        left = (pin - 1) % 2 == 0
        end = 470 if left else 1190
        colour = COLOURS[kind]
        start = x - 100 if left else x + 100
        draw.line((start, y, end, y), fill=colour, width=3)
        symbol(draw, kind, end + (-18 if left else 18), y, label)
        ground = f"other leg to GND pin {nearest_ground(pin)}" if kind != "buzzer" else "see circuit C"
        if left:
            draw.text((end - 40, y - 9), label, font=text, fill=INK, anchor="rm")
            draw.text((end - 40, y + 11), ground, font=grey, fill=DIM, anchor="rm")
        else:
            draw.text((end + 40, y - 9), label, font=text, fill=INK, anchor="lm")
            draw.text((end + 40, y + 11), ground, font=grey, fill=DIM, anchor="lm")


def draw_circuits(draw: ImageDraw.ImageDraw) -> None:
    """The three circuits every part uses, once each."""
    y0 = TOP + 20 * ROW + 40
    title, text = font(20, True), font(17)
    boxes = [(40, "A  button or switch"), (620, "B  seat LED"), (1200, "C  buzzer")]
    for x, caption in boxes:
        draw.rounded_rectangle((x, y0, x + 560, y0 + 250), radius=12, outline="#b9c2bc", width=2)
        draw.text((x + 16, y0 + 12), caption, font=title, fill=INK)
    # A: GPIO -- switch -- GND, internal pull-up
    x, y = 40, y0 + 120
    draw.text((x + 20, y), "GPIO", font=text, fill=INK, anchor="lm")
    draw.line((x + 80, y, x + 220, y), fill=INK, width=3)
    draw.ellipse((x + 216, y - 5, x + 226, y + 5), fill=INK)
    draw.line((x + 226, y, x + 300, y - 34), fill=COLOURS["button"], width=4)
    draw.ellipse((x + 296, y - 5, x + 306, y + 5), fill=INK)
    draw.line((x + 306, y, x + 440, y), fill=INK, width=3)
    draw.text((x + 450, y), "GND", font=text, fill=INK, anchor="lm")
    draw.text((x + 20, y + 60), "internal pull-up: pressed reads low; no resistor needed", font=text, fill=DIM)
    # B: GPIO -- 330R -- LED -- GND
    x = 620
    draw.text((x + 20, y), "GPIO", font=text, fill=INK, anchor="lm")
    draw.line((x + 80, y, x + 160, y), fill=INK, width=3)
    draw.rectangle((x + 160, y - 12, x + 240, y + 12), outline=INK, width=3)
    draw.text((x + 200, y - 30), "330 Ω", font=text, fill=INK, anchor="mm")
    draw.line((x + 240, y, x + 310, y), fill=INK, width=3)
    draw.polygon([(x + 310, y - 16), (x + 310, y + 16), (x + 340, y)], fill=COLOURS["led"])
    draw.line((x + 342, y - 16, x + 342, y + 16), fill=COLOURS["led"], width=4)
    draw.line((x + 342, y, x + 440, y), fill=INK, width=3)
    draw.text((x + 450, y), "GND", font=text, fill=INK, anchor="lm")
    draw.text((x + 20, y + 60), "long leg (anode) towards the resistor", font=text, fill=DIM)
    # C: 5V -- buzzer -- collector; GPIO18 -- 1k -- base; emitter -- GND; 1N4148 across the buzzer
    x = 1200
    cx, by = x + 330, y0 + 150
    draw.text((x + 20, y0 + 62), "5V (pin 2)", font=text, fill=INK, anchor="lm")
    draw.line((x + 120, y0 + 62, cx, y0 + 62), fill=INK, width=3)
    draw.rectangle((cx - 18, y0 + 72, cx + 18, y0 + 104), outline=COLOURS["buzzer"], width=3)
    draw.text((cx + 30, y0 + 88), "buzzer + 1N4148 across it", font=font(15), fill=DIM, anchor="lm")
    draw.line((cx, y0 + 62, cx, y0 + 72), fill=INK, width=3)
    draw.line((cx, y0 + 104, cx, by - 18), fill=INK, width=3)
    draw.ellipse((cx - 30, by - 24, cx + 16, by + 22), outline=INK, width=3)
    draw.line((cx - 12, by - 16, cx - 12, by + 14), fill=INK, width=4)
    draw.line((cx - 12, by - 6, cx, by - 18), fill=INK, width=3)
    draw.line((cx - 12, by + 6, cx, by + 18), fill=INK, width=3)
    draw.line((cx, by + 18, cx, y0 + 215), fill=INK, width=3)
    draw.text((cx, y0 + 228), "GND", font=text, fill=INK, anchor="mm")
    draw.text((x + 20, by), "GPIO18", font=text, fill=INK, anchor="lm")
    draw.line((x + 100, by, x + 150, by), fill=INK, width=3)
    draw.rectangle((x + 150, by - 10, x + 220, by + 10), outline=INK, width=3)
    draw.text((x + 185, by + 26), "1 kΩ", font=text, fill=INK, anchor="mm")
    draw.line((x + 220, by, cx - 12, by), fill=INK, width=3)
    draw.text((cx + 30, by), "BC337 / 2N2222A", font=font(15), fill=DIM, anchor="lm")


def render(out: Path = OUT) -> Path:
    pin_map = json.loads(PIN_MAP.read_text(encoding="utf-8"))
    wired = uses(pin_map)
    image = Image.new("RGB", (W, H), BG)
    draw = ImageDraw.Draw(image)
    draw.text((40, 24), "Goldtable GPIO build — wiring (firmware_bridge/pinmap.default.json)", font=font(30, True),
              fill=INK)
    note = ("BCM numbers. Pin 1 (3V3, square pad) is at the end of the header nearest the SD card; odd pins form "
            "the inner row, even pins the row along the board edge. Same header on the Pi 4 and the Pi 5.")
    draw.text((40, 64), note, font=font(17), fill=DIM)
    draw_header(draw, wired)
    draw_parts(draw, wired)
    draw_circuits(draw)
    image.save(out, optimize=True)
    return out


if __name__ == "__main__":
    print(render(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
