"""A further batch of function-call problems (numbers, strings, sequences, simulation)."""

# ruff: noqa: E501 - problem data: statements and inline programs read best unwrapped

import random

from . import Fn, d, ints, word


def _time(r: random.Random) -> str:
    return f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}"


PROBLEMS = [
    Fn(
        "minutes_between",
        "easy",
        "def minutes_between(a: str, b: str) -> int:",
        "a and b are times 'HH:MM' on the same day. Return the minutes from a to b (negative if b is earlier).",
        'def minutes_between(a, b):\n    def m(t):\n        h, mm = t.split(":")\n        return int(h) * 60 + int(mm)\n    return m(b) - m(a)\n',
        lambda r: [_time(r), _time(r)],
        [["00:00", "23:59"], ["12:30", "12:30"], ["10:00", "09:15"]],
    ),
    Fn(
        "armstrong",
        "easy",
        "def armstrong(n: int) -> bool:",
        "Return True if n (>= 0) equals the sum of its digits each raised to the number of digits.",
        "def armstrong(n):\n    s = str(n)\n    return n == sum(int(c) ** len(s) for c in s)\n",
        lambda r: [r.choice([r.randint(0, 10000), 153, 370, 9474])],
        [[0], [153], [154], [9474]],
    ),
    Fn(
        "reverse_integer",
        "easy",
        "def reverse_integer(n: int) -> int:",
        "Return n with its decimal digits reversed, keeping the sign (leading zeros vanish).",
        "def reverse_integer(n):\n    r = int(str(abs(n))[::-1])\n    return -r if n < 0 else r\n",
        lambda r: [r.randint(-(10**6), 10**6)],
        [[0], [-120], [1000]],
    ),
    Fn(
        "count_substring",
        "easy",
        "def count_substring(s: str, sub: str) -> int:",
        "Return how many times the non-empty sub occurs in s, counting overlapping occurrences.",
        "def count_substring(s, sub):\n    return sum(1 for i in range(len(s) - len(sub) + 1) if s[i:i + len(sub)] == sub)\n",
        lambda r: [word(r, 0, 12, "ab"), word(r, 1, 3, "ab")],
        [["aaaa", "aa"], ["", "a"], ["abc", "abcd"]],
    ),
    Fn(
        "square_free",
        "medium",
        "def square_free(n: int) -> bool:",
        "Return True if no square of a prime divides n (n >= 1).",
        "def square_free(n):\n    p = 2\n    while p * p <= n:\n        if n % (p * p) == 0:\n            return False\n        p += 1\n    return True\n",
        lambda r: [r.randint(1, 5000)],
        [[1], [4], [30], [18]],
    ),
    Fn(
        "excel_column",
        "medium",
        "def excel_column(n: int) -> str:",
        "Return the spreadsheet column name of the 1-based column number n (1 -> 'A', 27 -> 'AA').",
        'def excel_column(n):\n    s = ""\n    while n:\n        n, rem = divmod(n - 1, 26)\n        s = chr(65 + rem) + s\n    return s\n',
        lambda r: [r.randint(1, 20000)],
        [[1], [26], [27], [702], [703]],
    ),
    Fn(
        "excel_number",
        "medium",
        "def excel_number(col: str) -> int:",
        "Return the 1-based column number of a spreadsheet column name ('A' -> 1, 'AA' -> 27).",
        "def excel_number(col):\n    n = 0\n    for c in col:\n        n = n * 26 + ord(c) - 64\n    return n\n",
        lambda r: [word(r, 1, 3, "ABCXYZ")],
        [["A"], ["Z"], ["AA"], ["ZZ"]],
    ),
    Fn(
        "look_and_say",
        "medium",
        "def look_and_say(n: int) -> str:",
        "Return the n-th term (n >= 1) of the look-and-say sequence starting '1', '11', '21', '1211'.",
        d("""
       def look_and_say(n):
           s = "1"
           for _ in range(n - 1):
               out, i = "", 0
               while i < len(s):
                   j = i
                   while j < len(s) and s[j] == s[i]:
                       j += 1
                   out += str(j - i) + s[i]
                   i = j
               s = out
           return s
       """),
        lambda r: [r.randint(1, 15)],
        [[1], [2], [5]],
    ),
    Fn(
        "pig_latin",
        "medium",
        "def pig_latin(s: str) -> str:",
        "Translate each space-separated lower-case word: a word starting with a vowel (aeiou) gets "
        "'way' appended; otherwise its leading consonants move to the end followed by 'ay'. Words "
        "without vowels just get 'ay'.",
        d("""
       def pig_latin(s):
           out = []
           for w in s.split():
               if w[0] in "aeiou":
                   out.append(w + "way")
                   continue
               i = 0
               while i < len(w) and w[i] not in "aeiou":
                   i += 1
               out.append(w[i:] + w[:i] + "ay")
           return " ".join(out)
       """),
        lambda r: [" ".join(word(r, 1, 5, "bcstraeio") for _ in range(r.randint(1, 4)))],
        [["apple"], ["string"], ["rhythm"]],
    ),
    Fn(
        "rle_decode",
        "medium",
        "def rle_decode(s: str) -> str:",
        "Decode a run-length string of count+character pairs, e.g. '3a2b' -> 'aaabb' (counts may have several digits).",
        d("""
       def rle_decode(s):
           out, num = [], ""
           for c in s:
               if c.isdigit():
                   num += c
               else:
                   out.append(c * int(num))
                   num = ""
           return "".join(out)
       """),
        lambda r: ["".join(f"{r.randint(1, 12)}{r.choice('abc')}" for _ in range(r.randint(0, 4)))],
        [[""], ["1a"], ["12b1c"]],
    ),
    Fn(
        "valid_parentheses_count",
        "hard",
        "def min_insertions(s: str) -> int:",
        "s contains only '(' and ')'. Return the fewest parentheses to insert to make it balanced.",
        d("""
       def min_insertions(s):
           open_, need = 0, 0
           for c in s:
               if c == "(":
                   open_ += 1
               elif open_:
                   open_ -= 1
               else:
                   need += 1
           return need + open_
       """),
        lambda r: ["".join(r.choice("()") for _ in range(r.randint(0, 12)))],
        [[""], ["())"], ["((("], ["()))(("]],
    ),
    Fn(
        "sum_of_primes_below",
        "medium",
        "def sum_of_primes_below(n: int) -> int:",
        "Return the sum of all primes strictly less than n.",
        d("""
       def sum_of_primes_below(n):
           if n < 3:
               return 0
           sieve = [True] * n
           sieve[0] = sieve[1] = False
           for i in range(2, int(n ** 0.5) + 1):
               if sieve[i]:
                   for j in range(i * i, n, i):
                       sieve[j] = False
           return sum(i for i in range(n) if sieve[i])
       """),
        lambda r: [r.randint(0, 20000)],
        [[0], [2], [3], [10]],
    ),
    Fn(
        "closest_pair_sum",
        "hard",
        "def closest_pair_sum(xs: list[int], t: int) -> int:",
        "Return the sum of two elements at different positions that is closest to t (the smaller sum on ties). len(xs) >= 2.",
        d("""
       def closest_pair_sum(xs, t):
           best = None
           for i in range(len(xs)):
               for j in range(i + 1, len(xs)):
                   s = xs[i] + xs[j]
                   if best is None or (abs(s - t), s) < (abs(best - t), best):
                       best = s
           return best
       """),
        lambda r: [ints(r, 2, 8, -20, 20), r.randint(-30, 30)],
        [[[1, 2], 100], [[1, 3, 5], 6], [[-1, 1, 3], 1]],
    ),
    Fn(
        "flood_fill",
        "hard",
        "def flood_fill(grid: list[str], r: int, c: int, ch: str) -> list[str]:",
        "Replace the 4-connected region of equal characters containing (r, c) with ch and return the new grid.",
        d("""
       def flood_fill(grid, r, c, ch):
           g = [list(row) for row in grid]
           old = g[r][c]
           if old == ch:
               return grid
           stack = [(r, c)]
           while stack:
               i, j = stack.pop()
               if 0 <= i < len(g) and 0 <= j < len(g[0]) and g[i][j] == old:
                   g[i][j] = ch
                   stack += [(i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)]
           return ["".join(row) for row in g]
       """),
        lambda r: (
            lambda h, w: [
                ["".join(r.choice("ab") for _ in range(w)) for _ in range(h)],
                r.randrange(h),
                r.randrange(w),
                r.choice("abx"),
            ]
        )(r.randint(1, 4), r.randint(1, 4)),
        [[["a"], 0, 0, "a"], [["aab", "abb"], 0, 0, "x"], [["aab"], 0, 0, "x"]],
    ),
    Fn(
        "nearest_smaller_left",
        "hard",
        "def nearest_smaller_left(xs: list[int]) -> list[int]:",
        "For each element, return the nearest element to its left that is strictly smaller, or -1.",
        d("""
       def nearest_smaller_left(xs):
           out, stack = [], []
           for x in xs:
               while stack and stack[-1] >= x:
                   stack.pop()
               out.append(stack[-1] if stack else -1)
               stack.append(x)
           return out
       """),
        lambda r: [ints(r, 0, 10, 0, 9)],
        [[[]], [[1, 2, 3]], [[3, 2, 1]]],
    ),
    Fn(
        "simplify_path",
        "hard",
        "def simplify_path(path: str) -> str:",
        "Simplify an absolute Unix path: collapse '//' and '.', resolve '..' (never above '/'), no trailing slash except the root.",
        d("""
       def simplify_path(path):
           parts = []
           for p in path.split("/"):
               if p == "..":
                   if parts:
                       parts.pop()
               elif p and p != ".":
                   parts.append(p)
           return "/" + "/".join(parts)
       """),
        lambda r: ["/" + "/".join(r.choice(["a", "b", ".", "..", "", "c"]) for _ in range(r.randint(0, 6)))],
        [["/"], ["/../"], ["/home//foo/"], ["/a/./b/../../c/"]],
    ),
    Fn(
        "happy_number",
        "easy",
        "def happy_number(n: int) -> bool:",
        "Return True if repeatedly replacing n (>= 1) by the sum of the squares of its digits reaches 1.",
        "def happy_number(n):\n    seen = set()\n    while n != 1 and n not in seen:\n        seen.add(n)\n        n = sum(int(c) ** 2 for c in str(n))\n    return n == 1\n",
        lambda r: [r.randint(1, 1000)],
        [[1], [7], [2], [19]],
    ),
    Fn(
        "binary_gap",
        "easy",
        "def binary_gap(n: int) -> int:",
        "Return the longest run of zeros surrounded by ones in the binary form of n (>= 1), or 0.",
        'def binary_gap(n):\n    parts = bin(n)[2:].strip("0").split("1")\n    return max(len(p) for p in parts)\n',
        lambda r: [r.randint(1, 2**20)],
        [[1], [9], [32], [529]],
    ),
    Fn(
        "set_matrix_zeroes",
        "medium",
        "def set_zeroes(m: list[list[int]]) -> list[list[int]]:",
        "Return a copy of m where every row and column that contains a 0 is set entirely to 0.",
        d("""
       def set_zeroes(m):
           rows = {i for i, row in enumerate(m) for v in row if v == 0}
           cols = {j for row in m for j, v in enumerate(row) if v == 0}
           return [[0 if i in rows or j in cols else v for j, v in enumerate(row)] for i, row in enumerate(m)]
       """),
        lambda r: (lambda w: [[ints(r, w, w, 0, 4) for _ in range(r.randint(1, 4))]])(r.randint(1, 4)),
        [[[[1]]], [[[0, 1], [1, 1]]]],
    ),
    Fn(
        "top_k_frequent",
        "medium",
        "def top_k_frequent(xs: list[int], k: int) -> list[int]:",
        "Return the k most frequent values, most frequent first, ties broken by smaller value; k <= number of distinct values.",
        d("""
       from collections import Counter

       def top_k_frequent(xs, k):
           c = Counter(xs)
           return sorted(c, key=lambda v: (-c[v], v))[:k]
       """),
        lambda r: (lambda xs: [xs, r.randint(0, len(set(xs)))])(ints(r, 0, 12, 0, 5)),
        [[[], 0], [[1, 1, 2], 1], [[3, 1, 2, 2, 3], 2]],
    ),
    Fn(
        "spiral_matrix",
        "hard",
        "def spiral_matrix(n: int) -> list[list[int]]:",
        "Return the n x n matrix filled with 1..n*n in clockwise spiral order from the top-left.",
        d("""
       def spiral_matrix(n):
           m = [[0] * n for _ in range(n)]
           i = j = 0
           di, dj = 0, 1
           for v in range(1, n * n + 1):
               m[i][j] = v
               ni, nj = i + di, j + dj
               if not (0 <= ni < n and 0 <= nj < n) or m[ni][nj]:
                   di, dj = dj, -di
                   ni, nj = i + di, j + dj
               i, j = ni, nj
           return m
       """),
        lambda r: [r.randint(0, 6)],
        [[0], [1], [3]],
    ),
    Fn(
        "bowling_score",
        "hard",
        "def bowling_score(rolls: list[int]) -> int:",
        "Return the score of a complete ten-pin bowling game given its rolls (strikes and spares "
        "earn the next two / one rolls as bonus; the tenth frame may have bonus rolls).",
        d("""
       def bowling_score(rolls):
           score, i = 0, 0
           for _ in range(10):
               if rolls[i] == 10:
                   score += 10 + rolls[i + 1] + rolls[i + 2]
                   i += 1
               elif rolls[i] + rolls[i + 1] == 10:
                   score += 10 + rolls[i + 2]
                   i += 2
               else:
                   score += rolls[i] + rolls[i + 1]
                   i += 2
           return score
       """),
        lambda r: [_bowling(r)],
        [[[0] * 20], [[10] * 12], [[5] * 21]],
    ),
    Fn(
        "wildcard_match",
        "hard",
        "def wildcard_match(s: str, p: str) -> bool:",
        "Return True if the pattern p matches all of s, where '?' matches one character and '*' any sequence (also empty).",
        d("""
       def wildcard_match(s, p):
           dp = [True] + [False] * len(s)
           for c in p:
               if c == "*":
                   for j in range(1, len(s) + 1):
                       dp[j] = dp[j] or dp[j - 1]
               else:
                   new = [False] * (len(s) + 1)
                   for j in range(1, len(s) + 1):
                       new[j] = dp[j - 1] and (c == "?" or c == s[j - 1])
                   dp = new
           return dp[-1]
       """),
        lambda r: [word(r, 0, 6, "ab"), word(r, 0, 5, "ab?*")],
        [
            ["", ""],
            ["", "*"],
            ["aa", "a"],
            ["adceb", "*a*b"],
            ["abc", "abd"],
            ["abc", "a?c"],
            ["ab", "*b"],
            ["a", "a*a"],
            ["ab", "a*"],
            ["a", "a?*"],
        ],
    ),
    Fn(
        "polygon_perimeter",
        "medium",
        "def polygon_perimeter(pts: list[list[int]]) -> float:",
        "Return the perimeter of the closed polygon through the points in order (0.0 for fewer than 2 points).",
        d("""
       import math

       def polygon_perimeter(pts):
           if len(pts) < 2:
               return 0.0
           return sum(math.dist(pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts)))
       """),
        lambda r: [[[r.randint(-9, 9), r.randint(-9, 9)] for _ in range(r.randint(0, 6))]],
        [[[]], [[[0, 0], [3, 4]]], [[[0, 0], [1, 0], [1, 1], [0, 1]]]],
        float_tol=1e-6,
    ),
    Fn(
        "ugly_number",
        "medium",
        "def nth_ugly(n: int) -> int:",
        "Return the n-th (1-based) positive integer whose only prime factors are 2, 3 and 5 (1 is the first).",
        d("""
       def nth_ugly(n):
           u = [1]
           i2 = i3 = i5 = 0
           while len(u) < n:
               nxt = min(u[i2] * 2, u[i3] * 3, u[i5] * 5)
               u.append(nxt)
               if nxt == u[i2] * 2:
                   i2 += 1
               if nxt == u[i3] * 3:
                   i3 += 1
               if nxt == u[i5] * 5:
                   i5 += 1
           return u[n - 1]
       """),
        lambda r: [r.randint(1, 1500)],
        [[1], [7], [10]],
    ),
    Fn(
        "tic_tac_toe_winner",
        "medium",
        "def tic_tac_toe_winner(board: list[str]) -> str:",
        "board is 3 strings of 3 characters 'X', 'O' or '.'. Return 'X' or 'O' if that player has a "
        "line of three (X when both do), 'draw' if the board is full without a line, else 'pending'.",
        d("""
       def tic_tac_toe_winner(board):
           lines = [board[i] for i in range(3)] + ["".join(board[i][j] for i in range(3)) for j in range(3)]
           lines += ["".join(board[i][i] for i in range(3)), "".join(board[i][2 - i] for i in range(3))]
           for p in "XO":
               if p * 3 in lines:
                   return p
           return "draw" if all("." not in row for row in board) else "pending"
       """),
        lambda r: [["".join(r.choice("XO.") for _ in range(3)) for _ in range(3)]],
        [[["XXX", "OO.", "..."]], [["XOX", "XOO", "OXX"]], [["...", "...", "..."]]],
    ),
]


def _bowling(r: random.Random) -> list[int]:
    rolls = []
    for frame in range(10):
        a = 10 if r.random() < 0.2 else r.randint(0, 9)
        rolls.append(a)
        if a < 10:
            b = 10 - a if r.random() < 0.3 else r.randint(0, 9 - a)
            rolls.append(b)
            if frame == 9 and a + b == 10:
                rolls.append(r.randint(0, 10))
        elif frame == 9:
            rolls += [r.randint(0, 10), r.randint(0, 10)]
    return rolls
