"""Pin map of the Pico sensor board (GP numbers; see docs/hardware.md).  Edit to match your wiring.

All inputs are active-low with the Pico's internal pull-ups: a switch connects the pin to GND.
"""

#: Button name -> GP pin.  Names go on the wire in `$BTN` frames.
BUTTONS = {"confirm": 2, "undo": 3, "stop": 4, "next": 5}
#: Tilt switch in the hourglass cradle: every settled change is one `$TIMER,...,FLIP`.
TIMER_TILT = 6
#: Switch that closes when the hourglass lies on its side: `$TIMER,...,FLAT`.  None if not fitted.
TIMER_FLAT = 7  # type: int | None
#: Vibration switch under the dice tray: chatter means dice are moving (`$ROLLING`).
TRAY_MOTION = 8
#: How the tray reads the dice: "pins" (DICE_SLOTS, up to three slots on GP pins) or "expander" (the
#: 5-die colour tray for Digger: EXPANDER_SLOTS, mostly on an MCP23017 I2C expander; set FACES_BY_CODE
#: to COLOUR_FACES too).
DICE_READER = "pins"
#: One slot per die: three GP pins giving the face code as bits 0, 1, 2 (a low pin is a 1 bit).
DICE_SLOTS = [(9, 10, 11), (12, 13, 14), (26, 27, 28)]
#: The expander: I2C block, SDA and SCL GP pins, bus speed, address (A0-A2 to GND: 0x20).
EXPANDER_I2C = (0, 0, 1)
EXPANDER_FREQ = 400000
EXPANDER_ADDRESS = 0x20
#: One slot per die: where its bits 0, 1, 2 come from, "GPA0"-"GPA6" / "GPB0"-"GPB6" on the expander or
#: "GPn" on the Pico.  GPA7 and GPB7 are never read: the MCP23017 data sheet (DS20001952D) allows them
#: only as outputs (the firmware drives both low), so 14 expander inputs carry 14 bits and GP15 the 15th.
EXPANDER_SLOTS = [("GPA0", "GPA1", "GPA2"), ("GPA3", "GPA4", "GPA5"), ("GPA6", "GP15", "GPB0"),
                  ("GPB1", "GPB2", "GPB3"), ("GPB4", "GPB5", "GPB6")]
#: Face token for each 3-bit code 0..7.  Codes 0 and 7 mean the reader saw nothing sensible: `?`.
#: For the Goldgräber die, whose sixth face is the locomotive, use "?12345L?".
PIP_FACES = "?123456?"
#: Digger's colour dice: blue, yellow, red, green, white, black.
COLOUR_FACES = "?BYRGWK?"
FACES_BY_CODE = PIP_FACES
#: Seat LEDs (through 330 ohm to GND) and the buzzer (through an NPN transistor).
LEDS = {"seat1": 16, "seat2": 17, "seat3": 18, "seat4": 19, "seat5": 20, "seat6": 21}
BUZZER = 22

DEBOUNCE_MS = 25
HOLD_MS = 800
#: Dice count as settled when the tray switch has been quiet this long.
SETTLE_MS = 400
BLINK_MS = 250
#: The beep when the host refuses a frame (`$NAK`): the table should look at the screen.
REFUSED_BEEP_MS = 400
