"""Chinagold at the table (Kivy): its controller (the Pi as opponent), its table panel and the hex board widget."""
