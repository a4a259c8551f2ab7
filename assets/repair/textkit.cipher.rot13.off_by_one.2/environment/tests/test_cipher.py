import pytest

from textkit.cipher import caesar, rle_decode, rle_encode, rot13


def test_caesar_shifts_lowercase():
    assert caesar("abc", 1) == "bcd"


def test_caesar_wraps_around():
    assert caesar("xyz", 3) == "abc"


def test_caesar_keeps_case_and_punctuation():
    assert caesar("Hi, Zed!", 2) == "Jk, Bgf!"


def test_caesar_negative_shift():
    assert caesar("abc", -1) == "zab"


def test_rot13_is_its_own_inverse():
    assert rot13(rot13("Round Trip")) == "Round Trip"


def test_rot13_value():
    assert rot13("hello") == "uryyb"


def test_rle_encode():
    assert rle_encode("aaabccdddd") == "3a1b2c4d"


def test_rle_encode_empty():
    assert rle_encode("") == ""


def test_rle_decode_multi_digit_counts():
    assert rle_decode("12x1y") == "x" * 12 + "y"


def test_rle_round_trip():
    text = "wwwwaaadexxxxxx"
    assert rle_decode(rle_encode(text)) == text


def test_rle_decode_rejects_missing_count():
    with pytest.raises(ValueError):
        rle_decode("a")


def test_caesar_shifts_capital_a():
    assert caesar("A", 1) == "B"


def test_rle_encode_single_characters():
    assert rle_encode("a") == "1a"
    assert rle_encode("ab") == "1a1b"
