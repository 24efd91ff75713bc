"""Digger: colour dice, a sand timer and stones to grab (game id `digger`, rules in docs/rules/digger.md).

Everything the game is made of, declared once (published as the entry point `digger` in pyproject.toml).
"""

from companion.engine.registry import GamePlugin, Layout

GAME = GamePlugin(
    rules="companion.games.digger.rules:Digger",
    putback="companion.games.digger.putback:DiggerPutBack",
    dice=(("B", "Y", "R", "G", "W", "K"),) * 5,
    layouts=(Layout(kind="companion.games.digger.cards:DIGGER_CARDS"),),
    sand_timer=True,
    controller="companion.games.digger.app.controller:DiggerController",
    table="companion.games.digger.app.table",
    autoplay="companion.games.digger.bot:choose_action",
)
