"""Undo that tells the table what to put back.

The engine knows two states (the one the table shows now and the one it must return to); the table
only knows pieces on places.  Each game describes its table as a multiset of (piece, place) in its
`companion/games/<game>/putback.py` and says how one change reads in table words; the matching of
what lies too much against what is missing is shared here, so every game restores its table the same
way and a test can apply the changes to prove they lead back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import Field

from companion.engine.core import ActionModel, FrozenDict, FrozenParams, Game, Value

#: The table as the game sees it: how many of each piece lie on each place, keyed (piece, place).
Table = Counter[tuple[str, str]]


@dataclass(frozen=True)
class Change:
    """Take `count` of `piece` from `source` and lay it on `target`, turned into `becomes` if set
    (a chip turned face down again).  An empty source or target means the box of spare parts."""

    piece: str
    source: str
    target: str
    count: int = 1
    becomes: str | None = None


class Phrase(Value):
    """A translatable piece of a sentence: an English template and its words.  Words that are Phrases
    are translated too; plain strings (player names, numbers) are kept as they are.  Engine messages use
    Phrases as parameters for places and pieces; formatted without a catalog they read in English."""

    message: str
    params: FrozenParams = Field(default_factory=FrozenDict)

    def __str__(self) -> str:
        return self.text()

    def __format__(self, spec: str) -> str:
        return format(self.text(), spec)

    def text(self, translate: Callable[[str], str] = str, form: str | None = None) -> Word:
        """The phrase in the catalog's language; `form` picks the catalog's entry with that context
        (msgctxt) if it has one, e.g. French "de" for "du milieu" (see `Word`)."""
        words = {key: value.text(translate) if isinstance(value, Phrase) else value
                 for key, value in self.params.items()}
        translated = translate(self.message)
        if form is not None:
            key = f"{form}{CONTEXT_SEPARATOR}{self.message}"
            found = translate(key)
            translated = translated if CONTEXT_SEPARATOR in found else found
        try:
            return Word(translated.format(**words), self, translate)
        except (KeyError, IndexError, ValueError):
            return Word(self.message.format(**words), self, translate)


#: How gettext keys an entry with a context (msgctxt) in a compiled catalog: context, this, msgid.
CONTEXT_SEPARATOR = "\x04"


class Word(str):
    """A translated Phrase, which a sentence may ask for in a grammatical form the catalog gives the
    phrase: `{source:de}` in a French template reads "du milieu" where `{source}` reads "le milieu",
    `{target:wohin}` in German "in die Mitte".  Languages differ in how a place changes with its
    preposition (French contracts de/à with the article, German declines it), so the translator of a
    place writes its forms, and English needs none.  A form the catalog lacks reads as the plain text."""

    phrase: Phrase
    lookup: Callable[[str], str]  # the catalog the phrase was translated with

    def __new__(cls, text: str, phrase: Phrase, lookup: Callable[[str], str]) -> Word:
        word = super().__new__(cls, text)
        word.phrase, word.lookup = phrase, lookup
        return word

    def __format__(self, spec: str) -> str:
        if spec.isalpha() and spec != "s":
            return str(self.phrase.text(self.lookup, form=spec))
        return format(str(self), spec)

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        """Copied or pickled, it is the plain text (its catalog stays in this process)."""
        return str, (str(self),)


class Instruction(Phrase):
    """One sentence for the table, and the board places it is about (ids, for highlighting)."""

    places: tuple[str, ...] = ()


class PutBack:
    """One game's view of its table.  Subclasses implement `table` and `say`; a game's plugin names its
    subclass (`companion.engine.registry.GamePlugin.putback`)."""

    def table(self, state: Value) -> Table:
        """Every piece the table can see, on its place."""
        raise NotImplementedError

    def turns_into(self, piece: str, wanted: str) -> bool:
        """Whether `piece` becomes `wanted` by turning it over (games with two-sided pieces say yes)."""
        return False

    def family(self, piece: str) -> str:
        """Pieces of one family moved between the same two places are told in one sentence."""
        return piece

    def area(self, place: str) -> str:
        """Changes of one family between the same two areas are told together (default: the place)."""
        return place

    def say(self, changes: list[Change], now: Value, wanted: Value) -> Instruction:
        """Changes of one family between the same areas in table words; sources are read in `now`,
        targets in `wanted`."""
        raise NotImplementedError


_PUTBACKS: dict[str, PutBack] = {}


def putback_for(game_id: str) -> PutBack:
    """The put-back guide a game's plugin declares (its module imported on first use)."""
    if game_id not in _PUTBACKS:
        from companion.engine.registry import load_part, plugin_for

        _PUTBACKS[game_id] = load_part(game_id, plugin_for(game_id).putback)()
    return _PUTBACKS[game_id]


