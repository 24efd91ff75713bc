"""Errors a user can act on: one line that names the file and the field, never a traceback."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError


class UserError(Exception):
    """A problem with input the user supplied.  The CLI prints `str(error)` and exits with code 2."""


def describe_validation_error(source: str | Path, error: ValidationError) -> str:
    """`FILE: field.path: what is wrong` for the first problem pydantic found (plus a count of others)."""
    first = error.errors()[0]
    location = ".".join(str(part) for part in first["loc"]) or "(top level)"
    more = len(error.errors()) - 1
    suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return f"{source}: {location}: {first['msg']}{suffix}"
