"""Case conversion helpers."""

import re


def slugify(text, sep="-"):
    """Lower-case ``text`` and join its alphanumeric words with ``sep``."""
    words = re.findall(r"[A-Za-z0-9]+", text)
    return sep.join(word.lower() for word in words)


def snake_to_camel(name, upper_first=False):
    """Turn ``snake_case`` into ``camelCase`` (or ``CamelCase`` with ``upper_first``)."""
    parts = [p for p in name.split("_") if p]
    if not parts:
        return ""
    head = parts[0].capitalize() if upper_first else parts[0].lower()
    return head + "".join(p.capitalize() for p in parts[1:])


def camel_to_snake(name):
    """Turn ``camelCase`` or ``CamelCase`` into ``snake_case``."""
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i > 0:
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def title_case(text, minor=("a", "an", "the", "of", "and", "or", "in")):
    """Capitalise each word except minor words, which stay lower unless first."""
    words = text.split()
    result = []
    for i, word in enumerate(words):
        if i > 0 and word.lower() in minor:
            result.append(word.lower())
        else:
            result.append(word[:1].upper() + word[1:].lower())
    return " ".join(result)
