"""The Pi as an appliance: `goldtable doctor` (is this machine ready?), `goldtable kiosk install` (start
at boot) and the Settings screen's Quit / Restart / Shut down.  No Kivy here, so the commands stay fast."""
