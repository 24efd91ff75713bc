# On the Pico the firmware imports its modules top-level (`import board`); for mypy they are the package's.
from firmware_bridge.firmware.board import *  # noqa: F403 — re-export the whole module
