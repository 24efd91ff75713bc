"""GPIO source on gpiozero's MockFactory: our debounce, held, the hourglass switches, LEDs, buzzer."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_bridge.config import PinMap, load_pin_map
from firmware_bridge.events import BeepCommand, BridgeEvent, ButtonEvent, LedCommand, TimerEvent
from firmware_bridge.gpio import GpioSource
from tests.fake_clock import FakeClock


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def rig(factory: MockFactory, clock: FakeClock) -> Iterator[tuple[GpioSource, list[BridgeEvent]]]:
    source = GpioSource(load_pin_map(), factory, clock, tick_interval=None)
    events: list[BridgeEvent] = []
    source.start(events.append)
    yield source, events
    source.stop()


def bounce(factory: MockFactory, clock: FakeClock, pin: int, end_low: bool, edges: int = 7) -> None:
    """Contact bounce: the pin flips `edges` times 0.7 ms apart and settles at `end_low`."""
    level_low = end_low if edges % 2 else not end_low
    for _ in range(edges):
        (factory.pin(pin).drive_low if level_low else factory.pin(pin).drive_high)()
        clock.advance_ms(0.7)
        level_low = not level_low


def buttons(events: list[BridgeEvent]) -> list[tuple[str, str]]:
    return [(e.name, e.action) for e in events if isinstance(e, ButtonEvent)]


def bouncy_press(source: GpioSource, factory: MockFactory, clock: FakeClock, pin: int, held_ms: float,
                 after_ms: float) -> None:
    """A contact that bounces going down, stays down `held_ms` (the ticker runs), then bounces coming up
    and rests `after_ms`."""
    bounce(factory, clock, pin, end_low=True)
    clock.advance_ms(held_ms)
    source.tick()
    bounce(factory, clock, pin, end_low=False)
    clock.advance_ms(after_ms)


def test_one_bouncy_press_and_release_give_exactly_one_down_and_one_up(rig, factory, clock) -> None:
    source, events = rig
    bouncy_press(source, factory, clock, 5, held_ms=120, after_ms=30)
    source.tick()
    assert buttons(events) == [("confirm", "down"), ("confirm", "up")]
    assert source.bounces > 0


def test_the_down_event_comes_on_the_first_edge_not_after_the_debounce_time(rig, factory) -> None:
    _, events = rig
    factory.pin(6).drive_low()
    assert buttons(events) == [("undo", "down")]


def test_a_tap_shorter_than_the_debounce_time_still_ends_with_up(rig, factory, clock) -> None:
    source, events = rig
    factory.pin(13).drive_low()
    clock.advance_ms(5)
    factory.pin(13).drive_high()  # inside the debounce window: not trusted yet
    source.tick()
    assert buttons(events) == [("stop", "down")]
    clock.advance_ms(25)
    source.tick()
    assert buttons(events) == [("stop", "down"), ("stop", "up")]


def test_a_long_press_gives_held_once_then_up(rig, factory, clock) -> None:
    source, events = rig
    factory.pin(19).drive_low()
    clock.advance_ms(799)
    source.tick()
    assert buttons(events) == [("next", "down")]
    clock.advance_ms(1)
    source.tick()
    clock.advance_ms(500)
    source.tick()
    factory.pin(19).drive_high()
    assert buttons(events) == [("next", "down"), ("next", "held"), ("next", "up")]


def test_dice_value_buttons_are_named_buttons(rig, factory, clock) -> None:
    _, events = rig
    factory.pin(22).drive_low()
    clock.advance_ms(50)
    factory.pin(22).drive_high()
    assert buttons(events) == [("value_3", "down"), ("value_3", "up")]


def test_every_settled_tilt_of_the_hourglass_is_one_flip_and_laying_it_down_is_flat(rig, factory, clock) -> None:
    source, events = rig
    bouncy_press(source, factory, clock, 26, held_ms=2000, after_ms=100)
    factory.pin(7).drive_low()
    clock.advance_ms(100)
    factory.pin(7).drive_high()
    source.tick()
    assert [e.state for e in events if isinstance(e, TimerEvent)] == ["flip", "flip", "flat"]
    assert all(e.source == "gpio" for e in events)
    assert [e.event for e in events].count("status") == 1


def test_leds_and_buzzer_follow_commands(rig, factory) -> None:
    source, _ = rig
    source.send(LedCommand(name="seat1", mode="on"))
    assert factory.pin(4).state
    source.send(LedCommand(name="seat1", mode="off"))
    assert not factory.pin(4).state
    source.send(LedCommand(name="seat2", mode="blink"))
    assert _eventually(lambda: factory.pin(12).state) and _eventually(lambda: not factory.pin(12).state)
    source.send(LedCommand(name="seat9", mode="on"))  # not wired: logged, nothing else
    source.send(BeepCommand(ms=30))
    assert _eventually(lambda: factory.pin(18).state) and _eventually(lambda: not factory.pin(18).state)


def test_stop_releases_the_pins_and_nothing_is_delivered_after(factory, clock) -> None:
    events: list[BridgeEvent] = []
    source = GpioSource(load_pin_map(), factory, clock, tick_interval=None)
    source.start(events.append)
    assert source.connected and source.describe()["pins"]["buttons.confirm"] == 5
    assert [e.event for e in events] == ["status"]  # connected, naming the pin factory
    assert "MockFactory" in (events[0].detail or "")  # type: ignore[union-attr]
    source.stop()
    factory.pin(5).drive_low()
    assert len(events) == 1 and not source.connected
    again = GpioSource(load_pin_map(), factory, clock, tick_interval=None)  # pins are free again
    again.start(events.append)
    again.stop()


def test_a_pin_that_cannot_be_released_does_not_stop_the_others(factory, clock, monkeypatch, caplog) -> None:
    """Closing a pin can fail in the kernel's library (lgpio's 'GPIO busy', seen on Bookworm when gpiozero
    hands the line back as an input): stop logs it, releases the rest and returns, so Quit stays a quit."""
    from gpiozero.pins.mock import MockPin

    source = GpioSource(load_pin_map(), factory, clock, tick_interval=None)
    source.start(lambda event: None)
    real_close = MockPin.close

    def busy_on_pin_5(pin: MockPin) -> None:
        if pin.info.name == "GPIO5":
            raise OSError("GPIO busy")
        real_close(pin)

    monkeypatch.setattr(MockPin, "close", busy_on_pin_5)
    source.stop()
    assert "GPIO busy" in caplog.text and not source.connected
    monkeypatch.setattr(MockPin, "close", real_close)
    factory.pin(5).close()
    again = GpioSource(load_pin_map(), factory, clock, tick_interval=None)  # every other pin was released
    again.start(lambda event: None)
    again.stop()


def test_a_busy_pin_fails_start_and_frees_what_it_had_claimed(factory, clock) -> None:
    from gpiozero import LED
    from gpiozero.exc import GPIOPinInUse

    blocker = LED(23, pin_factory=factory)  # seat6's pin
    source = GpioSource(load_pin_map(), factory, clock, tick_interval=None)
    with pytest.raises(GPIOPinInUse):
        source.start(lambda event: None)
    blocker.close()
    source.start(lambda event: None)
    source.stop()


def test_the_ticker_thread_reports_held_on_the_real_clock(factory) -> None:
    pin_map = PinMap(buttons={"confirm": 5}, hold_ms=100)
    events: list[BridgeEvent] = []
    source = GpioSource(pin_map, factory)
    source.start(events.append)
    try:
        factory.pin(5).drive_low()
        assert _eventually(lambda: ("confirm", "held") in buttons(events))
    finally:
        source.stop()


def _eventually(condition, timeout: float = 2.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.002)
    return False


def test_the_ticker_sleeps_while_every_input_is_at_rest(factory: MockFactory) -> None:
    """At rest the ticker looks at the pins only now and then; an edge wakes it, and while the button is
    down it ticks often enough to settle the bounce and report `held`, then it sleeps again."""
    import time

    ticks: list[float] = []

    class Counting(GpioSource):
        def tick(self) -> None:
            ticks.append(time.monotonic())
            super().tick()

    source = Counting(load_pin_map(), factory, tick_interval=0.005)
    events: list[BridgeEvent] = []
    source.start(events.append)
    try:
        time.sleep(0.3)
        assert len(ticks) <= 1  # at rest: not every 5 ms (that would be about 60)
        pin = source.pin_map.buttons["confirm"]
        factory.pin(pin).drive_low()  # pressed
        deadline = time.monotonic() + 3
        while ("confirm", "held") not in buttons(events) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert buttons(events) == [("confirm", "down"), ("confirm", "held")]
        busy = len(ticks)
        assert busy > 20  # ticking while the button was down
        factory.pin(pin).drive_high()  # released
        time.sleep(0.1)
        assert buttons(events)[-1] == ("confirm", "up")
        settled = len(ticks)
        time.sleep(0.3)
        assert len(ticks) - settled <= 1  # asleep again
    finally:
        source.stop()


def test_edges_delivered_late_are_read_against_the_pin_not_replayed(rig, factory, clock) -> None:
    """A switch's bounce edges can reach us long after they happened (the pin library's callback thread
    waited for the interpreter while a frame was drawn): found on the simulated Pi, where one press of
    a colour button entered up to four dice. Each late edge is checked against the pin as it is now, so
    the bounce of one press and release stays one down and one up however late its edges come."""
    source, events = rig
    channel = next(c for c in source._inputs if c.name == "colour_B")
    pin = factory.pin(source.pin_map.buttons["colour_B"])
    late = []
    channel.device.when_activated = channel.device.when_deactivated = lambda: None  # callbacks held back
    for active in (True, False, True, False, True):  # the press bounces
        (pin.drive_low if active else pin.drive_high)()
        late.append(source._edge_handler(channel))
        clock.advance_ms(0.8)
    for deliver in late:  # now they arrive, 30 ms apart (more than the debounce time)
        deliver()
        clock.advance_ms(30)
    source.tick()
    assert buttons(events) == [("colour_B", "down")]
    for active in (False, True, False, True, False):  # the release bounces, delivered late as well
        (pin.drive_low if active else pin.drive_high)()
        late.append(source._edge_handler(channel))
        clock.advance_ms(0.8)
    for deliver in late[5:]:
        deliver()
        clock.advance_ms(30)
    source.tick()
    assert buttons(events) == [("colour_B", "down"), ("colour_B", "up")]
