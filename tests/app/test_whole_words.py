"""Buttons never cut a word in two: Kivy breaks a word wider than the button inside the word ("Einstell" /
"ungen" on Home's narrow buttons in portrait); `WholeWords` shrinks the text until the word fits instead,
and keeps the size the screen asked for wherever the words fit."""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.metrics import sp

from companion.app.launch import pump
from companion.app.widgets import BUTTON_TEXT_MARGIN, SMALLEST_FIT, word_width


def drawn_lines(button: Any) -> int:
    """How many lines the button's text was laid out in."""
    button.texture_update()
    return len(button._label._cached_lines)


def test_a_word_wider_than_its_button_shrinks_instead_of_breaking(app: Any) -> None:
    button = Factory.GButton(text="Einstellungen", size_hint=(None, None), size=(84, 56))
    pump(1)
    assert button.wanted_font_size == sp(20)
    assert sp(20) * SMALLEST_FIT <= button.font_size < sp(20)
    assert word_width("Einstellungen", button.font_name, button.font_size, button.bold) <= 84 - 2 * BUTTON_TEXT_MARGIN
    assert drawn_lines(button) == 1


def test_a_button_whose_words_fit_keeps_the_screens_size_and_wraps_between_words(app: Any) -> None:
    button = Factory.GToggle(text="Uhr & Stimme", size_hint=(None, None), size=(84, 56))
    pump(1)
    assert button.font_size == button.wanted_font_size == sp(18)
    assert drawn_lines(button) == 2


def test_the_size_follows_the_text_the_width_and_what_the_screen_asks(app: Any) -> None:
    button = Factory.GoldButton(text="Hardware", size_hint=(None, None), size=(300, 56))
    assert button.font_size == sp(20)  # wide enough
    button.width = 70
    narrow = button.font_size
    assert narrow < sp(20)
    button.text = "Los"
    assert button.font_size == sp(20)  # the short word fits again
    button.font_size = sp(24)  # a screen asks for a bigger text: it is the new wanted size
    assert button.wanted_font_size == sp(24) and button.font_size == sp(24)
    button.text = "Hardware"
    assert sp(24) * SMALLEST_FIT <= button.font_size < sp(24)


def test_a_word_too_long_for_the_smallest_size_is_shrunk_only_that_far(app: Any) -> None:
    button = Factory.GButton(text="Donaudampfschifffahrtsgesellschaft", size_hint=(None, None), size=(60, 56))
    assert button.font_size == sp(20) * SMALLEST_FIT
