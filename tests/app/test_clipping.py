"""Scroll views and the loupe's lens clip by the GL scissor (`widgets.Clipping`), in the window and in a
picture made by `export_png`: what a child draws outside its clip never shows.

The scissor replaced Kivy's stencil, which cleared the stencil buffer of the whole window for each view in
every frame (docs/performance.md, App); unlike the stencil, a scissor is in the framebuffer's pixels, so
these tests look at pixels in both places a table is drawn.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kivy.core.window import Window
from kivy.graphics import Callback, Color, Fbo, InstructionGroup, Rectangle
from kivy.graphics.opengl import GL_RGBA, GL_UNSIGNED_BYTE, glReadPixels
from kivy.graphics.stencil_instructions import StencilPop, StencilPush, StencilUnUse, StencilUse
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget
from PIL import Image

from companion.app.launch import pump
from companion.app.widgets import Clipping, Screens, Scroll, picture_of
from companion.headless import export_png

RED = (255, 0, 0)


def painted(size: tuple[int, int]) -> Widget:
    """A widget that paints its whole rectangle red."""
    widget = Widget(size_hint=(None, None), size=size)
    with widget.canvas:
        Color(1, 0, 0, 1)
        rectangle = Rectangle(pos=widget.pos, size=widget.size)
    widget.bind(pos=lambda _w, pos: setattr(rectangle, "pos", pos))
    return widget


@pytest.fixture
def stage(app: Any) -> Iterator[FloatLayout]:
    """An empty layer over the app's current screen (800 x 480 window), removed afterwards."""
    layer = FloatLayout()
    app.root.current_screen.add_widget(layer)
    yield layer
    app.root.current_screen.remove_widget(layer)
    pump(1)


