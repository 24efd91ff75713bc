"""Goldgräber at the table (Kivy): its controller, its table panel and the board widget."""
