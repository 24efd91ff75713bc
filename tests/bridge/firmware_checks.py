"""The Pico firmware's logic, checked on both interpreters: CPython (pytest calls each check) and a
real MicroPython (its WASI build, run by test_firmware_interpreters.py), so a construct only CPython
has fails here before it fails on a Pico.  Plain functions and asserts in the subset both run; the
firmware modules (`gtp`, `board`, `main`) and the fake `machine` are imported as top-level modules.
"""

import board
import gtp
import machine
import main


def frames(data):
    """Device output -> [(kind, seq or None, fields)], checking each line's framing and checksum."""
    out = []
    for line in data.split(b"\n"):
        if not line:
            continue
        text = line.decode()
        assert text[0] == "$" and text[-1] == "\r" and text[-4] == "*", text
        body = text[1:-4]
        assert gtp.checksum(body.encode()) == int(text[-3:-1], 16), text
        parts = body.split(",")
        if parts[0] == "HELLO":
            out.append(("HELLO", None, tuple(parts[1:])))
        else:
            out.append((parts[0], int(parts[1]), tuple(parts[2:])))
    return out


def one(data):
    got = frames(data)
    assert len(got) == 1, got
    return got[0]


def ack(seq):
    return gtp.encode(f"ACK,{seq}")


def nak(seq, reason):
    return gtp.encode(f"NAK,{seq},{reason}")


def raises(error, call):
    try:
        call()
    except error:
        return True
    return False


# --- gtp.Device ------------------------------------------------------------------------------------

def check_device_says_hello_first_then_sends_one_event_at_a_time_until_acked():
    device = gtp.Device("tray-1", "1.0.0", 10)
    device.roll(["3", "L"])
    device.button("confirm", "DOWN")
    assert one(device.poll(0)) == ("HELLO", None, ("tray-1", "1.0.0", "GTP1"))
    roll = device.poll(1)
    assert one(roll) == ("ROLL", 10, ("3", "L"))
    assert device.poll(2) == b""  # stop and wait
    assert device.poll(gtp.RESEND_MS) == b""
    assert device.poll(1 + gtp.RESEND_MS) == roll  # resent unchanged
    assert device.receive(ack(9), 400) == []  # an ACK for another seq changes nothing
    assert device.poll(401) == b""
    assert device.receive(ack(10), 402) == [("ACK", 10)]
    assert one(device.poll(403))[0] == "HELLO"  # first sign of the host, nothing outstanding: HELLO
    assert one(device.poll(404)) == ("BTN", 11, ("confirm", "DOWN"))
    assert device.resends == 1 and device.acked == 1


def check_device_keeps_resending_until_answered():
    device = gtp.Device("d", "1", 0, hello_ms=10 ** 9)
    device.poll(0)
    device.timer("FLIP")
    first = device.poll(1)
    sent = [device.poll(1 + n * gtp.RESEND_MS) for n in range(1, 20)]
    assert sent == [first] * 19
    device.receive(ack(one(first)[1]), 10000)
    assert [one(device.poll(now))[0] for now in (10001, 11001)] == ["HELLO", "HB"]


def check_a_nak_ends_the_resending_and_drops_the_frame():
    device = gtp.Device("d", "1", 20, hello_ms=10 ** 9)
    device.poll(0)
    device.roll(["B", "Y", "R", "G"])
    device.button("stop", "DOWN")
    roll = device.poll(1)
    assert device.receive(nak(19, "refused"), 2) == []  # stale
    assert device.poll(1 + gtp.RESEND_MS) == roll
    assert device.receive(nak(20, "roll.dice_count"), 400) == [("NAK", 20, "roll.dice_count")]
    assert device.outstanding is None and device.refused == 1 and device.acked == 0
    assert one(device.poll(401))[0] == "HELLO"
    assert one(device.poll(402)) == ("BTN", 21, ("stop", "DOWN"))  # the next event, not the roll again


