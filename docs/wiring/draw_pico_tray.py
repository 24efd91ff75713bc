"""Draw docs/wiring/pico-colour-tray.png, the wiring of Digger's 5-die colour tray, from the firmware's board.py.

    python docs/wiring/draw_pico_tray.py [OUT.png]

The picture is made from `firmware_bridge/firmware/board.py` (I2C pins, address, `EXPANDER_SLOTS`), so it
shows what the firmware reads: the Pico's bus pins on the left, the MCP23017 (DIP-28) in the middle with
its power, address and reset wiring, and the five die slots of three Hall switches each on the right,
14 of them on GPA0-6/GPB0-6 and one on a Pico pin.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "firmware_bridge" / "firmware" / "board.py"


def load(name: str, path: Path) -> ModuleType:
    """A plain file as a module (board.py is MicroPython's, draw_wiring.py is a script beside this one)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_gpio_drawing = load("draw_wiring", Path(__file__).with_name("draw_wiring.py"))  # the same look and fonts
BG, DIM, INK, font = _gpio_drawing.BG, _gpio_drawing.DIM, _gpio_drawing.INK, _gpio_drawing.font
OUT = Path(__file__).with_name("pico-colour-tray.png")

W, H = 1800, 1100
CHIP_X, CHIP_TOP, ROW = 760, 170, 40
BUS, POWER, GROUND, SENSE = "#2e6fba", "#d63a2f", "#111111", "#8e44ad"
#: Pico pin number of each GP pin on the Pico's header.
PICO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16, 13: 17,
            14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34}
#: Where the Pico's own tray line leaves the Pico box, and how it runs below the chip to its slot.
PICO_LINE_Y, PICO_LINE_DOWN, PICO_LINE_BELOW, PICO_LINE_UP = 490, 380, 770, 1250


def load_board() -> ModuleType:
    return load("board", BOARD)


def expander_pin(number: int) -> tuple[str, int]:
    """Expander input 0-15 -> (name, DIP-28 pin): GPA0-7 are pins 21-28, GPB0-7 are pins 1-8."""
    return (f"GPA{number}", 21 + number) if number < 8 else (f"GPB{number - 8}", 1 + number - 8)


def slot_line(name: str) -> tuple[bool, int]:
    """A slot line of board.EXPANDER_SLOTS -> (on the expander?, DIP-28 pin or Pico pin)."""
    if name[:3] in ("GPA", "GPB"):
        return True, expander_pin(int(name[3]) + (8 if name[2] == "B" else 0))[1]
    return False, PICO_PIN[int(name[2:])]


#: The MCP23017's other DIP-28 pins.
CHIP_PINS = {9: "VDD", 10: "VSS", 11: "NC", 12: "SCL", 13: "SDA", 14: "NC", 15: "A0", 16: "A1", 17: "A2",
             18: "RESET", 19: "INTB", 20: "INTA"}


def chip_xy(pin: int) -> tuple[int, int]:
    """Pins 1-14 down the left side, 15-28 up the right side (the DIP's top view)."""
    if pin <= 14:
        return CHIP_X, CHIP_TOP + (pin - 1) * ROW
    return CHIP_X + 220, CHIP_TOP + (28 - pin) * ROW


def pin_label(pin: int) -> str:
    if pin in CHIP_PINS:
        return CHIP_PINS[pin]
    return f"GPA{pin - 21}" if pin >= 21 else f"GPB{pin - 1}"


def draw_chip(draw: ImageDraw.ImageDraw, address: int) -> None:
    x0, y0 = CHIP_X + 20, CHIP_TOP - 30
    draw.rounded_rectangle((x0, y0, x0 + 180, y0 + 14 * ROW + 20), radius=8, fill="#2b2b2b")
    draw.text((x0 + 90, y0 - 22), f"MCP23017-E/SP  (0x{address:02X})", font=font(19, True), fill=INK, anchor="mm")
    small = font(15)
    for pin in range(1, 29):
        x, y = chip_xy(pin)
        draw.rectangle((x - 6, y - 5, x + 20, y + 5) if pin <= 14 else (x - 20, y - 5, x + 6, y + 5), fill="#b0b0b0")
        inside = x + 28 if pin <= 14 else x - 28
        draw.text((inside, y), f"{pin} {pin_label(pin)}" if pin <= 14 else f"{pin_label(pin)} {pin}", font=small,
                  fill="#ffffff", anchor="lm" if pin <= 14 else "rm")


