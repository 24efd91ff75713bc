"""Gold Connection (Sid Sackson, Schmidt Spiele): loot the vault's safes, sort the bars into rows."""

from companion.games.gold_connection import board, rules  # noqa: F401  (registers the game and layout kind)
