"""The boards' texts and round sprites are regions of shared pages (`companion.app.boards.atlas`): drawn,
each looks exactly as a texture of its own would, and pages never let one picture into another's pixels."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from kivy.core.text import Label as CoreLabel

from companion.app.boards.atlas import GAP, Atlas, Picture
from companion.app.boards.drawing import BOARD_PICTURES, round_sprite, text_texture
from tests.table_helpers import drawn

pytestmark = pytest.mark.ui


@pytest.mark.parametrize("text", ["12", "Tresor 7", "Äg"])
@pytest.mark.parametrize("size", [9, 20])
def test_a_kept_text_draws_as_the_label_itself(app: Any, text: str, size: int) -> None:
    """Upright, the same pixels, in a page shared with other texts (not a texture of its own)."""
    BOARD_PICTURES.clear()  # (pages other tests filled could leave no room for both on one page)
    colour = (0.95, 0.95, 0.6)
    kept = text_texture(text, size, colour)
    label = CoreLabel(text=text, font_size=size, color=(*colour, 1), bold=True)
    label.refresh()
    assert drawn(kept, 2) == drawn(label.texture, 2)
    assert kept.id == text_texture("other", 11).id  # one page holds both
    assert text_texture(text, size, colour) is kept


def test_a_round_sprite_shares_the_page_of_texts(app: Any) -> None:
    BOARD_PICTURES.clear()
    assert round_sprite(9.25).id == text_texture("3", 12).id
    assert len(BOARD_PICTURES.pages) == 1


def test_pages_keep_every_picture_in_its_own_pixels(app: Any) -> None:
    """Pictures of many sizes, each one flat grey of its own shade, packed into small pages: each region
    lies inside its page, apart from the others by the gap, and drawn shows its shade alone."""
    atlas = Atlas(side=48, max_pages=50)
    rng = Random(3)
    regions = []
    for shade in range(1, 60):
        width, height = rng.randint(1, 20), rng.randint(1, 20)
        picture = Picture(width, height, bytes([shade, shade, shade, 255]) * (width * height))
        regions.append((shade, atlas.kept(shade, lambda picture=picture: picture)))
    assert len(atlas.pages) > 1
    boxes: dict[int, list[tuple[int, int, int, int]]] = {}
    for shade, region in regions:
        (u, v), (du, dv) = region.uvpos, region.uvsize
        x, y, width, height = (round(value * 48) for value in (u, v, du, dv))
        assert x >= GAP and y >= GAP and x + width <= 48 - GAP and y + height <= 48 - GAP
        for ox, oy, ow, oh in boxes.get(region.id, []):
            assert x >= ox + ow + 2 * GAP or ox >= x + width + 2 * GAP or y >= oy + oh + 2 * GAP \
                or oy >= y + height + 2 * GAP, f"shade {shade} overlaps another picture"
        boxes.setdefault(region.id, []).append((x, y, width, height))
        pixels = drawn(region, 2)
        lit = {pixels[index] for index in range(0, len(pixels), 4) if pixels[index + 3]}
        assert lit == {shade}


def test_full_pages_are_dropped_and_packing_starts_again(app: Any) -> None:
    """Bounded: with every page full, what was kept is forgotten (made again when asked for)."""
    atlas = Atlas(side=16, max_pages=2)
    made: list[str] = []

    def picture(key: str) -> Picture:
        made.append(key)
        return Picture(14, 14, bytes(14 * 14 * 4))

    first = atlas.kept("a", lambda: picture("a"))
    atlas.kept("b", lambda: picture("b"))
    assert len(atlas.pages) == 2
    atlas.kept("c", lambda: picture("c"))
    assert len(atlas.pages) == 1
    again = atlas.kept("a", lambda: picture("a"))
    assert made == ["a", "b", "c", "a"] and again is not first


def test_a_picture_larger_than_a_page_gets_a_texture_of_its_own(app: Any) -> None:
    atlas = Atlas(side=16)
    texture = atlas.kept("wide", lambda: Picture(40, 5, bytes(40 * 5 * 4)))
    assert tuple(texture.size) == (40, 5) and atlas.pages == []
