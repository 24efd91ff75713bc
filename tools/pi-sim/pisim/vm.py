"""One simulated Raspberry Pi running in QEMU, and the ways a check touches it.

The machine is QEMU's arm64 `virt` machine under emulation (TCG) with a device tree that says it is a
Raspberry Pi 4 or 5 (model, compatible and the revision code gpiozero reads), and the Pi's own CPU
core (Cortex-A72 or A76).

The machine has what the table needs: an 800x480 screen (virtio-gpu; `screendump` takes pictures of
it), an absolute pointer (usb-tablet; taps are injected with `input-send-event`), the sensor board as a
Raspberry Pi Pico on USB (pisim.pico, through QEMU's usb-redir), a sound card, a network (for
apt and pip; ssh is forwarded to a local port), and a second disk holding Goldtable's data folder
behind a flush delay (pi-sim-sdcard). Power cuts kill QEMU without a shutdown.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pisim.host import Failure, Log, failed, run
from pisim.image import Target, ssh_key

SCREEN = (800, 480)
MEMORY_MB = 2048
BOARDS = {
    "pi4": ("Raspberry Pi 4 Model B Rev 1.5", ("raspberrypi,4-model-b", "brcm,bcm2711"), 0xC03115, "cortex-a72"),
    "pi5": ("Raspberry Pi 5 Model B Rev 1.0", ("raspberrypi,5-model-b", "brcm,bcm2712"), 0xD04170, "cortex-a76"),
}


#: How often a command is tried when ssh could not get into the guest at all.
CONNECT_TRIES = 4
#: What ssh says when it failed before the command could start.
NOT_CONNECTED = ("banner exchange", "kex_exchange_identification", "Connection refused", "Connection reset",
                 "Connection timed out", "Connection closed by remote host")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Qmp:
    """QEMU's machine protocol: JSON commands over a Unix socket, events kept as they arrive."""

    def __init__(self, path: Path, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._sock = socket.socket(socket.AF_UNIX)
                self._sock.connect(str(path))
                break
            except OSError:
                self._sock.close()
                if time.monotonic() > deadline:
                    raise Failure("QEMU's monitor socket never opened") from None
                time.sleep(0.1)
        self._sock.settimeout(timeout)
        self._buffer = b""
        self.events: list[dict[str, Any]] = []
        self._read()  # the greeting
        self.execute("qmp_capabilities")

    def _read(self) -> dict[str, Any]:
        while b"\n" not in self._buffer:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise Failure("QEMU closed its monitor")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def execute(self, command: str, **arguments: Any) -> Any:
        request: dict[str, Any] = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        self._sock.sendall(json.dumps(request).encode() + b"\n")
        while True:
            message = self._read()
            if "event" in message:
                self.events.append(message)
                continue
            if "error" in message:
                raise Failure(f"QEMU {command}: {message['error'].get('desc')}")
            return message.get("return")

    def close(self) -> None:
        self._sock.close()


@dataclass
class Machine:
    """A booted (or bootable) simulated Pi; its disks live in `folder` and survive reboots and power cuts."""

    target: Target
    folder: Path
    log: Log
    board: str = "pi4"
    fsync_ms: int = 0
    pico_port: int | None = None
    plugs: int = 0
    process: subprocess.Popen[bytes] | None = None
    qmp: Qmp | None = None
    ssh_port: int = 0
    boots: int = 0
    booted_at: float = 0.0
    last_status: int = 0
    last_error: str = ""

    @property
    def root_disk(self) -> Path:
        return self.folder / "root.qcow2"

    @property
    def data_disk(self) -> Path:
        return self.folder / "sdcard.img"

    def create_disks(self, base: Path | None = None) -> None:
        """A fresh card: the image (or `base`, a card Goldtable was installed on) as a copy-on-write layer,
        and an empty data disk."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.root_disk.unlink(missing_ok=True)
        backing = base or self.target.image
        backing_format = "qcow2" if backing.suffix == ".qcow2" else "raw"
        run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(backing), "-F", backing_format,
             str(self.root_disk)], self.log)
        self.data_disk.unlink(missing_ok=True)
        run(["mke2fs", "-q", "-t", "ext4", "-L", "sdcard", "-E", "root_owner=1000:1000", str(self.data_disk), "1G"],
            self.log)

    # -- power -----------------------------------------------------------------------------------------
    def start(self) -> None:
        """Switch on."""
        if self.process is not None:
            raise Failure("the machine is already running")
        self.ssh_port = free_port()
        monitor = self.folder / "qmp.sock"
        monitor.unlink(missing_ok=True)
        command = [*self._machine_args(), *self._device_args(), "-qmp", f"unix:{monitor},server=on,wait=off",
                   "-serial", f"file:{self.folder / f'console-{self.boots}.log'}", "-display", "none"]
        self.log.write("$ " + shlex.join(command))
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=(self.folder / "qemu.err").open("ab"))
        self.booted_at = time.monotonic()
        self.boots += 1
        self.qmp = Qmp(monitor)

    def _kernel_args(self) -> str:
        # USB autosuspend off: QEMU's tablet does not wake a suspended guest port (the Pi's touch screen is not USB)
        return (f"root=LABEL=rootfs rw console=ttyAMA0 loglevel=4 usbcore.autosuspend=-1 "
                f"pisim.fsync_ms={self.fsync_ms}")

    def _machine_args(self) -> list[str]:
        machine = ["qemu-system-aarch64", "-machine", "virt", "-cpu", BOARDS[self.board][3], "-m", str(MEMORY_MB),
                   "-smp", "2", "-kernel", str(self.target.kernel), "-initrd", str(self.target.initrd),
                   "-append", self._kernel_args(), "-rtc", "base=utc"]
        return [*machine, "-dtb", str(self._device_tree(machine))]

    def _device_args(self) -> list[str]:
        width, height = SCREEN
        args = ["-drive", f"if=none,id=root,file={self.root_disk},format=qcow2",
                "-device", "virtio-blk-pci,drive=root,serial=root",
                "-drive", f"if=none,id=sdcard,file={self.data_disk},format=raw",
                "-device", "virtio-blk-pci,drive=sdcard,serial=sdcard",
                "-device", f"virtio-gpu-pci,xres={width},yres={height}",
                "-device", "qemu-xhci,id=xhci",
                "-device", "usb-tablet,bus=xhci.0,id=touch",
                "-audiodev", "none,id=sound", "-device", "usb-audio,audiodev=sound,bus=xhci.0",
                "-netdev", f"user,id=net,hostfwd=tcp:127.0.0.1:{self.ssh_port}-:22",
                # no network boot ROM: the kernel is booted directly, and a host without ipxe-qemu (a fresh
                # Debian with no recommends) has none to give
                "-device", "virtio-net-pci,netdev=net,romfile=",
                "-object", "rng-random,filename=/dev/urandom,id=rng", "-device", "virtio-rng-pci,rng=rng"]
        if self.pico_port is not None:
            self.plugs += 1
            args += ["-chardev", f"socket,id=pico{self.plugs},host=127.0.0.1,port={self.pico_port}",
                     "-device", f"usb-redir,chardev=pico{self.plugs},bus=xhci.0,id=sensor"]
        return args

    def _device_tree(self, machine: list[str]) -> Path:
        """QEMU's own device tree for this machine, changed to say it is the chosen Raspberry Pi: the model,
        the compatible list and the revision code under /system that gpiozero reads; the virt machine's
        own GPIO controller (PL061, wired to its power key) is switched off, so the simulated Pi's GPIO chip
        is gpiochip0 as on the real board."""
        model, compatible, revision, _cpu = BOARDS[self.board]
        raw = self.folder / f"virt-{self.board}.dtb"
        out = self.folder / f"{self.board}.dtb"
        # -nic none: QEMU's default network card would want its boot ROM (ipxe-qemu), and PCI cards are not
        # in the device tree anyway
        run([*machine, "-machine", f"virt,dumpdtb={raw}", "-display", "none", "-nic", "none"], self.log,
            what="dumping the device tree")
        source = run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(raw)], self.log).stdout
        patched = patch_device_tree(source, model, compatible, revision)
        run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(out)], self.log, input_text=patched)
        return out

    def power_cut(self) -> None:
        """Pull the plug: QEMU is killed, nothing in the guest gets to shut down."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self._stopped()

    def wait_off(self, timeout: float) -> bool:
        """Whether the guest powered itself off (QEMU exits) within `timeout` seconds."""
        if self.process is None:
            return True
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        self._stopped()
        return True

    def shutdown(self, timeout: float = 120.0) -> None:
        """A clean shutdown (through the guest, so its disks are consistent), else a power cut."""
        if self.process is None:
            return
        with contextlib.suppress(Failure, subprocess.TimeoutExpired, OSError):
            self.ssh("sudo systemctl poweroff", timeout=20, check=False)
        if not self.wait_off(timeout):
            self.power_cut()

    def _stopped(self) -> None:
        if self.qmp is not None:
            self.qmp.close()
        self.qmp, self.process = None, None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    # -- the guest's shell -----------------------------------------------------------------------------
    def ssh(self, command: str, *, timeout: float = 600.0, check: bool = True, user: str = "pi",
            input_text: str | None = None, connect_tries: int = CONNECT_TRIES) -> str:
        """Run `command` in a login shell of `user` on the guest; its output (stdout).

        A connection that fails before the guest's sshd let us in (a busy emulated guest answers its
        banner late) ran nothing, so it is tried again, up to `connect_tries` times in all."""
        key = ssh_key()
        what = f"guest: {command[:60]}"
        for attempt in range(connect_tries):
            if not self.running:
                raise Failure("the machine is off")
            result = run(["ssh", "-i", str(key), "-p", str(self.ssh_port), "-o", "StrictHostKeyChecking=no",
                          "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=10",
                          "-o", "BatchMode=yes", f"{user}@127.0.0.1", f"bash -lc {shlex.quote(command)}"],
                         self.log, check=False, timeout=timeout, input_text=input_text, what=what)
            if result.returncode != 255 or not any(sign in result.stderr for sign in NOT_CONNECTED):
                break
            if attempt + 1 < connect_tries:
                time.sleep(5)
        if check and result.returncode != 0:
            raise failed(result, what)
        self.last_status = result.returncode
        errors = result.stderr.strip().splitlines()
        self.last_error = errors[-1] if errors else ""
        return result.stdout

    def push_tool(self, name: str) -> str:
        """Copy one of pi-sim's guest tools (guest/NAME) to /usr/local/sbin; its path in the guest."""
        from pisim.image import GUEST

        path = f"/usr/local/sbin/{name}"
        self.ssh(f"sudo install -m 755 /dev/stdin {path}", input_text=(GUEST / name).read_text())
        return path

    def wait_ready(self, timeout: float) -> float:
        """Wait until the guest answers on ssh and systemd has finished starting; seconds since power on."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.running:
                raise Failure(f"QEMU stopped while booting (see {self.folder / 'qemu.err'})")
            with contextlib.suppress(Failure):
                state = self.ssh("systemctl is-system-running --wait", timeout=max(5.0, deadline - time.monotonic()),
                                 check=False, connect_tries=1).strip()
                if state in ("running", "degraded"):
                    if state == "degraded":
                        self.log.write(self.ssh("systemctl --failed --no-legend", check=False))
                    return time.monotonic() - self.booted_at
            time.sleep(2)
        raise Failure(f"the guest did not finish booting in {timeout:.0f} s")

    def reboot(self, timeout: float) -> float:
        """`sudo reboot` as the guide says it, then wait for the machine to come back (QEMU restarts the
        guest in place); seconds from the reboot until it is ready."""
        with contextlib.suppress(Failure):
            self.ssh("sudo systemctl reboot", timeout=20, check=False)
        deadline = time.monotonic() + 120
        while self._ssh_ok():
            if time.monotonic() > deadline:
                raise Failure("the guest did not go down for the reboot")
            time.sleep(1)
        self.booted_at = time.monotonic()
        return self.wait_ready(timeout)

    def _ssh_ok(self) -> bool:
        try:
            self.ssh("true", timeout=5, connect_tries=1)
        except Failure:
            return False
        return True

    # -- screen and touch ------------------------------------------------------------------------------
    def screendump(self, path: Path) -> Path:
        assert self.qmp is not None
        self.qmp.execute("screendump", filename=str(path), format="png")
        return path

    def tap(self, x: float, y: float, hold: float = 0.08) -> None:
        """Touch the screen at pixel (x, y) (from the top left) and lift the finger."""
        assert self.qmp is not None
        width, height = SCREEN
        ax, ay = round(x / (width - 1) * 32767), round(y / (height - 1) * 32767)
        position = [{"type": "abs", "data": {"axis": "x", "value": ax}},
                    {"type": "abs", "data": {"axis": "y", "value": ay}}]
        self.qmp.execute("input-send-event", events=position)
        self.qmp.execute("input-send-event", events=[{"type": "btn", "data": {"down": True, "button": "left"}}])
        time.sleep(hold)
        self.qmp.execute("input-send-event", events=[{"type": "btn", "data": {"down": False, "button": "left"}}])

    # -- the USB sensor --------------------------------------------------------------------------------
    def unplug_sensor(self, timeout: float = 30.0) -> None:
        """Pull the Pico's USB cable: the device leaves the guest's bus, its connection closes."""
        assert self.qmp is not None
        self.qmp.execute("device_del", id="sensor")
        deadline = time.monotonic() + timeout
        while not any(event.get("event") == "DEVICE_DELETED" and event.get("data", {}).get("device") == "sensor"
                      for event in self.qmp.events):
            if time.monotonic() > deadline:
                raise Failure("QEMU did not remove the sensor's USB device")
            self.qmp.execute("query-status")  # collects events meanwhile
            time.sleep(0.2)
        self.qmp.events.clear()
        label = f"pico{self.plugs}"
        if any(chardev.get("label") == label for chardev in self.qmp.execute("query-chardev")):
            self.qmp.execute("chardev-remove", id=label)  # QEMU removes a device's own chardev with it

    def plug_sensor(self) -> None:
        """Plug the Pico back in."""
        assert self.qmp is not None and self.pico_port is not None
        self.plugs += 1
        self.qmp.execute("chardev-add", id=f"pico{self.plugs}", backend={"type": "socket", "data": {
            "addr": {"type": "inet", "data": {"host": "127.0.0.1", "port": str(self.pico_port)}}, "server": False}})
        self.qmp.execute("device_add", driver="usb-redir", chardev=f"pico{self.plugs}", bus="xhci.0", id="sensor")


def patch_device_tree(source: str, model: str, compatible: tuple[str, ...], revision: int) -> str:
    """QEMU's virt device tree (dts text) as the simulated Pi's: see `Machine._device_tree`."""
    names = ", ".join(f'"{name}"' for name in (*compatible, "linux,dummy-virt"))
    system = (f"\n\tsystem {{\n\t\tlinux,revision = <0x{revision:08x}>;\n"
              f"\t\tlinux,serial = <0x00 0x10000001>;\n\t}};\n")
    replacements = (
        (r'^\tmodel = "linux,dummy-virt";\n', f'\tmodel = "{model}";\n'),
        (r'^\tcompatible = "linux,dummy-virt";\n', f"\tcompatible = {names};\n{system}"),
        (r"^(\tpl061@[0-9a-f]+ \{\n)", '\\1\t\tstatus = "disabled";\n'),
        (r"^(\tgpio-keys \{\n)", '\\1\t\tstatus = "disabled";\n'),
    )
    text = source
    for pattern, replacement in replacements:
        text, count = re.subn(pattern, replacement, text, count=1, flags=re.MULTILINE)
        if count != 1:
            raise Failure(f"QEMU's virt device tree has changed: no line matching {pattern!r}")
    return text
