"""Disk images of a simulated Raspberry Pi, made from Debian's packages only.

An image is Debian `trixie` with labwc (today's Raspberry Pi OS) or `bookworm` with wayfire (the older
Bookworm cards), for arm64, a Pi's own architecture. It is set up as Raspberry Pi OS sets up a card: a first user with
password-less sudo in the groups Raspberry Pi OS gives it, device permissions for the GPIO chip and the
input devices, lightdm logging that user in to the desktop. Goldtable itself is not in the image: the
check installs it by running the guide's commands in the booted machine.

Where the guide needs the Raspberry Pi archive, the image carries the nearest equivalent in a local apt
repository, so the guide's commands run unchanged: `python3-lgpio` built from lgpio's PyPI source, and a
`raspi-config` that knows the guide's non-interactive commands (guest/raspi-config). The GPIO chip is
gpio-sim, built for the image's kernel from Debian's kernel source (Debian does not build it).
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pisim.host import CACHE, Failure, Log, run

GUEST = Path(__file__).with_name("guest")
USER, UID = "pi", 1000
#: The groups Raspberry Pi OS's image builder puts its first user in.
USER_GROUPS = ("adm", "dialout", "cdrom", "audio", "users", "sudo", "video", "games", "plugdev", "input", "gpio",
               "spi", "i2c", "netdev", "render")
LGPIO_VERSION = "0.2.2.0"
#: The files of guest/ that go into the image (the others are tools a check copies in when it needs them).
IMAGE_FILES = ("20-wired.network", "60-pi-sim-devices.rules", "env-display.desktop", "labwc-autostart",
               "labwc-environment", "lightdm-pi-sim.conf", "pi-sim-gpio", "pi-sim-gpio.service", "pi-sim-sdcard",
               "pi-sim-sdcard.service", "pi-sim-wayfire.desktop", "raspi-config", "wayfire.ini")

#: What a Raspberry Pi OS card has that the checks touch, from Debian's archive.
PACKAGES = ("systemd-sysv", "systemd-resolved", "udev", "dbus", "dbus-user-session", "libpam-systemd", "polkitd",
            "sudo", "openssh-server", "kmod", "dmsetup", "iproute2", "ca-certificates", "initramfs-tools",
            "git", "python3", "python3-venv", "lightdm", "lightdm-gtk-greeter", "lxsession", "xwayland",
            "libgl1", "libegl1", "libgles2", "libgl1-mesa-dri", "libmtdev1", "fonts-dejavu-core", "alsa-utils",
            "procps", "psmisc", "less")
#: Packages a release takes from its backports, not its own archive.  Bookworm's Mesa (22.3) falls back to
#: software rendering on QEMU's virtio GPU and crashes wayfire at its first mode set, so the desktop never
#: stays up; Raspberry Pi OS Bookworm carries a newer Mesa from Raspberry Pi's own archive, and with
#: Debian's backport (25.0) wayfire runs in the box.
BACKPORTS = {"bookworm": ("libgl1-mesa-dri", "libegl-mesa0", "libgbm1", "libglx-mesa0")}
#: Only for building gpio-sim and python3-lgpio inside the image (Raspberry Pi OS has a compiler too).
BUILD_PACKAGES = ("gcc", "make", "libc6-dev", "swig", "python3-dev", "python3-setuptools", "xz-utils",
                  "linux-source")


@dataclass(frozen=True)
class Target:
    """One image: a Debian suite, for a Pi's architecture."""

    suite: str  # trixie | bookworm
    arch = "arm64"

    @property
    def name(self) -> str:
        return f"{self.suite}-{self.arch}"

    @property
    def desktop(self) -> str:
        """The compositor Raspberry Pi OS uses on this release: labwc on trixie, wayfire on Bookworm."""
        return "labwc" if self.suite == "trixie" else "wayfire"

    @property
    def folder(self) -> Path:
        return CACHE / self.name

    @property
    def image(self) -> Path:
        return self.folder / "root.img"

    @property
    def kernel(self) -> Path:
        return self.folder / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.folder / "initrd.img"

    def packages(self) -> tuple[str, ...]:
        return (*PACKAGES, f"linux-image-{self.arch}", f"linux-headers-{self.arch}", self.desktop, *BUILD_PACKAGES)


