"""Update the app's gettext catalogs: extract -> merge -> compile (needs GNU gettext: xgettext, msgmerge,
msgfmt; Debian package `gettext`).  Run `python -m companion.locale.build` after changing UI strings or
a .po file, and commit the .po and .mo files together (tests/app/test_locale.py checks they agree).

Domains: `goldtable` (the app, extracted here) and one per game id (the games' own .po files, compiled
here too).  See README.md.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent
ROOT = LOCALE_DIR.parents[1]
LANGUAGES = ("de", "en", "fr")
#: Digger's table panel and controller speak through the app's catalog; the other games' app parts keep
#: their strings in their own domain (their .po files).
APP_SOURCES = ("companion/app", "companion/games/digger/app", "companion/engine/session.py",
               "companion/engine/journal.py", "companion/engine/journal_triage.py", "companion/engine/salvage.py",
               "companion/engine/writer.py",
               "companion/camera/vision.py", "companion/camera/faces.py", "companion/camera/reader.py",
               "firmware_bridge/events.py")


def app_sources() -> list[str]:
    files: list[str] = []
    for entry in APP_SOURCES:
        path = ROOT / entry
        found = sorted(path.rglob("*.py")) + sorted(path.rglob("*.kv")) if path.is_dir() else [path]
        files += [str(p.relative_to(ROOT)) for p in found]
    return files


def extract() -> Path:
    """Write goldtable.pot from the app's Python and kv files (kv parsed as Python: `tr("…", app.lang)`)."""
    pot = LOCALE_DIR / "goldtable.pot"
    subprocess.run(["xgettext", "--from-code=UTF-8", "-L", "Python", "--keyword=_", "--keyword=tr",
                    "--keyword=N_", "--keyword=n_:1,2", "--keyword=ntr:1,2", "--no-location", "--sort-output",
                    "--package-name=goldtable", "-o", str(pot), *app_sources()], cwd=ROOT, check=True)
    return pot


def merge(pot: Path) -> None:
    for language in LANGUAGES:
        po = LOCALE_DIR / language / "LC_MESSAGES" / "goldtable.po"
        po.parent.mkdir(parents=True, exist_ok=True)
        if po.exists():
            subprocess.run(["msgmerge", "--quiet", "--update", "--backup=none", "--no-fuzzy-matching",
                            "--sort-output", str(po), str(pot)], check=True)
        else:
            subprocess.run(["msginit", "--no-translator", "--locale", language, "-i", str(pot), "-o", str(po)],
                           check=True)


def compile_all() -> None:
    """Every .po under companion/locale (all domains) to its .mo."""
    for po in sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po")):
        subprocess.run(["msgfmt", "--check-format", "-o", str(po.with_suffix(".mo")), str(po)], check=True)


def main() -> int:
    merge(extract())
    compile_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
