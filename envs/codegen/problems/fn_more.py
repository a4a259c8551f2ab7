"""More function-call problems across difficulties (strings, lists, numbers, dicts)."""

# ruff: noqa: E501 - problem data: statements and inline programs read best unwrapped

import random

from . import Fn, d, ints, word


def _sentence(r: random.Random) -> str:
    return " ".join(word(r, 1, 6, "abcdeo") for _ in range(r.randint(0, 6)))


PROBLEMS = [
    Fn(
        "is_anagram",
        "easy",
        "def is_anagram(a: str, b: str) -> bool:",
        "Return True if a and b contain the same letters with the same counts (case-sensitive).",
        "def is_anagram(a, b):\n    return sorted(a) == sorted(b)\n",
        lambda r: [word(r, 0, 5, "abc"), word(r, 0, 5, "abc")],
        [["", ""], ["listen", "silent"], ["aab", "abb"]],
    ),
    Fn(
        "sum_digits_string",
        "easy",
        "def sum_digits_string(s: str) -> int:",
        "Return the sum of all digit characters in s.",
        "def sum_digits_string(s):\n    return sum(int(c) for c in s if c.isdigit())\n",
        lambda r: [word(r, 0, 10, "a1b2c39")],
        [[""], ["abc"], ["9x9"]],
    ),
    Fn(
        "count_positive",
        "easy",
        "def count_positive(xs: list[int]) -> int:",
        "Return how many elements of xs are strictly positive.",
        "def count_positive(xs):\n    return sum(1 for x in xs if x > 0)\n",
        lambda r: [ints(r, 0, 10, -5, 5)],
        [[[]], [[0, 0]], [[-1, 1]]],
    ),
    Fn(
        "swap_case",
        "easy",
        "def swap_case(s: str) -> str:",
        "Return s with lower-case letters made upper-case and vice versa.",
        "def swap_case(s):\n    return s.swapcase()\n",
        lambda r: [word(r, 0, 10, "aBcD1 ")],
        [[""], ["Hello World"]],
    ),
    Fn(
        "multiply_list",
        "easy",
        "def multiply_list(xs: list[int]) -> int:",
        "Return the product of all elements of xs (1 for an empty list).",
        "def multiply_list(xs):\n    p = 1\n    for x in xs:\n        p *= x\n    return p\n",
        lambda r: [ints(r, 0, 8, -4, 4)],
        [[[]], [[0, 5]], [[-2, -3]]],
    ),
    Fn(
        "last_word_length",
        "easy",
        "def last_word_length(s: str) -> int:",
        "Return the length of the last word of s (words are separated by spaces); 0 if none.",
        "def last_word_length(s):\n    words = s.split()\n    return len(words[-1]) if words else 0\n",
        lambda r: [_sentence(r) + r.choice(["", " ", "  "])],
        [[""], ["   "], ["fly me   to the moon  "]],
    ),
    Fn(
        "min_max_diff",
        "easy",
        "def min_max_diff(xs: list[int]) -> int:",
        "Return max(xs) - min(xs), or 0 for an empty list.",
        "def min_max_diff(xs):\n    return max(xs) - min(xs) if xs else 0\n",
        lambda r: [ints(r, 0, 9, -50, 50)],
        [[[]], [[4]], [[3, -3]]],
    ),
    Fn(
        "even_index_sum",
        "easy",
        "def even_index_sum(xs: list[int]) -> int:",
        "Return the sum of the elements at even indices (0, 2, 4, ...).",
        "def even_index_sum(xs):\n    return sum(xs[::2])\n",
        lambda r: [ints(r, 0, 9, -9, 9)],
        [[[]], [[5]], [[1, 100, 2]]],
    ),
    Fn(
        "triangle_kind",
        "easy",
        "def triangle_kind(a: int, b: int, c: int) -> str:",
        "Return 'invalid' if a, b, c (positive) cannot form a triangle with positive area, else "
        "'equilateral', 'isosceles' or 'scalene'.",
        d("""
       def triangle_kind(a, b, c):
           x, y, z = sorted((a, b, c))
           if x <= 0 or x + y <= z:
               return "invalid"
           if x == z:
               return "equilateral"
           if x == y or y == z:
               return "isosceles"
           return "scalene"
       """),
        lambda r: [r.randint(1, 6), r.randint(1, 6), r.randint(1, 6)],
        [[1, 1, 2], [2, 2, 2], [3, 4, 5], [0, 1, 1], [1, 2, 2], [1, 1, 1]],
    ),
    Fn(
        "acronym",
        "easy",
        "def acronym(s: str) -> str:",
        "Return the upper-cased first letters of the space-separated words of s.",
        'def acronym(s):\n    return "".join(w[0].upper() for w in s.split())\n',
        lambda r: [_sentence(r)],
        [[""], ["portable network graphics"]],
    ),
    Fn(
        "chunk_list",
        "medium",
        "def chunk_list(xs: list[int], k: int) -> list[list[int]]:",
        "Split xs into consecutive chunks of size k (k >= 1); the last chunk may be shorter.",
        "def chunk_list(xs, k):\n    return [xs[i:i + k] for i in range(0, len(xs), k)]\n",
        lambda r: [ints(r, 0, 10, 0, 9), r.randint(1, 4)],
        [[[], 3], [[1, 2, 3], 5], [[1, 2, 3, 4], 2]],
    ),
    Fn(
        "interleave",
        "medium",
        "def interleave(a: list[int], b: list[int]) -> list[int]:",
        "Interleave a and b (a[0], b[0], a[1], b[1], ...); the rest of the longer list follows.",
        d("""
       def interleave(a, b):
           out = []
           for i in range(max(len(a), len(b))):
               if i < len(a):
                   out.append(a[i])
               if i < len(b):
                   out.append(b[i])
           return out
       """),
        lambda r: [ints(r, 0, 5, 0, 9), ints(r, 0, 5, 10, 19)],
        [[[], []], [[1], []], [[1, 2, 3], [9]]],
    ),
    Fn(
        "most_common_char",
        "medium",
        "def most_common_char(s: str) -> str:",
        "Return the most frequent character of s (the earliest in s on ties); '' for ''.",
        d("""
       def most_common_char(s):
           best = ""
           for ch in s:
               if not best or s.count(ch) > s.count(best):
                   best = ch
           return best
       """),
        lambda r: [word(r, 0, 12, "abcab")],
        [[""], ["abab"], ["zzy"]],
    ),
    Fn(
        "is_sorted",
        "easy",
        "def is_sorted(xs: list[int]) -> bool:",
        "Return True if xs is sorted in non-decreasing order.",
        "def is_sorted(xs):\n    return all(a <= b for a, b in zip(xs, xs[1:]))\n",
        lambda r: [sorted(ints(r, 0, 6, 0, 9)) if r.random() < 0.5 else ints(r, 0, 6, 0, 9)],
        [[[]], [[1, 1]], [[2, 1]]],
    ),
    Fn(
        "zip_to_dict_sum",
        "medium",
        "def key_sums(pairs: list[list]) -> list[list]:",
        "pairs holds [key, value] with string keys and int values. Return [key, total] for each "
        "distinct key, in order of first appearance.",
        d("""
       def key_sums(pairs):
           totals = {}
           for k, v in pairs:
               totals[k] = totals.get(k, 0) + v
           return [[k, v] for k, v in totals.items()]
       """),
        lambda r: [[[r.choice("abc"), r.randint(-5, 5)] for _ in range(r.randint(0, 7))]],
        [[[]], [[["a", 1], ["a", -1]]]],
    ),
    Fn(
        "hamming",
        "easy",
        "def hamming(a: str, b: str) -> int:",
        "Return the number of positions where a and b differ; strings of different length give -1.",
        "def hamming(a, b):\n    if len(a) != len(b):\n        return -1\n    return sum(x != y for x, y in zip(a, b))\n",
        lambda r: (lambda n: [word(r, n, n, "ACGT"), word(r, n, n if r.random() < 0.8 else n + 1, "ACGT")])(
            r.randint(0, 8)
        ),
        [["", ""], ["A", "AA"], ["GATTACA", "GACTATA"]],
    ),
    Fn(
        "collatz_steps",
        "medium",
        "def collatz_steps(n: int) -> int:",
        "Return how many Collatz steps (n -> n/2 if even, else 3n+1) take n (>= 1) to 1.",
        "def collatz_steps(n):\n    k = 0\n    while n != 1:\n        n = n // 2 if n % 2 == 0 else 3 * n + 1\n        k += 1\n    return k\n",
        lambda r: [r.randint(1, 10000)],
        [[1], [2], [27]],
    ),
    Fn(
        "to_snake_case",
        "medium",
        "def to_snake_case(s: str) -> str:",
        "Convert a camelCase or PascalCase identifier (ASCII letters and digits) to snake_case: "
        "an underscore goes before each upper-case letter that is not the first character, and "
        "everything is lower-cased.",
        'def to_snake_case(s):\n    return "".join(("_" if c.isupper() and i else "") + c.lower() for i, c in enumerate(s))\n',
        lambda r: [
            "".join(
                w.capitalize() if i or r.random() < 0.5 else w
                for i, w in enumerate(word(r, 1, 4, "abcxyz") for _ in range(r.randint(1, 4)))
            )
        ],
        [["a"], ["camelCase"], ["HTTPServer"], ["x1Y2"]],
    ),
    Fn(
        "balanced_split",
        "medium",
        "def balanced_split(xs: list[int]) -> int:",
        "Return the smallest index i (0 <= i <= len(xs)) such that sum(xs[:i]) == sum(xs[i:]), or -1 if there is none.",
        d("""
       def balanced_split(xs):
           total, left = sum(xs), 0
           for i in range(len(xs) + 1):
               if 2 * left == total:
                   return i
               if i < len(xs):
                   left += xs[i]
           return -1
       """),
        lambda r: [ints(r, 0, 8, -3, 3)],
        [[[]], [[1, 1]], [[1, 2, 3]], [[5]]],
    ),
    Fn(
        "matrix_diagonal_sum",
        "easy",
        "def diagonal_sum(m: list[list[int]]) -> int:",
        "Return the sum of both diagonals of the square matrix m (the centre counted once).",
        "def diagonal_sum(m):\n    n = len(m)\n    return sum(m[i][i] + m[i][n - 1 - i] for i in range(n)) - (m[n // 2][n // 2] if n % 2 else 0)\n",
        lambda r: (lambda n: [[ints(r, n, n, 0, 9) for _ in range(n)]])(r.randint(1, 5)),
        [[[[5]]], [[[1, 2], [3, 4]]]],
    ),
    Fn(
        "digits_to_words",
        "easy",
        "def digits_to_words(n: int) -> str:",
        "Spell the decimal digits of n (>= 0) as English words joined by '-', e.g. 42 -> 'four-two'.",
        d("""
       def digits_to_words(n):
           names = "zero one two three four five six seven eight nine".split()
           return "-".join(names[int(c)] for c in str(n))
       """),
        lambda r: [r.randint(0, 10**6)],
        [[0], [42], [1000]],
    ),
    Fn(
        "nth_prime",
        "medium",
        "def nth_prime(n: int) -> int:",
        "Return the n-th prime (nth_prime(1) == 2).",
        d("""
       def nth_prime(n):
           primes = []
           k = 2
           while len(primes) < n:
               if all(k % p for p in primes if p * p <= k):
                   primes.append(k)
               k += 1
           return primes[-1]
       """),
        lambda r: [r.randint(1, 500)],
        [[1], [2], [100]],
    ),
    Fn(
        "perfect_number",
        "easy",
        "def perfect_number(n: int) -> bool:",
        "Return True if n (>= 1) equals the sum of its proper divisors.",
        "def perfect_number(n):\n    return n > 1 and sum(d for d in range(1, n) if n % d == 0) == n\n",
        lambda r: [r.choice([r.randint(1, 600), 6, 28, 496])],
        [[1], [6], [28], [12]],
    ),
    Fn(
        "group_consecutive",
        "medium",
        "def group_consecutive(xs: list[int]) -> list[list[int]]:",
        "Group runs of equal adjacent elements: [1,1,2,1] -> [[1,1],[2],[1]].",
        d("""
       def group_consecutive(xs):
           out = []
           for x in xs:
               if out and out[-1][0] == x:
                   out[-1].append(x)
               else:
                   out.append([x])
           return out
       """),
        lambda r: [ints(r, 0, 10, 0, 2)],
        [[[]], [[7]], [[1, 1, 2, 1]]],
    ),
    Fn(
        "vowel_positions",
        "easy",
        "def vowel_positions(s: str) -> list[int]:",
        "Return the indices of the lower-case vowels (aeiou) in s.",
        'def vowel_positions(s):\n    return [i for i, c in enumerate(s) if c in "aeiou"]\n',
        lambda r: [word(r, 0, 10, "abeiouxA")],
        [[""], ["xyz"], ["aeiou"]],
    ),
    Fn(
        "bits_set",
        "easy",
        "def bits_set(n: int) -> int:",
        "Return the number of 1 bits in the binary representation of n (n >= 0).",
        'def bits_set(n):\n    return bin(n).count("1")\n',
        lambda r: [r.randint(0, 2**40)],
        [[0], [1], [255], [2**40]],
    ),
    Fn(
        "stock_profit",
        "medium",
        "def stock_profit(prices: list[int]) -> int:",
        "Return the largest profit from buying on one day and selling on a later day (0 if none).",
        d("""
       def stock_profit(prices):
           best, low = 0, None
           for p in prices:
               if low is None or p < low:
                   low = p
               best = max(best, p - low)
           return best
       """),
        lambda r: [ints(r, 0, 10, 1, 20)],
        [[[]], [[7, 6, 4, 3, 1]], [[7, 1, 5, 3, 6, 4]]],
    ),
    Fn(
        "majority_element",
        "medium",
        "def majority_element(xs: list[int]) -> int | None:",
        "Return the value that occurs in more than half of the positions of xs, or None.",
        d("""
       def majority_element(xs):
           for x in set(xs):
               if 2 * xs.count(x) > len(xs):
                   return x
           return None
       """),
        lambda r: [ints(r, 0, 9, 0, 2)],
        [[[]], [[1, 2]], [[3, 3, 4]]],
    ),
    Fn(
        "pangram",
        "easy",
        "def pangram(s: str) -> bool:",
        "Return True if s contains every letter a-z at least once (case-insensitive).",
        'def pangram(s):\n    return set("abcdefghijklmnopqrstuvwxyz") <= set(s.lower())\n',
        lambda r: [
            r.choice(["The quick brown fox jumps over the lazy dog", word(r, 10, 40, "abcdefghijklmnopqrstuvwxy")])
        ],
        [[""], ["abcdefghijklmnopqrstuvwxyz"], ["ABCDEFGHIJKLMNOPQRSTUVWXY"]],
    ),
    Fn(
        "queue_by_two_stacks",
        "hard",
        "def simulate_queue(ops: list[list]) -> list[int]:",
        "Simulate a FIFO queue: each op is ['push', x] or ['pop']; return the popped values in "
        "order (a pop from an empty queue yields -1).",
        d("""
       from collections import deque

       def simulate_queue(ops):
           q, out = deque(), []
           for op in ops:
               if op[0] == "push":
                   q.append(op[1])
               else:
                   out.append(q.popleft() if q else -1)
           return out
       """),
        lambda r: [[["push", r.randint(0, 9)] if r.random() < 0.6 else ["pop"] for _ in range(r.randint(0, 10))]],
        [[[]], [[["pop"]]], [[["push", 1], ["push", 2], ["pop"], ["pop"], ["pop"]]]],
    ),
    Fn(
        "lru_cache_sim",
        "hard",
        "def lru_misses(capacity: int, keys: list[int]) -> int:",
        "Simulate an LRU cache of the given capacity (>= 1) over the access sequence keys and "
        "return the number of misses.",
        d("""
       from collections import OrderedDict

       def lru_misses(capacity, keys):
           cache, misses = OrderedDict(), 0
           for k in keys:
               if k in cache:
                   cache.move_to_end(k)
               else:
                   misses += 1
                   cache[k] = True
                   if len(cache) > capacity:
                       cache.popitem(last=False)
           return misses
       """),
        lambda r: [r.randint(1, 3), ints(r, 0, 14, 0, 4)],
        [[1, []], [2, [1, 2, 1, 3, 2]], [3, [1, 2, 3, 4, 1]]],
    ),
    Fn(
        "decode_string",
        "hard",
        "def decode_string(s: str) -> str:",
        "Decode k[encoded] patterns (k a positive integer, nesting allowed): '3[a2[c]]' -> "
        "'accaccacc'. Letters outside brackets stay.",
        d("""
       def decode_string(s):
           stack, cur, num = [], "", 0
           for ch in s:
               if ch.isdigit():
                   num = num * 10 + int(ch)
               elif ch == "[":
                   stack.append((cur, num))
                   cur, num = "", 0
               elif ch == "]":
                   prev, k = stack.pop()
                   cur = prev + cur * k
               else:
                   cur += ch
           return cur
       """),
        lambda r: [_encoded(r, 2)],
        [[""], ["abc"], ["3[a2[c]]"], ["2[ab]3[c]d"], ["12[ab]"]],
    ),
    Fn(
        "validate_sudoku_row",
        "medium",
        "def valid_sudoku(board: list[str]) -> bool:",
        "board is 9 strings of 9 characters ('1'-'9' or '.'). Return True if no digit repeats in "
        "any row, column or 3x3 box (empty cells are fine).",
        d("""
       def valid_sudoku(board):
           seen = set()
           for i in range(9):
               for j in range(9):
                   c = board[i][j]
                   if c == ".":
                       continue
                   keys = {("r", i, c), ("c", j, c), ("b", i // 3, j // 3, c)}
                   if keys & seen:
                       return False
                   seen |= keys
           return True
       """),
        lambda r: [["".join(r.choice("123456789" + "." * 30) for _ in range(9)) for _ in range(9)]],
        [
            [["." * 9] * 9],
            [["12" + "." * 7] + ["." * 9] * 8],
            [["1" + "." * 8, ".1" + "." * 7] + ["." * 9] * 7],  # a repeat only within a box
            [["..7......", "...7.....", "5........", ".5......."] + ["." * 9] * 5],  # across box borders
        ],
    ),
    Fn(
        "min_window_len",
        "hard",
        "def min_window_len(xs: list[int], target: int) -> int:",
        "xs holds positive ints. Return the length of the shortest contiguous subarray with sum "
        ">= target, or 0 if none.",
        d("""
       def min_window_len(xs, target):
           best, lo, s = 0, 0, 0
           for hi, x in enumerate(xs):
               s += x
               while s >= target:
                   best = hi - lo + 1 if not best else min(best, hi - lo + 1)
                   s -= xs[lo]
                   lo += 1
           return best
       """),
        lambda r: [ints(r, 0, 10, 1, 9), r.randint(1, 30)],
        [[[], 1], [[2, 3, 1, 2, 4, 3], 7], [[1, 1], 3]],
    ),
    Fn(
        "jump_game",
        "hard",
        "def can_reach_end(jumps: list[int]) -> bool:",
        "Starting at index 0, from index i you may jump up to jumps[i] positions forward. Return "
        "True if the last index is reachable (jumps is non-empty).",
        d("""
       def can_reach_end(jumps):
           reach = 0
           for i, j in enumerate(jumps):
               if i > reach:
                   return False
               reach = max(reach, i + j)
           return True
       """),
        lambda r: [ints(r, 1, 9, 0, 3)],
        [[[0]], [[3, 2, 1, 0, 4]], [[2, 3, 1, 1, 4]]],
    ),
    Fn(
        "rain_water",
        "hard",
        "def rain_water(h: list[int]) -> int:",
        "Given bar heights, return how much rain water is trapped between the bars.",
        d("""
       def rain_water(h):
           lo, hi, lmax, rmax, water = 0, len(h) - 1, 0, 0, 0
           while lo < hi:
               if h[lo] < h[hi]:
                   lmax = max(lmax, h[lo])
                   water += lmax - h[lo]
                   lo += 1
               else:
                   rmax = max(rmax, h[hi])
                   water += rmax - h[hi]
                   hi -= 1
           return water
       """),
        lambda r: [ints(r, 0, 12, 0, 6)],
        [[[]], [[0, 1, 0, 2, 1, 0, 1, 3, 2, 1, 2, 1]], [[4, 2, 0, 3, 2, 5]]],
    ),
    Fn(
        "count_bits_range",
        "medium",
        "def count_bits_range(n: int) -> list[int]:",
        "Return [popcount(0), popcount(1), ..., popcount(n)] for n >= 0.",
        'def count_bits_range(n):\n    return [bin(i).count("1") for i in range(n + 1)]\n',
        lambda r: [r.randint(0, 40)],
        [[0], [5]],
    ),
    Fn(
        "gray_code",
        "hard",
        "def gray_code(n: int) -> list[int]:",
        "Return the standard reflected binary Gray code sequence of n bits (n >= 0) as ints.",
        "def gray_code(n):\n    return [i ^ (i >> 1) for i in range(1 << n)]\n",
        lambda r: [r.randint(0, 6)],
        [[0], [1], [3]],
    ),
    Fn(
        "partition_labels",
        "hard",
        "def partition_labels(s: str) -> list[int]:",
        "Split s into as many parts as possible so that each letter appears in at most one part; "
        "return the part sizes in order.",
        d("""
       def partition_labels(s):
           last = {c: i for i, c in enumerate(s)}
           out, start, end = [], 0, 0
           for i, c in enumerate(s):
               end = max(end, last[c])
               if i == end:
                   out.append(end - start + 1)
                   start = i + 1
           return out
       """),
        lambda r: [word(r, 0, 14, "abcdefg")],
        [[""], ["ababcbacadefegdehijhklij"], ["abc"]],
    ),
]


def _encoded(r: random.Random, depth: int) -> str:
    out = ""
    for _ in range(r.randint(1, 3)):
        if depth and r.random() < 0.4:
            out += f"{r.randint(1, 3)}[{_encoded(r, depth - 1)}]"
        else:
            out += word(r, 1, 2, "xyz")
    return out
