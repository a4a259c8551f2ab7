import pytest

from textkit.wrap import center, indent, truncate, wrap


def test_wrap_breaks_at_width():
    assert wrap("the quick brown fox", 10) == ["the quick", "brown fox"]


def test_wrap_exact_fit_stays_on_one_line():
    assert wrap("ab cd", 5) == ["ab cd"]


def test_wrap_long_word_gets_its_own_line():
    assert wrap("a verylongword b", 4) == ["a", "verylongword", "b"]


def test_wrap_empty_text():
    assert wrap("   ", 5) == []


def test_wrap_rejects_zero_width():
    with pytest.raises(ValueError):
        wrap("x", 0)


def test_truncate_short_text_unchanged():
    assert truncate("hello", 5) == "hello"


def test_truncate_adds_ellipsis():
    assert truncate("hello world", 8) == "hello..."


def test_truncate_tiny_limit():
    assert truncate("hello", 2) == ".."


def test_center_even_padding():
    assert center("ab", 6) == "  ab  "


def test_center_odd_padding_goes_right():
    assert center("ab", 5, "*") == "*ab**"


def test_center_no_padding_when_too_long():
    assert center("abcdef", 3) == "abcdef"


def test_indent_skips_blank_lines():
    assert indent("a\n\nb", "> ") == "> a\n\n> b"


def test_wrap_one_over_width_breaks():
    assert wrap("ab cd", 4) == ["ab", "cd"]


def test_wrap_width_one():
    assert wrap("a b", 1) == ["a", "b"]


def test_truncate_keeps_one_character():
    assert truncate("hello", 4) == "h..."


def test_center_one_missing_goes_right():
    assert center("ab", 3) == "ab "
