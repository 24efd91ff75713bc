"""Which machine this is, from the device tree; light enough for the app to ask before its first frame
(the GPIO module pulls in the event models and pydantic)."""

from __future__ import annotations

from pathlib import Path

MODEL_FILE = Path("/proc/device-tree/model")


def raspberry_pi_model(model_file: Path | None = None) -> str | None:
    """The board's model ("Raspberry Pi 5 Model B Rev 1.0"), or None when this is not a Raspberry Pi."""
    try:
        model = (model_file or MODEL_FILE).read_text(errors="replace").strip("\x00\n ")
    except OSError:
        return None
    return model if "Raspberry Pi" in model else None
