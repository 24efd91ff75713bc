"""Digger at the table (Kivy): its controller (the sand-timer protocol) and its table panel."""
