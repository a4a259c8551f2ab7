"""Wrapping, truncation and padding."""


def wrap(text, width):
    """Split ``text`` into lines of at most ``width`` characters, breaking at spaces."""
    if width < 1:
        raise ValueError("width must be at least 1")
    lines = []
    current = ""
    for word in text.split():
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current = current + " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def truncate(text, limit, ellipsis="..."):
    """Cut ``text`` to ``limit`` characters, ending with ``ellipsis`` when cut."""
    if len(text) <= limit:
        return text
    keep = limit - len(ellipsis)
    if keep <= 0:
        return ellipsis[:limit]
    return text[:keep] + ellipsis


def center(text, width, fill=" "):
    """Pad ``text`` on both sides to ``width``; an odd extra goes to the right."""
    missing = width - len(text)
    if missing <= 0:
        return text
    left = missing // 2
    right = missing - left
    return fill * left + text + fill * right


def indent(text, prefix="    "):
    """Prefix every non-empty line of ``text`` with ``prefix``."""
    lines = text.split("\n")
    return "\n".join(prefix + line if line.strip() else line for line in lines)