def ssh_key() -> Path:
    """The key the check logs in with (made once, kept in the cache)."""
    key = CACHE / "ssh" / "id_ed25519"
    if not key.exists():
        key.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "pi-sim", "-f", str(key)], check=True)
    return key


def _recipe_key(target: Target) -> str:
    """Changes whenever anything that goes into the image changes, so a stale image is rebuilt."""
    digest = hashlib.sha256()
    digest.update(f"{target.name} {' '.join(target.packages())} {LGPIO_VERSION}".encode())
    for path in sorted([Path(__file__), *(GUEST / name for name in IMAGE_FILES)]):
        digest.update(path.name.encode() + path.read_bytes())
    digest.update(ssh_key().with_suffix(".pub").read_bytes())
    return digest.hexdigest()[:16]


def build(target: Target, log: Log) -> bool:
    """Make the target's image unless an identical one is cached; True when it was built now."""
    key = _recipe_key(target)
    stamp = target.folder / "image.key"
    if target.image.exists() and stamp.exists() and stamp.read_text() == key:
        log.write(f"{target.name}: cached image {key}")
        return False
    target.folder.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    root = target.folder / "rootfs"
    _remove_tree(root)
    run(["mmdebstrap", "--variant=apt", f"--architectures={target.arch}", f"--include={','.join(target.packages())}",
         target.suite, str(root), "http://deb.debian.org/debian"], log, timeout=3600,
        what=f"mmdebstrap {target.name}")
    lgpio = _download_lgpio(log)
    with _chroot(root, log) as chroot:
        _configure(target, root, chroot, log)
        kernel = _kernel_version(root)
        _build_gpio_sim(root, kernel, chroot, log)
        _build_local_repository(target, root, lgpio, chroot, log)
        chroot("apt-get", "purge", "-y", "-qq", "--autoremove", "linux-source*")
        chroot("apt-get", "clean")
    shutil.copy2(root / "boot" / f"vmlinuz-{kernel}", target.kernel)
    shutil.copy2(root / "boot" / f"initrd.img-{kernel}", target.initrd)
    target.image.unlink(missing_ok=True)
    run(["mke2fs", "-q", "-t", "ext4", "-L", "rootfs", "-d", str(root), str(target.image), "6G"], log,
        what="mke2fs root.img")
    _remove_tree(root)
    stamp.write_text(key)
    return True


def _remove_tree(root: Path) -> None:
    """Delete a half-made root file system, never while something is mounted inside it (a bind mount of
    the host's /dev or /proc would be emptied with it)."""
    if not root.exists():
        return
    inside = str(root.resolve()) + "/"
    with open("/proc/self/mounts", encoding="utf-8") as mounts:
        busy = [line.split()[1] for line in mounts if line.split()[1].startswith(inside)]
    if busy:
        raise Failure(f"{busy[0]} is still mounted: unmount it before the image is made again")
    shutil.rmtree(root)


class _Chroot:
    """Runs commands inside the image being built (through qemu-user for a foreign architecture)."""

    def __init__(self, root: Path, log: Log) -> None:
        self.root, self.log = root, log

    def __call__(self, *command: str, cwd: str = "/") -> str:
        result = run(["chroot", str(self.root), "/bin/sh", "-c", f"cd {cwd} && exec \"$@\"", "sh", *command],
                     self.log, env={"DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C.UTF-8"}, timeout=3600,
                     what=f"in the image: {' '.join(command[:3])}")
        return result.stdout


