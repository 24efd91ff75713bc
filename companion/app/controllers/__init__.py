"""Table controllers: one per game, the single path every input of a game takes (see base.py)."""

from companion.app.controllers.base import TableController, controller_class, record_source, settle

__all__ = ["TableController", "controller_class", "record_source", "settle"]
