"""A slow card for tests and benchmarks: journal writes held on the writer thread until a test lets them go,
and a child process whose every fsync takes as long as an SD card's (an LD_PRELOAD shim, no root needed);
a full card: a child process whose files stop growing part way (`medium_taking`)."""

from __future__ import annotations

import json
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # benchmarks import this module too, and their measured processes must not load pytest
    import pytest

SHIM = Path(__file__).with_name("slow_fsync.c")


def medium_taking(size: int) -> Callable[[], None]:
    """For `subprocess.run(preexec_fn=...)`: the child's medium takes `size` bytes of a file, then fails as a
    full stick or card does, part way through a write (a file-size limit: no root, no mount needed)."""
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))
    return limit


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


def on_slow_cards(script: Path, modes: tuple[tuple[str, str, int | None], ...], fsync_ms: int, header: str,
                  arguments: tuple[str, ...] = ()) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """A benchmark's children, one per `(name, mode, milliseconds)` of `modes`, in the same run: each runs
    `script --child MODE DATA *arguments` in a fresh data folder with every fsync that many milliseconds
    slower (None: `fsync_ms`); yields the name, the delay and the child's last line, parsed as JSON.
    Prints the machine and `header` (a table's heading) first.  SystemExit without a C compiler for the
    shim, or with the stderr of a child that failed; the folders are removed either way."""
    root = Path(__file__).resolve().parents[1]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")
    folder = Path(tempfile.mkdtemp(prefix=f"goldtable-{script.stem}-"))
    try:
        library = slow_fsync_library(folder)
        if library is None:
            raise SystemExit("needs a C compiler (cc) for the slow-fsync shim")
        print(header)
        for index, (name, mode, milliseconds) in enumerate(modes):
            delay = fsync_ms if milliseconds is None else milliseconds
            data = folder / f"run-{index}"
            data.mkdir()
            env = {**slow_fsync_env(library, delay), "KIVY_NO_ARGS": "1", "PYTHONPATH": str(root)}
            child = subprocess.run([sys.executable, str(script), "--child", mode, str(data), *arguments], env=env,
                                   cwd=root, capture_output=True, text=True, timeout=900, check=False)
            if child.returncode != 0:
                raise SystemExit(child.stderr[-3000:])
            yield name, delay, json.loads(child.stdout.splitlines()[-1])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
