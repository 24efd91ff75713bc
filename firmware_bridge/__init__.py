"""Goldtable hardware bridge: GPIO and serial sources, the GTP/1 protocol, firmware and simulator.

The app codes against `Bridge` (hub.py) and the event models (events.py), re-exported here; the
sources (`gpio.GpioSource`, `serial_source.SerialSource`) and the simulator are imported from their
modules so that importing this package never pulls in gpiozero or pyserial.  The names below load on
first use, so a light module of the package (`machine`) can be imported without pydantic.
"""

from __future__ import annotations

import importlib
from typing import Any

_EVENTS = ("BeepCommand", "BridgeEvent", "ButtonEvent", "LedCommand", "OutputCommand", "RejectedEvent", "RollEvent",
           "RollingEvent", "StatusEvent", "TimerEvent", "event_from_json")
_EXPORTS = {**dict.fromkeys(_EVENTS, "events"), "Bridge": "hub", "Source": "hub"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """`from firmware_bridge import Bridge` works as before; the module behind it loads now."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
