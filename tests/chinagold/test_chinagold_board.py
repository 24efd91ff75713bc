"""CG-1: the hex grid, board files, their checks, the generator and the river-sheet overlay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.games.chinagold.board import (
    BOARD_DIR,
    ChinagoldBoardLayout,
    board_from_layout,
    board_problems,
    generate_layout,
    layout_for,
    mirror_of,
    overlaid,
    partition,
)
from companion.games.chinagold.geometry import grid, sites_of, symmetry

SHIPPED = sorted(BOARD_DIR.glob("*.json"))


def test_grid_sizes_and_lines() -> None:
    """CG-1: the board."""
    big, small = grid(6), grid(5)
    assert (big.size, small.size) == (91, 61)
    # Straight runs of k sites: 3 axes, each row of n sites holds n-k+1 of them.
    rows = [6, 7, 8, 9, 10, 11, 10, 9, 8, 7, 6]
    for k in range(2, 6):
        assert len(big.lines[k]) == 3 * sum(max(0, n - k + 1) for n in rows)
    assert len(big.lines[1]) == 91
    assert all(len(sites_of(mask)) == 5 for mask, _, _ in big.lines[5])


def test_line_between() -> None:
    g = grid(6)
    assert g.line_between(0, 5) == (0, 1, 2, 3, 4, 5)
    assert g.line_between(5, 0) == (5, 4, 3, 2, 1, 0)
    assert g.line_between(0, 7) == (0, 7)
    assert g.line_between(0, 8) is None
    assert g.line_between(3, 3) == (3,)


def test_symmetries_are_twelve_distinct_maps_of_the_board() -> None:
    g = grid(6)
    images = {tuple(g.index[symmetry(k, c)] for c in g.coords) for k in range(12)}
    assert len(images) == 12


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_boards_are_sound_and_marked_as_ours(path: Path) -> None:
    layout = ChinagoldBoardLayout.model_validate_json(path.read_text())
    assert board_problems(layout) == []
    assert "Our own board" in layout.note
    assert mirror_of(layout) is not None
    expected = {6: (91, 17), 5: (61, 12)}[layout.edge]
    assert (grid(layout.edge).size, len(layout.mountains)) == expected
    assert main(["layout", "check", str(path)]) == 0


def test_default_and_small_boards_exist() -> None:
    """CG-R5: by default our 91-site board with the sheet as printed; `board: small` plays the 61-site one."""
    from tests.chinagold.cg_helpers import GAME, new_setup

    assert layout_for("default").edge == 6 and layout_for("small").edge == 5
    default = GAME.initial_state(new_setup())
    assert (default.board, default.overlay, GAME.board(default).size) == ("default", 0, 91)
    small = GAME.initial_state(new_setup(board="small"))
    assert (small.board, GAME.board(small).size) == ("small", 61)


@pytest.mark.parametrize("edge", [6, 5])
@pytest.mark.parametrize("seed", range(6))
def test_generator_makes_valid_mirrored_boards(seed: int, edge: int) -> None:
    layout = generate_layout(seed, edge)  # type: ignore[arg-type]
    assert board_problems(layout) == []
    assert generate_layout(seed, edge) == layout  # type: ignore[arg-type]
    sizes = [len(region.sites) for region in layout.mountains]
    assert min(sizes) >= 3 and max(sizes) <= 8
    assert not partition(layout.mountains) & partition(layout.rivers)


def broken(**changes: object) -> ChinagoldBoardLayout:
    return generate_layout(1).model_copy(update=changes)


def test_checks_report_bad_regions() -> None:
    layout = generate_layout(1)
    mountains = [region.model_copy() for region in layout.mountains]
    first = mountains[0]
    mountains[0] = first.model_copy(update={"sites": first.sites[:2]})
    problems = board_problems(broken(mountains=mountains))
    assert any(p.startswith("mountain M1: 2 sites") for p in problems)
    assert any(p.startswith("site ") and "in no mountain" in p for p in problems)


def test_checks_report_disconnected_and_off_board_and_not_mirrored() -> None:
    layout = generate_layout(1)
    rivers = list(layout.rivers)
    rivers[0] = rivers[0].model_copy(update={"sites": [*rivers[0].sites[:-1], 200]})
    assert any("not on the board" in p for p in board_problems(broken(rivers=rivers)))
    swapped = list(layout.rivers)
    a, b = swapped[0], swapped[1]
    swapped[0] = a.model_copy(update={"sites": [*a.sites, b.sites[0]]})
    swapped[1] = b.model_copy(update={"sites": b.sites[1:]})
    problems = board_problems(broken(rivers=swapped))
    assert problems, "moving a site between rivers breaks the mirror (or connectivity)"
    mountains = list(layout.mountains)
    first = mountains[0]
    far = max(range(91), key=lambda site: min(abs(site - own) for own in first.sites))
    mountains[0] = first.model_copy(update={"sites": [*first.sites[:-1], far]})
    problems = board_problems(broken(mountains=mountains))
    assert "mountain M1: sites are not connected" in problems
    assert any(p.startswith(f"site {far}: in 2 mountains") for p in problems)


def test_identical_rivers_are_not_a_mirror() -> None:
    layout = generate_layout(3)
    problems = board_problems(broken(rivers=[r.model_copy(update={"sites": m.sites}) for r, m in
                                             zip(layout.rivers, layout.mountains)]))
    assert problems == ["rivers: not the mirror image of the mountains under any reflection of the hexagon"]


@pytest.mark.parametrize("overlay", range(12))
def test_every_overlay_keeps_a_partition_of_the_board(overlay: int) -> None:
    layout = layout_for("default")
    moved = overlaid(layout, overlay)
    board = board_from_layout(layout, "default", overlay)
    assert sorted(s for region in moved.rivers for s in region.sites) == list(range(91))
    assert sum(mask.bit_count() for mask in board.rivers) == 91
    assert (moved.rivers == layout.rivers) == (overlay == 0)
    assert (mirror_of(moved) is not None) == (overlay < 6)


def test_overlay_option_changes_the_rivers_in_play() -> None:
    """CG-R5 and CG-1: the `overlay` option turns the river sheet, so other rivers are in play."""
    from tests.chinagold.cg_helpers import GAME, new_setup

    state = GAME.initial_state(new_setup(overlay=7))
    assert (state.board, state.overlay) == ("default", 7)
    assert GAME.board(state).rivers != GAME.board(GAME.initial_state(new_setup())).rivers


def test_unknown_board_is_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    from companion.engine.errors import UserError
    from tests.chinagold.cg_helpers import GAME

    with pytest.raises(UserError, match="no board 'nowhere'"):
        GAME.options({"board": "nowhere"})


def test_generate_command_writes_a_checkable_board(tmp_path: Path) -> None:
    out = tmp_path / "board.json"
    assert main(["chinagold", "generate", "--seed", "5", "--edge", "5", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["kind"] == "chinagold-board" and data["edge"] == 5
    assert main(["layout", "check", str(out)]) == 0


@pytest.mark.ui
@pytest.mark.parametrize("name", ["default", "small"])
def test_render_draws_the_board(name: str, tmp_path: Path) -> None:
    out = tmp_path / f"{name}.png"
    assert main(["layout", "render", str(BOARD_DIR / f"{name}.json"), "-o", str(out), "--size", "400x360"]) == 0
    assert out.stat().st_size > 5000
