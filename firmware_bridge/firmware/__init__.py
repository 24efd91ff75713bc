"""MicroPython firmware for the Pico sensor board (copy gtp.py, board.py and main.py to the Pico).

`gtp` is also imported on the host by the simulator, so device and simulator share one protocol code.
"""
