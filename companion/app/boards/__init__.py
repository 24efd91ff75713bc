"""Board widgets, one module per game, each with `board_widget(layout, show_ids=False)`.

Used by the table screens and by `goldtable layout render`, so what is checked is what is shown.
"""
