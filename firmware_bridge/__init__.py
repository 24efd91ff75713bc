"""Goldtable hardware bridge: GPIO and serial sources, the GTP/1 protocol, firmware and simulator.

The app codes against `Bridge` (hub.py) and the event models (events.py), re-exported here; the
sources (`gpio.GpioSource`, `serial_source.SerialSource`) and the simulator are imported from their
modules so that importing this package never pulls in gpiozero or pyserial.
"""

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
from firmware_bridge.hub import Bridge, Source

__all__ = [
    "BeepCommand",
    "Bridge",
    "BridgeEvent",
    "ButtonEvent",
    "LedCommand",
    "OutputCommand",
    "RejectedEvent",
    "RollEvent",
    "RollingEvent",
    "Source",
    "StatusEvent",
    "TimerEvent",
    "event_from_json",
]
