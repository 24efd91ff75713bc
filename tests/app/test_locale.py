"""Every committed .mo agrees with its .po (Python's gettext reads only .mo), and every app string has
a German and a French translation."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest

LOCALE = Path(__file__).resolve().parents[2] / "companion" / "locale"
ENTRY = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d\])?) ((?:".*"\n?)+)', re.M)


def read_po(path: Path) -> dict[str | tuple[str, int], str]:
    """msgid -> msgstr of the translated, non-fuzzy entries (the header left out); an entry with a context
    is keyed `context\x04msgid`, and each form of a plural entry `(msgid, n)`, as gettext keys them in a
    compiled catalog."""
    catalog: dict[str | tuple[str, int], str] = {}
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        if "#, fuzzy" in block:
            continue
        parts = {kind: "".join(ast.literal_eval(line) for line in body.strip().splitlines())
                 for kind, body in ENTRY.findall(block)}
        key = f"{parts['msgctxt']}\x04{parts['msgid']}" if "msgctxt" in parts else parts.get("msgid")
        if key and "msgid_plural" in parts:
            forms = {int(kind[7:-1]): text for kind, text in parts.items() if kind.startswith("msgstr[") and text}
            catalog.update({(key, number): text for number, text in forms.items()})
        elif key and parts.get("msgstr"):
            catalog[key] = parts["msgstr"]
    return catalog


#: Goldtable's catalogs, and those of the test game from outside it (tests/plugins, compiled by hand with msgfmt).
PO_FILES = sorted(LOCALE.glob("*/LC_MESSAGES/*.po")) + sorted(
    (LOCALE.parents[1] / "tests" / "plugins").glob("*/locale/*/LC_MESSAGES/*.po"))


@pytest.mark.parametrize("po", PO_FILES, ids=[f"{p.parts[-3]}/{p.name}" for p in PO_FILES])
def test_mo_is_built_from_po(po: Path) -> None:
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo} missing: run python -m companion.locale.build"
    with mo.open("rb") as handle:
        compiled = {key: value for key, value in gettext.GNUTranslations(handle)._catalog.items() if key}  # type: ignore[attr-defined]
    assert compiled == read_po(po), f"{mo} is stale: run python -m companion.locale.build"


@pytest.mark.parametrize("po", PO_FILES, ids=[f"{p.parts[-3]}/{p.name}" for p in PO_FILES])
def test_a_percent_sign_is_kept_to_its_number(po: Path) -> None:
    """German and French write "72,2 %": the space must be a no-break one, or a narrow column wraps the
    sign alone onto the next line (Kivy breaks lines at every ordinary space)."""
    assert [text for text in read_po(po).values() if " %" in text] == []


@pytest.mark.parametrize("language", ["de", "fr"])
def test_every_app_string_is_translated(language: str) -> None:
    template = read_po_ids(LOCALE / "goldtable.pot")
    translated = read_po(LOCALE / language / "LC_MESSAGES" / "goldtable.po")
    assert sorted(template - {key[0] if isinstance(key, tuple) else key for key in translated}) == []


def read_po_ids(path: Path) -> set[str]:
    ids = set()
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        for kind, body in ENTRY.findall(block):
            if kind == "msgid":
                text = "".join(ast.literal_eval(line) for line in body.strip().splitlines())
                if text:
                    ids.add(text)
    return ids


def test_every_engine_and_camera_module_that_marks_app_strings_is_extracted() -> None:
    """A module split off one the catalog build reads (journal.py's notices went to journal_triage.py) must
    be read too, or the next build drops its strings from every language."""
    from companion.locale.build import ROOT, app_sources

    extracted = set(app_sources())
    modules = [*(ROOT / "companion" / "engine").glob("*.py"), *(ROOT / "companion" / "camera").glob("*.py")]
    marking = {str(path.relative_to(ROOT)) for path in sorted(modules) if 'N_("' in path.read_text(encoding="utf-8")}
    assert sorted(marking - extracted) == []
