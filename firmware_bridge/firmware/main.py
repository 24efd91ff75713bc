"""Pico firmware: scan buttons, hourglass and dice tray, speak GTP/1 over USB serial.

MicroPython runs this file at boot.  Everything except `run()` takes its pins (and I2C bus) from
factories and its time as milliseconds, so the tests drive it with a fake `machine` module, on CPython
and on a real MicroPython interpreter (tests/bridge/test_firmware_interpreters.py).  Typed like gtp.py:
function annotations, type comments elsewhere, names for type checkers behind a guarded import.
"""

import sys
import time

import board
import gtp
import machine

try:  # noqa: SIM105 — MicroPython has no contextlib
    from collections.abc import Callable
except ImportError:  # MicroPython has no collections.abc; the name is only read by type checkers and CPython
    pass

VERSION = "1.0.0"


class Input:
    """An active-low switch, debounced like the host's GPIO source: the leading edge of a change
    counts at once, anything in the next `debounce_ms` is bounce.  Polled, so short taps settle too."""

    def __init__(self, pin: machine.Pin, debounce_ms: int) -> None:
        self.pin = pin
        self.debounce_ms = debounce_ms
        self.stable = self.active()
        self.changed_at = None  # type: int | None
        self.held_sent = False

    def active(self) -> bool:
        return self.pin.value() == 0

    def update(self, now: int) -> int:
        """+1 when it became active, -1 when it became inactive, 0 otherwise."""
        raw = self.active()
        if raw == self.stable:
            return 0
        if self.changed_at is not None and now - self.changed_at < self.debounce_ms:
            return 0
        self.stable = raw
        self.changed_at = now
        self.held_sent = False
        return 1 if raw else -1


class PinSlots:
    """Dice slots wired straight to GP pins: three pins per slot, a low pin is a 1 bit."""

    def __init__(self, pin_factory: type[machine.Pin], slots: list[tuple[int, int, int]]) -> None:
        pin = pin_factory
        self.slots = []  # type: list[list[machine.Pin]]
        for slot in slots:
            self.slots.append([pin(number, pin.IN, pin.PULL_UP) for number in slot])

    def codes(self) -> list[int]:
        codes = []  # type: list[int]
        for slot in self.slots:
            code = 0
            for bit in range(len(slot)):
                if slot[bit].value() == 0:
                    code |= 1 << bit
            codes.append(code)
        return codes


class ExpanderSlots:
    """Five slots on an MCP23017 I2C expander plus a Pico pin (the 5-die colour tray for Digger).

    Each slot names its lines as in `board.EXPANDER_SLOTS`; a low line is a 1 bit, like `PinSlots`.
    Only GPA0-6 and GPB0-6 are inputs (pull-ups on): the data sheet (DS20001952D) allows GPA7 and GPB7
    only as outputs, so they are driven low, which also does no harm to an old tray still wired to
    GPA7.  The expander is set up on first use and again after any bus error, so a tray plugged in late
    or glitched is picked up; while it does not answer every die reads as code 0 (`?`).
    """

    IODIRA = 0x00
    GPPUA = 0x0C
    GPIOA = 0x12
    OLATA = 0x14
    #: Per port: GP0-6 inputs with pull-ups, GP7 an output.
    INPUTS = b"\x7f\x7f"

    def __init__(self, i2c: machine.I2C, address: int, slots: list[tuple[str, str, str]],
                 pin_factory: type[machine.Pin]) -> None:
        self.i2c = i2c
        self.address = address
        self.slots = []  # type: list[list[int | machine.Pin]]
        for slot in slots:
            self.slots.append([tray_line(name, pin_factory) for name in slot])
        self.ready = False
        self.errors = 0

    def codes(self) -> list[int]:
        try:
            if not self.ready:
                self.i2c.writeto_mem(self.address, self.OLATA, b"\x00\x00")  # latch low before GP7 drives
                self.i2c.writeto_mem(self.address, self.IODIRA, self.INPUTS)
                self.i2c.writeto_mem(self.address, self.GPPUA, self.INPUTS)
                self.ready = True
            data = self.i2c.readfrom_mem(self.address, self.GPIOA, 2)
        except OSError:
            self.ready = False
            self.errors += 1
            return [0] * len(self.slots)
        low = ~(data[0] | (data[1] << 8))
        codes = []  # type: list[int]
        for slot in self.slots:
            code = 0
            for bit in range(len(slot)):
                line = slot[bit]
                pulled = (low >> line) & 1 if isinstance(line, int) else line.value() == 0
                if pulled:
                    code |= 1 << bit
            codes.append(code)
        return codes


