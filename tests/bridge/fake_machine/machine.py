"""A fake `machine` module for the Pico firmware's tests, on CPython and on MicroPython alike.

Only what the firmware uses: `Pin` (inputs idle high with their pull-up; a test pulls them low) and
`I2C` with MCP23017 expanders behind it.  Written in the subset both interpreters run: no f-strings,
no annotations outside functions, no dataclasses.
"""


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 2
    #: Every pin made so far, by number; `reset()` between tests.
    pins = {}  # noqa: RUF012 — shared registry on purpose; MicroPython has no typing.ClassVar

    def __init__(self, number, mode=-1, pull=-1, value=None):
        self.number = number
        self.mode = mode
        self.pull = pull
        if value is not None:
            self.level = value
        else:
            self.level = 1 if pull == Pin.PULL_UP else 0
        Pin.pins[number] = self

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = level
        return None


class Expander:
    """An MCP23017: 22 registers (IOCON.BANK = 0, sequential access), 16 pins.  `pulled_low` is
    the set of inputs a test holds low; an input without its pull-up floats and reads 0; an output
    reads its latch (OLATA/B)."""

    def __init__(self):
        self.registers = bytearray(22)
        self.registers[0] = 0xFF  # IODIRA/B: all inputs after power-on
        self.registers[1] = 0xFF
        self.pulled_low = set()
        self.answering = True

    def levels(self):
        inputs = self.registers[0x00] | (self.registers[0x01] << 8)
        pull_ups = self.registers[0x0C] | (self.registers[0x0D] << 8)
        latch = self.registers[0x14] | (self.registers[0x15] << 8)
        levels = 0
        for pin in range(16):
            if not (inputs >> pin) & 1:
                levels |= latch & (1 << pin)
            elif pin not in self.pulled_low and (pull_ups >> pin) & 1:
                levels |= 1 << pin
        return levels


class I2C:
    #: Expanders on the bus, by address; `reset()` between tests.
    devices = {}  # noqa: RUF012 — shared registry on purpose; MicroPython has no typing.ClassVar

    def __init__(self, block, sda=None, scl=None, freq=400000):
        self.block = block
        self.sda = sda
        self.scl = scl
        self.freq = freq

    def _device(self, address):
        device = I2C.devices.get(address)
        if device is None or not device.answering:
            raise OSError(110)  # ETIMEDOUT, as on the Pico when nothing acknowledges the address
        return device

    def writeto_mem(self, address, register, data):
        device = self._device(address)
        for offset in range(len(data)):
            device.registers[register + offset] = data[offset]

    def readfrom_mem(self, address, register, count):
        device = self._device(address)
        levels = device.levels()
        device.registers[0x12] = levels & 0xFF
        device.registers[0x13] = levels >> 8
        return bytes(device.registers[register:register + count])


def unique_id():
    return b"\xe6\x61\x41\x04\x03\x5a\x2b\x2c"


def reset():
    Pin.pins = {}
    I2C.devices = {}
