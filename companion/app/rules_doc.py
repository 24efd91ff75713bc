"""Read docs/rules/<game>.md (format in the common brief) so the app can show a rule by its id.

Refusals cite rule ids; the Table screen shows the cited rule's text and the Rules screen lists and
searches them all.  Each document may have translations beside it (`<game>.de.md`, `README.fr.md`)
with the same ids; the app's current language picks one, and English is used where a file is missing.
Pure Python, no Kivy, so it is tested on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from companion.app.i18n import current_language
from companion.data import data_dir

#: The rule texts (package data; `docs/rules/` in the source tree).
RULES_DIR = data_dir("rules")
_HEADING = re.compile(r"^###\s+([A-Z][A-Z0-9]*-R?\d+)\s+(.*\S)\s*$")


@dataclass(frozen=True)
class Rule:
    """One rule or reading: id (e.g. DG-3), short title, our text (without its Tests line), section."""

    id: str
    title: str
    text: str
    section: str

    def matches(self, query: str) -> bool:
        """Case-insensitive search over id, title and text."""
        needle = query.strip().lower()
        return not needle or needle in f"{self.id} {self.title} {self.text}".lower()


@dataclass(frozen=True)
class RuleBook:
    """The rules of one game in document order."""

    title: str
    rules: tuple[Rule, ...]

    def get(self, rule_id: str) -> Rule | None:
        return next((rule for rule in self.rules if rule.id == rule_id), None)

    def search(self, query: str) -> list[Rule]:
        return [rule for rule in self.rules if rule.matches(query)]


def parse_rules(text: str) -> RuleBook:
    """Parse the rules document; headings other than `### ID title` only change the section."""
    title = ""
    section = ""
    rules: list[Rule] = []
    current: tuple[str, str] | None = None
    lines: list[str] = []

    def finish() -> None:
        if current is not None:
            paragraphs = re.split(r"\n\s*\n", "\n".join(lines).strip())
            body = "\n\n".join(_unwrap(paragraph) for paragraph in paragraphs if paragraph.strip())
            rules.append(Rule(id=current[0], title=current[1], text=body, section=section))

    for line in text.splitlines():
        if line.startswith("# ") and not title:
            title = line[2:].strip()
            continue
        if line.startswith("## "):
            finish()
            current, lines = None, []
            section = line[3:].strip()
            continue
        match = _HEADING.match(line)
        if match:
            finish()
            current, lines = (match.group(1), match.group(2)), []
            continue
        if current is not None and not line.strip().startswith("Tests:"):
            lines.append(line)
    finish()
    return RuleBook(title=title, rules=tuple(rules))


def _unwrap(paragraph: str) -> str:
    """Join the hard-wrapped lines of one Markdown paragraph (list items stay on lines of their own)."""
    out: list[str] = []
    for line in paragraph.splitlines():
        stripped = line.strip()
        if out and not re.match(r"^([-*]|\d+\.)\s", stripped):
            out[-1] += " " + stripped
        else:
            out.append(stripped)
    return "\n".join(out)


def _read(rules_dir: Path, stem: str, lang: str) -> str | None:
    """The `<stem>.<lang>.md` translation, else the English `<stem>.md`, else None."""
    names = [f"{stem}.md"] if lang == "en" else [f"{stem}.{lang}.md", f"{stem}.md"]
    for name in names:
        try:
            return (rules_dir / name).read_text(encoding="utf-8")
        except OSError:
            continue
    return None


def rule_book(game_id: str, lang: str | None = None, rules_dir: Path | None = None) -> RuleBook:
    """The parsed rules of a game in `lang` (default: the app's language), or an empty book when the
    document does not exist yet."""
    return _rule_book(game_id, lang or current_language(), rules_dir or RULES_DIR)


@lru_cache(maxsize=32)
def _rule_book(game_id: str, lang: str, rules_dir: Path) -> RuleBook:
    text = _read(rules_dir, game_id, lang)
    return parse_rules(text) if text is not None else RuleBook(title=game_id, rules=())


_TABLE_RULE = re.compile(r"^- \*\*(TABLE-\d+) ([^*]+?)\.\*\*\s*(.*)$")


def table_rules(lang: str | None = None, rules_dir: Path | None = None) -> RuleBook:
    """The table-wide rules (TABLE-n: undo, unreadable input) from the bullets in docs/rules/README.md
    (or its translation), in `lang` (default: the app's language)."""
    return _table_rules(lang or current_language(), rules_dir or RULES_DIR)


@lru_cache(maxsize=8)
def _table_rules(lang: str, rules_dir: Path) -> RuleBook:
    text = _read(rules_dir, "README", lang)
    if text is None:
        return RuleBook(title="Goldtable", rules=())
    rules: list[Rule] = []
    section = ""
    current: list[str] | None = None
    for line in text.splitlines() + [""]:
        match = _TABLE_RULE.match(line)
        if match:
            current = [match.group(1), match.group(2), match.group(3)]
        elif current is not None and line.startswith("  ") and not line.strip().startswith("Tests:"):
            current[2] += " " + line.strip()
        elif current is not None:
            rules.append(Rule(id=current[0], title=current[1], text=current[2].strip(), section=section))
            current = None
        if line.startswith("## "):
            section = line[3:].strip()
    return RuleBook(title="Goldtable", rules=tuple(rules))


def find_rule(game_id: str, rule_id: str, lang: str | None = None) -> Rule | None:
    """A rule cited by a refusal: the game's own, or a table-wide TABLE-n rule, in `lang` (default: the
    app's language); the English rule when a translation lags behind and lacks that id."""
    for language in dict.fromkeys((lang or current_language(), "en")):
        rule = rule_book(game_id, language).get(rule_id) or table_rules(language).get(rule_id)
        if rule is not None:
            return rule
    return None
