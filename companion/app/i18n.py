"""Translations: gettext catalogs in companion/locale, one domain for the app and one per game.

The app's own strings use the `goldtable` domain (`_`, and `tr(msgid, lang)` in .kv files so a
language switch rebinds every label).  Engine messages (Refusal, Event, Prompt templates marked with
N_) are looked up in the game's own domain first, then in `goldtable` (for the Session's messages).
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import locale
import os
import re
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
        _catalogs[key] = gettext.translation(domain, str(LOCALE_DIR), languages=[language], fallback=True)
    return _catalogs[key]


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


def _lookup(domain: str, message: str) -> str:
    """The game's catalog first, then the app's (which holds shared words such as colour names)."""
    translated = catalog(domain).gettext(message)
    return catalog(APP_DOMAIN).gettext(message) if translated == message else translated


@functools.lru_cache(maxsize=1024)
def _plain_phrase(text: str) -> Any:
    """A word or name as a Phrase without parameters (a value: made once per text, not per sentence)."""
    from companion.engine.putback import Phrase

    return Phrase(message=text)


def _word(domain: str, value: Any) -> Any:
    """One parameter in the current language: a word looked up (in any form the sentence asks for, such
    as French "{colour:f}" for "blanche"), a Phrase (a place, a piece) translated with its own words;
    numbers as they are, names as they are where the catalog has no entry.  (The engine is imported
    here, not at the top: the app's first frame needs this module before the engine is loaded.)"""
    from companion.engine.putback import Phrase

    if isinstance(value, str) and value:
        value = _plain_phrase(value)
    if isinstance(value, Phrase):
        return value.text(lambda message: _lookup(domain, message))
    return value


def _counted(domain: str, template: str, params: dict[str, Any] | None) -> str | None:
    """The form a game's catalog gives a message for its `count` ("brings 1 chip home"): a plural entry
    whose msgid and msgid_plural are both the engine's template (English singulars are in the `en`
    catalog); None for a message without such an entry."""
    count = (params or {}).get("count")
    if not isinstance(count, int) or isinstance(count, bool):
        return None
    no_entry = "\x00"  # what ngettext gives for a count other than 1 when the catalog has no plural entry
    form = catalog(domain).ngettext(template, no_entry, count)
    # (gettext would give a plural entry's singular for every count, so the entry's own plural is kept)
    return None if form == no_entry or (count == 1 and form == template) else form


def game_text(domain: str, template: str, params: dict[str, Any] | None = None) -> str:
    """An engine message in the current language: the game's catalog (its form for the `count`, if it
    has one), then the app's, then English."""
    translated = _counted(domain, template, params) or _lookup(domain, template)
    if translated == template:  # no catalog for this sentence yet: keep it all English, not half
        words = dict(params or {})
    else:
        words = {key: _word(domain, value) for key, value in (params or {}).items()}
    try:
        text = translated.format(**words)
    except (KeyError, IndexError, ValueError):
        return template.format(**(params or {}))
    return _elided(text)


def phrase_text(domain: str, phrase: Any) -> str:
    """A Phrase (a put-back instruction, a place) in the current language, as `game_text` writes it."""
    return _elided(str(_word(domain, phrase)))


def _elided(text: str) -> str:
    return _FRENCH_ELISION.sub(r"\1'", text) if _current == "fr" else text
