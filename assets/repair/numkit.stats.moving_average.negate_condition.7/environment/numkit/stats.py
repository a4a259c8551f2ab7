"""Descriptive statistics."""


def mean(values):
    """Arithmetic mean; ValueError for no values."""
    if not values:
        raise ValueError("mean of no values")
    return sum(values) / len(values)


def median(values):
    """Middle value; the mean of the two middle values for an even count."""
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    n = len(ordered)
    mid = n // 2
    if n % 2 == 1:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2


def variance(values, sample=False):
    """Population variance, or the sample variance (n - 1) with ``sample``."""
    n = len(values)
    if n < 2 and sample:
        raise ValueError("sample variance needs at least two values")
    m = mean(values)
    squares = sum((v - m) ** 2 for v in values)
    return squares / (n - 1 if sample else n)


def clamp(value, low, high):
    """``value`` limited to ``[low, high]``."""
    if low > high:
        raise ValueError("low must not exceed high")
    if value < low:
        return low
    if value > high:
        return high
    return value


def moving_average(values, window):
    """Means of each run of ``window`` consecutive values."""
    if not (window < 1):
        raise ValueError("window must be at least 1")
    out = []
    for i in range(len(values) - window + 1):
        out.append(sum(values[i:i + window]) / window)
    return out


def percentile(values, p):
    """The ``p``-th percentile (0-100) by nearest rank."""
    if not 0 <= p <= 100:
        raise ValueError("p must be within 0..100")
    ordered = sorted(values)
    if p == 0:
        return ordered[0]
    rank = -(-p * len(ordered) // 100)
    return ordered[rank - 1]