def check_heartbeat_when_idle_and_hello_only_when_nothing_is_outstanding():
    device = gtp.Device("d", "1", 0, heartbeat_ms=1000, hello_ms=5000)
    kinds = []
    for now in range(0, 12000, 10):
        out = device.poll(now)
        if out:
            kind, seq, _ = one(out)
            kinds.append((now, kind))
            if seq is not None:
                device.receive(ack(seq), now + 1)
    assert [now for now, kind in kinds if kind == "HELLO"] == [0, 1010, 6010, 11010]
    assert [now for now, kind in kinds if kind == "HB"][:3] == [1000, 2010, 3010]


def check_hello_again_when_the_host_returns_after_silence():
    device = gtp.Device("d", "1", 0, hello_ms=10 ** 9)
    assert one(device.poll(0))[0] == "HELLO"
    device.receive(ack(one(device.poll(1000))[1]), 1001)
    assert one(device.poll(1002))[0] == "HELLO"
    device.poll(4500)  # host silent for more than 3 s: gone
    assert not device.host_present
    device.receive(ack(12345), 6000)
    assert one(device.poll(6001))[0] == "HELLO"


def check_seq_wraps_and_the_queue_is_bounded():
    device = gtp.Device("d", "1", 65535, hello_ms=10 ** 9)
    device.poll(0)
    for _ in range(gtp.QUEUE_LIMIT + 5):
        device.rolling()
    assert device.dropped == 5 and len(device.queue) == gtp.QUEUE_LIMIT
    seqs = []
    for now in range(1, 6):
        _, seq, _ = one(device.poll(now))
        if seq is not None:
            seqs.append(seq)
            device.receive(ack(seq), now)
    assert seqs == [65535, 0, 1, 2], seqs


def check_device_refuses_events_the_protocol_cannot_carry():
    device = gtp.Device("d", "1")
    for bad in (lambda: device.roll([]), lambda: device.roll(["7"]), lambda: device.roll(["1"] * 31),
                lambda: device.button("a b", "DOWN"), lambda: device.button("a", "PRESS"),
                lambda: device.timer("UP"), lambda: gtp.Device("bad id", "1")):
        assert raises(ValueError, bad)


def check_host_reader_returns_commands_and_skips_bad_lines():
    reader = gtp.HostReader()
    led = gtp.encode("LED,seat4,BLINK")
    stream = (b"noise" + led[:5] + led[5:] + b"$LED,seat1,ON*00\r\n" + gtp.encode("BEEP,250")[:-2] + ack(7)
              + gtp.encode("LED,seat1,DIM") + b"$ack,1*" + f"{gtp.checksum(b'ack,1'):02x}".encode() + b"\r\n"
              + nak(8, "undo.nothing") + gtp.encode("NAK,9," + "x" * 33) + gtp.encode("NAK,9"))
    assert reader.feed(stream) == [("LED", "seat4", "BLINK"), ("ACK", 7), ("NAK", 8, "undo.nothing")]
    assert reader.rejected == 5, reader.rejected


# --- main.py: the board ----------------------------------------------------------------------------

class Pico:
    """The firmware on fake pins, plus a host that answers every frame with ACK at once."""

    def __init__(self, first_seq=100):
        self.out = b""
        self.firmware = main.Firmware(machine.Pin, self.write, "pico-test", first_seq, machine.I2C)
        self.now = 0
        self.frames = []
        self.to_device = b""

    def write(self, data):
        self.out += data

    def run(self, ms, host=b""):
        self.to_device += host
        for _ in range(ms):
            self.firmware.step(self.to_device, self.now)
            self.to_device = b""
            if self.out:
                for frame in frames(self.out):
                    self.frames.append(frame)
                    if frame[1] is not None:
                        self.to_device += ack(frame[1])
                self.out = b""
            self.now += 1

    def events(self):
        assert self.firmware.device.resends == 0  # the host answers at once: nothing is sent twice
        return [(kind, fields) for kind, _, fields in self.frames if kind not in ("HB", "HELLO")]


