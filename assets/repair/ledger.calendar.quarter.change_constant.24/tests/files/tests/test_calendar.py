import pytest

from ledger.calendar import add_days, days_in_month, is_leap_year, quarter


def test_leap_years():
    assert is_leap_year(2024)
    assert is_leap_year(2000)


def test_century_is_not_leap():
    assert not is_leap_year(1900)


def test_ordinary_year():
    assert not is_leap_year(2023)


def test_days_in_february_leap():
    assert days_in_month(2024, 2) == 29


def test_days_in_february_common():
    assert days_in_month(2023, 2) == 28


def test_days_in_30_day_month():
    assert days_in_month(2023, 11) == 30


def test_days_in_31_day_month():
    assert days_in_month(2023, 12) == 31


def test_days_in_month_rejects_13():
    with pytest.raises(ValueError):
        days_in_month(2023, 13)


def test_add_days_within_month():
    assert add_days(2023, 3, 10, 5) == (2023, 3, 15)


def test_add_days_across_month():
    assert add_days(2023, 1, 30, 3) == (2023, 2, 2)


def test_add_days_across_year():
    assert add_days(2023, 12, 31, 1) == (2024, 1, 1)


def test_add_zero_days():
    assert add_days(2023, 5, 5, 0) == (2023, 5, 5)


def test_quarter():
    assert [quarter(m) for m in (1, 3, 4, 12)] == [1, 1, 2, 4]


def test_leap_year_divisible_by_4_not_8():
    assert is_leap_year(2004)


def test_days_in_every_month_of_a_common_year():
    assert [days_in_month(2023, m) for m in range(1, 13)] == [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def test_days_in_month_rejects_0():
    with pytest.raises(ValueError):
        days_in_month(2023, 0)


def test_add_days_to_the_last_day_of_a_month():
    assert add_days(2023, 1, 30, 1) == (2023, 1, 31)


def test_add_days_into_december():
    assert add_days(2023, 11, 30, 1) == (2023, 12, 1)
