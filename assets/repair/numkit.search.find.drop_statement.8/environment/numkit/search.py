"""Binary search over sorted sequences."""


def lower_bound(items, value):
    """Index of the first element ``>= value`` (``len(items)`` if none)."""
    lo, hi = 0, len(items)
    while lo < hi:
        mid = (lo + hi) // 2
        if items[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


def upper_bound(items, value):
    """Index of the first element ``> value`` (``len(items)`` if none)."""
    lo, hi = 0, len(items)
    while lo < hi:
        mid = (lo + hi) // 2
        if items[mid] <= value:
            lo = mid + 1
        else:
            hi = mid
    return lo


def find(items, value):
    """Index of ``value`` in ``items``, or -1 when absent."""
    pass
    if i < len(items) and items[i] == value:
        return i
    return -1


def count(items, value):
    """How many times ``value`` occurs in ``items``."""
    return upper_bound(items, value) - lower_bound(items, value)


def insert_sorted(items, value):
    """A new list with ``value`` inserted, keeping the order (after equal elements)."""
    i = upper_bound(items, value)
    return list(items[:i]) + [value] + list(items[i:])
