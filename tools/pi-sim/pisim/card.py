"""A card with Goldtable installed by the guide's own commands, and the services the guide's steps reach.

The guide says `git clone <your goldtable repository>`; here the repository is this checkout's committed
HEAD, served to the guest by `git daemon` on the host (QEMU's user network shows the host as 10.0.2.2).
An installed card is kept (a copy-on-write layer over the image) as long as the image, the guide and the
commit are the same, so the checks after the first run start from it at once.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from pisim import doc
from pisim.host import CACHE, REPO, Failure, Log, run
from pisim.image import Target
from pisim.vm import Machine

BOOT_TIMEOUT = 1800.0
#: One of the guide's steps under emulation: Bookworm's `apt full-upgrade` ran past an hour on a loaded host.
STEP_TIMEOUT = 3 * 3600.0
GIT_PORT = 9418
#: Certificate authorities added to the host (a network whose proxy inspects TLS): the guest needs them
#: too to reach PyPI, as a Pi on such a network would.
LOCAL_AUTHORITIES = Path("/usr/local/share/ca-certificates")
#: A terminal on the Pi's desktop has the session's display; over ssh it comes from the user manager,
#: where Raspberry Pi OS's login hands it (the env-display autostart entry).
DESKTOP_TERMINAL = ('eval "$(systemctl --user show-environment | '
                    "sed -n 's/^\\(WAYLAND_DISPLAY\\|DISPLAY\\|XDG_SESSION_TYPE\\)=/export \\1=/p')\"\n")


@functools.cache  # once per run: a commit made while the checks run must not make a second card
def head_commit(log: Log) -> str:
    commit = run(["git", "-C", str(REPO), "rev-parse", "HEAD"], log).stdout.strip()
    if run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"], log).stdout.strip():
        log.write("note: uncommitted changes are not on the card (the guest clones the committed HEAD)")
    return commit


@contextlib.contextmanager
def repository_server(log: Log) -> Iterator[str]:
    """`git daemon` serving this checkout; yields the address the guest clones from."""
    folder = CACHE / "git"
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / "goldtable"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(REPO)
    port = GIT_PORT  # fixed, so a card's clone can `git pull` (the guide's update step) in a later run
    daemon = subprocess.Popen(["git", "daemon", "--reuseaddr", "--export-all", f"--base-path={folder}",
                               "--listen=127.0.0.1", f"--port={port}", str(link)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield f"git://10.0.2.2:{port}/goldtable"
    finally:
        daemon.terminate()
        daemon.wait(10)


def run_steps(vm: Machine, steps: list[doc.Step], desktop_terminal: bool = False) -> int:
    """Run the guide's steps in the guest as its user would (a login shell; stop at the first failing
    command); a reboot step reboots. Returns how many commands ran."""
    commands = 0
    for step in steps:
        if step.script is None:
            vm.reboot(BOOT_TIMEOUT)
            continue
        commands += sum(1 for line in step.script.splitlines() if line.strip() and not line.lstrip().startswith("#"))
        script = (DESKTOP_TERMINAL if desktop_terminal else "") + step.script
        result = vm.ssh("bash -e", input_text=script, check=False, timeout=STEP_TIMEOUT)
        if vm.last_status != 0:
            raise Failure(f"{step.name} failed: {vm.last_error or result[-200:]}")
    return commands


def trust_local_authorities(vm: Machine) -> None:
    """The host's own added certificate authorities, added to the guest the same way."""
    for certificate in sorted(LOCAL_AUTHORITIES.glob("*.crt")):
        vm.ssh(f"sudo install -m 644 /dev/stdin /usr/local/share/ca-certificates/{certificate.name}",
               input_text=certificate.read_text())
    vm.ssh("sudo update-ca-certificates")


def installed(target: Target, repository: str, log: Log) -> Path:
    """The image with the guide's `card` and `install` steps done (cached per image, guide and commit)."""
    image_key = (target.folder / "image.key").read_text()
    key = hashlib.sha256(f"{image_key} {doc.digest()} {head_commit(log)}".encode()).hexdigest()[:16]
    card = target.folder / f"installed-{key}.qcow2"
    if card.exists():
        log.write(f"{target.name}: cached installed card {key}")
        return card
    for stale in target.folder.glob("installed-*.qcow2"):
        stale.unlink()
    vm = Machine(target, CACHE / "runs" / target.name / "install", log)
    vm.create_disks()
    vm.start()
    try:
        vm.wait_ready(BOOT_TIMEOUT)
        trust_local_authorities(vm)
        run_steps(vm, doc.steps(("card", "install"), repository))
        vm.shutdown()
    finally:
        if vm.running:
            vm.power_cut()
    shutil.move(vm.root_disk, card)
    return card
