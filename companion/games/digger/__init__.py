"""Digger: colour dice, a sand timer and stones to grab (game id `digger`, rules in docs/rules/digger.md)."""

from companion.games.digger.rules import Digger, DiggerOptions, DiggerState

__all__ = ["Digger", "DiggerOptions", "DiggerState"]
