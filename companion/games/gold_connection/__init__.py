"""Gold Connection (Sid Sackson, Schmidt Spiele): loot the vault's safes, sort the bars into rows.

Everything the game is made of, declared once (published as the entry point `gold_connection` in
pyproject.toml).
"""

from companion.engine.registry import GamePlugin, Layout

GAME = GamePlugin(
    rules="companion.games.gold_connection.rules:GoldConnection",
    putback="companion.games.gold_connection.putback:GoldConnectionPutBack",
    dice=(("1", "2", "3", "4", "5", "6"),) * 2,
    layouts=(Layout(kind="companion.games.gold_connection.board:LAYOUT_KIND",
                    board="companion.games.gold_connection.app.board:board_widget"),),
    controller="companion.games.gold_connection.app.controller:GoldConnectionController",
    table="companion.games.gold_connection.app.table",
    autoplay="companion.games.gold_connection.bot:choose_action",
)
