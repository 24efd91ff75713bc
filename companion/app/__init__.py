"""The Kivy touchscreen app.  Nothing outside this package (and the board renderer) imports Kivy."""