def stub(draw: ImageDraw.ImageDraw, pin: int, colour: str, label: str, label_colour: str = INK) -> None:
    """A short lead out of a chip pin with what it connects to written at its end."""
    x, y = chip_xy(pin)
    left = pin <= 14
    end = x - 46 if left else x + 46
    draw.line((x - 6 if left else x + 6, y, end, y), fill=colour, width=3)
    draw.text((end - 8 if left else end + 8, y), label, font=font(16), fill=label_colour, anchor="rm" if left else "lm")


def draw_bus(draw: ImageDraw.ImageDraw, board: ModuleType) -> None:
    """The Pico and its two I2C lines with their pull-ups; the chip's power, address and reset pins."""
    _block, sda, scl = board.EXPANDER_I2C
    text, grey = font(19), font(15)
    draw.rounded_rectangle((40, 170, 330, 520), radius=12, fill="#1f6b3a")
    draw.text((185, 195), "Raspberry Pi Pico", font=font(21, True), fill="#ffffff", anchor="mm")
    # (label, y on the Pico, chip pin, x of the vertical run, pull-up drawn up or down)
    for label, y, chip_pin, run, up in ((f"GP{scl} SCL (pin {PICO_PIN[scl]})", 260, 12, 520, True),
                                        (f"GP{sda} SDA (pin {PICO_PIN[sda]})", 330, 13, 480, False)):
        cx, cy = chip_xy(chip_pin)
        draw.text((60, y), label, font=text, fill="#ffffff", anchor="lm")
        draw.line((330, y, run, y), fill=BUS, width=3)
        draw.line((run, y, run, cy), fill=BUS, width=3)
        draw.line((run, cy, cx - 6, cy), fill=BUS, width=3)
        rx = 400
        top, bottom = (y - 62, y - 30) if up else (y + 30, y + 62)
        draw.line((rx, y, rx, y - 30 if up else y + 30), fill=BUS, width=3)
        draw.rectangle((rx - 8, top, rx + 8, bottom), outline=INK, width=2)
        draw.text((rx, top - 12 if up else bottom + 12), "4.7 kΩ to 3V3", font=grey, fill=POWER, anchor="mm")
    draw.text((60, 400), "3V3 OUT (pin 36)", font=text, fill="#ffffff", anchor="lm")
    draw.text((60, 440), "GND (pin 38)", font=text, fill="#ffffff", anchor="lm")
    draw.text((40, 540), "3V3 OUT to VDD, RESET, both pull-ups,", font=grey, fill=POWER)
    draw.text((40, 560), "every Hall switch's VCC", font=grey, fill=POWER)
    draw.text((40, 590), "GND to VSS, A0, A1, A2,", font=grey, fill=GROUND)
    draw.text((40, 610), "every Hall switch's GND", font=grey, fill=GROUND)
    stub(draw, 9, POWER, "3V3, 100 nF to VSS", POWER)
    stub(draw, 10, GROUND, "GND", GROUND)
    address = board.EXPANDER_ADDRESS - 0x20
    for bit, pin in enumerate((15, 16, 17)):
        high = (address >> bit) & 1
        stub(draw, pin, POWER if high else GROUND, "3V3" if high else "GND", POWER if high else GROUND)
    stub(draw, 18, POWER, "3V3 (never open)", POWER)
    stub(draw, 19, DIM, "not connected", DIM)
    stub(draw, 20, DIM, "not connected", DIM)
    for pin in (8, 28):  # GPB7, GPA7: the data sheet allows them only as outputs
        stub(draw, pin, DIM, "output, driven low: leave open", DIM)


