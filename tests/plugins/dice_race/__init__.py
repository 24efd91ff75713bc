"""Dice race: a game that is not Goldtable's own.  It lives in a package of its own and reaches Goldtable only
through its entry point (`goldtable_dice_race-1.0.dist-info/entry_points.txt` beside it), as a game installed
from elsewhere would; it has no table panel, controller or board of its own, so the app's generic ones serve."""

from companion.engine.registry import GamePlugin

GAME = GamePlugin(
    rules="dice_race.rules:DiceRace",
    putback="dice_race.putback:DiceRacePutBack",
    dice=(("1", "2", "3", "4", "5", "6"),),
    catalogs="dice_race.locale",
)
