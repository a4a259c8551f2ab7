"""Word and character statistics."""

from collections import Counter


def words(text):
    """The words of ``text``: runs of letters and apostrophes, lower-cased."""
    out = []
    current = []
    for ch in text:
        if ch.isalpha() or ch == "'":
            current.append(ch.lower())
        elif current:
            out.append("".join(current))
            current = []
    if current:
        out.append("".join(current))
    return out


def word_count(text):
    """Number of words in ``text``."""
    return len(words(text))


def top_words(text, n=3):
    """The ``n`` most frequent words, ties broken alphabetically, as (word, count) pairs."""
    counts = Counter(words(text))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]


def longest_word(text):
    """The longest word (the first one on ties), or None for text without words."""
    best = None
    for word in words(text):
        if best is None or len(word) > len(best):
            best = word
    return best


def average_word_length(text):
    """Mean length of the words, 0.0 when there are none."""
    ws = words(text)
    if not ws:
        return 0.0
    return sum(len(w) for w in ws) / len(ws)
