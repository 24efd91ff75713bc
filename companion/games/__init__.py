"""The shipped games, one package each: rules, put-back guide, boards and (in `app/`) the table's Kivy parts,
declared in the package's `GAME` (`companion.engine.registry.GamePlugin`) and published as an entry point."""
