"""Goldtable companion: rules engine, journal, app and command line."""
