"""Errors a user can act on: one line that names the file and the field, never a traceback."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.engine.paths import write_durably
from companion.engine.sqlite_pages import MAGIC as SQLITE_MAGIC

if TYPE_CHECKING:  # the app's first frame imports this module; pydantic loads later, off that frame
    from pydantic import ValidationError

#: Writes one game message for a person: (the game's catalog domain, English template, params) -> text.
Say = Callable[[str, str, Mapping[str, Any]], str]


def plain(domain: str, template: str, params: Mapping[str, Any]) -> str:
    """A game message as its template reads with the numbers put in ("1 chips"): what `str()` of an
    error holds for programs.  People get the catalogs' words (`companion.app.i18n.game_text`)."""
    return template.format(**params)


class UserError(Exception):
    """A problem with input the user supplied.  The CLI prints `text(...)` and exits with code 2."""

    def text(self, say: Say = plain) -> str:
        """The one line for the user, any game message in it written by `say` (the CLI passes the
        English catalogs, so a count reads "1 chip"); `str(error)` is this line with `plain`."""
        return str(self)


def validation_problems(error: ValidationError) -> list[str]:
    """Every problem pydantic found as `field.path: what is wrong`, without pydantic's own prefixes."""
    problems = []
    for item in error.errors():
        location = ".".join(str(part) for part in item["loc"]) or "(top level)"
        problems.append(f"{location}: {item['msg'].removeprefix('Value error, ')}")
    return problems


def describe_validation_error(source: str | Path, error: ValidationError) -> str:
    """`FILE: field.path: what is wrong` for the first problem pydantic found (plus a count of others)."""
    first, *others = validation_problems(error)
    more = len(others)
    suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return f"{source}: {first}{suffix}"


def read_text_file(path: str | Path, database_hint: str = "") -> str:
    """The text of a file the user supplied, as UTF-8 with or without a byte-order mark (Windows Notepad
    writes one); an unreadable or binary file is a one-line UserError.  `database_hint` is added when the
    file is a database (the journal, given where a text file was expected): what to do instead."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UserError(f"{path}: cannot read: {error.strerror or error}") from None
    if data.startswith(SQLITE_MAGIC):  # the journal, most likely, given where a record was expected
        raise UserError(f"{path}: a database such as the game journal, not a text file{database_hint}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text") from None


def read_json_file(path: str | Path, database_hint: str = "") -> Any:
    """The JSON content of a file the user supplied; an unreadable file is a one-line UserError.

    Records, layouts and pin maps all come through here, so they all fail the same way.
    """
    path = Path(path)
    text = read_text_file(path, database_hint)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UserError(f"{path}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    except RecursionError:
        raise UserError(f"{path}: nested too deeply to be a Goldtable file") from None
    except ValueError:  # the only other ValueError json raises: an integer longer than Python converts
        raise UserError(f"{path}: a number has more than {sys.get_int_max_str_digits()} digits") from None


def holds(path: Path, data: bytes) -> bool:
    """Whether `path` is a file of exactly these bytes, so writing them there again replaces nothing (OSError
    when it cannot be read)."""
    return path.is_file() and path.read_bytes() == data


def write_new_text(path: str | Path, text: str) -> None:
    """Write `text` as a new file `path` for a command's `-o`, whole and on the medium before the command
    ends (the file may be on a USB stick about to be pulled): a file already there with other contents (a
    board or record someone edited) is never written over; the same contents again are simply there.  A
    missing folder is not made: it may be where a stick is mounted, and the stick not in."""
    path = Path(path)
    refuse_a_folder(path)
    data = text.encode("utf-8")
    try:
        write_durably(path, data, replace=False, make_folder=False)
    except FileExistsError:
        try:
            same = holds(path, data)
        except OSError:
            same = False
        if not same:
            raise UserError(f"{path}: already exists with other contents; choose a new file name") from None
    except OSError as error:
        raise UserError(f"{path}: cannot write: {error.strerror or error}") from None


def refuse_a_folder(path: Path, option: str = "-o") -> None:
    """A command's new file named as a folder (a USB stick's, most often) is refused before any work, in
    words that say what to give instead ("already exists" would send the user looking for a file)."""
    if path.is_dir():
        raise UserError(f"{option}: {path} is a folder; give the name of a new file in it")
