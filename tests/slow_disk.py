"""A slow card for tests and benchmarks: journal writes held on the writer thread until a test lets them go,
and a child process whose every fsync takes as long as an SD card's (an LD_PRELOAD shim, no root needed)."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # benchmarks import this module too, and their measured processes must not load pytest
    import pytest

SHIM = Path(__file__).with_name("slow_fsync.c")


class HeldWrites:
    """Every `Journal.append` of `journal` waits, on the thread that commits it, until `release()`: a card
    that takes exactly as long as the test wants.  `held` is set once the first write waits."""

    def __init__(self, journal: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.held = threading.Event()
        self._released = threading.Event()
        self.threads: set[str] = set()
        original = journal.append

        def append(*args: Any, **kwargs: Any) -> None:
            self.threads.add(threading.current_thread().name)
            self.held.set()
            assert self._released.wait(30), "the held write was never released"
            original(*args, **kwargs)

        monkeypatch.setattr(journal, "append", append)

    def release(self) -> None:
        self._released.set()


def slow_fsync_library(folder: Path) -> Path | None:
    """`tests/slow_fsync.c` compiled into `folder`; None where there is no C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    library = folder / "libslow_fsync.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", str(library), str(SHIM), "-ldl"], check=True)
    return library


def slow_fsync_env(library: Path, milliseconds: int) -> dict[str, str]:
    """The environment of a child process whose every fsync and fdatasync takes `milliseconds` longer."""
    preload = " ".join(part for part in (str(library), os.environ.get("LD_PRELOAD", "")) if part)
    return {**os.environ, "LD_PRELOAD": preload, "GOLDTABLE_SLOW_FSYNC_MS": str(milliseconds)}
