"""Event models and their JSON lines, the Bridge hub, and the GPIO pin map file."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from companion.engine.errors import UserError
from firmware_bridge.config import DEFAULT_PIN_MAP_PATH, PinMap, load_pin_map
from firmware_bridge.events import (
    BeepCommand,
    BridgeEvent,
    ButtonEvent,
    LedCommand,
    OutputCommand,
    RejectedEvent,
    RollEvent,
    RollingEvent,
    StatusEvent,
    TimerEvent,
    event_from_json,
)
from firmware_bridge.hub import Bridge, Emit, Source


def test_json_lines_carry_exactly_the_documented_fields() -> None:
    lines = [json.loads(event.to_json_line()) for event in (
        RollEvent(source="serial", seq=4, values=("L", "3")),
        RollingEvent(source="serial", seq=5),
        ButtonEvent(source="gpio", name="confirm", action="down"),
        TimerEvent(source="gpio", state="flip"),
        StatusEvent(source="serial", state="hello", device="tray-1", firmware="1.0.0"),
        RejectedEvent(source="serial", reason="checksum mismatch", frame="$ROLL,1,3*00"),
    )]
    assert lines == [
        {"event": "roll", "source": "serial", "seq": 4, "values": ["L", "3"], "uncertain": False},
        {"event": "rolling", "source": "serial", "seq": 5},
        {"event": "button", "source": "gpio", "name": "confirm", "action": "down"},
        {"event": "timer", "source": "gpio", "state": "flip"},
        {"event": "status", "source": "serial", "state": "hello", "device": "tray-1", "firmware": "1.0.0"},
        {"event": "rejected", "source": "serial", "reason": "checksum mismatch", "frame": "$ROLL,1,3*00"},
    ]


def test_an_unreadable_face_always_makes_the_roll_uncertain() -> None:
    assert RollEvent(source="s", values=("3", "?"), uncertain=False).uncertain is True
    assert RollEvent(source="s", values=("3", "4")).uncertain is False


def test_event_json_round_trips_through_the_discriminated_union() -> None:
    event = ButtonEvent(source="gpio", seq=7, name="value_3", action="held")
    assert event_from_json(event.to_json_line()) == event


@pytest.mark.parametrize("bad", [
    lambda: RollEvent(source="s", values=()),
    lambda: RollEvent(source="s", values=("7",)),
    lambda: ButtonEvent(source="s", name="two words", action="down"),
    lambda: TimerEvent(source="s", state="stand"),
    lambda: RollingEvent(source="s", seq=65536),
    lambda: BeepCommand(ms=0),
    lambda: LedCommand(name="seat1", mode="dim"),
])
def test_models_refuse_values_outside_the_protocol(bad: Any) -> None:
    with pytest.raises(ValidationError):
        bad()


# --- hub ---------------------------------------------------------------------------------------

class FakeSource(Source):
    def __init__(self, name: str, has_outputs: bool = False) -> None:
        self.name = name
        self.has_outputs = has_outputs
        self.sent: list[OutputCommand] = []
        self.answers: list[tuple[BridgeEvent, bool, str | None]] = []
        self.starts = 0
        self.stops = 0

    def describe(self) -> dict[str, Any]:
        return {"kind": "fake", "name": self.name, "connected": self.connected}

    def push(self, event: BridgeEvent) -> None:
        """An event from this source's hardware, as its own thread would deliver it."""
        self._deliver(event)

    def start(self, emit: Emit) -> None:
        self.starts += 1
        self._emit = emit

    def stop(self) -> None:
        self.stops += 1
        self._emit = None

    def send(self, command: OutputCommand) -> None:
        self.sent.append(command)

    def settle(self, event: BridgeEvent, recorded: bool, reason: str | None = None) -> None:
        self.answers.append((event, recorded, reason))


class SilentSource(FakeSource):
    """A source without answers: it keeps the base class's settle."""

    settle = Source.settle  # type: ignore[assignment]


