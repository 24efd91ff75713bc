"""`goldtable app` / `goldtable screenshot`: bad arguments end in one line and exit 2; a screenshot is
a PNG of the asked size."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from companion.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv, message", [
    (["screenshot", "lobby", "x.png"], "SCREEN: 'lobby' is not a screen"),
    (["screenshot", "home", "x.png", "--size", "big"], "--size: 'big' is not WIDTHxHEIGHT"),
    (["screenshot", "home", "x.png", "--lang", "es"], "--lang: 'es' is not one of en, de, fr"),
    (["screenshot", "line", "x.png"], "SCREEN: 'line' shows a game's board: add --game with one "
                                      "(chinagold, gold_connection, goldgraeber)"),
    (["screenshot", "table", "x.png", "--moves", "-1"], "--moves: -1 is less than 0"),
    (["app", "--size", "800"], "--size: '800' is not WIDTHxHEIGHT"),
])
def test_bad_arguments_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_screenshot_writes_a_png_of_the_size(tmp_path: Path) -> None:
    out = tmp_path / "table.png"
    env = {**os.environ, "GOLDTABLE_DATA": str(tmp_path / "data")}
    result = subprocess.run([sys.executable, "-m", "companion.cli", "screenshot", "table", str(out),
                             "--size", "1024x600", "--lang", "de"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    with Image.open(out) as image:
        assert image.size == (1024, 600)


def test_the_line_screenshot_shows_chinagolds_preview(tmp_path: Path) -> None:
    """`line`: Chinagold's board after a line's first tap (asked of another game, one line: see above)."""
    out = tmp_path / "line.png"
    env = {**os.environ, "GOLDTABLE_DATA": str(tmp_path / "data")}
    result = subprocess.run([sys.executable, "-m", "companion.cli", "screenshot", "line", str(out), "--game",
                             "chinagold"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    with Image.open(out) as image:
        assert image.size == (800, 480)


@pytest.mark.parametrize("game", ["digger", "gold_connection", "goldgraeber", "chinagold"])
def test_the_refusal_screenshot_shows_a_move_the_rules_refuse(game: str) -> None:
    """Not an action of another game, which every game but Digger refused as unreadable input, and in the
    board games a move of the kind the table waits for, so the screen explains a rule, not "not now"."""
    from companion.app.demo import demo_session
    from companion.app.launch import _refused_move

    session = demo_session(None, 9, game)
    before = session.state
    move = _refused_move(session)
    outcome = session.submit(move, "touch")
    assert outcome.refusal is not None and outcome.refusal.code != "action.malformed" and outcome.refusal.rule
    assert session.state == before
    if game != "digger":
        assert move["type"] in session.game.prompt(before).expects
