"""A number and its unit stay on one line: every text the table can show in English, German or French
joins them with a no-break space (U+00A0) or nothing at all ("30 s" never wraps into "30" / "s")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.app.test_locale import read_po

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "companion" / "locale"
#: A number or a `{placeholder}`, an ordinary space, then a unit (the space a line may break at).
BREAKABLE = re.compile(r"(?:\d|\})[ \t](?:s|ms|min|h|sp|dp|px|%|Sek\.?|Min\.?|MB|GB|KB|kB)(?![\w])")
#: Sources whose own (untranslated) strings reach the screen: the app and the engine's journal/session.
SOURCES = [*sorted((ROOT / "companion" / "app").rglob("*.py")), ROOT / "companion" / "engine" / "journal.py",
           ROOT / "companion" / "engine" / "session.py"]
TRANSLATED = {"_", "tr", "N_"}  # their texts are shown through the catalogs, checked below


def shown_texts(language: str) -> dict[str, str]:
    """msgid -> what the table shows in `language`: the catalog's text, or the msgid where English has none."""
    texts: dict[str, str] = {}
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        catalog = read_po(po)
        own = po.parts[-3] == language
        for msgid, msgstr in catalog.items():
            if own:
                texts[msgid] = msgstr
            elif language == "en":  # (a plural form is keyed (msgid, n); a context comes before \x04)
                texts.setdefault(msgid, msgid if isinstance(msgid, str) else msgid[0].split("\x04")[-1])
    if language == "en":  # the app's English catalog wins over a msgid seen in another language's file
        texts.update(read_po(LOCALE / "en" / "LC_MESSAGES" / "goldtable.po"))
    return texts


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_no_catalog_text_breaks_between_a_number_and_its_unit(language: str) -> None:
    texts = shown_texts(language)
    assert len(texts) > 300
    found = [f"{msgid!r} -> {text!r}" for msgid, text in texts.items() if BREAKABLE.search(text)]
    assert not found, "\n".join(found)


def source_strings(path: Path) -> list[tuple[int, str]]:
    """The string literals and f-strings of a module (placeholders as `{}`), without docstrings and
    without the msgids handed to `_`, `tr` and `N_`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in TRANSLATED:
            skip.update(id(arg) for arg in node.args)
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):
            text = "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
            found.append((node.lineno, str(text)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.value))
    return found


def test_no_source_text_breaks_between_a_number_and_its_unit() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}: {text!r}" for path in SOURCES
             for line, text in source_strings(path) if BREAKABLE.search(text)]
    assert not found, "\n".join(found)
