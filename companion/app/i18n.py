"""Translations: gettext catalogs, one domain for the app (companion/locale) and one per game (where its
plugin keeps them: `GamePlugin.catalogs`, companion/locale for the shipped games).

The app's own strings use the `goldtable` domain (`_`, and `tr(msgid, lang)` in .kv files so a
language switch rebinds every label).  Engine messages (Refusal, Event, Prompt templates marked with
N_) are looked up in the game's own domain first, then in `goldtable` (for the Session's messages).
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import importlib.resources
import locale
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"
APP_DOMAIN = "goldtable"
LANGUAGES: tuple[str, ...] = ("en", "de", "fr")

_current = "en"
#: French drops the vowel of "de" and "que" before a vowel or a mute h ("le temps d'Anna", "qu'Émile"):
#: players' names are put where a sentence reads "de {name}".  Only before a capital letter, which in the
#: middle of a French sentence begins a name (the catalogs' own words are written elided already).
_FRENCH_ELISION = re.compile(r"(?<![\w'])([dD]|[qQ]u)e (?=[AEIOUYHÀÂÄÉÈÊËÎÏÔÖÙÛÜŸ])")
_catalogs: dict[tuple[str, str], gettext.NullTranslations] = {}


def system_language() -> str:
    """The first of our languages named by the environment or the system locale, else English."""
    candidates = [os.environ.get(name, "") for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")]
    with contextlib.suppress(ValueError):  # an odd locale setting: the environment still counts
        candidates.append(locale.getlocale()[0] or "")
    for value in candidates:
        for part in value.split(":"):
            code = part[:2].lower()
            if code in LANGUAGES:
                return code
    return "en"


def set_language(language: str) -> str:
    """Switch every lookup to `language` ('system' picks from the locale); returns the language used."""
    global _current  # noqa: PLW0603 — one language for the whole process, switched from the Settings screen
    _current = system_language() if language == "system" else language if language in LANGUAGES else "en"
    return _current


def current_language() -> str:
    return _current


def catalog(domain: str, language: str | None = None) -> gettext.NullTranslations:
    """The compiled catalog of a domain (an empty one when the language has none)."""
    language = language or _current
    key = (domain, language)
    if key not in _catalogs:
        _catalogs[key] = gettext.translation(domain, str(_catalog_folder(domain)), languages=[language],
                                             fallback=True)
    return _catalogs[key]


def _catalog_folder(domain: str) -> Path:
    """Where a domain's catalogs are: the app's here, a game's where its plugin says (`GamePlugin.catalogs`,
    the shipped games' here too)."""
    if domain == APP_DOMAIN:
        return LOCALE_DIR
    from companion.engine.registry import catalog_package

    package = catalog_package(domain)
    return Path(str(importlib.resources.files(package))) if package is not None else LOCALE_DIR


def _(message: str) -> str:
    """Translate an app string in the current language."""
    return catalog(APP_DOMAIN).gettext(message)


def n_(singular: str, plural: str, count: int) -> str:
    """An app string for `count` things in the current language, by that language's plural rule (French
    counts 0 and 1 as singular, English and German only 1): "1 move", "2 moves"."""
    return catalog(APP_DOMAIN).ngettext(singular, plural, count)


def tr(message: str, language: str | None = None) -> str:
    """Translate for .kv rules: `text: tr("Undo", app.lang)` re-evaluates when `app.lang` changes."""
    return catalog(APP_DOMAIN, language or _current).gettext(message)


def ntr(singular: str, plural: str, count: int, language: str | None = None) -> str:
    """`n_` for .kv helpers, like `tr`: in `language` (the current one if None)."""
    return catalog(APP_DOMAIN, language or _current).ngettext(singular, plural, count)


def _lookup(domain: str, message: str, language: str | None = None) -> str:
    """The game's catalog first, then the app's (which holds shared words such as colour names)."""
    translated = catalog(domain, language).gettext(message)
    return catalog(APP_DOMAIN, language).gettext(message) if translated == message else translated


@functools.lru_cache(maxsize=1024)
def _plain_phrase(text: str) -> Any:
    """A word or name as a Phrase without parameters (a value: made once per text, not per sentence)."""
    from companion.engine.putback import Phrase

    return Phrase(message=text)


def _word(domain: str, value: Any, language: str | None = None) -> Any:
    """One parameter in the current language: a word looked up (in any form the sentence asks for, such
    as French "{colour:f}" for "blanche"), a Phrase (a place, a piece) translated with its own words;
    numbers as they are, names as they are where the catalog has no entry.  (The engine is imported
    here, not at the top: the app's first frame needs this module before the engine is loaded.)"""
    from companion.engine.putback import Phrase

    if isinstance(value, str) and value:
        value = _plain_phrase(value)
    if isinstance(value, Phrase):
        return value.text(lambda message: _lookup(domain, message, language))
    return value


