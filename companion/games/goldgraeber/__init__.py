"""Goldgräber (Ravensburger 1988): prospectors, a river with rafts, a train and gold chips.

Everything the game is made of, declared once (published as the entry point `goldgraeber` in pyproject.toml).
"""

from companion.engine.registry import GamePlugin, Layout

GAME = GamePlugin(
    rules="companion.games.goldgraeber.rules:Goldgraeber",
    putback="companion.games.goldgraeber.putback:GoldgraeberPutBack",
    dice=(("L", "2", "3", "4", "5", "6"),),
    layouts=(Layout(kind="companion.games.goldgraeber.board:GOLDGRAEBER_BOARD",
                    board="companion.games.goldgraeber.app.board:board_widget"),),
    controller="companion.games.goldgraeber.app.controller:GoldgraeberController",
    table="companion.games.goldgraeber.app.table",
    autoplay="companion.games.goldgraeber.bot:choose_action",
)
