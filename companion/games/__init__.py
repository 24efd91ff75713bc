"""One sub-package per game; each registers itself with `companion.engine.registry` when imported."""
