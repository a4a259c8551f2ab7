"""Closed integer intervals given as ``(start, end)`` pairs with ``start <= end``."""


def merge(intervals):
    """Merge overlapping or touching intervals; the result is sorted."""
    ordered = sorted(intervals)
    merged = []
    for start, end in ordered:
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def overlaps(a, b):
    """True when intervals ``a`` and ``b`` share at least one point."""
    return a[0] <= b[1] and b[0] <= a[1]


def total_length(intervals):
    """Number of integer points covered by the union of ``intervals``."""
    return sum(end - start + 1 for start, end in merge(intervals))


def contains(intervals, point):
    """True when ``point`` lies in one of ``intervals``."""
    for start, end in intervals:
        if start <= point <= end:
            return True
    return False


def intersection(a, b):
    """The common part of ``a`` and ``b``, or None when they do not overlap."""
    start = max(a[0], b[0])
    end = min(a[1], b[1])
    if start > end:
        return None
    return (start, end)
