"""The host side: where the cache lives, what the host must have installed, and running commands with a log."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
#: Images, kernels and downloads are kept here between runs (outside the repository: several GB).
CACHE = Path(os.environ.get("PISIM_CACHE") or "/var/tmp/goldtable-pi-sim")

#: Debian packages the host needs (the check installs them when run as root).
HOST_PACKAGES = ("qemu-system-arm", "qemu-user-static", "qemu-utils", "qemu-efi-aarch64",
                 "mmdebstrap", "arch-test", "binfmt-support", "e2fsprogs", "device-tree-compiler", "git",
                 "python3-venv", "openssh-client", "dpkg-dev")


class Failure(Exception):
    """A step that failed: the message is the reason printed after FAIL."""


class Log:
    """Everything the host runs and the guest prints goes to one log file; the check prints one line each."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = path.open("a", encoding="utf-8")
        self.started = time.monotonic()

    def write(self, text: str) -> None:
        self._file.write(f"[{time.monotonic() - self.started:8.1f}] {text.rstrip()}\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def run(command: Sequence[str], log: Log, *, check: bool = True, timeout: float | None = None,
        input_text: str | None = None, env: dict[str, str] | None = None, cwd: Path | None = None,
        what: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a host command, its output into the log; a failure raises Failure naming `what` (or the command)."""
    log.write("$ " + shlex.join(command))
    try:
        result = subprocess.run(list(command), check=False, capture_output=True, text=True, timeout=timeout,
                                input=input_text,
                                env=None if env is None else {**os.environ, **env}, cwd=cwd, errors="replace")
    except subprocess.TimeoutExpired:
        raise Failure(f"{what or command[0]} took longer than {timeout:.0f} s") from None
    if result.stdout:
        log.write(result.stdout)
    if result.stderr:
        log.write(result.stderr)
    if check and result.returncode != 0:
        raise failed(result, what or shlex.join(command))
    return result


def failed(result: subprocess.CompletedProcess[str], what: str) -> Failure:
    """The Failure for a command that exited non-zero: `what`, and the last line it said."""
    last = (result.stderr or result.stdout).strip().splitlines()
    return Failure(f"{what}: {last[-1] if last else f'exit {result.returncode}'}")


def missing_host_packages() -> list[str]:
    """Host packages not installed yet."""
    missing = []
    for package in HOST_PACKAGES:
        result = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], check=False, capture_output=True,
                                text=True)
        if "install ok installed" not in result.stdout:
            missing.append(package)
    return missing


def prepare_host(log: Log) -> None:
    """Install what is missing (as root), and make sure foreign binaries run (binfmt_misc for arm64 chroots)."""
    missing = missing_host_packages()
    if missing:
        if os.geteuid() != 0:
            raise Failure(f"the host lacks {', '.join(missing)}: sudo apt-get install {' '.join(missing)}")
        run(["apt-get", "update", "-qq"], log, what="apt-get update")
        run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], log,
            env={"DEBIAN_FRONTEND": "noninteractive"}, what="installing host packages")
    if os.geteuid() != 0:
        raise Failure("building the images needs root (debootstrap, chroot and mke2fs keep file owners)")
    binfmt = Path("/proc/sys/fs/binfmt_misc")
    if not (binfmt / "status").exists():
        run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(binfmt)], log, what="mounting binfmt_misc")
    if not (binfmt / "qemu-aarch64").exists():
        run(["update-binfmts", "--enable", "qemu-aarch64"], log, what="registering qemu-aarch64")


def which(program: str) -> str:
    path = shutil.which(program)
    if path is None:
        raise Failure(f"{program} is not installed")
    return path
