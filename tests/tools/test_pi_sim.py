"""The parts of tools/pi-sim that need no virtual machine: the guide's commands as the check reads them,
the simulated Pi's device tree, the Pico's USB descriptors, where a tap lands on a turned screen."""

from __future__ import annotations

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
    # a reboot is a step of its own: the check reboots the machine there and carries on
    assert all(step.script is None or "sudo reboot" not in step.script for step in steps)
    assert [step.tag for step in steps if step.reboot] == ["card", "desktop", "console"]


def test_blocks_split_at_their_reboots_and_untagged_blocks_are_not_run() -> None:
    guide = ("```sh\necho not run\n```\n\n```sh install\nsudo apt update\nsudo reboot\necho after\n```\n"
             "```sh desktop\necho desktop\n```\n")
    steps = doc.steps(("install",), "REPO", guide)
    assert [(step.tag, step.script) for step in steps] == [
        ("install", "sudo apt update\n"), ("install", None), ("install", "echo after\n")]


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