@contextlib.contextmanager
def _chroot(root: Path, log: Log) -> Iterator[_Chroot]:
    """/proc, /sys and /dev of the host, and its resolver, while the image is configured."""
    mounts = [("proc", root / "proc", ["-t", "proc", "proc"]), ("sys", root / "sys", ["-t", "sysfs", "sys"]),
              ("dev", root / "dev", ["--bind", "/dev"]), ("pts", root / "dev" / "pts", ["--bind", "/dev/pts"])]
    done: list[Path] = []
    resolv = root / "etc" / "resolv.conf"
    saved = root / "etc" / "resolv.conf.pi-sim"
    try:
        for _name, where, how in mounts:
            run(["mount", *how, str(where)], log)
            done.append(where)
        if resolv.is_symlink() or resolv.exists():
            resolv.rename(saved)
        shutil.copy2("/etc/resolv.conf", resolv)
        yield _Chroot(root, log)
    finally:
        if saved.is_symlink() or saved.exists():
            resolv.unlink(missing_ok=True)
            saved.rename(resolv)
        for where in reversed(done):
            run(["umount", "-l", str(where)], log, check=False)


def _kernel_version(root: Path) -> str:
    kernels = sorted(path.name.removeprefix("vmlinuz-") for path in (root / "boot").glob("vmlinuz-*"))
    if len(kernels) != 1:
        raise Failure(f"expected one kernel in the image, found {kernels}")
    return kernels[0]


def _install(source: str, root: Path, target: str, mode: int = 0o644, replace: dict[str, str] | None = None) -> None:
    text = (GUEST / source).read_text()
    for old, new in (replace or {}).items():
        text = text.replace(old, new)
    path = root / target.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def _configure(target: Target, root: Path, chroot: _Chroot, log: Log) -> None:
    """The card as Raspberry Pi OS (and Raspberry Pi Imager's settings) leave it."""
    (root / "etc" / "hostname").write_text("raspberrypi\n")
    (root / "etc" / "hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n")
    (root / "etc" / "fstab").write_text("LABEL=rootfs\t/\text4\tdefaults,noatime\t0\t1\n")
    (root / "etc" / "machine-id").write_text("")
    for group in USER_GROUPS:
        chroot("groupadd", "-f", "-r", group)
    chroot("useradd", "-m", "-u", str(UID), "-s", "/bin/bash", "-G", ",".join(USER_GROUPS), USER)
    chroot("sh", "-c", f"echo '{USER}:raspberry' | chpasswd")
    sudoers = root / "etc" / "sudoers.d" / f"010_{USER}-nopasswd"
    sudoers.write_text(f"{USER} ALL=(ALL) NOPASSWD: ALL\n")
    sudoers.chmod(0o440)
    ssh = root / "home" / USER / ".ssh"
    ssh.mkdir(mode=0o700, exist_ok=True)
    (ssh / "authorized_keys").write_text(ssh_key().with_suffix(".pub").read_text())
    chroot("chown", "-R", f"{USER}:{USER}", f"/home/{USER}/.ssh")
    # apt as on a card fresh from the Imager: the release, its updates and security, and the local stand-ins
    (root / "etc" / "apt" / "sources.list").write_text(
        f"deb http://deb.debian.org/debian {target.suite} main\n"
        f"deb http://deb.debian.org/debian {target.suite}-updates main\n"
        f"deb http://deb.debian.org/debian-security {target.suite}-security main\n")
    backported = BACKPORTS.get(target.suite, ())
    if backported:
        (root / "etc" / "apt" / "sources.list.d" / "backports.list").write_text(
            f"deb http://deb.debian.org/debian {target.suite}-backports main\n")
        chroot("apt-get", "update", "-qq")
        chroot("apt-get", "install", "-y", "-qq", "-t", f"{target.suite}-backports", *backported)
    (root / "etc" / "apt" / "sources.list.d" / "pi-sim.list").write_text(
        "# pi-sim: stand-ins for the Raspberry Pi archive's packages (python3-lgpio, raspi-config)\n"
        "deb [trusted=yes] file:/var/lib/pi-sim/apt ./\n")
    _install("20-wired.network", root, "/etc/systemd/network/20-wired.network")
    _install("60-pi-sim-devices.rules", root, "/etc/udev/rules.d/60-pi-sim-devices.rules")
    _install("env-display.desktop", root, "/etc/xdg/autostart/pi-sim-env-display.desktop")
    _install("pi-sim-gpio", root, "/usr/local/sbin/pi-sim-gpio", 0o755)
    _install("pi-sim-sdcard", root, "/usr/local/sbin/pi-sim-sdcard", 0o755)
    _install("pi-sim-gpio.service", root, "/etc/systemd/system/pi-sim-gpio.service")
    _install("pi-sim-sdcard.service", root, "/etc/systemd/system/pi-sim-sdcard.service")
    session = "labwc" if target.desktop == "labwc" else "pi-sim-wayfire"
    _install("lightdm-pi-sim.conf", root, "/etc/lightdm/lightdm.conf.d/50-pi-sim.conf", replace={"@SESSION@": session})
    if target.desktop == "labwc":
        _install("labwc-autostart", root, "/etc/xdg/labwc/autostart")
        _install("labwc-environment", root, "/etc/xdg/labwc/environment")
    else:
        _install("pi-sim-wayfire.desktop", root, "/usr/share/wayland-sessions/pi-sim-wayfire.desktop")
        _install("wayfire.ini", root, f"/home/{USER}/.config/wayfire.ini")
        chroot("chown", "-R", f"{USER}:{USER}", f"/home/{USER}/.config")
    lightdm = root / "etc" / "lightdm" / "lightdm.conf"
    text = lightdm.read_text()
    if "#autologin-user=" not in text:
        raise Failure("lightdm.conf has no '#autologin-user=' line for raspi-config to switch")
    lightdm.write_text(text.replace("#autologin-user=", f"autologin-user={USER}", 1))
    chroot("systemctl", "enable", "systemd-networkd", "systemd-resolved", "ssh", "pi-sim-gpio", "pi-sim-sdcard")
    chroot("systemctl", "set-default", "graphical.target")
    log.write(f"{target.name}: configured")


