"""The parts of tools/pi-sim that need no virtual machine: the guide's commands as the check reads them,
the simulated Pi's device tree, the Pico's USB descriptors, where a tap lands on a turned screen, how the
camera's readings in the image are compared with this PC's."""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "pi-sim"))

from pisim import doc, pico
from pisim.host import Failure
from pisim.vm import BOARDS, patch_device_tree

#: The shape of the device tree QEMU 7.2 dumps for its arm64 virt machine, cut to the nodes pi-sim changes.
VIRT_DTS = """/dts-v1/;

/ {
\tinterrupt-parent = <0x8003>;
\tmodel = "linux,dummy-virt";
\t#size-cells = <0x02>;
\t#address-cells = <0x02>;
\tcompatible = "linux,dummy-virt";

\tgpio-keys {
\t\tcompatible = "gpio-keys";
\t};

\tpl061@9030000 {
\t\tphandle = <0x8005>;
\t\tcompatible = "arm,pl061\\0arm,primecell";
\t};
};
"""


def test_the_guide_has_every_step_the_check_runs() -> None:
    steps = doc.steps(doc.TAGS, "git://10.0.2.2:9418/goldtable")
    assert {step.tag for step in steps} == set(doc.TAGS)
    scripts = "\n".join(step.script or "" for step in steps)
    assert "git clone git://10.0.2.2:9418/goldtable ~/goldtable" in scripts
    assert doc.PLACEHOLDER not in scripts
    assert "python3-lgpio" in scripts and "raspi-config nonint do_boot_behaviour B4" in scripts
    assert "sudo apt install -y python3-opencv" in scripts  # the camera's step (check 10)
    # a reboot is a step of its own: the check reboots the machine there and carries on
    assert all(step.script is None or "sudo reboot" not in step.script for step in steps)
    assert [step.tag for step in steps if step.reboot] == ["card", "desktop", "console"]


def test_blocks_split_at_their_reboots_and_untagged_blocks_are_not_run() -> None:
    guide = ("```sh\necho not run\n```\n\n```sh install\nsudo apt update\nsudo reboot\necho after\n```\n"
             "```sh desktop\necho desktop\n```\n")
    steps = doc.steps(("install",), "REPO", guide)
    assert [(step.tag, step.script) for step in steps] == [
        ("install", "sudo apt update\n"), ("install", None), ("install", "echo after\n")]


def test_the_guide_is_read_once_per_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Editing the guide while the checks run (a new step written for the next run) once stopped a run at
    its console card: the card's steps and its cache key stay those the run began with."""
    guide = tmp_path / "raspberry-pi.md"
    guide.write_text("```sh install\necho first\n```\n", encoding="utf-8")
    monkeypatch.setattr(doc, "GUIDE", guide)
    doc.guide_text.cache_clear()
    try:
        before = (doc.steps(("install",), "REPO"), doc.digest())
        guide.write_text("```sh install newtag\necho second\n```\n", encoding="utf-8")
        assert (doc.steps(("install",), "REPO"), doc.digest()) == before
    finally:
        doc.guide_text.cache_clear()


def test_an_unknown_or_missing_tag_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown step tag 'instal'"):
        doc.steps(("install",), "REPO", "```sh instal\necho\n```\n")
    with pytest.raises(ValueError, match="no shell block tagged 'console'"):
        doc.steps(("console",), "REPO", "```sh install\necho\n```\n")


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_the_device_tree_says_which_pi_this_is(board: str) -> None:
    model, compatible, revision, _cpu = BOARDS[board]
    text = patch_device_tree(VIRT_DTS, model, compatible, revision)
    assert f'\tmodel = "{model}";' in text and "dummy-virt\";\n\tmodel" not in text
    assert text.count("model = ") == 1
    assert f'compatible = "{compatible[0]}", "{compatible[1]}", "linux,dummy-virt";' in text
    assert f"linux,revision = <0x{revision:08x}>;" in text
    # the virt machine's own GPIO controller is off, so the simulated chip is gpiochip0 as on a Pi
    assert text.count('status = "disabled";') == 2


def test_a_changed_qemu_device_tree_fails_loudly() -> None:
    with pytest.raises(Failure, match="changed"):
        patch_device_tree(VIRT_DTS.replace("\tpl061@9030000", "\tgpio@9030000"), "Raspberry Pi 4", ("a", "b"), 1)


def test_revision_codes_name_the_boards_gpiozero_expects() -> None:
    from gpiozero.pins.pi import PiBoardInfo

    for board, (model, _compatible, revision, _cpu) in BOARDS.items():
        info = PiBoardInfo.from_revision(revision)
        assert (info.model, info.pcb_revision) == {"pi4": ("4B", "1.5"), "pi5": ("5B", "1.0")}[board]
        assert info.model[0] in model


