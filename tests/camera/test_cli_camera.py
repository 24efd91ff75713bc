"""`goldtable camera calibrate|teach|read|watch|list` as the issue writes them: JSON per image, and bad
input in one line with exit code 2 (never a traceback)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.camera.helpers import SAMPLE, rolls

DIGGER = SAMPLE / "digger-000"
#: The checkout under test: the child imports its code, whichever checkout the venv was installed from.
REPO = Path(__file__).resolve().parents[2]


def goldtable(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {"GOLDTABLE_DATA": str(cwd or "."), "PATH": "/usr/bin", "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "companion.cli", "camera", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, timeout=120, env=env)


def refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


@pytest.fixture(scope="module")
def digger_profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("profile")
    profile = folder / "digger.json"
    made = goldtable("calibrate", "--game", "digger", "-o", profile, DIGGER / "empty.jpg", cwd=folder)
    assert made.returncode == 0, made.stderr
    assert "teach" in made.stdout
    taught = goldtable("teach", "--profile", profile, DIGGER / "teach" / "labels.csv", cwd=folder)
    assert taught.returncode == 0, taught.stderr
    assert "every face is taught" in taught.stdout
    return profile


def test_read_prints_one_json_object_per_image(digger_profile: Path, tmp_path: Path) -> None:
    images = [roll.image for roll in rolls(DIGGER)][:3]
    result = goldtable("read", "--profile", digger_profile, "--json", *images, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["image"] for line in lines] == [str(image) for image in images]
    for line in lines:
        assert set(line) >= {"image", "faces", "confidence", "uncertain"}
        assert len(line["confidence"]) == len(line["faces"])
        assert all(face in "BYRGWK?" for face in line["faces"])


def test_a_profile_is_never_overwritten_by_calibration(digger_profile: Path, tmp_path: Path) -> None:
    before = digger_profile.read_bytes()
    refused(goldtable("calibrate", "--game", "digger", "-o", digger_profile, DIGGER / "empty.jpg", cwd=tmp_path),
            "already exists")
    assert digger_profile.read_bytes() == before


def test_bad_input_is_one_line_and_exit_2(digger_profile: Path, tmp_path: Path) -> None:
    not_image = tmp_path / "roll.jpg"
    not_image.write_text("no picture")
    refused(goldtable("read", "--profile", digger_profile, "--json", not_image, cwd=tmp_path), "not an image")
    refused(goldtable("read", "--profile", digger_profile, tmp_path / "missing.jpg", cwd=tmp_path), "cannot read")
    refused(goldtable("read", "--profile", not_image, DIGGER / "empty.jpg", cwd=tmp_path), "not valid JSON")
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"format": "goldtable-record/1"}')
    refused(goldtable("read", "--profile", wrong, DIGGER / "empty.jpg", cwd=tmp_path), "not a Goldtable camera profile")
    damaged = tmp_path / "damaged.json"
    data = json.loads(digger_profile.read_text())
    data["background"] = "AAAA"
    damaged.write_text(json.dumps(data))
    refused(goldtable("read", "--profile", damaged, DIGGER / "empty.jpg", cwd=tmp_path), "damaged")
    refused(goldtable("read", "--profile", digger_profile, "--game", "chinagold", DIGGER / "empty.jpg", cwd=tmp_path),
            "for digger, not chinagold")
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.zeros((120, 160, 3), np.uint8))
    refused(goldtable("read", "--profile", digger_profile, small, cwd=tmp_path), "calibrate again")
    refused(goldtable("calibrate", "--game", "chess", "-o", tmp_path / "x.json", DIGGER / "empty.jpg", cwd=tmp_path),
            "no game")
    refused(goldtable("calibrate", "--game", "digger", "-o", tmp_path / "x.json", small, cwd=tmp_path), "too dark")
    assert not (tmp_path / "x.json").exists()


def test_teaching_refuses_faces_of_another_game_and_more_than_three_shows(tmp_path: Path) -> None:
    profile = tmp_path / "p.json"
    assert goldtable("calibrate", "--game", "digger", "-o", profile, DIGGER / "empty.jpg", cwd=tmp_path).returncode == 0
    labels = tmp_path / "labels.csv"
    shutil.copy(DIGGER / "teach" / "B-0.jpg", tmp_path / "b.jpg")
    labels.write_text("image,face\nb.jpg,L\n")
    refused(goldtable("teach", "--profile", profile, labels, cwd=tmp_path), "line 2", "'L' is no face of digger")
    labels.write_text("image,face\n" + "b.jpg,B\n" * 4)
    refused(goldtable("teach", "--profile", profile, labels, cwd=tmp_path), "face B is shown 4 times")
    shutil.copy(DIGGER / "empty.jpg", tmp_path / "empty.jpg")
    labels.write_text("image,face\nb.jpg,B\nempty.jpg,Y\n")
    refused(goldtable("teach", "--profile", profile, labels, cwd=tmp_path), "line 3", "shows no die")
    untaught = goldtable("read", "--profile", profile, DIGGER / "empty.jpg", cwd=tmp_path)
    refused(untaught, "faces not taught yet: B Y R G W K")


def test_watch_prints_each_roll_as_it_comes_to_rest(digger_profile: Path, tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    chosen = [roll for roll in rolls(DIGGER) if roll.case == "clean"][:2]
    for index, roll in enumerate(chosen):
        shutil.copy(DIGGER / "empty.jpg", folder / f"{index}a.jpg")
        shutil.copy(roll.image, folder / f"{index}b.jpg")
    result = goldtable("watch", "--profile", digger_profile, "--json", "--source", f"{folder}?fps=50&hold=5",
                       cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 2, result.stdout
    refused(goldtable("watch", "--profile", digger_profile, "--source", "ftp://x", cwd=tmp_path), "--source")
    refused(goldtable("watch", "--profile", digger_profile, "--source", f"{folder}?fps=fast", cwd=tmp_path), "fps")


def test_list_says_what_it_found(tmp_path: Path) -> None:
    result = goldtable("list", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.strip()


def test_a_profile_taught_before_the_lean_check_was_replaced_still_reads(digger_profile: Path, tmp_path: Path) -> None:
    """Profiles taught in November 2026 kept each teaching picture's place ("seen") for a lean check since
    replaced: they load and read as before, and a key nobody wrote is still refused."""
    older = json.loads(digger_profile.read_text())
    for index, taught in enumerate(older["taught"]):
        taught["seen"] = [100.0 + index, 200.0, 1.5, -0.5]
    kept = tmp_path / "older.json"
    kept.write_text(json.dumps(older))
    image = next(roll.image for roll in rolls(DIGGER) if roll.case == "clean")
    now = goldtable("read", "--profile", digger_profile, "--json", image, cwd=tmp_path)
    before = goldtable("read", "--profile", kept, "--json", image, cwd=tmp_path)
    assert before.returncode == 0, before.stderr
    assert json.loads(before.stdout)["faces"] == json.loads(now.stdout)["faces"]
    older["taught"][0]["where"] = [1.0]
    kept.write_text(json.dumps(older))
    refused(goldtable("read", "--profile", kept, "--json", image, cwd=tmp_path), "older.json")


def test_a_tile_profile_taught_before_tiles_were_cut_whole_is_taught_again(tmp_path: Path) -> None:
    """A Chinagold profile taught before 28 Nov 2026 (no `features`: version 1, tiles cut as dice) is never
    matched as it is: reading refuses it in one line, every face counts as untaught, and teaching again
    drops the old pictures and marks the profile with today's version.  Dice profiles of version 1 are
    current (their cut did not change), as the test above shows."""
    from companion.camera.profile import features_version, load_profile

    chinagold = SAMPLE / "chinagold-000"
    profile = tmp_path / "chinagold.json"
    calibrated = goldtable("calibrate", "--game", "chinagold", "-o", profile, chinagold / "empty.jpg", cwd=tmp_path)
    assert calibrated.returncode == 0, calibrated.stderr
    assert goldtable("teach", "--profile", profile, chinagold / "teach" / "labels.csv", cwd=tmp_path).returncode == 0
    taught = json.loads(profile.read_text())
    assert taught["features"] == features_version("chinagold") == 2
    image = next(roll.image for roll in rolls(chinagold) if roll.case == "clean")
    assert goldtable("read", "--profile", profile, "--json", image, cwd=tmp_path).returncode == 0

    older = {key: value for key, value in taught.items() if key != "features"}
    profile.write_text(json.dumps(older))
    assert load_profile(profile).stale and load_profile(profile).untaught() == ("0", "1", "2")
    refused(goldtable("read", "--profile", profile, "--json", image, cwd=tmp_path), "teach them again")

    labels = tmp_path / "zero.csv"
    first_zero = next(line for line in (chinagold / "teach" / "labels.csv").read_text().splitlines()[1:]
                      if line.endswith(",0"))
    labels.write_text("image,face\n" + str(chinagold / "teach" / first_zero.split(",")[0]) + ",0\n")
    again = goldtable("teach", "--profile", profile, labels, cwd=tmp_path)
    assert again.returncode == 0 and "still to teach: 1 2" in again.stdout, again.stdout
    renewed = load_profile(profile)
    assert not renewed.stale and [item.face for item in renewed.taught] == ["0"]


def test_without_opencv_it_says_how_to_install_it_from_goldtables_folder(tmp_path: Path) -> None:
    """Not `pip install 'goldtable[camera]'`: Goldtable does not come from PyPI, so that would fetch a
    stranger's package of the name."""
    blocked = tmp_path / "no-opencv" / "cv2"
    blocked.mkdir(parents=True)
    (blocked / "__init__.py").write_text("raise ImportError('no OpenCV here')\n", encoding="utf-8")
    env = {"GOLDTABLE_DATA": str(tmp_path), "PATH": "/usr/bin", "PYTHONPATH": f"{blocked.parent}:{REPO}"}
    result = subprocess.run([sys.executable, "-m", "companion.cli", "camera", "list"], capture_output=True,
                            text=True, timeout=120, env=env)
    refused(result, "sudo apt install python3-opencv", "pip install '.[camera]'")
    assert "goldtable[camera]" not in result.stderr
