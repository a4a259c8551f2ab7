"""Toy ciphers and run-length encoding."""


def caesar(text, shift):
    """Shift letters by ``shift`` places, keeping case; other characters unchanged."""
    out = []
    for ch in text:
        if "a" <= ch <= "z":
            out.append(chr((ord(ch) - ord("a") + shift) % 26 + ord("a")))
        elif "A" <= ch <= "Z":
            out.append(chr((ord(ch) - ord("A") + shift) % 26 + ord("A")))
        else:
            out.append(ch)
    return "".join(out)


def rot13(text):
    """ROT13: Caesar with a shift of 13, its own inverse."""
    return caesar(text, 13)


def rle_encode(text):
    """Run-length encode: ``"aaab"`` -> ``"3a1b"``."""
    if not text:
        return ""
    out = []
    run_char = text[0]
    run_len = 1
    for ch in text[1:]:
        if ch == run_char:
            run_len += 1
        else:
            out.append(f"{run_len}{run_char}")
            run_char = ch
            run_len = 1
    out.append(f"{run_len}{run_char}")
    return "".join(out)


def rle_decode(code):
    """Inverse of :func:`rle_encode`."""
    out = []
    digits = ""
    for ch in code:
        if ch.isdigit():
            digits += ch
        else:
            if not digits:
                raise ValueError(f"missing count before {ch!r}")
            out.append(ch * int(digits))
            digits = ""
    return "".join(out)
