"""Medium function-call problems (the first ten with a plausible wrong solution)."""

# ruff: noqa: E501 - problem data: statements and inline programs read best unwrapped

import random

from . import Fn, d, ints, word


def _brackets(r: random.Random) -> list[str]:
    if r.random() < 0.5:
        s = ""
        for _ in range(r.randint(1, 4)):
            o, c = r.choice(["()", "[]", "{}"])
            s = r.choice([o + s + c, s + o + c])
        return [s]
    return [word(r, 0, 8, "()[]{}")]


PROBLEMS = [
    Fn(
        "balanced_brackets",
        "medium",
        "def balanced_brackets(s: str) -> bool:",
        "Return True if the brackets (), [] and {} in s are balanced and properly nested; other "
        "characters are ignored.",
        d("""
       def balanced_brackets(s):
           pairs = {")": "(", "]": "[", "}": "{"}
           stack = []
           for ch in s:
               if ch in "([{":
                   stack.append(ch)
               elif ch in pairs:
                   if not stack or stack.pop() != pairs[ch]:
                       return False
           return not stack
       """),
        _brackets,
        [[""], ["([)]"], ["((("], ["a(b)c"]],
        wrong=d("""
       def balanced_brackets(s):
           return all(s.count(o) == s.count(c) for o, c in ["()", "[]", "{}"])
       """),
    ),
    Fn(
        "run_length",
        "medium",
        "def run_length(s: str) -> str:",
        "Run-length encode s: each maximal run of a character c of length n becomes f'{n}{c}'.",
        d("""
       def run_length(s):
           out, i = [], 0
           while i < len(s):
               j = i
               while j < len(s) and s[j] == s[i]:
                   j += 1
               out.append(f"{j - i}{s[i]}")
               i = j
           return "".join(out)
       """),
        lambda r: [word(r, 0, 14, "aab")],
        [[""], ["a"], ["aaaaaaaaaaaab"]],
        wrong=d("""
       def run_length(s):
           out = []
           for ch in dict.fromkeys(s):
               out.append(f"{s.count(ch)}{ch}")
           return "".join(out)
       """),
    ),
    Fn(
        "two_sum",
        "medium",
        "def two_sum(xs: list[int], target: int) -> list[int]:",
        "Return [i, j] with i < j and xs[i] + xs[j] == target, choosing the pair with the smallest "
        "j and then the smallest i; return [] when no pair exists.",
        d("""
       def two_sum(xs, target):
           first = {}
           for j, x in enumerate(xs):
               if target - x in first:
                   return [first[target - x], j]
               first.setdefault(x, j)
           return []
       """),
        lambda r: [ints(r, 0, 10, -10, 10), r.randint(-10, 10)],
        [[[], 3], [[3, 3], 6], [[1, 2], 7], [[1, 3, 3, 5], 6]],
        wrong=d("""
       def two_sum(xs, target):
           for i in range(len(xs)):
               for j in range(len(xs)):
                   if i != j and xs[i] + xs[j] == target:
                       return [i, j]
           return []
       """),
    ),
    Fn(
        "anagram_groups",
        "medium",
        "def anagram_groups(words: list[str]) -> int:",
        "Return the number of groups of words that are anagrams of each other.",
        d("""
       def anagram_groups(words):
           return len({"".join(sorted(w)) for w in words})
       """),
        lambda r: [[word(r, 1, 4, "abc") for _ in range(r.randint(0, 8))]],
        [[[]], [["ab", "ba", "abc"]]],
        wrong=d("""
       def anagram_groups(words):
           return len({frozenset(w) for w in words})
       """),
    ),
    Fn(
        "merge_intervals",
        "medium",
        "def merge_intervals(iv: list[list[int]]) -> list[list[int]]:",
        "Merge overlapping closed intervals [a, b] (touching intervals merge too) and return them sorted by start.",
        d("""
       def merge_intervals(iv):
           out = []
           for a, b in sorted(iv):
               if out and a <= out[-1][1]:
                   out[-1][1] = max(out[-1][1], b)
               else:
                   out.append([a, b])
           return out
       """),
        lambda r: [[sorted([r.randint(0, 20), r.randint(0, 20)]) for _ in range(r.randint(0, 6))]],
        [[[]], [[[1, 3], [3, 5]]], [[[1, 10], [2, 3]]]],
        wrong=d("""
       def merge_intervals(iv):
           out = []
           for a, b in sorted(iv):
               if out and a <= out[-1][1]:
                   out[-1][1] = b
               else:
                   out.append([a, b])
           return out
       """),
    ),
    Fn(
        "roman_to_int",
        "medium",
        "def roman_to_int(s: str) -> int:",
        "Convert a Roman numeral (I, V, X, L, C, D, M with subtractive pairs) to an integer.",
        d("""
       def roman_to_int(s):
           v = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
           total = 0
           for i, ch in enumerate(s):
               if i + 1 < len(s) and v[ch] < v[s[i + 1]]:
                   total -= v[ch]
               else:
                   total += v[ch]
           return total
       """),
        lambda r: [_roman(r.randint(1, 3999))],
        [["I"], ["IV"], ["MCMXCIV"]],
        wrong=d("""
       def roman_to_int(s):
           v = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
           return sum(v[ch] for ch in s)
       """),
    ),
    Fn(
        "rotate_list",
        "medium",
        "def rotate_list(xs: list[int], k: int) -> list[int]:",
        "Rotate xs to the right by k positions (k may be larger than len(xs) or negative, which rotates left).",
        d("""
       def rotate_list(xs, k):
           if not xs:
               return []
           k %= len(xs)
           return xs[-k:] + xs[:-k] if k else list(xs)
       """),
        lambda r: [ints(r, 0, 7, 0, 9), r.randint(-10, 10)],
        [[[], 3], [[1, 2, 3], 0], [[1, 2, 3], 4]],
        wrong=d("""
       def rotate_list(xs, k):
           return xs[-k:] + xs[:-k]
       """),
    ),
    Fn(
        "longest_common_prefix",
        "medium",
        "def longest_common_prefix(words: list[str]) -> str:",
        "Return the longest string that is a prefix of every word ('' for an empty list).",
        d("""
       def longest_common_prefix(words):
           if not words:
               return ""
           p = words[0]
           for w in words[1:]:
               while not w.startswith(p):
                   p = p[:-1]
           return p
       """),
        lambda r: [[(lambda b: b + word(r, 0, 3, "xy"))(word(r, 0, 3, "ab")) for _ in range(r.randint(0, 4))]],
        [[[]], [["abc"]], [["abc", "abd", "ab"]], [["x", "y"]]],
        wrong=d("""
       def longest_common_prefix(words):
           if not words:
               return ""
           a, b = min(words), max(words)
           i = 0
           while i < len(a) and a[i] == b[i]:
               i += 1
           return a[:i + 1]
       """),
    ),
    Fn(
        "binary_search",
        "medium",
        "def binary_search(xs: list[int], x: int) -> int:",
        "xs is sorted ascending. Return the smallest index i with xs[i] >= x (len(xs) if none).",
        d("""
       def binary_search(xs, x):
           lo, hi = 0, len(xs)
           while lo < hi:
               mid = (lo + hi) // 2
               if xs[mid] < x:
                   lo = mid + 1
               else:
                   hi = mid
           return lo
       """),
        lambda r: [sorted(ints(r, 0, 10, 0, 20)), r.randint(-1, 21)],
        [[[], 5], [[1, 1, 1], 1], [[1, 2, 3], 4]],
        wrong=d("""
       def binary_search(xs, x):
           lo, hi = 0, len(xs) - 1
           while lo < hi:
               mid = (lo + hi) // 2
               if xs[mid] < x:
                   lo = mid + 1
               else:
                   hi = mid
           return lo
       """),
    ),
    Fn(
        "word_frequencies",
        "medium",
        "def word_frequencies(text: str) -> list[list]:",
        "Count the words of text (split on whitespace, lower-cased) and return [word, count] pairs "
        "sorted by count descending, then word ascending.",
        d("""
       def word_frequencies(text):
           counts = {}
           for w in text.lower().split():
               counts[w] = counts.get(w, 0) + 1
           return [[w, c] for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
       """),
        lambda r: [" ".join(word(r, 1, 2, "abAB") for _ in range(r.randint(0, 9)))],
        [[""], ["b a B"]],
        wrong=d("""
       def word_frequencies(text):
           counts = {}
           for w in text.split():
               counts[w] = counts.get(w, 0) + 1
           return [[w, c] for w, c in sorted(counts.items(), key=lambda kv: -kv[1])]
       """),
    ),
    Fn(
        "matrix_transpose",
        "medium",
        "def matrix_transpose(m: list[list[int]]) -> list[list[int]]:",
        "Return the transpose of the rectangular matrix m ([] for an empty matrix).",
        d("""
       def matrix_transpose(m):
           return [list(col) for col in zip(*m)]
       """),
        lambda r: (lambda w: [[ints(r, w, w, 0, 9) for _ in range(r.randint(1, 4))]])(r.randint(1, 4)),
        [[[]], [[[1, 2, 3]]]],
    ),
    Fn(
        "flatten",
        "medium",
        "def flatten(xs: list) -> list:",
        "Flatten an arbitrarily nested list of ints into a flat list, in order.",
        d("""
       def flatten(xs):
           out = []
           for x in xs:
               if isinstance(x, list):
                   out.extend(flatten(x))
               else:
                   out.append(x)
           return out
       """),
        lambda r: [_nested(r, 3)],
        [[[]], [[[[]]]], [[1, [2, [3, [4]]]]]],
    ),
    Fn(
        "caesar",
        "medium",
        "def caesar(s: str, k: int) -> str:",
        "Shift every ASCII letter of s by k places in the alphabet (wrapping, keeping case); other characters stay.",
        d("""
       def caesar(s, k):
           out = []
           for ch in s:
               if "a" <= ch <= "z":
                   out.append(chr((ord(ch) - 97 + k) % 26 + 97))
               elif "A" <= ch <= "Z":
                   out.append(chr((ord(ch) - 65 + k) % 26 + 65))
               else:
                   out.append(ch)
           return "".join(out)
       """),
        lambda r: [word(r, 0, 12, "abxyzXYZ !"), r.randint(-30, 30)],
        [["", 3], ["xyz", 3], ["Hello, World!", -1], ["Abc Zz", 3]],
    ),
    Fn(
        "spiral_order",
        "medium",
        "def spiral_order(m: list[list[int]]) -> list[int]:",
        "Return the elements of the rectangular matrix m in clockwise spiral order from the top-left.",
        d("""
       def spiral_order(m):
           out = []
           m = [row[:] for row in m]
           while m and m[0]:
               out += m.pop(0)
               m = [list(r) for r in zip(*m)][::-1]
           return out
       """),
        lambda r: (lambda w: [[ints(r, w, w, 0, 9) for _ in range(r.randint(1, 4))]])(r.randint(1, 4)),
        [[[]], [[[1]]], [[[1, 2], [3, 4]]]],
    ),
    Fn(
        "pascal_row",
        "medium",
        "def pascal_row(n: int) -> list[int]:",
        "Return row n (0-based) of Pascal's triangle.",
        d("""
       def pascal_row(n):
           row = [1]
           for _ in range(n):
               row = [a + b for a, b in zip([0] + row, row + [0])]
           return row
       """),
        lambda r: [r.randint(0, 30)],
        [[0], [1], [4]],
    ),
    Fn(
        "valid_ipv4",
        "medium",
        "def valid_ipv4(s: str) -> bool:",
        "Return True if s is a dotted IPv4 address: four decimal parts 0..255, no leading zeros "
        "(except '0' itself), digits only.",
        d("""
       def valid_ipv4(s):
           parts = s.split(".")
           if len(parts) != 4:
               return False
           for p in parts:
               if not p.isdigit() or not p.isascii() or (len(p) > 1 and p[0] == "0") or int(p) > 255:
                   return False
           return True
       """),
        lambda r: [
            ".".join(
                r.choice(["0", "1", "01", "255", "256", str(r.randint(0, 300)), ""])
                for _ in range(r.choice([3, 4, 4, 4, 5]))
            )
        ],
        [["192.168.0.1"], ["1.2.3"], ["01.2.3.4"], ["1.2.3.a"], ["0.0.0.0"]],
    ),
    Fn(
        "group_by_length",
        "medium",
        "def group_by_length(words: list[str]) -> list[list[str]]:",
        "Group words by length: return the groups ordered by length, each group's words sorted "
        "alphabetically (duplicates kept).",
        d("""
       def group_by_length(words):
           groups = {}
           for w in words:
               groups.setdefault(len(w), []).append(w)
           return [sorted(groups[k]) for k in sorted(groups)]
       """),
        lambda r: [[word(r, 1, 4, "abc") for _ in range(r.randint(0, 7))]],
        [[[]], [["b", "a", "cc"]]],
    ),
    Fn(
        "int_to_binary",
        "medium",
        "def int_to_binary(n: int) -> str:",
        "Return the binary representation of n without bin(), format() or f-strings' b format; "
        "negative numbers get a leading '-'.",
        d("""
       def int_to_binary(n):
           if n == 0:
               return "0"
           sign, n = ("-", -n) if n < 0 else ("", n)
           bits = ""
           while n:
               bits = str(n % 2) + bits
               n //= 2
           return sign + bits
       """),
        lambda r: [r.randint(-1000, 1000)],
        [[0], [1], [-5], [1024]],
    ),
    Fn(
        "missing_number",
        "medium",
        "def missing_number(xs: list[int]) -> int:",
        "xs holds distinct numbers from 0..n with exactly one missing (n = len(xs)); return it.",
        d("""
       def missing_number(xs):
           n = len(xs)
           return n * (n + 1) // 2 - sum(xs)
       """),
        lambda r: (lambda n, k: [r.sample([i for i in range(n + 1) if i != k], n)])(
            *(lambda n: (n, r.randint(0, n)))(r.randint(1, 12))
        ),
        [[[]], [[0]], [[1]]],
    ),
    Fn(
        "compress_ranges",
        "medium",
        "def compress_ranges(xs: list[int]) -> list[str]:",
        "xs is sorted and has no duplicates. Return its maximal runs of consecutive integers as "
        "strings: 'a->b' for a run of two or more, 'a' for a single number.",
        d("""
       def compress_ranges(xs):
           out, i = [], 0
           while i < len(xs):
               j = i
               while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
                   j += 1
               out.append(str(xs[i]) if i == j else f"{xs[i]}->{xs[j]}")
               i = j + 1
           return out
       """),
        lambda r: [sorted(set(ints(r, 0, 10, -5, 12)))],
        [[[]], [[1]], [[1, 2, 4, 5, 7]]],
    ),
]


def _roman(n: int) -> str:
    vals = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ]
    out = ""
    for v, s in vals:
        while n >= v:
            out += s
            n -= v
    return out


def _nested(r: random.Random, depth: int) -> list:
    out: list = []
    for _ in range(r.randint(0, 4)):
        out.append(_nested(r, depth - 1) if depth and r.random() < 0.3 else r.randint(0, 9))
    return out
