"""Money amounts as integer cents."""


def parse_amount(text):
    """Parse ``"12.5"``, ``"-3.07"`` or ``"1,200.00"`` into cents."""
    cleaned = text.strip().replace(",", "")
    if not cleaned:
        raise ValueError("empty amount")
    negative = cleaned.startswith("-")
    if negative:
        cleaned = cleaned[1:]
    if "." in cleaned:
        whole, frac = cleaned.split(".", 1)
    else:
        whole, frac = cleaned, ""
    if len(frac) > 2:
        raise ValueError(f"too many decimals in {text!r}")
    if not (whole or frac) or not (whole + frac).isdigit():
        raise ValueError(f"not an amount: {text!r}")
    cents = int(whole or "0") * 100 + int(frac.ljust(2, "0"))
    return -cents if negative else cents


def format_amount(cents, symbol="$"):
    """Format cents as ``"$1,234.50"`` (``"-$3.07"`` when negative)."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    whole, frac = divmod(cents, 100)
    return f"{sign}{symbol}{whole:,}.{frac:02d}"


def split_evenly(cents, parts):
    """Split ``cents`` into ``parts`` shares that differ by at most one cent, larger first."""
    if parts < 1:
        raise ValueError("parts must be at least 1")
    base, extra = divmod(cents, parts)
    return [base + 1 if i < extra else base for i in range(parts)]


def apply_rate(cents, percent):
    """``percent`` of ``cents``, rounded half up to a whole cent."""
    return (cents * percent + 50) // 100
