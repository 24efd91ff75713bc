"""Prepare Kivy before its first import: offscreen window when there is no display, quiet logging.

Kivy reads its environment when first imported, so every entry point that may draw without a screen
(screenshots, board renders, tests) calls `prepare_kivy` first.
"""

from __future__ import annotations

import os


def prepare_kivy(size: tuple[int, int] | None = None, offscreen: bool | None = None) -> None:
    """Set Kivy's environment and window size.  `offscreen=None` means: offscreen when no display."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")
    if "KIVY_HOME" not in os.environ:  # Kivy's own config and logs live beside our journal, not in ~/.kivy
        from companion.engine.journal import default_path

        kivy_home = default_path().parent / "kivy"
        kivy_home.mkdir(parents=True, exist_ok=True)
        os.environ["KIVY_HOME"] = str(kivy_home)
    if offscreen is None:
        offscreen = not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and not _on_console()
    if offscreen:
        os.environ["SDL_VIDEODRIVER"] = "offscreen"
    if size is not None:
        from kivy.config import Config

        Config.set("graphics", "width", str(size[0]))
        Config.set("graphics", "height", str(size[1]))
        Config.set("graphics", "resizable", "0")


def _on_console() -> bool:
    """True on a Pi in kiosk mode without a desktop, where SDL draws straight to the screen (KMS/DRM)."""
    return os.environ.get("SDL_VIDEODRIVER") in ("kmsdrm", "rpi")