def test_the_picos_descriptors_are_consistent() -> None:
    device = pico.device_descriptor()
    assert len(device) == device[0] == 18
    assert struct.unpack_from("<HH", device, 8) == (0x2E8A, 0x0005)
    config = pico.configuration_descriptor()
    assert struct.unpack_from("<H", config, 2)[0] == len(config)
    offset, kinds = 0, []
    while offset < len(config):  # every descriptor's length leads exactly to the next one
        length, kind = config[offset], config[offset + 1]
        assert length >= 2
        kinds.append(kind)
        offset += length
    assert offset == len(config)
    assert kinds.count(4) == 2 and kinds.count(5) == 3  # two interfaces, three endpoints
    assert pico.string_descriptor(2) == bytes((34, 3)) + "Board in FS mode".encode("utf-16-le")
    assert pico.string_descriptor(9) is None


def test_the_pico_speaks_usbredir_as_qemus_xhci_wants_it(tmp_path: Path) -> None:
    """As QEMU's usb-redir on an XHCI bus: its hello (32-bit ids) asks for 64-bit ids, after which every
    packet has them; the device offers the capabilities XHCI needs, announces itself as the Pico, answers a
    descriptor request, and relays the guest's bulk OUT bytes to the firmware and the firmware's bytes to a
    bulk IN request (with 32-bit lengths)."""
    import socket
    import threading

    from pisim.host import Log

    firmware = socket.create_server(("127.0.0.1", 0))
    device = pico.Pico(firmware.getsockname(), Log(tmp_path / "log.txt"))
    qemu, ours = socket.socketpair()
    session = threading.Thread(target=pico._Session(device, ours).run, daemon=True)
    session.start()

    def read(framing: str) -> tuple[int, int, bytes]:
        size = struct.calcsize(framing)
        head = b""
        while len(head) < size:
            head += qemu.recv(size - len(head))
        kind, length, packet_id = struct.unpack(framing, head)
        body = b""
        while len(body) < length:
            body += qemu.recv(length - len(body))
        return kind, packet_id, body

    def send(kind: int, packet_id: int, body: bytes) -> None:
        qemu.sendall(struct.pack("<IIQ", kind, len(body), packet_id) + body)

    try:
        kind, _, hello = read("<III")
        assert kind == pico.HELLO
        caps = struct.unpack_from("<I", hello, 64)[0]
        assert caps & (1 << 4) and caps & (1 << 5) and caps & (1 << 6)  # what QEMU's XHCI asks of a device
        qemu.sendall(struct.pack("<III", pico.HELLO, 68, 0) + b"qemu".ljust(64, b"\0") + struct.pack("<I", 0xFF))
        assert [read("<IIQ")[0] for _ in range(3)] == [pico.INTERFACE_INFO, pico.EP_INFO, pico.DEVICE_CONNECT]

        send(pico.CONTROL_PACKET, 2**40 + 7, struct.pack("<BBBBHHH", 0x80, 0x06, 0x80, 0, 0x0100, 0, 18))
        kind, packet_id, body = read("<IIQ")
        assert (kind, packet_id) == (pico.CONTROL_PACKET, 2**40 + 7)
        assert body[10:] == pico.device_descriptor()

        send(pico.BULK_PACKET, 8, pico.bulk_header(pico.DATA_OUT, 0, 5, 0) + b"HELLO")
        assert read("<IIQ")[:2] == (pico.BULK_PACKET, 8)
        board, _ = firmware.accept()
        assert board.recv(5) == b"HELLO"
        send(pico.BULK_PACKET, 9, pico.bulk_header(pico.DATA_IN, 0, 70_000, 0))
        board.sendall(b"ACK,1\n")
        kind, packet_id, body = read("<IIQ")
        assert (kind, packet_id) == (pico.BULK_PACKET, 9)
        assert struct.unpack_from(pico.BULK, body)[2] == 6 and body[struct.calcsize(pico.BULK):] == b"ACK,1\n"
        board.close()
    finally:
        qemu.close()
        session.join(5)
        firmware.close()


def test_a_check_of_two_halves_is_one_line_that_names_every_failed_half() -> None:
    """Check 5 (Shut down) runs its desktop half on one machine and its console half on another, and is
    reported once: ok with both texts, or FAIL with each half's reason (a crashing half is a reason too)."""
    from pisim.checks import attempt, joined

    def asks_for_a_password() -> str:
        raise Failure("desktop: asked for a password")

    def crashes() -> str:
        raise KeyError("screen")

    desktop, console = attempt(lambda: "desktop: off 9 s"), attempt(lambda: "console: off 7 s")
    assert joined(desktop, console)() == "desktop: off 9 s; console: off 7 s"
    with pytest.raises(Failure, match=r"^desktop: asked for a password; the check itself failed: KeyError"):
        joined(attempt(asks_for_a_password), attempt(crashes))()


