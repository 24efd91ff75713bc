"""Files Goldtable reads at run time that live outside the Python packages in the source tree.

`layouts/` (board and card files) and `docs/rules/` (the rule texts the Rules screen shows) are kept
at the top of the repository, where owners and readers find them; `companion/data/layouts` and
`companion/data/rules` are symbolic links to them, so a built wheel copies the files into the package
and an installed Goldtable finds them through importlib.resources from any working directory.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def data_dir(name: str) -> Path:
    """The shipped data folder `name` (`layouts` or `rules`) as a real path on disk.

    Wheels are always unpacked into site-packages, so the resource is a plain directory; a zipped
    install (which Goldtable does not support) would fail here with one clear line instead of later.
    """
    folder = resources.files(__name__).joinpath(name)
    if not isinstance(folder, Path):
        raise RuntimeError(f"Goldtable's data folder {name!r} is inside an archive ({folder}); install it unzipped")
    return folder
