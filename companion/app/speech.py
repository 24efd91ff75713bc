"""Spoken announcements (off by default): whose turn, time running out, the winner.

espeak-ng speaks in the app's language when it is installed; it runs as a child process, so the UI
thread never waits for a sentence.  Without espeak-ng, or with speech switched off, nothing happens.
"""

from __future__ import annotations

import shutil
import subprocess

from companion.app.i18n import _, current_language

PROGRAM = "espeak-ng"
VOICES = {"en": "en", "de": "de", "fr": "fr"}


class Speaker:
    """Says one sentence at a time; a new sentence cuts the previous one short (the newest news wins)."""

    def __init__(self, enabled: bool = False, program: str = PROGRAM) -> None:
        self.enabled = enabled
        self.program = program
        self._speaking: subprocess.Popen[bytes] | None = None

    def available(self) -> bool:
        """Whether espeak-ng can be found on PATH (checked every time: it may be installed later)."""
        return shutil.which(self.program) is not None

    def say(self, text: str) -> bool:
        """Start speaking `text`; False when speech is off, espeak-ng is missing or would not start."""
        path = shutil.which(self.program) if self.enabled and text else None
        if path is None:
            return False
        self.stop()
        try:
            self._speaking = subprocess.Popen([path, "-v", VOICES.get(current_language(), "en"), "--", text],
                                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL)
        except OSError:
            return False
        return True

    def stop(self) -> None:
        """Cut the sentence being spoken short (and reap the process)."""
        if self._speaking is not None:
            if self._speaking.poll() is None:
                self._speaking.terminate()
                try:
                    self._speaking.wait(timeout=1)
                except subprocess.TimeoutExpired:
                    self._speaking.kill()
            self._speaking = None

    # -- the three announcements -------------------------------------------------------------------
    def turn(self, name: str) -> bool:
        return self.say(_("{name}, your turn.").format(name=name))

    def time_low(self, name: str) -> bool:
        return self.say(_("{name}, your time is running out.").format(name=name))

    def time_over(self, name: str) -> bool:
        return self.say(_("{name}, your time is up.").format(name=name))

    def winners(self, names: list[str]) -> bool:
        if len(names) == 1:
            return self.say(_("{name} wins!").format(name=names[0]))
        return self.say(_("A tie: {names} share the win!").format(names=", ".join(names)))
