"""What the hardware tells the app, and what the app tells the hardware.

Every source (GPIO pins, a serial sensor, the simulator) turns what it sees into one of these frozen
models, so the app, `goldtable bridge monitor` and the tests all speak one vocabulary.  `event` is the
discriminator; `to_json_line()` is exactly the line the monitor prints.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from companion.engine.core import N_

#: Every face token a roll may carry: pips, the Goldgräber locomotive, six colours, Chinagold's throw
#: tiles (0/1/2 share characters with pips) and `?` for a face the sensor could not read.
FACE_TOKENS: frozenset[str] = frozenset("123456LBYRGWK0?")

Face = Literal["1", "2", "3", "4", "5", "6", "L", "B", "Y", "R", "G", "W", "K", "0", "?"]

#: Button, LED and device names: short, ASCII, safe inside a GTP/1 field.
NAME_PATTERN = r"^[A-Za-z0-9_-]{1,16}$"

Name = Annotated[str, Field(pattern=NAME_PATTERN)]

# A status event's `detail`, when it is more than an address or the system's own error: English in the log
# and in `bridge monitor`, and said in the app's language on its screens (companion.app.hardware).
NO_USB_DEVICE = N_("no serial device with USB id {ids}")
LINK_RESTORED = N_("link restored")
NO_LINE = N_("no line for {seconds} s")
NO_MORE_PICTURES = N_("{camera}: no more pictures")
NO_NEW_PICTURE = N_("no new picture for {seconds} s")
PICTURES_AGAIN = N_("pictures again")
CAMERA_NOT_THERE = N_("{camera} is not there (unplugged?)")
CAMERA_BUSY = N_("{camera} cannot be opened: another program may be using it")
CAMERA_STOPPED = N_("the camera stopped delivering pictures (unplugged?)")
NO_CAMERA_FOUND = N_("no camera found")
STATUS_DETAILS = (NO_USB_DEVICE, LINK_RESTORED, NO_LINE, NO_MORE_PICTURES, NO_NEW_PICTURE, PICTURES_AGAIN,
                  CAMERA_NOT_THERE, CAMERA_BUSY, CAMERA_STOPPED, NO_CAMERA_FOUND)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _SourceEvent(_Frozen):
    """Fields every event has: which source produced it and, for frames that carried one, the seq."""

    source: str
    seq: int | None = Field(default=None, ge=0, le=65535)

    @property
    def ref(self) -> str | None:
        """`<source>:<seq>`, the name of the frame that carried this event (the journal keeps it with the
        action, so a frame resent after a restart is known as recorded); None without a seq."""
        return None if self.seq is None else f"{self.source}:{self.seq}"

    def to_json_line(self) -> str:
        """One compact JSON object without a newline; fields that are None are left out."""
        data = self.model_dump(mode="json", exclude_none=True)
        ordered = {"event": data.pop("event"), "source": data.pop("source"), **data}
        return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))


class RollEvent(_SourceEvent):
    """Dice came to rest.  `uncertain` is forced on when any face is `?`, so the app asks the table."""

    event: Literal["roll"] = "roll"
    values: tuple[Face, ...] = Field(min_length=1)
    uncertain: bool = False

    @model_validator(mode="before")
    @classmethod
    def _unreadable_face_makes_uncertain(cls, data: Any) -> Any:
        if isinstance(data, dict) and "?" in tuple(data.get("values", ())):
            return {**data, "uncertain": True}
        return data


class RollingEvent(_SourceEvent):
    """Dice are in motion: the app may show that a roll is coming."""

    event: Literal["rolling"] = "rolling"


class ButtonEvent(_SourceEvent):
    """A named button went down, came up, or has been held down past the hold time."""

    event: Literal["button"] = "button"
    name: Name
    action: Literal["down", "up", "held"]


class TimerEvent(_SourceEvent):
    """The physical hourglass was turned over (`flip`) or laid on its side (`flat`)."""

    event: Literal["timer"] = "timer"
    state: Literal["flip", "flat"]


class StatusEvent(_SourceEvent):
    """The link itself: port opened, device introduced itself, port gone, or heartbeat silent."""

    event: Literal["status"] = "status"
    state: Literal["connected", "hello", "disconnected", "link_lost"]
    device: str | None = None
    firmware: str | None = None
    detail: str | None = None


class RejectedEvent(_SourceEvent):
    """A frame we refused, with the reason and the offending bytes (escaped, for the log)."""

    event: Literal["rejected"] = "rejected"
    reason: str
    frame: str


BridgeEvent = Annotated[
    RollEvent | RollingEvent | ButtonEvent | TimerEvent | StatusEvent | RejectedEvent,
    Field(discriminator="event"),
]

_EVENT_ADAPTER: TypeAdapter[BridgeEvent] = TypeAdapter(BridgeEvent)


def event_from_json(line: str) -> BridgeEvent:
    """Parse one monitor line back into its event (tests and the app's recorded demos use this)."""
    return _EVENT_ADAPTER.validate_json(line)


class LedCommand(_Frozen):
    """Switch a named LED (one per seat, `seat1` … `seat6` in the shipped pin map)."""

    command: Literal["led"] = "led"
    name: Name
    mode: Literal["on", "off", "blink"]


class BeepCommand(_Frozen):
    """Sound the beeper for `ms` milliseconds."""

    command: Literal["beep"] = "beep"
    ms: int = Field(ge=1, le=10000)


OutputCommand = Annotated[LedCommand | BeepCommand, Field(discriminator="command")]
