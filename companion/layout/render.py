"""Draw a layout to a PNG with the same board widget the app shows, in an offscreen Kivy window."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from companion.engine.registry import load_part
from companion.headless import export_png, prepare_kivy
from companion.layout import LayoutKind, board_reference


def render_layout(kind: LayoutKind, layout: BaseModel, output: Path, size: tuple[int, int],
                  verbose: bool = False) -> None:
    """Render `layout` at `size` pixels into `output` (PNG), ids shown."""
    prepare_kivy(size, offscreen=True, verbose=verbose)
    from kivy.core.window import Window  # noqa: F401 - creating the window gives the GL context

    drawn_by = board_reference(kind)
    assert drawn_by is not None, f"{kind.kind} files have no board picture"
    widget = load_part(*drawn_by)(layout, show_ids=True)
    widget.size_hint = (None, None)
    widget.size = size
    widget.pos = (0, 0)
    from kivy.clock import Clock
    from kivy.lang import Builder

    Clock.tick()  # scheduled redraws of the widget
    Builder.sync()  # kv canvas expressions (e.g. a StencilView's clip rectangle) are updated lazily
    export_png(widget, output)  # drawn into its own framebuffer, not into the window
