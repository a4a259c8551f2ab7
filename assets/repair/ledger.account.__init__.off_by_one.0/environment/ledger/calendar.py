"""Calendar helpers for month-end bookkeeping."""


def is_leap_year(year):
    """Gregorian leap year rule."""
    if year % 400 == 0:
        return True
    if year % 100 == 0:
        return False
    return year % 4 == 0


def days_in_month(year, month):
    """Number of days in ``month`` (1-12) of ``year``."""
    if not 1 <= month <= 12:
        raise ValueError(f"month must be 1..12, got {month}")
    if month == 2:
        return 29 if is_leap_year(year) else 28
    if month in (4, 6, 9, 11):
        return 30
    return 31


def add_days(year, month, day, days):
    """The date ``days`` (>= 0) after the given date, as ``(year, month, day)``."""
    while days > 0:
        left = days_in_month(year, month) - day
        if days <= left:
            return (year, month, day + days)
        days -= left + 1
        day = 1
        month += 1
        if month > 12:
            month = 1
            year += 1
    return (year, month, day)


def quarter(month):
    """Quarter (1-4) of a month (1-12)."""
    return (month - 1) // 3 + 1
