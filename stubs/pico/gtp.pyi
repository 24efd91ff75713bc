# On the Pico the firmware imports its modules top-level (`import gtp`); for mypy they are the package's.
from firmware_bridge.firmware.gtp import *  # noqa: F403 — re-export the whole module