def tray_line(name: str, pin_factory: type[machine.Pin]) -> int | machine.Pin:
    """A colour-tray line name -> expander bit ("GPA0"-"GPA6": 0-6, "GPB0"-"GPB6": 8-14) or the Pico pin
    of "GPn" (pulled up).  GPA7/GPB7 are refused: the expander may only drive them."""
    if len(name) == 4 and name[:3] in ("GPA", "GPB") and name[3] in "0123456":
        return int(name[3]) + (8 if name[2] == "B" else 0)
    if name[:2] == "GP" and name[2:].isdigit():
        return pin_factory(int(name[2:]), pin_factory.IN, pin_factory.PULL_UP)
    raise ValueError("colour tray line " + name + ": use GPA0-GPA6, GPB0-GPB6 or a Pico GP pin")


def dice_reader(pin_factory: type[machine.Pin], i2c_factory: type[machine.I2C] | None) -> PinSlots | ExpanderSlots:
    """The tray `board.DICE_READER` names: "pins" or "expander"."""
    if board.DICE_READER == "expander":
        if i2c_factory is None:
            raise ValueError("the expander tray needs an I2C factory")
        block, sda, scl = board.EXPANDER_I2C
        i2c = i2c_factory(block, sda=pin_factory(sda), scl=pin_factory(scl), freq=board.EXPANDER_FREQ)
        return ExpanderSlots(i2c, board.EXPANDER_ADDRESS, board.EXPANDER_SLOTS, pin_factory)
    if board.DICE_READER == "pins":
        return PinSlots(pin_factory, board.DICE_SLOTS)
    raise ValueError("board.DICE_READER must be 'pins' or 'expander'")