def _build_gpio_sim(root: Path, kernel: str, chroot: _Chroot, log: Log) -> None:
    """gpio-sim from Debian's kernel source, as a module for the image's kernel.

    Debian builds neither gpio-sim nor the interrupt simulator it needs (CONFIG_IRQ_SIM, a built-in
    library), so both go into one module; the simulator's one call of a function the kernel does not
    export (`irq_to_desc`) becomes the exported `generic_handle_irq_safe`, which does the same.
    """
    sources = sorted((root / "usr" / "src").glob("linux-source-*.tar.xz"))
    if not sources:
        raise Failure("linux-source is not in the image")
    tarball = "/" + str(sources[-1].relative_to(root))
    top = sources[-1].name.removesuffix(".tar.xz")
    work = "/tmp/gpio-sim"
    chroot("mkdir", "-p", work)
    chroot("tar", "xJf", tarball, "-C", work, "--strip-components=1", f"{top}/drivers/gpio/gpio-sim.c",
           f"{top}/drivers/gpio/gpiolib.h", f"{top}/kernel/irq/irq_sim.c")
    build = root / work.lstrip("/")
    (build / "drivers" / "gpio" / "gpio-sim.c").rename(build / "gpio-sim-main.c")
    (build / "drivers" / "gpio" / "gpiolib.h").rename(build / "gpiolib.h")  # Bookworm's 6.1 includes it
    irq_sim = (build / "kernel" / "irq" / "irq_sim.c").read_text()
    private = "handle_simple_irq(irq_to_desc(irqnum));"
    if private not in irq_sim:
        raise Failure("irq_sim.c changed: the line pi-sim adapts is not there")
    (build / "irq_sim.c").write_text(irq_sim.replace(private, "generic_handle_irq_safe(irqnum);"))
    (build / "Kbuild").write_text("obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n")
    chroot("make", "-s", "-C", f"/usr/src/linux-headers-{kernel}", f"M={work}", "modules")
    chroot("install", "-D", "-m", "644", f"{work}/gpio-sim.ko", f"/lib/modules/{kernel}/updates/gpio-sim.ko")
    chroot("depmod", kernel)
    chroot("rm", "-rf", work)
    log.write(f"gpio-sim built for {kernel}")