def test_bridge_fans_events_out_and_keeps_recent_ones() -> None:
    bridge = Bridge(history=3)
    a, b = FakeSource("a"), FakeSource("b", has_outputs=True)
    bridge.add_source(a)
    bridge.add_source(b)
    seen: list[BridgeEvent] = []
    unsubscribe = bridge.subscribe(seen.append)
    with bridge:
        assert a.connected and b.connected and bridge.running
        for seq in range(5):
            assert a.connected
            a.push(RollingEvent(source="a", seq=seq))
        unsubscribe()
        assert b.connected
        b.push(TimerEvent(source="b", state="flip"))
        assert bridge.send(LedCommand(name="seat2", mode="on")) == 1
    assert [e.seq for e in seen] == [0, 1, 2, 3, 4]
    assert [e.event for e in bridge.recent()] == ["rolling", "rolling", "timer"]
    assert [e.event for e in bridge.recent(1)] == ["timer"]
    assert b.sent == [LedCommand(name="seat2", mode="on")] and a.sent == []
    assert (a.stops, b.stops) == (1, 1) and not bridge.running
    assert [d["name"] for d in bridge.describe()] == ["a", "b"]


def test_a_failing_subscriber_does_not_stop_the_others() -> None:
    bridge = Bridge()
    source = bridge.add_source(FakeSource("a"))
    seen: list[BridgeEvent] = []

    def broken(event: BridgeEvent) -> None:
        raise RuntimeError("app bug")

    bridge.subscribe(broken)
    bridge.subscribe(seen.append)
    bridge.start()
    assert isinstance(source, FakeSource) and source.connected
    source.push(RollingEvent(source="a"))
    bridge.stop()
    assert len(seen) == 1


def test_sources_added_while_running_start_at_once_and_names_are_unique() -> None:
    bridge = Bridge()
    bridge.start()
    late = FakeSource("late")
    bridge.add_source(late)
    assert late.starts == 1
    with pytest.raises(ValueError, match="already attached"):
        bridge.add_source(FakeSource("late"))
    bridge.stop()
    bridge.stop()
    assert late.stops == 1