def window_pixels(points: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """The colour at each window point (origin bottom left) in the next frame, read before it is shown."""
    found: list[tuple[int, int, int]] = []

    def read(_instruction: Any) -> None:
        for x, y in points:
            pixel = glReadPixels(x, y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE)
            found.append((pixel[0], pixel[1], pixel[2]))

    reader = Callback(read)
    Window.canvas.after.add(reader)
    try:
        Window.canvas.ask_update()
        pump(2)
    finally:
        Window.canvas.after.remove(reader)
    return found[:len(points)]


def scroll_of_tall_content(stage: FloatLayout) -> Scroll:
    """A 100 x 100 scroll view at (50, 50) holding red content 300 x 300 scrolled to its top: the content
    lies from x 50 to 350 and from y -150 to 150, beside and below the view."""
    scroll = Scroll(size_hint=(None, None), size=(100, 100), pos=(50, 50), do_scroll_x=False)
    scroll.add_widget(painted((300, 300)))
    stage.add_widget(scroll)
    pump(2)
    return scroll


def test_a_scroll_view_shows_its_content_only_inside_itself_in_the_window(stage: FloatLayout) -> None:
    scroll_of_tall_content(stage)
    inside, below, beside = window_pixels([(100, 100), (100, 30), (170, 100)])
    assert inside == RED
    assert RED not in (below, beside)


def test_a_picture_clips_as_the_window_does(stage: FloatLayout, app: Any, tmp_path: Path) -> None:
    scroll_of_tall_content(stage)
    out = tmp_path / "screen.png"
    export_png(app.root, out)
    with Image.open(out) as image:
        picture = image.convert("RGB")
        height = picture.height  # the picture's rows run top down, the window's bottom up

        def at(x: int, y: int) -> tuple[int, int, int]:
            red, green, blue = picture.getpixel((x, height - 1 - y))
            return red, green, blue

        assert at(100, 100) == RED
        assert RED not in (at(100, 30), at(170, 100))


def test_a_clip_inside_a_clip_draws_in_both(stage: FloatLayout) -> None:
    outer = Clipping(size_hint=(None, None), size=(200, 200), pos=(100, 100))
    inner = Clipping(size_hint=(None, None), size=(200, 200), pos=(200, 200))
    content = painted((400, 400))
    content.pos = (0, 0)
    inner.add_widget(content)
    outer.add_widget(inner)
    stage.add_widget(outer)
    pump(2)
    both, outer_only, inner_only, after = window_pixels([(250, 250), (150, 150), (350, 350), (50, 50)])
    assert both == RED
    assert RED not in (outer_only, inner_only)
    assert after != RED  # nothing red was drawn there anyway: the content lies inside the clips


def test_the_scissor_is_off_after_the_clip(stage: FloatLayout) -> None:
    """A widget drawn after a scroll view is not clipped by it."""
    scroll_of_tall_content(stage)
    later = painted((60, 60))
    later.pos = (400, 300)
    stage.add_widget(later)
    pump(2)
    assert window_pixels([(430, 330)]) == [RED]


def test_drawn_into_another_framebuffer_a_clip_does_not_clip(stage: FloatLayout) -> None:
    """An off-screen drawing no picture knows of draws the content whole rather than clip it in the
    window's pixels, which would be the wrong place."""
    scroll = scroll_of_tall_content(stage)
    stage.remove_widget(scroll)
    fbo = Fbo(size=(400, 400))
    fbo.add(scroll.canvas)
    fbo.draw()
    pixels = fbo.pixels  # RGBA rows, bottom up
    width = 400

    def at(x: int, y: int) -> tuple[int, int, int]:
        offset = 4 * (y * width + x)
        return pixels[offset], pixels[offset + 1], pixels[offset + 2]

    assert at(100, 100) == RED and at(100, 30) == RED and at(170, 100) == RED  # not clipped here
    fbo.remove(scroll.canvas)


def test_picture_of_maps_a_widget_away_from_the_origin(stage: FloatLayout, tmp_path: Path) -> None:
    """A picture of a widget that is not at the window's origin (as History saves its result panel)."""
    frame = FloatLayout(size_hint=(None, None), size=(300, 300), pos=(200, 100))
    scroll = Scroll(size_hint=(None, None), size=(100, 100), pos=(300, 150), do_scroll_x=False)
    scroll.add_widget(painted((300, 300)))  # x 100 to 400 and y -150 to 150 of the frame (at its top)
    frame.add_widget(scroll)
    stage.add_widget(frame)
    pump(2)
    out = tmp_path / "frame.png"
    with picture_of(frame):
        frame.export_to_png(str(out))
    with Image.open(out) as image:
        picture = image.convert("RGB")
        # the scroll view sits at (100, 50) of the picture, 100 x 100; rows run top down
        assert picture.getpixel((150, 300 - 1 - 100)) == RED
        assert picture.getpixel((250, 300 - 1 - 100)) != RED
        assert picture.getpixel((150, 300 - 1 - 25)) != RED


def test_no_stencil_is_drawn_on_home(fresh_app: Any) -> None:
    """Kivy's screen manager and scroll views each clipped with the stencil in every frame; the app's
    screens (`Screens`) and its scroll views (`Scroll`, Home has one) draw none."""
    assert isinstance(fresh_app.root, Screens)
    assert fresh_app.root.current == "home" and stencils_in(Window.canvas) == 0
    assert any(isinstance(widget, Scroll) for widget in fresh_app.root.current_screen.walk())


def stencils_in(group: Any) -> int:
    """How many stencil instructions a canvas tree holds."""
    count = 0
    for child in group.children:
        if isinstance(child, (StencilPush, StencilUse, StencilUnUse, StencilPop)):
            count += 1
        if isinstance(child, InstructionGroup):
            count += stencils_in(child)
    return count


def test_kivys_scroll_view_would_be_counted(stage: FloatLayout) -> None:
    """The count above sees a stencil where there is one: Kivy's own scroll view draws four."""
    stage.add_widget(ScrollView())
    pump(1)
    assert stencils_in(Window.canvas) == 4
