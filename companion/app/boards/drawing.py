"""Drawing helpers shared by the boards: pointy-top axial geometry, filled hexes and centred labels (so
both hex boards place, hit-test and label hexes the same way), and the baked layer every board draws its
printed part into.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from kivy.core.text import Label as CoreLabel
from kivy.graphics import (
    ClearBuffers,
    ClearColor,
    Color,
    Fbo,
    InstructionGroup,
    Mesh,
    Rectangle,
    Scale,
    Translate,
)
from kivy.graphics.instructions import Canvas
from kivy.properties import ListProperty, NumericProperty, ObjectProperty
from kivy.uix.widget import Widget

from companion.app.boards.atlas import Atlas, Picture

SQRT3 = math.sqrt(3.0)
#: The loupe's copy shows the table board's baked print (`Magnifiable.borrow_print`) magnified up to this
#: many times (Gold Connection's loupe 1.5, Chinagold's 1.7): beyond it the texture's pixels would show.
MAX_BORROWED_ZOOM = 2.0
#: A print is baked at up to this many texture pixels per pixel, so that a loupe magnifying more than
#: `MAX_BORROWED_ZOOM` times can still borrow it (Goldgräber's, 3.4 times: baked at 2).
MAX_PRINT_DETAIL = 2

RGB = tuple[float, float, float]
#: The texts and round sprites every board keeps, packed into shared textures.
BOARD_PICTURES = Atlas()


def hex_centre(origin: tuple[float, float], radius: float, q: float, r: float) -> tuple[float, float]:
    """Pixel centre of the pointy-top hex at axial (q, r); r grows downwards on screen."""
    return origin[0] + radius * SQRT3 * (q + r / 2), origin[1] - radius * 1.5 * r


def axial_at(origin: tuple[float, float], radius: float, x: float, y: float) -> tuple[int, int]:
    """The axial (q, r) of the hex under a pixel (cube rounding: the inverse of `hex_centre`)."""
    px = (x - origin[0]) / radius
    py = -(y - origin[1]) / radius
    r = py / 1.5
    q = px / SQRT3 - r / 2
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return rq, rr


def outline(radius: float, segments: int = 24, first_corner: float = 0.0,
            squash: float = 1.0) -> list[tuple[float, float]]:
    """The corners of a regular polygon round (0, 0), the first `first_corner` degrees from the x axis:
    a circle's outline at `segments`, a pointy-top hex's at `segments=6, first_corner=30`; `squash`
    flattens it to that height."""
    angles = [math.radians(first_corner) + 2 * math.pi * k / segments for k in range(segments)]
    return [(radius * math.cos(angle), squash * radius * math.sin(angle)) for angle in angles]


def discs(centres: list[tuple[float, float]], radius: float, segments: int = 24, first_corner: float = 0.0,
          squash: float = 1.0) -> Mesh:
    """Many filled circles of one size as a single mesh: one draw call for all the markers of a colour,
    where one `Ellipse` each would cost a call apiece.  With `segments=6, first_corner=30` they are the
    filled pointy-top hexes of a board; `squash` flattens them into ellipses that high."""
    vertices: list[float] = []
    indices: list[int] = []
    ring = outline(radius, segments, first_corner, squash)
    for cx, cy in centres:
        base = len(vertices) // 4
        vertices += [cx, cy, 0.0, 0.0]
        for dx, dy in ring:
            vertices += [cx + dx, cy + dy, 0.0, 0.0]
        for k in range(segments):
            indices += [base, base + 1 + k, base + 1 + (k + 1) % segments]
    return Mesh(vertices=vertices, indices=indices, mode="triangles")


def hexes(group: InstructionGroup, cells: list[tuple[float, float, RGB]], size: float) -> None:
    """Filled pointy-top hexes added to `group` as one mesh per colour (`cells`: centre x, y and colour),
    each colour's in the order it first appears: a board's printed hexes in a few draw calls, not one
    each (a call costs a software renderer a fixed amount, and the loupe's copy draws them every frame)."""
    by_colour: dict[RGB, list[tuple[float, float]]] = {}
    for cx, cy, rgb in cells:
        by_colour.setdefault(rgb, []).append((cx, cy))
    for rgb, centres in by_colour.items():
        group.add(Color(*rgb))
        group.add(discs(centres, size, segments=6, first_corner=30))


def segments(group: InstructionGroup, lines: list[tuple[float, float, float, float]], width: float,
             caps: bool = True) -> None:
    """Straight lines (x1, y1, x2, y2) of one colour and `width` added to `group` as one mesh, drawn as a
    `Line(points, width)` draws each (a band `width` to either side, round ends), where a `Line` each
    would cost a draw call apiece.  A thin line is a band too (half a pixel to either side for one pixel),
    not Kivy's hairline, which stays one pixel wide in a print baked at more pixels (`BakedLayer.detail`)
    and so would show at half a pixel there."""
    vertices: list[float] = []
    indices: list[int] = []
    for x1, y1, x2, y2 in lines:
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        nx, ny = -(y2 - y1) / length * width, (x2 - x1) / length * width
        base = len(vertices) // 4
        vertices += [x1 + nx, y1 + ny, 0.0, 0.0, x1 - nx, y1 - ny, 0.0, 0.0,
                     x2 + nx, y2 + ny, 0.0, 0.0, x2 - nx, y2 - ny, 0.0, 0.0]
        indices += [base, base + 1, base + 2, base + 2, base + 1, base + 3]
    group.add(Mesh(vertices=vertices, indices=indices, mode="triangles"))
    if caps:
        group.add(discs([end for x1, y1, x2, y2 in lines for end in ((x1, y1), (x2, y2))], width, 12))


def rounded_frames(boxes: list[tuple[float, float, float, float]], corner: float, width: float,
                   corner_segments: int = 4) -> Mesh:
    """Outlines of rounded rectangles (x, y, width, height) of one colour as a single mesh, a band `width`
    to either side of the outline as `Line(rounded_rectangle=(x, y, w, h, corner), width=width)` draws each.
    Kivy builds each such `Line` from hundreds of triangles with round joints: eleven lit safes cost a
    Gold Connection frame 2.7 ms on a software renderer, their mesh here a few dozen triangles each."""
    steps = [math.radians(90 * k / corner_segments) for k in range(corner_segments + 1)]
    outlines = []
    for x, y, w, h in boxes:
        corners = ((x + w - corner, y + h - corner, 0.0), (x + corner, y + h - corner, 90.0),
                   (x + corner, y + corner, 180.0), (x + w - corner, y + corner, 270.0))
        outlines.append([(cx, cy, math.cos(math.radians(start) + step), math.sin(math.radians(start) + step))
                         for cx, cy, start in corners for step in steps])
    return closed_bands(outlines, max(0.0, corner - width), corner + width)


def closed_bands(outlines: list[list[tuple[float, float, float, float]]], inner: float, outer: float) -> Mesh:
    """Closed bands as one mesh: each outline is its points in order round the shape, a point being a
    centre and a unit direction (cx, cy, cos, sin); the band runs from `inner` to `outer` along each
    direction (`rings` round one centre, `rounded_frames` round four corners)."""
    vertices: list[float] = []
    indices: list[int] = []
    for points in outlines:
        base = len(vertices) // 4
        for cx, cy, cos, sin in points:
            vertices += [cx + outer * cos, cy + outer * sin, 0.0, 0.0, cx + inner * cos, cy + inner * sin, 0.0, 0.0]
        count = len(points)
        for k in range(count):
            here, after = base + 2 * k, base + 2 * ((k + 1) % count)
            indices += [here, here + 1, after, after, here + 1, after + 1]
    return Mesh(vertices=vertices, indices=indices, mode="triangles")


def rectangles(boxes: list[tuple[float, float, float, float]]) -> Mesh:
    """Many filled rectangles (x, y, width, height) of one colour as a single mesh."""
    vertices: list[float] = []
    indices: list[int] = []
    for x, y, width, height in boxes:
        base = len(vertices) // 4
        vertices += [x, y, 0.0, 0.0, x + width, y, 0.0, 0.0, x, y + height, 0.0, 0.0, x + width, y + height, 0.0, 0.0]
        indices += [base, base + 1, base + 2, base + 2, base + 1, base + 3]
    return Mesh(vertices=vertices, indices=indices, mode="triangles")


def rings(centres: list[tuple[float, float]], radius: float, width: float, segments: int = 24,
          first_corner: float = 0.0) -> Mesh:
    """Many outlines of one size and width as a single mesh (circles, or hexes with `segments=6` and
    `first_corner=30`): a wide `Line` each costs a draw call apiece, and late in a Chinagold game those
    calls were most of a frame on a software renderer.  As with a `Line` of this `width`, the band reaches
    `width` to either side of the outline, measured across each side."""
    reach = width / math.cos(math.pi / segments)  # along a corner: `width` across the sides
    angles = [math.radians(first_corner) + 2 * math.pi * k / segments for k in range(segments)]
    around = [(math.cos(angle), math.sin(angle)) for angle in angles]
    return closed_bands([[(cx, cy, cos, sin) for cos, sin in around] for cx, cy in centres],
                        radius - reach, radius + reach)


def round_sprite(outer: float, inner: float = 0.0) -> Any:
    """A white disc of radius `outer` (a ring from `inner` with `inner` > 0) with edges smoothed over one
    pixel, as a picture of its own size in pixels, kept (`BOARD_PICTURES`): tinted by the `Color` before it,
    a board's round markers are two triangles each (`sprites`) where a mesh of the circle is dozens, and a
    software renderer pays for every triangle (Chinagold's 91 markers and their shadows cost 2 ms of a frame)."""
    return BOARD_PICTURES.kept(("round", outer, inner), lambda: _round_picture(outer, inner))


def _round_picture(outer: float, inner: float) -> Picture:
    half = math.ceil(outer) + 1
    side = 2 * half
    quarter = []  # one quarter's coverage, mirrored into the others (the first opening of a loupe makes these)
    for row in range(half):
        line = []
        for col in range(half):
            distance = math.hypot(col + 0.5 - half, row + 0.5 - half)
            cover = min(outer + 0.5 - distance, distance - inner + 0.5 if inner > 0 else 1.0)
            line.append(round(255 * min(1.0, max(0.0, cover))))
        quarter.append(line + line[::-1])
    pixels = bytearray(b"\xff" * (side * side * 4))
    pixels[3::4] = bytes(value for line in quarter + quarter[::-1] for value in line)
    return Picture(side, side, bytes(pixels))


def sprites(centres: list[tuple[float, float]], outer: float, inner: float = 0.0) -> Mesh:
    """Round markers of one size (discs, or rings from `inner` to `outer`) centred on `centres`, as one
    textured mesh of a quad each (`round_sprite`), placed on whole pixels so the sprite is not blurred."""
    texture = round_sprite(round(outer * 4) / 4, round(inner * 4) / 4)
    half = texture.width / 2
    (u0, v0), (du, dv) = texture.uvpos, texture.uvsize  # its region of the shared page
    vertices: list[float] = []
    indices: list[int] = []
    for cx, cy in centres:
        x, y = round(cx - half), round(cy - half)
        base = len(vertices) // 4
        vertices += [x, y, u0, v0, x + 2 * half, y, u0 + du, v0, x, y + 2 * half, u0, v0 + dv,
                     x + 2 * half, y + 2 * half, u0 + du, v0 + dv]
        indices += [base, base + 1, base + 2, base + 2, base + 1, base + 3]
    return Mesh(vertices=vertices, indices=indices, mode="triangles", texture=texture)


def text_texture(text: str, size: int, rgb: RGB = (1, 1, 1)) -> Any:
    """A bold text's texture (never smaller than 6 px), kept (`BOARD_PICTURES`): boards draw the same few
    texts again and again (numbers, labels), and rendering one costs a software renderer more than the
    rest of a piece."""
    size = max(6, size)  # kept by the size drawn: smaller sizes are one picture
    return BOARD_PICTURES.kept(("text", text, size, rgb), lambda: _text_picture(text, size, rgb))


class _RenderedText:
    """Stands in for a label's texture while the label renders, to take the pixels Kivy hands to it
    (`LabelBase.render(real=True)` ends in the texture's `blit_data`): the text goes into a page of
    `BOARD_PICTURES` without a texture of its own first."""

    data: Any = None

    def blit_data(self, data: Any) -> None:
        self.data = data


def _text_picture(text: str, size: int, rgb: RGB) -> Picture:
    label = CoreLabel(text=text, font_size=size, color=(*rgb, 1), bold=True)
    label.refresh()  # lays the text out, giving its size
    width, height = label.size
    if width <= 1 or height <= 1:  # nothing to render (an empty text)
        return Picture(1, 1, bytes(4))
    rendered = _RenderedText()
    label.texture = rendered
    label.render(real=True)
    data = rendered.data
    if data is None:
        raise RuntimeError("Kivy's label no longer hands its pixels to its texture's blit_data")
    return Picture(data.width, data.height, bytes(data.data), top_down=True, colorfmt=data.fmt)


def centred_text(group: InstructionGroup, text: str, cx: float, cy: float, size: float, rgb: RGB,
                 detail: float = 1.0) -> None:
    """Bold text centred on (cx, cy) added to `group` (never smaller than 6 px); in a print baked at
    `detail` texture pixels per pixel, rendered that much larger, so it stays sharp in the loupe."""
    texture = text_texture(text, int(size * detail))  # the font is opened at the whole size below
    width, height = texture.width / detail, texture.height / detail
    group.add(Color(*rgb))
    group.add(Rectangle(texture=texture, size=(width, height), pos=(cx - width / 2, cy - height / 2)))


class Magnifiable:
    """What a board needs to be shown in the loupe (companion.app.boards.loupe): with `zoom_spacing` set,
    cells are drawn that many pixels apart with the point `zoom_centre` (in board units, the same at any
    widget size) at the widget's centre, instead of the whole board fitted.  Both are set when the
    widget is made (`magnified_copy`), so the loupe's copy bakes its printed board once.  `loupe` is
    the loupe attached to the table's board (None: taps on the board go straight to the cell).

    The defaults are the hex boards' (board units: hex radii from the fitted origin); a board of another
    shape overrides `cell_spacing`, `board_point` and `magnified_copy`.
    """

    zoom_spacing = NumericProperty(0.0)
    zoom_centre = ListProperty([0.0, 0.0])  # not `focus`: a true `focus` means a text field has the keys
    loupe = ObjectProperty(None, allownone=True)
    #: In the loupe's copy: the table's board, whose baked print the copy shows magnified (`borrow_print`).
    printed_from = ObjectProperty(None, allownone=True)
    #: The properties that carry what lies on the board; the loupe's copy follows them.
    view_properties: tuple[str, ...] = ("view",)
    layout: Any
    _radius: float
    _origin: tuple[float, float]
    _printed: BakedLayer
    _pieces: Layers

    def draw_pieces(self, *_: Any) -> None:
        """Repaint the layers of pieces the board's view changes (each board says how)."""
        raise NotImplementedError

    def _magnify(self, centre: tuple[float, float]) -> None:
        """After fitting the whole board: the radius and origin of the magnified view, if one is asked for."""
        if self.zoom_spacing:
            self._radius = self.zoom_spacing / SQRT3
            self._origin = (centre[0] - self.zoom_centre[0] * self._radius,
                            centre[1] - self.zoom_centre[1] * self._radius)

    def board_point(self, x: float, y: float) -> tuple[float, float]:
        """A pixel in board units (what `zoom_centre` takes)."""
        return (x - self._origin[0]) / self._radius, (y - self._origin[1]) / self._radius

    def pixel_of(self, u: float, v: float) -> tuple[float, float]:
        """The pixel at board units (u, v): the inverse of `board_point`."""
        return self._origin[0] + u * self._radius, self._origin[1] + v * self._radius

    def print_detail(self) -> float:
        """Texture pixels per pixel to bake the print at: what the board's loupe needs to borrow it
        (`BoardLoupe.print_detail`), 1 without a loupe."""
        return 1.0 if self.loupe is None else float(self.loupe.print_detail())

    def borrow_print(self) -> bool:
        """In the loupe's copy: show the part of the table board's print under the lens, magnified from the
        texture that board baked, as one textured rectangle, and the pieces on it; True if shown (the
        board's `redraw` then has nothing left to draw).  The copy's own print, a few hundred triangles over
        the lens drawn in the frame the loupe opens, cost a software renderer up to 10 ms a frame; the
        borrowed one is a little soft (the pieces on it are drawn sharp), so only up to `MAX_BORROWED_ZOOM`
        times the texture's own pixels (Goldgräber's table bakes its print at more pixels for that)."""
        source = self.printed_from
        if source is None or not source._printed.baked or not source.width or not source.height:
            return False
        most = MAX_BORROWED_ZOOM * source.cell_spacing * source._printed.detail
        if self.cell_spacing > most * 1.001:  # a detail chosen for this zoom exactly: no rounding refuses it
            return False
        widget: Any = self
        corners = ((widget.x, widget.y), (widget.right, widget.top))
        (x0, y0), (x1, y1) = (source.pixel_of(*self.board_point(x, y)) for x, y in corners)
        u0, u1 = (x0 - source.x) / source.width, (x1 - source.x) / source.width
        v0, v1 = (y0 - source.y) / source.height, (y1 - source.y) / source.height
        self._printed.show_part(source._printed, widget.pos, widget.size, (u0, v0, u1, v0, u1, v1, u0, v1))
        self._pieces.forget()
        self.draw_pieces()
        return True

    @property
    def cell_spacing(self) -> float:
        """Distance in pixels between the centres of two neighbouring cells (the tap target's size)."""
        return self._radius * SQRT3

    def own_event(self, x: float, y: float) -> tuple[str, tuple[Any, ...]] | None:
        """What a touch here means if it is not a cell: the board's event and its arguments (Gold
        Connection's bars), dispatched on the table's board for a touch on the loupe's copy too."""
        return None

    def magnified_copy(self, **properties: Any) -> Widget:
        """A board of the same class and layout showing the same, made with `properties` (zoom, centre, size)."""
        shown = {name: getattr(self, name) for name in self.view_properties}
        copy = type(self)(self.layout, **shown, **properties)  # type: ignore[call-arg]
        assert isinstance(copy, Widget), "a board is a widget with Magnifiable mixed in"
        return copy

    def in_view_only(self, centres: list[tuple[float, float]], margin: float) -> list[tuple[float, float]]:
        """The `centres` of things reaching `margin` pixels round them that can be seen (`in_view`): the
        loupe's copy draws the pieces it shows, not those of the whole magnified board."""
        return [centre for centre in centres if self.in_view(*centre, margin)]

    def in_view(self, x: float, y: float, margin: float) -> bool:
        """Whether something at (x, y) reaching `margin` pixels round it can be seen: always on the whole
        board; in the loupe's copy, only within the widget (it draws the few cells it shows, not all)."""
        widget: Any = self
        return not self.zoom_spacing or (widget.x - margin <= x <= widget.right + margin
                                         and widget.y - margin <= y <= widget.top + margin)


class BakedLayer:
    """Instructions drawn once into an off-screen texture and shown as one textured rectangle.

    The printed part of a board is hundreds of meshes and lines; drawn every frame they cost a software
    renderer (llvmpipe) about 13 ms per frame for Chinagold, the texture well under one. Only the printed
    board is baked (rebuilt after a size or layout change): the pieces change with every move, and
    rendering them into a texture again each time cost more (about 20 ms) than drawing them straight
    (about 4 ms, see docs/performance.md). `rebuild` empties the layer for new instructions in widget
    coordinates.

    With `baked=False` the instructions are drawn straight, without a texture: the loupe's magnified
    copy lives for a frame or two and draws only the few cells it shows, so baking would cost a texture
    made and dropped at every opening and a render more than it saves.  `detail` (set by `rebuild`) is
    texture pixels per widget pixel: above 1 the print is baked larger and shown scaled down, so that a
    loupe may show it magnified without drawing its own.
    """

    def __init__(self, canvas: Canvas, baked: bool = True) -> None:
        self.group = InstructionGroup()
        self.detail = 1.0
        self._fbo: Fbo | None = None
        if not baked:
            canvas.add(self.group)
            return
        self._fbo = Fbo(size=(1, 1), with_stencilbuffer=True)  # Kivy draws wide lines with the stencil
        self._scale = Scale(1.0, 1.0, 1.0)
        self._shift = Translate(0, 0)
        for instruction in (ClearColor(0, 0, 0, 0), ClearBuffers(), self._scale, self._shift, self.group):
            self._fbo.add(instruction)
        self._rect = Rectangle(texture=self._fbo.texture, size=(1, 1))
        canvas.add(self._fbo)
        canvas.add(Color(1, 1, 1, 1))
        canvas.add(self._rect)

    @property
    def baked(self) -> bool:
        return self._fbo is not None

    @property
    def texture(self) -> Any:
        """The baked texture (None for a layer drawn straight)."""
        return None if self._fbo is None else self._fbo.texture

    def show_part(self, baked: BakedLayer, pos: tuple[float, float], size: tuple[float, float],
                  tex_coords: tuple[float, ...]) -> None:
        """This (unbaked) layer shows the part `tex_coords` of another layer's baked texture at `pos`, `size`."""
        assert baked.texture is not None, "only a baked layer has a texture to show"
        self.group.clear()
        self.group.add(Color(1, 1, 1, 1))
        self.group.add(Rectangle(texture=baked.texture, pos=pos, size=size, tex_coords=tex_coords))

    def rebuild(self, pos: tuple[float, float], size: tuple[float, float], detail: float = 1.0) -> InstructionGroup:
        """The emptied group to draw into, for a widget now at `pos` with `size`, baked at `detail`."""
        if self._fbo is not None:
            self.detail = detail
            width, height = max(1, round(size[0])), max(1, round(size[1]))
            baked_size = (max(1, round(size[0] * detail)), max(1, round(size[1] * detail)))
            if tuple(self._fbo.size) != baked_size:
                self._fbo.size = baked_size
            self._scale.xyz = (detail, detail, 1.0)
            self._shift.xy = (-pos[0], -pos[1])
            self._rect.texture = self._fbo.texture
            self._rect.pos = pos
            self._rect.size = (width, height)
        self.group.clear()
        return self.group


class Layers:
    """A board's pieces as instruction groups in drawing order (highlights, chips, figures...), each
    repainted only when what it shows changes.

    A move changes a figure and the highlights, not the sixty chips or the rafts; repainting everything
    after every change made hundreds of instructions a tap, and the garbage they left was collected in
    pauses of 40-60 ms inside later taps (docs/performance.md).  `paint(name, shown, draw)` empties the
    group and calls `draw(group)` when `shown` (a hashable summary of what the group draws) differs from
    the last; `forget()` repaints all on the next paint (after a size change).
    """

    def __init__(self, canvas: Canvas, names: tuple[str, ...]) -> None:
        self.groups = {name: InstructionGroup() for name in names}
        self._shown: dict[str, Hashable] = {}
        for group in self.groups.values():
            canvas.add(group)

    def paint(self, name: str, shown: Hashable, draw: Callable[[InstructionGroup], object]) -> bool:
        """Repaint group `name` if it would show something else; True if it was repainted."""
        if name in self._shown and self._shown[name] == shown:
            return False
        self._shown[name] = shown
        group = self.groups[name]
        group.clear()
        draw(group)
        return True

    def forget(self) -> None:
        self._shown.clear()

    def instructions(self) -> Iterator[Any]:
        """Every instruction of every group, in drawing order."""
        for group in self.groups.values():
            yield from group.children
