"""Goldtable hardware bridge: GPIO and serial sources, the GTP/1 protocol, firmware and simulator."""
