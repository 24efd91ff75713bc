"""The Python and C heaps between games: frozen after start-up and when a table opens, given back at the end.

Both run where no tap pays for them (see `companion.app.game_flow`).
"""

from __future__ import annotations

import gc


def freeze_heap() -> None:
    """Collect once, then move every object still alive into the permanent generation (`gc.freeze`).

    The screens, the game's states and widgets live on; without this a full collection walks them all,
    a pause of ~100 ms that lands inside whichever tap triggers it.  Run where a pause does no harm: after
    start-up and when a table opens; what an earlier freeze kept is collected again first.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def release_free_heap() -> None:
    """Collect the game's garbage, then hand the C heap's free pages back to the system (glibc only;
    elsewhere only the collection happens).

    The screens, widgets and label textures built and dropped during a game are freed, but glibc keeps
    the freed pages mapped; after a game that is about 20 MB of resident memory nobody uses.  The boards
    repaint so little now that a game's taps seldom set off a full collection, so the cycles its dropped
    loupe copies and instructions left (12 MB after a Chinagold game) wait for this one, made where no
    tap pays for it.
    """
    import ctypes
    import ctypes.util

    gc.collect()

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        libc.malloc_trim(0)
    except (OSError, AttributeError, TypeError):  # no C library by that name, or not glibc
        return
