"""Goldgräber (Ravensburger 1988): the board layout kind and the rules, registered on import."""

from companion.games.goldgraeber import board as board  # noqa: F401  (registers the layout kind)
