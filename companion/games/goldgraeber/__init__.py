"""Goldgräber (Ravensburger 1988): the board layout kind and the rules, registered on import."""

from companion.games.goldgraeber import board as board
from companion.games.goldgraeber.rules import Goldgraeber, GoldgraeberOptions, GoldgraeberState, chip_odds

__all__ = ["Goldgraeber", "GoldgraeberOptions", "GoldgraeberState", "chip_odds"]