def changes_between(now: Table, wanted: Table, turns_into: Callable[[str, str], bool]) -> list[Change]:
    """The fewest moves that turn `now` into `wanted`: the same piece moved first, then a piece turned
    (on its own place first), then whatever is left taken away or brought in."""
    extra = now - wanted
    missing = wanted - now
    changes: list[Change] = []

    def match(fits: Callable[[tuple[str, str], tuple[str, str]], bool], turned: bool) -> None:
        for have in sorted(extra):
            for need in sorted(missing):
                if extra[have] <= 0:
                    break
                if missing[need] <= 0 or not fits(have, need):
                    continue
                count = min(extra[have], missing[need])
                changes.append(Change(piece=have[0], source=have[1], target=need[1], count=count,
                                      becomes=need[0] if turned else None))
                extra[have] -= count
                missing[need] -= count

    match(lambda have, need: have[0] == need[0], turned=False)
    match(lambda have, need: have[1] == need[1] and turns_into(have[0], need[0]), turned=True)
    match(lambda have, need: turns_into(have[0], need[0]), turned=True)
    changes += [Change(piece=piece, source=place, target="", count=count) for (piece, place), count
                in sorted(extra.items()) if count > 0]
    changes += [Change(piece=piece, source="", target=place, count=count) for (piece, place), count
                in sorted(missing.items()) if count > 0]
    return changes


def apply_changes(table: Table, changes: list[Change]) -> Table:
    """The table after the changes are made (tests use it to prove the instructions lead back)."""
    result = Counter(table)
    for change in changes:
        if change.source:
            result[(change.piece, change.source)] -= change.count
        if change.target:
            result[(change.becomes or change.piece, change.target)] += change.count
    return +result


def put_back(game_id: str, now: Value, wanted: Value) -> list[Instruction]:
    """What the table must do to get from `now` back to `wanted`, one instruction per change."""
    putback = putback_for(game_id)
    return _say(putback, changes_between(putback.table(now), putback.table(wanted), putback.turns_into), now, wanted)


def _say(putback: PutBack, found: list[Change], now: Value, wanted: Value) -> list[Instruction]:
    groups: dict[tuple[str, str, str, str], list[Change]] = {}
    for change in found:
        becomes = putback.family(change.becomes) if change.becomes else ""
        key = (putback.family(change.piece), putback.area(change.source), putback.area(change.target), becomes)
        groups.setdefault(key, []).append(change)
    return [putback.say(group, now, wanted) for group in groups.values()]


def put_back_refused(game: Game, state: Value, action: ActionModel) -> list[Instruction]:  # type: ignore[type-arg]
    """After a refused move that the table may already have made: apply the move without the rule
    check to see where the pieces went, and say how to put them back.  A move the rules cannot even
    picture (a field that does not exist, a stone taken from an empty box) gives no instructions."""
    try:
        made, _events = game._apply(state, action)
    except (LookupError, ValueError, TypeError, AttributeError, AssertionError):  # no table to describe
        return []
    putback = putback_for(game.id)
    found = changes_between(putback.table(made), putback.table(state), putback.turns_into)
    if any(not change.source or not change.target for change in found):  # pieces from nowhere: not made
        return []
    return _say(putback, found, made, state)


__all__ = ["Change", "Instruction", "Phrase", "PutBack", "Table", "apply_changes", "changes_between", "put_back",
           "put_back_refused", "putback_for"]
