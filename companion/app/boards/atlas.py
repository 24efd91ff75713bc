"""The boards' small pictures (texts, round sprites) kept as regions of a few shared textures.

A software renderer (Mesa's llvmpipe: what draws where no GPU driver does, as on this machine and in the
simulated Pi) holds about 40 KB for every texture however small, and the boards keep a few hundred small
pictures (a Gold Connection table draws 140 texts, each at the sizes its board and loupe need): some 6 MB
for a few pixels each (docs/performance.md).  Packed side by side into pages they cost the pages' pixels.
Pages are filled shelf by shelf and never compacted: when `MAX_PAGES` are full, everything kept is dropped
at once and packing starts again on a new page (a board still showing an older region keeps its page
alive until it draws again), so what is kept stays bounded however many games an evening sees.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from kivy.graphics.texture import Texture

#: A page's side in pixels: a quarter of a megabyte of pixels, room for a board's texts or sprites.
PAGE_SIDE = 256
#: Pages kept before all are dropped and packing starts again (4 MB of pixels).
MAX_PAGES = 16
#: Pixels round every region: a picture drawn at a fraction of a pixel, or magnified, is smoothed with
#: the pixels beside its edge, which must be its own edge's colour made transparent, not a neighbour's
#: edge (nor black: a light text would get a dark rim).
GAP = 1


@dataclass(frozen=True)
class Picture:
    """Pixels to keep: `width` x `height` pixels of four bytes (RGBA, or the order `colorfmt` names), rows
    from the bottom unless `top_down` (a rendered text's rows come from the top)."""

    width: int
    height: int
    pixels: bytes
    top_down: bool = False
    colorfmt: str = "rgba"


class Atlas:
    """Pictures made once per key and kept as regions of shared pages (see the module's docstring)."""

    def __init__(self, side: int = PAGE_SIDE, max_pages: int = MAX_PAGES) -> None:
        self.side = side
        self.max_pages = max_pages
        self.pages: list[Any] = []
        self._kept: dict[Hashable, Any] = {}
        self._x = self._y = self._shelf = 0  # where the next picture goes: along the shelf from its bottom

    def kept(self, key: Hashable, make: Callable[[], Picture]) -> Any:
        """The texture (a region of a page) kept for `key`, made from `make()` the first time."""
        texture = self._kept.get(key)
        if texture is None:
            texture = self._kept[key] = self._place(make())
        return texture

    def clear(self) -> None:
        """Forget every picture and page; the next picture starts a new page."""
        self._kept.clear()
        self.pages.clear()

    def _place(self, picture: Picture) -> Any:
        width, height = picture.width + 2 * GAP, picture.height + 2 * GAP
        if width > self.side or height > self.side:  # too large to share a page: a texture of its own
            texture = Texture.create(size=(picture.width, picture.height), colorfmt="rgba")
            texture.blit_buffer(picture.pixels, colorfmt=picture.colorfmt, bufferfmt="ubyte")
        else:
            if self._x + width > self.side:  # this shelf is full: the next one, above the tallest on it
                self._x, self._y, self._shelf = 0, self._y + self._shelf, 0
            if not self.pages or self._y + height > self.side:
                self._new_page()
            page = self.pages[-1]
            page.blit_buffer(_framed(picture), pos=(self._x, self._y), size=(width, height),
                             colorfmt=picture.colorfmt, bufferfmt="ubyte")
            x, y = self._x + GAP, self._y + GAP
            self._x += width
            self._shelf = max(self._shelf, height)
            texture = page.get_region(x, y, picture.width, picture.height)
        if picture.top_down:
            texture.flip_vertical()
        return texture

    def _new_page(self) -> None:
        if len(self.pages) >= self.max_pages:
            self.clear()
        page = Texture.create(size=(self.side, self.side), colorfmt="rgba")
        page.blit_buffer(bytes(self.side * self.side * 4), colorfmt="rgba", bufferfmt="ubyte")  # GL leaves it undefined
        self.pages.append(page)
        self._x = self._y = self._shelf = 0


def _framed(picture: Picture) -> bytes:
    """The picture with a frame `GAP` (one) pixel wide round it: each frame pixel the colour of the edge
    pixel beside it, transparent (as a texture of its own is smoothed at its edge)."""
    stride = 4 * picture.width
    rows = [picture.pixels[row * stride:(row + 1) * stride] for row in range(picture.height)]
    framed = []
    for row in [rows[0], *rows, rows[-1]]:
        line = bytearray(row[:4] + row + row[-4:])
        line[3::4] = bytes([0]) + line[7:-4:4] + bytes([0])
        framed.append(line)
    for edge in (framed[0], framed[-1]):
        edge[3::4] = bytes(len(edge) // 4)
    return b"".join(framed)
