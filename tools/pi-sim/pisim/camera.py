"""Check 10: the camera's reading with a card's own OpenCV, on a Pi 4's processor.

No camera can be plugged into QEMU's Pi, and the emulated machine would take the better part of an hour to
install OpenCV's two hundred packages, so this check runs in the card's image itself through qemu-user
with a Cortex-A72, a Pi 4's core (OpenCV picks its code by the processor's features): the guide's install
steps and its camera step, then `goldtable camera calibrate`, `teach` and `read --json` over the committed
photos, compared with the same commands on this PC.  The image is not changed: the card is an overlay on
it, thrown away afterwards.  The steps run as root in the Pi user's home, because qemu-user cannot run
sudo's set-user-id program; `sudo` in them is a shell function that runs its command.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from pisim import card, doc, image
from pisim.checks import Run, folder
from pisim.host import REPO, Failure, Log, run
from pisim.image import USER, Target, _chroot

CAMERA = 10
#: The processor qemu-user shows the programs: a Pi 4's (a Pi 5's Cortex-A76 has more of the features
#: OpenCV looks for, so a Pi 4 is the harder case).
CPU = "cortex-a72"
SAMPLE = Path("tests") / "data" / "camera" / "sample"
#: Reads that differ by less than this in confidence are the JPEG decoder's and OpenCV's rounding.
CONFIDENCE_SPREAD = 0.1
#: The script's prelude in the image: the Pi user's home, the Pi 4's processor, and sudo as a plain call.
PRELUDE = (f"export HOME=/home/{USER} USER={USER} LOGNAME={USER} QEMU_CPU={CPU} LC_ALL=C.UTF-8\n"
           "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
           'sudo() { "$@"; }\ncd "$HOME"\n')
#: Each session of the committed photos calibrated, taught (Gold Connection's pip dice need no teaching)
#: and its rolls read, one JSON object per roll; run in the checkout with its `goldtable`.
READ_ALL = """set -e
out=$(mktemp -d)
for session in SAMPLE/*/; do
    session=${session%/}; name=$(basename "$session"); game=${name%-*}
    "$GOLDTABLE" camera calibrate --game "$game" -o "$out/$name.json" "$session/empty.jpg" >/dev/null
    if [ -f "$session/teach/labels.csv" ]; then
        "$GOLDTABLE" camera teach --profile "$out/$name.json" "$session/teach/labels.csv" >/dev/null
    fi
    "$GOLDTABLE" camera read --profile "$out/$name.json" --json "$session"/rolls/*.jpg
done
rm -rf "$out"
""".replace("SAMPLE", str(SAMPLE))


def readings(output: str) -> dict[str, dict[str, object]]:
    """`camera read --json` lines by the roll's path within the committed photos."""
    found = {}
    for line in output.splitlines():
        if line.startswith("{"):
            reading = json.loads(line)
            image = str(reading["image"])
            found[image[image.index(str(SAMPLE)):]] = reading
    return found


def confidences(reading: dict[str, object]) -> list[float]:
    values = reading["confidence"]
    assert isinstance(values, list)
    return [float(value) for value in values]


def compare(here: dict[str, dict[str, object]], there: dict[str, dict[str, object]]) -> float:
    """The largest difference in confidence; Failure when a roll is read or asked about differently."""
    if not here or set(here) != set(there):
        raise Failure(f"read {len(there)} rolls in the image, {len(here)} on this PC")
    spread = 0.0
    for roll, ours in sorted(here.items()):
        theirs = there[roll]
        if (ours["faces"], ours["uncertain"]) != (theirs["faces"], theirs["uncertain"]):
            raise Failure(f"{roll}: read {theirs['faces']} (asked: {theirs['uncertain']}) in the image, "
                          f"{ours['faces']} (asked: {ours['uncertain']}) on this PC")
        pairs = zip(confidences(ours), confidences(theirs), strict=True)
        spread = max([spread, *(abs(a - b) for a, b in pairs)])
    if spread > CONFIDENCE_SPREAD:
        raise Failure(f"the same faces, but confidences up to {spread:.2f} apart (more than {CONFIDENCE_SPREAD})")
    return spread


def read_here(log: Log) -> dict[str, dict[str, object]]:
    """The committed photos read by this checkout's own `goldtable`, in the project's venv."""
    goldtable = REPO / ".venv" / "bin" / "goldtable"
    probe = subprocess.run([str(REPO / ".venv" / "bin" / "python"), "-c", "import cv2, numpy"], check=False,
                           capture_output=True)
    if probe.returncode != 0:
        raise Failure("the project's venv has no OpenCV to compare with: .venv/bin/pip install -e '.[camera]'")
    with tempfile.TemporaryDirectory(prefix="pisim-camera-") as data:
        result = run(["bash", "-c", READ_ALL], log, cwd=REPO, timeout=900, what="reading the photos on this PC",
                     env={"GOLDTABLE": str(goldtable), "GOLDTABLE_DATA": data})
    return readings(result.stdout)


@contextlib.contextmanager
def overlay_card(target: Target, log: Log) -> Iterator[Path]:
    """The image, read-only, under a writable layer thrown away afterwards: its root folder."""
    base = folder(f"{target.name}-camera")
    for name in ("upper", "work"):
        shutil.rmtree(base / name, ignore_errors=True)
        (base / name).mkdir()
    lower, root = base / "image", base / "root"
    lower.mkdir(exist_ok=True)
    root.mkdir(exist_ok=True)
    mounted: list[Path] = []
    try:
        run(["mount", "-o", "loop,ro,noload", str(target.image), str(lower)], log, what="mounting the image")
        mounted.append(lower)
        run(["mount", "-t", "overlay", "overlay", "-o",
             f"lowerdir={lower},upperdir={base / 'upper'},workdir={base / 'work'}", str(root)], log,
            what="mounting a layer over the image")
        mounted.append(root)
        yield root
    finally:
        for where in reversed(mounted):
            run(["umount", str(where)], log, check=False)
        for name in ("upper", "work"):
            shutil.rmtree(base / name, ignore_errors=True)


def in_the_image(root: Path, script: str, log: Log, what: str) -> str:
    """A shell script run in the image as the guide's user would (see the module's note on sudo)."""
    result = run(["chroot", str(root), "/bin/bash", "-e"], log, input_text=PRELUDE + script, timeout=card.STEP_TIMEOUT,
                 what=what)
    return result.stdout


def check_camera(run_: Run, target: Target) -> None:
    """Check 10 on one release (see the module's note)."""

    def body() -> str:
        started = time.monotonic()
        image.build(target, run_.log)
        here = read_here(run_.log)
        repository = run_.repository.replace("10.0.2.2", "127.0.0.1")  # the image shares the host's network
        # image.py's own chroot (its mounts and resolver); not renamed public there, as image.py is part of
        # the image's recipe and every image would be built again
        with overlay_card(target, run_.log) as root, _chroot(root, run_.log) as chroot:
            for certificate in sorted(card.LOCAL_AUTHORITIES.glob("*.crt")):
                shutil.copy2(certificate, root / "usr" / "local" / "share" / "ca-certificates" / certificate.name)
            chroot("update-ca-certificates")
            # the guide's card step, less its full upgrade (a new kernel's initramfs would take long under
            # qemu-user, and nothing of the camera's comes from it)
            in_the_image(root, "sudo apt update -qq\n", run_.log, "apt update in the image")
            for step in doc.steps(("install", "camera"), repository):
                if step.script is not None:
                    in_the_image(root, step.script, run_.log, step.name)
            versions = in_the_image(root, "goldtable/.venv/bin/python -c 'import cv2, numpy; "
                                          "print(cv2.__version__, numpy.__version__)'\n", run_.log, "OpenCV's version")
            there = readings(in_the_image(root, f"cd goldtable\nexport GOLDTABLE=.venv/bin/goldtable "
                                                f"GOLDTABLE_DATA=$(mktemp -d)\n{READ_ALL}", run_.log,
                                          "reading the photos in the image"))
        spread = compare(here, there)
        opencv, numpy = versions.split()[-2:]
        return (f"the guide's camera step, then {len(there)} rolls of the committed photos read with Debian's "
                f"OpenCV {opencv} and numpy {numpy} on a {CPU}: the same faces, the same rolls asked about as on "
                f"this PC (confidence within {spread:.3f}); {time.monotonic() - started:.0f} s")

    run_.check(CAMERA, f"camera on {target.suite}", body)