def _download_lgpio(log: Log) -> Path:
    """lgpio's source from PyPI (kept in the cache)."""
    folder = CACHE / "downloads"
    sdist = folder / f"lgpio-{LGPIO_VERSION}.tar.gz"
    if not sdist.exists():
        folder.mkdir(parents=True, exist_ok=True)
        run(["python3", "-m", "pip", "download", "-q", f"lgpio=={LGPIO_VERSION}", "--no-binary", ":all:", "--no-deps",
             "-d", str(folder)], log, what="downloading lgpio's source from PyPI")
    return sdist


def _build_local_repository(target: Target, root: Path, lgpio: Path, chroot: _Chroot, log: Log) -> None:
    """python3-lgpio (from lgpio's PyPI source) and the raspi-config stand-in as .debs in a local apt
    repository; raspi-config is installed, as on every Raspberry Pi OS card; python3-lgpio is left for
    the guide's `apt install`."""
    work = root / "tmp" / "lgpio"
    work.mkdir(parents=True, exist_ok=True)
    shutil.unpack_archive(lgpio, work)
    source = f"/tmp/lgpio/lgpio-{LGPIO_VERSION}"
    chroot("env", "PYPI=1", "python3", "setup.py", "-q", "build", "--build-lib", "/tmp/lgpio/lib", cwd=source)
    repo = root / "var" / "lib" / "pi-sim" / "apt"
    repo.mkdir(parents=True, exist_ok=True)
    python = chroot("python3", "-c", "import sys; print(f'python3 (>= {sys.version_info[0]}.{sys.version_info[1]})')")
    lgpio_package = _stage(work / "pkg", "python3-lgpio", f"{LGPIO_VERSION}-0pisim1", target.arch,
                           f"{python.strip()}, libc6",
                           "Python module for the GPIO chip (lgpio)\n pi-sim's stand-in for the Raspberry Pi "
                           "archive's python3-lgpio, built from\n lgpio's source on PyPI.")
    dist = lgpio_package / "usr" / "lib" / "python3" / "dist-packages"
    dist.mkdir(parents=True)
    for built in (work / "lib").iterdir():
        shutil.copy2(built, dist / built.name)
    raspi = _stage(root / "tmp" / "raspi-config", "raspi-config", "0pisim1", "all", "systemd, lightdm",
                   "Raspberry Pi configuration (the guide's commands only)\n pi-sim's stand-in for the "
                   "Raspberry Pi archive's raspi-config.")
    (raspi / "usr" / "bin").mkdir(parents=True)
    shutil.copy2(GUEST / "raspi-config", raspi / "usr" / "bin" / "raspi-config")
    debs = [_deb(lgpio_package, repo, log), _deb(raspi, repo, log)]
    (repo / "Packages").write_text("\n".join(_index_entry(deb, log) for deb in debs))
    chroot("dpkg", "-i", f"/var/lib/pi-sim/apt/{debs[1].name}")
    chroot("rm", "-rf", "/tmp/lgpio", "/tmp/raspi-config")


def _stage(folder: Path, name: str, version: str, arch: str, depends: str, description: str) -> Path:
    (folder / "DEBIAN").mkdir(parents=True, exist_ok=True)
    (folder / "DEBIAN" / "control").write_text(
        f"Package: {name}\nVersion: {version}\nArchitecture: {arch}\nMaintainer: Goldtable pi-sim <pi-sim@invalid>\n"
        f"Depends: {depends}\nSection: misc\nPriority: optional\nDescription: {description}\n")
    return folder


def _deb(folder: Path, repo: Path, log: Log) -> Path:
    control = (folder / "DEBIAN" / "control").read_text()
    fields = dict(line.split(": ", 1) for line in control.splitlines() if ": " in line and not line.startswith(" "))
    deb = repo / f"{fields['Package']}_{fields['Version']}_{fields['Architecture']}.deb"
    run(["dpkg-deb", "--root-owner-group", "--build", str(folder), str(deb)], log)
    return deb


def _index_entry(deb: Path, log: Log) -> str:
    control = run(["dpkg-deb", "-f", str(deb)], log).stdout.rstrip("\n")
    data = deb.read_bytes()
    return (f"{control}\nFilename: ./{deb.name}\nSize: {len(data)}\n"
            f"SHA256: {hashlib.sha256(data).hexdigest()}\n")
