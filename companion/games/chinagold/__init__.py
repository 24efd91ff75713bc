"""Chinagold (Günter Cornett, Bambus 2004): mountains against rivers on one hex board of 91 sites.

Everything the game is made of, declared once (published as the entry point `chinagold` in pyproject.toml).
"""

from companion.engine.registry import GamePlugin, Layout

GAME = GamePlugin(
    rules="companion.games.chinagold.rules:Chinagold",
    putback="companion.games.chinagold.putback:ChinagoldPutBack",
    dice=(("0", "1"), ("0", "2"), ("1", "2")),  # the three throw tiles; fewer stay in play as the board empties
    layouts=(Layout(kind="companion.games.chinagold.board:BOARD_KIND",
                    board="companion.games.chinagold.app.board:board_widget"),),
    controller="companion.games.chinagold.app.controller:ChinagoldController",
    table="companion.games.chinagold.app.table",
    autoplay="companion.games.chinagold.bot:choose_action",
    commands="companion.games.chinagold.cli",
)