def pin(number):
    return machine.Pin.pins[number]


def check_a_bouncy_button_is_reported_once_and_a_long_press_as_held():
    pico = Pico()
    pico.run(10)
    for level in (0, 1, 0, 1, 0):
        pin(2).level = level
        pico.run(1)
    pico.run(900)
    for level in (1, 0, 1):
        pin(2).level = level
        pico.run(1)
    pico.run(50)
    assert pico.events() == [("BTN", ("confirm", "DOWN")), ("BTN", ("confirm", "HELD")),
                             ("BTN", ("confirm", "UP"))], pico.events()


class StuckConfirm(machine.Pin):
    """The confirm button (GP2) is already held down when the board powers on."""

    def __init__(self, number, mode=-1, pull=-1, value=None):
        super().__init__(number, mode, pull, value)
        if number == 2:
            self.level = 0


def check_a_button_down_at_power_on_is_not_reported_until_it_changes():
    firmware = main.Firmware(StuckConfirm, lambda data: None, "pico-test")
    for now in range(2000):
        firmware.step(b"", now)
    assert firmware.device.queue == [] and firmware.device.outstanding is None
    pin(2).level = 1
    firmware.step(b"", 2000)
    assert firmware.device.outstanding is not None and b"confirm,UP" in firmware.device.outstanding[1]


def check_hourglass_flips_and_flat():
    pico = Pico()
    pico.run(5)
    pin(6).level = 0
    pico.run(100)
    pin(6).level = 1
    pico.run(100)
    pin(7).level = 0
    pico.run(100)
    assert pico.events() == [("TIMER", ("FLIP",)), ("TIMER", ("FLIP",)), ("TIMER", ("FLAT",))]


def roll_the_tray(pico):
    for _ in range(20):  # the vibration switch chatters while the dice tumble
        pin(board.TRAY_MOTION).level ^= 1
        pico.run(7)
    pico.run(board.SETTLE_MS - 10)
    assert pico.events()[-1] == ("ROLLING", ()), pico.events()
    pico.run(30)


def check_tray_motion_gives_rolling_then_the_faces_on_the_pins():
    pico = Pico()
    pico.run(5)
    # die 1 shows code 5 (bits 0 and 2 low), die 2 code 6, die 3 reads nothing sensible (code 0)
    for number, level in ((9, 0), (10, 1), (11, 0), (12, 1), (13, 0), (14, 0)):
        pin(number).level = level
    roll_the_tray(pico)
    assert pico.events() == [("ROLLING", ()), ("ROLL", ("5", "6", "?"))], pico.events()


def with_colour_tray(check):
    """Run `check` on a board configured as Digger's 5-die colour tray, then put the board back."""
    saved = board.DICE_READER, board.FACES_BY_CODE
    board.DICE_READER, board.FACES_BY_CODE = "expander", board.COLOUR_FACES
    try:
        check()
    finally:
        board.DICE_READER, board.FACES_BY_CODE = saved


def show(expander, codes):
    """Pull the lines of each slot low to spell `codes` (bit 0 on the slot's first line): expander inputs
    through the fake expander, Pico pins directly."""
    expander.pulled_low = set()
    for slot, code in zip(board.EXPANDER_SLOTS, codes):
        for bit in range(3):
            low = (code >> bit) & 1
            name = slot[bit]
            if name[:3] in ("GPA", "GPB"):
                if low:
                    expander.pulled_low.add(int(name[3]) + (8 if name[2] == "B" else 0))
            else:
                pin(int(name[2:])).level = 0 if low else 1


