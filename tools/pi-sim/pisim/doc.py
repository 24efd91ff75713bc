"""The guide's commands, read from docs/raspberry-pi.md itself, so the guide and the check cannot drift apart.

A shell block the check runs is fenced as ```sh followed by tags naming the steps it belongs to (Markdown
shows only the language). `card` brings the system up to date, `install` installs Goldtable, `doctor`
checks it, `desktop` and `console` set up the two kiosk modes, `camera` adds what the camera needs,
`update` updates an installation. The only thing the check changes is the placeholder for the repository
address.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass

from pisim.host import REPO

GUIDE = REPO / "docs" / "raspberry-pi.md"
PLACEHOLDER = "<your goldtable repository>"
TAGS = ("card", "install", "doctor", "desktop", "console", "camera", "update")
#: A command on a line of its own that reboots the Pi: the check reboots the machine and carries on.
REBOOT = re.compile(r"^\s*sudo\s+reboot\s*(#.*)?$")
FENCE = re.compile(r"^```sh[ \t]+([a-z ]+?)[ \t]*\n(.*?)^```[ \t]*$", flags=re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Step:
    """Commands to run in one shell (`script`), or a reboot (`script` is None)."""

    tag: str
    script: str | None

    @property
    def reboot(self) -> bool:
        return self.script is None

    @property
    def name(self) -> str:
        """The step as a failure names it: its tag and its first command."""
        first = next(line for line in (self.script or "sudo reboot").splitlines() if line.strip())
        return f"the guide's {self.tag} step `{first.strip()}`"


@functools.cache  # once per run: the guide edited while the checks run must not change their steps midway
def guide_text() -> str:
    return GUIDE.read_text(encoding="utf-8")


def steps(tags: tuple[str, ...], repository: str, text: str | None = None) -> list[Step]:
    """The guide's blocks with one of `tags`, in the guide's order, split at its reboots."""
    guide = guide_text() if text is None else text
    found: list[Step] = []
    for match in FENCE.finditer(guide):
        block_tags = match.group(1).split()
        unknown = [tag for tag in block_tags if tag not in TAGS]
        if unknown:
            raise ValueError(f"docs/raspberry-pi.md: unknown step tag {unknown[0]!r} on a shell block")
        tag = next((tag for tag in block_tags if tag in tags), None)
        if tag is None:
            continue
        lines: list[str] = []
        for line in match.group(2).replace(PLACEHOLDER, repository).splitlines():
            if REBOOT.match(line):
                if lines:
                    found.append(Step(tag, "\n".join(lines) + "\n"))
                lines = []
                found.append(Step(tag, None))
            else:
                lines.append(line)
        if any(line.strip() for line in lines):
            found.append(Step(tag, "\n".join(lines) + "\n"))
    missing = [tag for tag in tags if not any(step.tag == tag for step in found)]
    if missing:
        raise ValueError(f"docs/raspberry-pi.md has no shell block tagged {missing[0]!r}")
    return found


def digest(text: str | None = None) -> str:
    """The guide's text, for the cache of installed cards."""
    return hashlib.sha256((guide_text() if text is None else text).encode()).hexdigest()[:16]
