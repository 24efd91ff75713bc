"""Chinagold (Günter Cornett, Bambus 2004): mountains against rivers on one hex board of 91 sites.

Importing the package registers the game (`chinagold`) and its board layout kind (`chinagold-board`).
"""

from companion.games.chinagold import board, rules  # noqa: F401  (registration on import)