def slot_y(die: int) -> int:
    return 150 + die * 160


def draw_pico_line(draw: ImageDraw.ImageDraw, label: str, slot_xy: tuple[int, int]) -> None:
    """The one slot line on a Pico pin: out of the Pico box, down, under the chip and up to its switch."""
    x, y = slot_xy
    draw.text((60, PICO_LINE_Y), label, font=font(19), fill="#ffffff", anchor="lm")
    draw.line((330, PICO_LINE_Y, PICO_LINE_DOWN, PICO_LINE_Y, PICO_LINE_DOWN, PICO_LINE_BELOW,
               PICO_LINE_UP, PICO_LINE_BELOW, PICO_LINE_UP, y, x, y), fill=SENSE, width=3, joint="curve")


def draw_slots(draw: ImageDraw.ImageDraw, board: ModuleType) -> None:
    """Each line the slots use says which die and bit it reads; each slot lists its switches."""
    text, grey = font(17), font(15)
    for die, slot in enumerate(board.EXPANDER_SLOTS):
        x0, y0 = 1290, slot_y(die)
        draw.rounded_rectangle((x0, y0, x0 + 470, y0 + 140), radius=10, outline="#b9c2bc", width=2)
        draw.text((x0 + 16, y0 + 18), f"slot {die + 1}: three Hall switches", font=font(18, True), fill=INK,
                  anchor="lm")
        for bit, name in enumerate(slot):
            on_expander, pin = slot_line(name)
            y = y0 + 50 + bit * 30
            if on_expander:
                stub(draw, pin, SENSE, f"die {die + 1} bit {bit}")
                where = f"{name} (pin {pin})"
            else:
                draw_pico_line(draw, f"{name} (pin {pin}): die {die + 1} bit {bit}", (x0 + 20, y))
                where = f"Pico {name} (pin {pin})"
            draw.rectangle((x0 + 20, y - 11, x0 + 44, y + 11), fill="#444444")
            draw.text((x0 + 32, y), "H", font=font(14, True), fill="#ffffff", anchor="mm")
            draw.text((x0 + 56, y), f"bit {bit}: OUT to {where}", font=text, fill=INK, anchor="lm")
    draw.text((40, H - 90), "codes (bit 2 1 0): 1 = B   2 = Y   3 = R   4 = G   5 = W   6 = K   0, 7 = ?    "
              "a switch pulling its line low is a 1 bit", font=grey, fill=DIM)
    draw.text((40, H - 60), "Hall switch: Allegro A1120EUA-T (or TI DRV5023AJQLPG), TO-92: VCC to 3V3, GND to GND, "
              "OUT to its expander input or Pico pin (the firmware switches the pull-ups on)", font=grey, fill=DIM)
    draw.text((40, H - 120), "GPA7 and GPB7 are never read: Microchip's MCP23017 data sheet (DS20001952D) allows them "
              "only as outputs, so the firmware drives them low (docs/hardware.md)", font=grey, fill=POWER)


def render(out: Path = OUT) -> Path:
    board = load_board()
    image = Image.new("RGB", (W, H), BG)
    draw = ImageDraw.Draw(image)
    draw.text((40, 24), "Goldtable Pico build — Digger's 5-die colour tray (firmware_bridge/firmware/board.py)",
              font=font(30, True), fill=INK)
    draw.text((40, 64), 'DICE_READER = "expander", FACES_BY_CODE = COLOUR_FACES.  MCP23017 pins: DIP-28, top view, '
              "notch up.  Every Hall switch and the expander run on the Pico's 3V3.", font=font(17), fill=DIM)
    draw_chip(draw, board.EXPANDER_ADDRESS)
    draw_bus(draw, board)
    draw_slots(draw, board)
    image.save(out, optimize=True)
    return out


if __name__ == "__main__":
    print(render(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
