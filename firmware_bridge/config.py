"""The GPIO pin map: which Broadcom pin is which button, switch, LED and buzzer.

A JSON file validated by pydantic; the shipped default (`pinmap.default.json`) matches the wiring in
docs/hardware.md.  A bad file ends in one line that names the file and the field.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from companion.engine.errors import UserError, describe_validation_error, read_json_file
from firmware_bridge.events import NAME_PATTERN

DEFAULT_PIN_MAP_PATH = Path(__file__).with_name("pinmap.default.json")

#: Broadcom GPIO numbers on the 40-pin header.  2/3 (I2C) and 14/15 (UART) are allowed but the
#: default map leaves them free.
Pin = Annotated[int, Field(ge=2, le=27)]
PinName = Annotated[str, Field(pattern=NAME_PATTERN)]


class PinMap(BaseModel):
    """Where everything is wired.  Inputs are active-low with the Pi's internal pull-ups by default."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    note: str = ""
    #: Button name -> pin.  Names are what `button` events carry (`confirm`, `undo`, `value_3`, `hint`,
    #: and `colour_B` ... `colour_K`, whose last letter is the Digger face token the button enters).
    buttons: dict[PinName, Pin] = Field(default_factory=dict)
    #: Tilt switch in the hourglass cradle: every settled change of state is one `flip`.
    timer_tilt: Pin | None = None
    #: Optional switch that closes when the hourglass is laid on its side: `flat`.
    timer_flat: Pin | None = None
    #: LED name -> pin (`seat1` ... `seat6`).
    leds: dict[PinName, Pin] = Field(default_factory=dict)
    buzzer: Pin | None = None
    #: Inputs close to ground (internal pull-up) when True, to 3.3 V (pull-down) when False.
    pull_up: bool = True
    #: Edges closer together than this after an accepted change are contact bounce.
    debounce_ms: float = Field(default=25.0, ge=1.0, le=500.0)
    #: A button down this long also gives `held`.
    hold_ms: float = Field(default=800.0, ge=100.0, le=10000.0)

    @model_validator(mode="after")
    def _each_pin_used_once(self) -> PinMap:
        uses = self.pin_uses()
        counts = Counter(pin for pin, _ in uses)
        for pin, label in uses:
            if counts[pin] > 1:
                others = [other for p, other in uses if p == pin and other != label]
                raise ValueError(f"pin {pin} is used by {label} and by {', '.join(others)}")
        return self

    def pin_uses(self) -> list[tuple[int, str]]:
        """(pin, what) for every wired pin, e.g. (5, 'buttons.confirm')."""
        uses = [(pin, f"buttons.{name}") for name, pin in self.buttons.items()]
        uses += [(pin, f"leds.{name}") for name, pin in self.leds.items()]
        for label, pin in (("timer_tilt", self.timer_tilt), ("timer_flat", self.timer_flat),
                           ("buzzer", self.buzzer)):
            if pin is not None:
                uses.append((pin, label))
        return uses


def load_pin_map(path: str | Path | None = None) -> PinMap:
    """Read and validate a pin map; None means the shipped default."""
    file = Path(path) if path is not None else DEFAULT_PIN_MAP_PATH
    data = read_json_file(file)
    try:
        return PinMap.model_validate(data)
    except ValidationError as error:
        raise UserError(describe_validation_error(file, error)) from None
