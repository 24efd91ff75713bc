"""What every game's board widget shares: drawing in layers (`drawing.py`) and the loupe (`loupe.py`).

Each game's own widget lives in its package (`companion/games/<id>/app/board.py`, `board_widget(layout,
show_ids=False)`), named in its declaration; the table screen and `goldtable layout render` use the same
one, so what is checked is what is shown.
"""
