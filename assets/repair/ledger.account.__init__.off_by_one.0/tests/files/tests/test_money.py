import pytest

from ledger.money import apply_rate, format_amount, parse_amount, split_evenly


def test_parse_whole_amount():
    assert parse_amount("12") == 1200


def test_parse_one_decimal():
    assert parse_amount("12.5") == 1250


def test_parse_negative_with_thousands():
    assert parse_amount("-1,200.07") == -120007


def test_parse_cents_only():
    assert parse_amount(".99") == 99


def test_parse_rejects_three_decimals():
    with pytest.raises(ValueError):
        parse_amount("1.234")


def test_parse_rejects_garbage():
    with pytest.raises(ValueError):
        parse_amount("12a")


def test_parse_rejects_empty():
    with pytest.raises(ValueError):
        parse_amount("  ")


def test_format_amount():
    assert format_amount(123450) == "$1,234.50"


def test_format_negative():
    assert format_amount(-307) == "-$3.07"


def test_format_other_symbol():
    assert format_amount(5, symbol="EUR ") == "EUR 0.05"


def test_split_evenly_remainder_goes_first():
    assert split_evenly(100, 3) == [34, 33, 33]


def test_split_evenly_exact():
    assert split_evenly(90, 3) == [30, 30, 30]


def test_split_evenly_rejects_zero_parts():
    with pytest.raises(ValueError):
        split_evenly(10, 0)


def test_apply_rate_rounds_half_up():
    assert apply_rate(250, 10) == 25
    assert apply_rate(5, 10) == 1


def test_apply_rate_rounds_down_below_half():
    assert apply_rate(104, 10) == 10


def test_parse_rejects_signs_and_underscores_int_would_take():
    for text in ("+5", "1_000"):
        with pytest.raises(ValueError):
            parse_amount(text)