class Table:
    """Everything wired to the Pico, turned into device events and driven by host commands."""

    def __init__(self, device: gtp.Device, pin_factory: type[machine.Pin],
                 i2c_factory: type[machine.I2C] | None = None) -> None:
        self.device = device
        pin = pin_factory

        def switch(number: int) -> Input:
            return Input(pin(number, pin.IN, pin.PULL_UP), board.DEBOUNCE_MS)

        self.buttons = {}  # type: dict[str, Input]
        for name in board.BUTTONS:
            self.buttons[name] = switch(board.BUTTONS[name])
        self.tilt = switch(board.TIMER_TILT)
        self.flat = switch(board.TIMER_FLAT) if board.TIMER_FLAT is not None else None
        self.tray = pin(board.TRAY_MOTION, pin.IN, pin.PULL_UP)
        self.tray_level = self.tray.value()
        self.rolling = False
        self.last_motion = 0
        self.dice = dice_reader(pin, i2c_factory)
        self.leds = {}  # type: dict[str, machine.Pin]
        for name in board.LEDS:
            self.leds[name] = pin(board.LEDS[name], pin.OUT, value=0)
        self.blinking = []  # type: list[machine.Pin]
        self.buzzer = pin(board.BUZZER, pin.OUT, value=0)
        self.beep_until = None  # type: int | None

    def scan(self, now: int) -> None:
        for name in self.buttons:
            button = self.buttons[name]
            change = button.update(now)
            if change:
                self.device.button(name, "DOWN" if change > 0 else "UP")
            elif (button.stable and not button.held_sent and button.changed_at is not None
                  and now - button.changed_at >= board.HOLD_MS):
                button.held_sent = True
                self.device.button(name, "HELD")
        if self.tilt.update(now):
            self.device.timer("FLIP")
        if self.flat is not None and self.flat.update(now) > 0:
            self.device.timer("FLAT")
        self.scan_tray(now)
        self.drive_outputs(now)

    def scan_tray(self, now: int) -> None:
        """Any level change of the vibration switch is motion; a quiet `SETTLE_MS` ends the roll."""
        level = self.tray.value()
        if level != self.tray_level:
            self.tray_level = level
            self.last_motion = now
            if not self.rolling:
                self.rolling = True
                self.device.rolling()
        elif self.rolling and now - self.last_motion >= board.SETTLE_MS:
            self.rolling = False
            self.device.roll(self.read_dice())

    def read_dice(self) -> list[str]:
        return [board.FACES_BY_CODE[code] for code in self.dice.codes()]

    def apply(self, command: gtp.Command, now: int) -> None:
        """Carry out ("LED", name, mode) or ("BEEP", ms); unknown LED names are ignored.  A refused
        frame (("NAK", seq, reason): the game did not take it) beeps, so the table looks at the screen."""
        if command[0] == "ACK":
            return
        if command[0] == "BEEP" or command[0] == "NAK":  # not `in`: mypy narrows the Command union by ==
            self.buzzer.value(1)
            self.beep_until = now + (command[1] if command[0] == "BEEP" else board.REFUSED_BEEP_MS)
            return
        led = self.leds.get(command[1])
        if led is None:
            return
        if led in self.blinking:
            self.blinking.remove(led)
        if command[2] == "BLINK":
            self.blinking.append(led)
        else:
            led.value(1 if command[2] == "ON" else 0)

    def drive_outputs(self, now: int) -> None:
        if self.beep_until is not None and now >= self.beep_until:
            self.buzzer.value(0)
            self.beep_until = None
        phase = 1 if (now // board.BLINK_MS) % 2 == 0 else 0
        for led in self.blinking:
            led.value(phase)


class Firmware:
    """One step of the main loop: host bytes in, inputs scanned, at most one frame out."""

    def __init__(self, pin_factory: type[machine.Pin], write: Callable[[bytes], object], device_id: str,
                 first_seq: int = 0, i2c_factory: type[machine.I2C] | None = None) -> None:
        self.device = gtp.Device(device_id, VERSION, first_seq)
        self.table = Table(self.device, pin_factory, i2c_factory)
        self.write = write

    def step(self, data: bytes, now: int) -> None:
        for command in self.device.receive(data, now):
            self.table.apply(command, now)
        self.table.scan(now)
        out = self.device.poll(now)
        if out:
            self.write(out)


def run() -> None:
    """The real main loop on the Pico (USB CDC as the serial port)."""
    import binascii
    import random
    import select

    # Ctrl-C (0x03) stays enabled so mpremote can still stop us; the host only ever sends printable
    # GTP/1 lines, so it never sends one by accident.
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    device_id = "pico-" + binascii.hexlify(machine.unique_id()).decode()[-8:]
    firmware = Firmware(machine.Pin, sys.stdout.buffer.write, device_id, random.getrandbits(16), machine.I2C)
    # ticks_ms, ticks_diff and sleep_ms are MicroPython's own; CPython's time (typeshed) has none of them.
    last = time.ticks_ms()  # type: ignore[attr-defined]
    elapsed = 0
    while True:
        tick = time.ticks_ms()  # type: ignore[attr-defined]
        elapsed += time.ticks_diff(tick, last)  # type: ignore[attr-defined]
        last = tick
        data = b""
        while len(data) < 256 and poller.poll(0):
            data += sys.stdin.buffer.read(1)
        firmware.step(data, elapsed)
        time.sleep_ms(1)  # type: ignore[attr-defined]


if __name__ == "__main__":
    run()