#: A format spec that names a count's words (`{count:chips}`), not a number format (`{count:d}`, `{gold:.1f}`).
_COUNT_WORDS = re.compile(r"[^\W\d_]{2,}(?: [^\W\d_]+)*")
#: The msgctxt of a count's words in a catalog: msgid and msgid_plural are the English words ("chips").
COUNT_CONTEXT = "count"


class _Count(int):
    """A number in a translated game message, which the sentence may write with its counted words:
    `{count:chips}` is the catalog's plural entry "chips" (msgctxt `count`) for that number, "1 chip" or
    "2 chips" ("1 Chip", "0 jeton"), formatted with `{n}` for the number and the sentence's own words, so
    a count with a second count (`{points:points}`) or a word that agrees with it (German `{colour:en}`)
    reads right; any other spec formats the number, and words no catalog has fail like a wrong spec."""

    domain: str
    words: dict[str, Any]
    language: str | None

    def __new__(cls, value: int, domain: str, words: dict[str, Any], language: str | None = None) -> _Count:
        number = super().__new__(cls, value)
        number.domain, number.words, number.language = domain, words, language
        return number

    def __format__(self, spec: str) -> str:
        if not _COUNT_WORDS.fullmatch(spec):
            return format(int(self), spec)
        for domain in (self.domain, APP_DOMAIN):
            form = catalog(domain, self.language).npgettext(COUNT_CONTEXT, spec, "\x00", int(self))
            if form not in (spec, "\x00"):  # (no entry gives the msgid for 1, our marker else)
                return form.format(**{**self.words, "n": int(self)})
        raise ValueError(f"no words {spec!r} for a count")  # (game_text then says the English sentence)


def capitalised(text: str) -> str:
    """A sentence or label that begins with a parameter's word ("rot nehmen", "rail field 6 is …") begins
    with a capital all the same."""
    return text[:1].upper() + text[1:]


def decimal_text(value: float, spec: str, language: str | None = None) -> str:
    """`value` formatted by `spec` (`.1f`), with the language's decimal mark: "91.7", "91,7" (the app
    catalog's entry for a number with a fraction)."""
    text = format(value, spec)
    whole, point, fraction = text.partition(".")
    return tr("{whole}.{fraction}", language).format(whole=whole, fraction=fraction) if point else text


class _Decimal(float):
    """A number with a fraction in a translated game message, written with the language's decimal mark."""

    language: str | None

    def __new__(cls, value: float, language: str | None = None) -> _Decimal:
        number = super().__new__(cls, value)
        number.language = language
        return number

    def __format__(self, spec: str) -> str:
        return decimal_text(float(self), spec, self.language)


def game_text(domain: str, template: str, params: Mapping[str, Any] | None = None,
              language: str | None = None) -> str:
    """An engine message in the current language (or `language`: the CLI writes English whatever the
    app is set to): the game's catalog, then the app's, then English.  A number may be asked for with
    its counted words (`{count:chips}`, see `_Count`)."""
    translated = _lookup(domain, template, language)
    if translated == template:  # no catalog for this sentence yet: keep it all English, not half
        words = dict(params or {})
    else:
        words = {key: _word(domain, value, language) for key, value in (params or {}).items()}
        for key, value in words.items():
            if isinstance(value, int) and not isinstance(value, bool):
                words[key] = _Count(value, domain, words, language)
            elif isinstance(value, float):
                words[key] = _Decimal(value, language)
    try:
        text = translated.format(**words)
    except (KeyError, IndexError, ValueError):
        return template.format(**(params or {}))
    return _elided(text, language)


def phrase_text(domain: str, phrase: Any, language: str | None = None) -> str:
    """A Phrase (a put-back instruction, a place, a die's face) in the current language (or `language`), as
    `game_text` writes it."""
    return _elided(str(_word(domain, phrase, language)), language)


#: The gettext context of an option's choices written as words (`no_step_back` -> "no step back" ->
#: "no step back" or a friendlier phrase), apart from the same words used as a message's parameter.
CHOICE_CONTEXT = "choice"


def choice_text(domain: str, value: Any) -> str:
    """One choice of a game's option in the current language: the catalog's `choice` entry for its words
    where there is one (English too: "app" reads "Goldtable deals"), else the words as a message."""
    words = str(value).replace("_", " ")
    form = catalog(domain).pgettext(CHOICE_CONTEXT, words)
    return form if form != words else game_text(domain, words)


def _elided(text: str, language: str | None = None) -> str:
    return _FRENCH_ELISION.sub(r"\1'", text) if (language or _current) == "fr" else text
