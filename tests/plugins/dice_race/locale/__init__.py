"""Dice race's gettext catalogs: `<lang>/LC_MESSAGES/dice_race.po` and the `.mo` compiled from it."""