class SlowStart(FakeSource):
    """A source whose start takes until the test lets it finish (a serial port being opened)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.calls: list[str] = []
        self.starting, self.finish = threading.Event(), threading.Event()

    def start(self, emit: Emit) -> None:
        self.calls.append("start")
        self.starting.set()
        assert self.finish.wait(10)
        super().start(emit)
        self.calls.append("started")

    def stop(self) -> None:
        self.calls.append("stop")
        super().stop()


def test_a_source_is_removed_only_once_it_has_started() -> None:
    """The app's hardware worker adds a source while another thread removes it by name: the removal
    waits for the start, so a source is never stopped half-started (a thread joined before it ran)."""
    bridge = Bridge()
    bridge.start()
    source = SlowStart("sensor")
    adding = threading.Thread(target=bridge.add_source, args=(source,))
    adding.start()
    assert source.starting.wait(10)
    removed: list[Source | None] = []
    removing = threading.Thread(target=lambda: removed.append(bridge.remove_source("sensor")))
    removing.start()
    removing.join(0.2)  # without the wait, the removal would stop the source now
    source.finish.set()
    adding.join(10)
    removing.join(10)
    assert removed == [source] and source.calls == ["start", "started", "stop"]
    assert bridge.sources == ()
    bridge.stop()


def test_events_from_many_threads_all_arrive() -> None:
    bridge = Bridge(history=1000)
    sources = [bridge.add_source(FakeSource(f"s{i}")) for i in range(4)]
    count = 0
    lock = threading.Lock()

    def counter(event: BridgeEvent) -> None:
        nonlocal count
        with lock:
            count += 1

    bridge.subscribe(counter)
    bridge.start()
    threads = [threading.Thread(target=lambda s=s: [s.push(RollingEvent(source=s.name, seq=i))  # type: ignore
                                                    for i in range(200)]) for s in sources]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    bridge.stop()
    assert count == 800 and len(bridge.recent()) == 800


def test_an_event_names_the_frame_that_carried_it() -> None:
    assert RollEvent(source="tray", seq=0, values=("3",)).ref == "tray:0"
    assert ButtonEvent(source="gpio", name="stop", action="down").ref is None
    assert "ref" not in RollEvent(source="tray", seq=3, values=("3",)).to_json_line()


def test_settle_goes_to_the_source_the_event_came_from() -> None:
    bridge = Bridge()
    a, b, quiet = FakeSource("a"), FakeSource("b"), SilentSource("quiet")
    for source in (a, b, quiet):
        bridge.add_source(source)
    roll = RollEvent(source="b", seq=4, values=("1",))
    bridge.settle(roll, True)
    bridge.settle(RollingEvent(source="a", seq=5), False, "throw.not_now")
    bridge.settle(ButtonEvent(source="a", name="undo", action="down"), False)  # no seq: nothing to answer
    bridge.settle(RollingEvent(source="gone", seq=1), True)  # no such source: ignored
    bridge.settle(RollingEvent(source="quiet", seq=1), True)  # a source without answers ignores it
    assert b.answers == [(roll, True, None)]
    assert a.answers == [(RollingEvent(source="a", seq=5), False, "throw.not_now")]
    with pytest.raises(ValueError):
        bridge.settle(roll, False, "two words")


def test_auto_settle_answers_every_event_with_a_seq_after_the_subscribers_ran() -> None:
    bridge = Bridge(auto_settle=True)
    source = bridge.add_source(FakeSource("a"))
    order: list[str] = []
    bridge.subscribe(lambda event: order.append(f"saw {event.seq}"))
    with bridge:
        assert isinstance(source, FakeSource) and source.connected
        source.settle = lambda event, recorded, reason=None: order.append(f"settled {event.seq} {recorded}")  # type: ignore
        source.push(RollingEvent(source="a", seq=1))
        source.push(ButtonEvent(source="a", name="undo", action="down"))
    assert order == ["saw 1", "settled 1 True", "saw None"]
    assert not Bridge().auto_settle


# --- pin map -----------------------------------------------------------------------------------

def test_shipped_pin_map_has_every_part_the_table_needs() -> None:
    pin_map = load_pin_map()
    assert {"confirm", "undo", "stop", "next"} <= set(pin_map.buttons)
    assert {f"value_{n}" for n in range(1, 7)} <= set(pin_map.buttons)
    assert sorted(pin_map.leds) == [f"seat{n}" for n in range(1, 7)]
    assert pin_map.timer_tilt is not None and pin_map.buzzer is not None
    assert load_pin_map(DEFAULT_PIN_MAP_PATH) == pin_map


@pytest.mark.parametrize(("content", "message"), [
    ('{"buttons": {"confirm": 5, "undo": 5}}', "pin 5 is used by buttons.confirm and by buttons.undo"),
    ('{"buttons": {"confirm": 40}}', "buttons.confirm: Input should be less than or equal to 27"),
    ('{"leds": {"seat 1": 4}}', "leds.seat 1.[key]"),
    ('{"buzer": 18}', "buzer: Extra inputs are not permitted"),
    ('{"buttons": {', "not valid JSON (line 1, column 14"),
])
def test_a_bad_pin_map_is_one_line_naming_file_and_field(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "pins.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        load_pin_map(path)
    text = str(caught.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text


def test_missing_pin_map_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="cannot read"):
        load_pin_map(tmp_path / "nope.json")


def test_pin_uses_lists_every_wired_pin() -> None:
    pin_map = PinMap(buttons={"confirm": 5}, timer_tilt=26, leds={"seat1": 4}, buzzer=18)
    assert sorted(pin_map.pin_uses()) == [(4, "leds.seat1"), (5, "buttons.confirm"), (18, "buzzer"),
                                          (26, "timer_tilt")]


def test_a_pin_map_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "pins.json"
    bad.write_bytes(b"\xff\xfe{}")
    with pytest.raises(UserError, match=r"pins\.json: not UTF-8 text$"):
        load_pin_map(bad)