def test_a_check_on_the_desktop_brings_the_kiosk_check_with_it() -> None:
    """Checks 3, 4, 6, 7 and 8, and check 5 on the desktop, play on the kiosk that check 2 installs: asked
    for alone, they failed with no Goldtable unit to restart, so check 2 runs before them whenever one of
    them is asked for."""
    from pisim.checks import Run
    from pisim.suite import ON_THE_DESKTOP, to_run

    def numbers(only: set[int], shuts_down: bool = False) -> list[int]:
        run = Run(log=None, repository="", only=only, sensor=None, pico_port=0)  # type: ignore[arg-type]
        return [number for number, _check in to_run(run, ON_THE_DESKTOP, shuts_down)]

    assert numbers({3, 4}) == [2, 3, 4]
    assert numbers({6}) == [2, 6]
    assert numbers({2}) == [2]
    assert numbers({1, 9}) == []
    assert numbers(set()) == [2, 3, 4, 6, 7, 8]
    assert numbers({5, 9}, shuts_down=True) == [2], "check 5's desktop half shuts the kiosk down"


def test_only_the_camera_check_starts_no_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Check 10 needs only the image (qemu-user): `--only 10` goes straight to it, on every release asked for."""
    from pisim import suite
    from pisim.checks import Run
    from pisim.image import Target

    ran: list[tuple[str, str]] = []
    monkeypatch.setattr(suite, "on_machines", lambda run, target: ran.append(("machines", target.suite)))
    monkeypatch.setattr(suite, "check_camera", lambda run, target: ran.append(("camera", target.suite)))
    for only, expected in (({10}, [("camera", "trixie"), ("camera", "bookworm")]),
                           ({1}, [("machines", "trixie"), ("machines", "bookworm")]),
                           (set(), [("machines", "trixie"), ("camera", "trixie"), ("machines", "bookworm"),
                                    ("camera", "bookworm")])):
        ran.clear()
        run = Run(log=None, repository="", only=only, sensor=None, pico_port=0)  # type: ignore[arg-type]
        suite.run_all(run, [Target("trixie"), Target("bookworm")])
        assert ran == expected, only


def camera_lines(*rolls: tuple[str, list[str], list[float], bool]) -> str:
    """`goldtable camera read --json` output for rolls of the committed photos, under some folder."""
    return "".join(json.dumps({"image": f"/home/pi/goldtable/tests/data/camera/sample/{name}", "faces": faces,
                               "confidence": confidence, "uncertain": asked}) + "\n"
                   for name, faces, confidence, asked in rolls)


def test_the_image_must_read_every_roll_as_this_pc_does() -> None:
    from pisim.camera import compare, readings

    here = readings(camera_lines(("digger-000/rolls/roll-000.jpg", ["G", "K"], [0.82, 0.98], True),
                                 ("digger-000/rolls/roll-001.jpg", ["Y", "G"], [0.90, 0.97], False)))
    assert set(here) == {"tests/data/camera/sample/digger-000/rolls/roll-000.jpg",
                         "tests/data/camera/sample/digger-000/rolls/roll-001.jpg"}
    alike = readings(camera_lines(("digger-000/rolls/roll-000.jpg", ["G", "K"], [0.80, 0.98], True),
                                  ("digger-000/rolls/roll-001.jpg", ["Y", "G"], [0.90, 0.96], False)))
    assert compare(here, alike) == pytest.approx(0.02)
    other_face = readings(camera_lines(("digger-000/rolls/roll-000.jpg", ["G", "K"], [0.82, 0.98], True),
                                       ("digger-000/rolls/roll-001.jpg", ["Y", "B"], [0.90, 0.97], False)))
    with pytest.raises(Failure, match=r"roll-001.jpg: read \['Y', 'B'\] \(asked: False\) in the image"):
        compare(here, other_face)
    not_asked = readings(camera_lines(("digger-000/rolls/roll-000.jpg", ["G", "K"], [0.82, 0.98], False),
                                      ("digger-000/rolls/roll-001.jpg", ["Y", "G"], [0.90, 0.97], False)))
    with pytest.raises(Failure, match=r"roll-000\.jpg"):
        compare(here, not_asked)
    with pytest.raises(Failure, match="read 1 rolls in the image, 2 on this PC"):
        compare(here, dict(list(alike.items())[:1]))
    drifting = readings(camera_lines(("digger-000/rolls/roll-000.jpg", ["G", "K"], [0.52, 0.98], True),
                                     ("digger-000/rolls/roll-001.jpg", ["Y", "G"], [0.90, 0.97], False)))
    with pytest.raises(Failure, match=r"confidences up to 0\.30 apart"):
        compare(here, drifting)

