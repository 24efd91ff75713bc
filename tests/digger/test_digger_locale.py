"""Every Digger engine message has a German and a French translation that keeps its {placeholders}."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "companion" / "games" / "digger" / "rules.py"


def engine_messages() -> set[str]:
    tree = ast.parse(RULES.read_text(encoding="utf-8"))
    return {node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "N_"
            and isinstance(node.args[0], ast.Constant)}


@pytest.mark.parametrize("language", ["de", "fr"])
def test_every_message_is_translated_with_the_same_placeholders(language: str) -> None:
    mo = ROOT / "companion" / "locale" / language / "LC_MESSAGES" / "digger.mo"
    with mo.open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)
    messages = engine_messages()
    assert len(messages) > 20
    for message in messages:
        translated = catalog.gettext(message)
        assert translated != message, f"{language}: {message!r} is not translated"
        assert set(re.findall(r"{(\w+)}", translated)) == set(re.findall(r"{(\w+)}", message)), message