def check_the_colour_tray_reads_five_dice_on_the_expander():
    def check():
        expander = machine.I2C.devices[board.EXPANDER_ADDRESS] = machine.Expander()
        pico = Pico()
        pico.run(5)
        show(expander, [1, 2, 3, 4, 5])
        roll_the_tray(pico)
        show(expander, [6, 6, 0, 7, 1])
        roll_the_tray(pico)
        show(expander, [7, 6, 2, 5, 3])
        roll_the_tray(pico)
        rolls = [fields for kind, fields in pico.events() if kind == "ROLL"]
        assert rolls == [("B", "Y", "R", "G", "W"), ("K", "K", "?", "?", "B"), ("?", "K", "Y", "W", "R")], rolls
        assert expander.registers[0x0C] == 0x7F and expander.registers[0x0D] == 0x7F  # pull-ups on the inputs

    with_colour_tray(check)


def check_a_roll_of_five_known_faces_decodes_from_the_documented_wires():
    """Wire levels written out by hand from docs/hardware.md, not computed from board.py: R Y R G K."""
    def check():
        expander = machine.I2C.devices[board.EXPANDER_ADDRESS] = machine.Expander()
        pico = Pico()
        pico.run(5)
        # die 1 R=3: GPA0 GPA1 | die 2 Y=2: GPA4 | die 3 R=3: GPA6 and GP15 | die 4 G=4: GPB3
        # die 5 K=6: GPB5 GPB6
        expander.pulled_low = {0, 1, 4, 6, 8 + 3, 8 + 5, 8 + 6}
        pin(15).level = 0
        roll_the_tray(pico)
        pin(15).level = 1  # die 3 loses its bit 1: R (3) becomes B (1)
        roll_the_tray(pico)
        rolls = [fields for kind, fields in pico.events() if kind == "ROLL"]
        assert rolls == [("R", "Y", "R", "G", "K"), ("R", "Y", "B", "G", "K")], rolls

    with_colour_tray(check)


def tray_pico_pin():
    """The colour tray's one line on a Pico pin, after checking the slots read GPA0-6, GPB0-6 and it."""
    names = [name for slot in board.EXPANDER_SLOTS for name in slot]
    on_expander = [name for name in names if name[:3] in ("GPA", "GPB")]
    on_pico = [int(name[2:]) for name in names if name[:3] not in ("GPA", "GPB")]
    assert len(names) == 15 and len(set(names)) == 15, names
    assert sorted(on_expander) == sorted(port + str(n) for port in ("GPA", "GPB") for n in range(7)), on_expander
    others = [0, 1, board.TIMER_TILT, board.TIMER_FLAT, board.TRAY_MOTION, board.BUZZER]
    others += list(board.BUTTONS.values()) + list(board.LEDS.values())
    assert len(on_pico) == 1 and on_pico[0] not in others, on_pico
    return on_pico[0]


def check_the_colour_tray_never_reads_gpa7_or_gpb7_and_reads_its_pico_pin():
    def check():
        number = tray_pico_pin()
        expander = machine.I2C.devices[board.EXPANDER_ADDRESS] = machine.Expander()
        pico = Pico()
        pico.run(5)
        show(expander, [0, 0, 0, 0, 0])
        expander.pulled_low = {7, 15}  # a change on GPA7/GPB7 must not reach any die
        roll_the_tray(pico)
        show(expander, [2, 2, 2, 2, 2])
        roll_the_tray(pico)
        rolls = [fields for kind, fields in pico.events() if kind == "ROLL"]
        assert rolls == [("?",) * 5, ("Y",) * 5], rolls
        # GPA7 and GPB7 outputs (IODIR bit 7 clear) latched low; every other pin an input
        assert [expander.registers[r] for r in (0x00, 0x01, 0x14, 0x15)] == [0x7F, 0x7F, 0, 0]
        gp = pin(number)
        assert gp.mode == machine.Pin.IN and gp.pull == machine.Pin.PULL_UP

    with_colour_tray(check)


def check_a_slot_on_gpa7_or_gpb7_is_refused_at_start():
    saved = board.EXPANDER_SLOTS
    try:
        for bad in ("GPA7", "GPB7", "GPC1", "GPx"):
            board.EXPANDER_SLOTS = [("GPA0", "GPA1", bad)]
            with_colour_tray(assert_refused)
    finally:
        board.EXPANDER_SLOTS = saved


