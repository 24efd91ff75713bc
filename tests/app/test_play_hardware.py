"""A whole Digger game through simulated hardware: dice from a GTP/1 simulator on socket://, the Stop
button and LEDs on gpiozero mock pins; bad input (unreadable die, unplugged sensor) on the way."""

from __future__ import annotations

import time
from collections.abc import Callable
from random import Random
from typing import Any

from gpiozero.pins.mock import MockFactory

from companion.app.demo import next_move
from companion.app.launch import pump
from companion.engine.session import Session
from companion.games.digger.app.table import action_label
from firmware_bridge.config import load_pin_map
from firmware_bridge.gpio import GpioSource
from firmware_bridge.serial_source import SerialSource
from firmware_bridge.simulator import Simulator
from tests.app.test_play_touch import NAMES, set_up_four_players
from tests.app.ui import label_texts, tap, until


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    until(condition, what, timeout)


def press_gpio(factory: MockFactory, pin: int) -> None:
    """Press and release a wired button (inputs are active-low with pull-ups)."""
    factory.pin(pin).drive_low()
    time.sleep(0.05)
    factory.pin(pin).drive_high()
    time.sleep(0.05)


def test_whole_game_through_hardware(fresh_app: Any) -> None:
    app = fresh_app
    pins = load_pin_map()
    factory = MockFactory()
    simulator = Simulator(dice=5, faces="BYRGWK").start()
    try:
        app.hardware.add_source(GpioSource(pins, pin_factory=factory))
        app.hardware.add_source(SerialSource(simulator.url, name="sensor"))
        wait_for(lambda: all(s.get("connected") for s in app.hardware.sources), "sources connected")
        set_up_four_players(app)
        session = app.table.session
        mirror = Session.new(session.setup)
        wait_for(lambda: bool(factory.pin(pins.leds["seat1"]).state), "the first digger's seat LED on")
        assert not factory.pin(pins.leds["seat2"]).state

        # An unreadable die: the table taps in just that die.
        simulator.roll("Y", "?", "R", "B", "K")
        wait_for(lambda: bool(app.table.partial), "the keypad asking for the unreadable die")
        assert "Unreadable die, tap it: Y _ R B K" in label_texts(app)
        tap(app, "W")
        assert mirror.submit({"type": "roll", "values": list("YWRBK")}, "serial").accepted
        assert session.actions[-1].source == "serial", "the sensors' reading with a gap tapped in is theirs"
        assert session.state.roll == tuple("YWRBK")

        # Unreadable again; this time the table enters the whole roll instead.
        simulator.roll("?", "?", "R", "B", "K")
        wait_for(lambda: bool(app.table.partial), "the keypad asking for the unreadable dice")
        assert "Unreadable dice, tap them: _ _ R B K" in label_texts(app)
        tap(app, "Clear")
        for face in "GGRBK":
            tap(app, face)
        assert mirror.submit({"type": "roll", "values": list("GGRBK")}, "touch").accepted
        assert session.state.roll == tuple("GGRBK")

        # Read, but the sensors are unsure: confirm the reading.
        app.flow.controller.hardware_roll(list("BYRGW"), [3], "serial")
        pump(2)
        tap(app, "Confirm reading")
        assert mirror.submit({"type": "roll", "values": list("BYRGW")}, "touch").accepted
        assert session.state.roll == tuple("BYRGW") and session.actions[-1].source == "serial"

        # The hourglass tilt switch starts the sand timer.
        app.timer.reset()
        simulator.timer("flip")
        wait_for(lambda: app.timer.running, "the timer started by the tilt switch")

        # The sensor is unplugged mid-turn: a notice, and the game carries on.  (Every notice shown is noted:
        # on a busy machine the sensor may be back, and its notice gone, before the next check.)
        shown: list[str] = []

        def note(_table: Any, text: str) -> None:
            shown.append(text)

        app.table.bind(notice_text=note)
        simulator.disconnect(0.3)
        wait_for(lambda: any("not answering" in text for text in shown), "the unplugged-sensor notice")
        if "not answering" in app.table.notice_text:
            tap(app, "OK")
        wait_for(lambda: any(s.get("name") == "sensor" and s.get("connected") for s in app.hardware.sources),
                 "the sensor back", timeout=10)
        # Unplugged again and back before anyone tapped OK: the stale warning goes by itself.
        shown.clear()
        simulator.disconnect(0.3)
        wait_for(lambda: any("not answering" in text for text in shown), "the unplugged-sensor notice again")
        wait_for(lambda: any(s.get("name") == "sensor" and s.get("connected") for s in app.hardware.sources),
                 "the sensor back again", timeout=10)
        pump(2)
        app.table.unbind(notice_text=note)
        assert not app.table.notice_text, "the warning is taken down when the sensor is back"

        dice = Random(11)
        moves = 0
        while not session.is_over():
            move = next_move(session)
            assert move is not None
            before = len(session.actions)
            if move["type"] == "roll":
                values = [dice.choice("BYRGWK") for _ in range(5)]
                simulator.roll(*values)
                move = {"type": "roll", "values": values}
            elif move["type"] == "stop":
                press_gpio(factory, pins.buttons["stop"])
            else:
                tap(app, action_label(app.table, session.game.parse_action(move)))
            wait_for(lambda before=before: len(session.actions) > before, f"{move} to be played")
            assert mirror.submit(move, "touch").accepted
            moves += 1
            assert moves < 2000
        pump(2)
        assert app.root.current == "end"
        assert session.scores() == mirror.scores()
        sources = {entry.source for entry in session.actions}
        assert {"serial", "gpio", "touch"} <= sources
        shown = "\n".join(label_texts(app))
        for name, score in zip(NAMES, mirror.scores()):
            assert f"]{name}[/color]  {score}" in shown
    finally:  # the shared app keeps its bridge running, without these sources, for the tests after this
        app.hardware.bridge.remove_source("sensor")
        app.hardware.bridge.remove_source("gpio")
        simulator.stop()
