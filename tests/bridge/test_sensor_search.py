"""The sensor board is found by its USB id when no address is set, and a new address replaces the sensor."""

from __future__ import annotations

import time

from firmware_bridge.hub import Bridge
from firmware_bridge.serial_source import SerialSource
from firmware_bridge.simulator import Simulator


def test_without_an_address_the_app_looks_for_a_pico() -> None:
    from companion.app.hardware import default_sources

    sources, problems = default_sources(gpio=False, serial_url="")
    assert problems == []
    [sensor] = sources
    assert isinstance(sensor, SerialSource)
    assert sensor.url is None and (0x2E8A, 0x0005) in sensor.usb_ids


def test_a_configured_address_is_used_instead() -> None:
    from companion.app.hardware import default_sources

    [sensor], _ = default_sources(gpio=False, serial_url="socket://127.0.0.1:9")
    assert isinstance(sensor, SerialSource) and sensor.url == "socket://127.0.0.1:9"


def test_remove_source_stops_it_and_frees_its_name() -> None:
    simulator = Simulator(dice=2, faces="123456").start()
    try:
        with Bridge(auto_settle=True) as bridge:
            first = bridge.add_source(SerialSource(simulator.url))
            deadline = time.monotonic() + 5
            while not first.connected and time.monotonic() < deadline:
                time.sleep(0.02)
            assert first.connected
            assert bridge.remove_source("serial") is first
            assert not first.connected and bridge.sources == ()
            assert bridge.remove_source("serial") is None
            second = bridge.add_source(SerialSource(simulator.url))  # the name is free again
            assert bridge.sources == (second,)
            third = bridge.replace_source(SerialSource(simulator.url))  # in its place, in one change
            assert bridge.sources == (third,) and not second.connected
    finally:
        simulator.stop()