def assert_refused():
    assert raises(ValueError, lambda: main.Firmware(machine.Pin, print, "bad-slot", 0, machine.I2C))


def check_a_missing_expander_reads_unknown_dice_until_it_answers():
    def check():
        expander = machine.I2C.devices[board.EXPANDER_ADDRESS] = machine.Expander()
        expander.answering = False
        pico = Pico()
        pico.run(5)
        show(expander, [1, 1, 1, 1, 1])
        roll_the_tray(pico)
        expander.answering = True
        roll_the_tray(pico)
        rolls = [fields for kind, fields in pico.events() if kind == "ROLL"]
        assert rolls == [("?",) * 5, ("B",) * 5], rolls
        assert pico.firmware.table.dice.errors == 1

    with_colour_tray(check)


def check_the_colour_tray_without_an_i2c_bus_is_refused_at_start():
    def check():
        assert raises(ValueError, lambda: main.Firmware(machine.Pin, print, "no-bus"))

    with_colour_tray(check)


def check_led_and_beep_commands():
    pico = Pico()
    pico.run(2, gtp.encode("LED,seat3,ON") + gtp.encode("BEEP,50") + gtp.encode("LED,seat1,BLINK"))
    assert pin(board.LEDS["seat3"]).level == 1 and pin(board.BUZZER).level == 1
    levels = set()
    for _ in range(4):
        pico.run(board.BLINK_MS)
        levels.add(pin(board.LEDS["seat1"]).level)
    assert levels == {0, 1} and pin(board.BUZZER).level == 0
    pico.run(1, gtp.encode("LED,seat1,OFF") + gtp.encode("LED,nope,ON"))
    pico.run(board.BLINK_MS * 2)
    assert pin(board.LEDS["seat1"]).level == 0


def check_the_board_beeps_when_the_host_refuses_a_frame():
    sent = []
    firmware = main.Firmware(machine.Pin, sent.append, "pico-test", 5, machine.I2C)
    firmware.step(b"", 0)
    pin(board.TIMER_TILT).level = 0
    firmware.step(b"", 1)
    assert one(sent[-1])[0] == "TIMER"
    for now in range(2, 2 + 3 * gtp.RESEND_MS):
        firmware.step(b"", now)
    assert pin(board.BUZZER).level == 0 and firmware.device.resends >= 2
    now = 2 + 3 * gtp.RESEND_MS
    firmware.step(nak(5, "no_game"), now)
    assert pin(board.BUZZER).level == 1 and firmware.device.outstanding is None
    firmware.step(b"", now + board.REFUSED_BEEP_MS)
    assert pin(board.BUZZER).level == 0


def check_the_board_says_hello_and_keeps_a_heartbeat():
    pico = Pico()
    pico.run(2500)
    kinds = [kind for kind, _, _ in pico.frames]
    assert kinds[0] == "HELLO" and kinds.count("HB") >= 2
    assert pico.frames[0][2] == ("pico-test", main.VERSION, "GTP1")


CHECKS = [value for name, value in sorted(globals().items()) if name.startswith("check_")]


def run_one(name):
    """MicroPython entry point, one check per fresh interpreter: `ok NAME` or `FAIL NAME: error`.  The
    WASI build crashes when its garbage collector runs inside a check (the checks crash it so even
    before the colour tray's 15th line, under `gc.threshold(20000)`); a fresh heap per check stays far
    below the point where it would collect."""
    import sys

    print("implementation", sys.implementation.name)
    check = globals()[name]
    machine.reset()
    try:
        check()
    except Exception as error:  # noqa: BLE001 — report the failure with its traceback
        print("FAIL", name + ":", type(error).__name__, error)
        if hasattr(sys, "print_exception"):
            sys.print_exception(error)
    else:
        print("ok", name)
