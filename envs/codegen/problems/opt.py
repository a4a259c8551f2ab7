"""CodeOptimization problems: a slow but correct baseline, an expert reference, big inputs.

``gen(r, n)`` returns the arguments of one call of size ``n``: small sizes make the
correctness tests, ``big`` makes the optimisation test where the complexity class shows
(the baseline takes a good fraction of a second, the expert a few milliseconds).
"""

# ruff: noqa: E501 - problem data: statements and inline programs read best unwrapped

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import d


@dataclass
class Opt:
    """One optimisation problem (see module doc)."""

    id: str
    signature: str
    doc: str
    baseline: str
    expert: str
    gen: Callable[[random.Random, int], list[Any]]
    big: int
    middle: str | None = None  # an in-between reference for the percentile view
    # Hand-written correctness tests after the generated ones: boundaries that random
    # inputs miss (``codegym validate --mutants`` found them untested).
    # (The env times the baseline on the largest of them too: keep them small.)
    edge: list[list[Any]] = field(default_factory=list)


def L(r: random.Random, n: int, lo: int = 0, hi: int = 10**6) -> list[int]:
    """N random ints."""
    return [r.randint(lo, hi) for _ in range(n)]


def S(r: random.Random, n: int, alphabet: str = "abcdefghij") -> str:
    """A random string of length n."""
    return "".join(r.choice(alphabet) for _ in range(n))


PROBLEMS = [
    Opt(
        "two_sum_exists",
        "def two_sum_exists(xs: list[int], t: int) -> bool:",
        "Return True if two different positions of xs hold values summing to t.",
        d("""
        def two_sum_exists(xs, t):
            for i in range(len(xs)):
                for j in range(i + 1, len(xs)):
                    if xs[i] + xs[j] == t:
                        return True
            return False
        """),
        d("""
        def two_sum_exists(xs, t):
            seen = set()
            for x in xs:
                if t - x in seen:
                    return True
                seen.add(x)
            return False
        """),
        lambda r, n: (
            lambda xs: [xs, -1 if n > 100 else (xs[0] + xs[-1] if n > 1 and r.random() < 0.6 else r.randint(0, 10**6))]
        )(L(r, n, 0, 10**6)),
        2500,
    ),
    Opt(
        "count_distinct",
        "def count_distinct(xs: list[int]) -> int:",
        "Return the number of distinct values in xs.",
        d("""
        def count_distinct(xs):
            seen = []
            for x in xs:
                if x not in seen:
                    seen.append(x)
            return len(seen)
        """),
        "def count_distinct(xs):\n    return len(set(xs))\n",
        lambda r, n: [L(r, n, 0, 3 * n + 1)],
        4000,
    ),
    Opt(
        "dedupe_keep_order",
        "def dedupe_keep_order(xs: list[int]) -> list[int]:",
        "Return xs without repeats, first occurrences in order.",
        d("""
        def dedupe_keep_order(xs):
            out = []
            for x in xs:
                if x not in out:
                    out.append(x)
            return out
        """),
        "def dedupe_keep_order(xs):\n    return list(dict.fromkeys(xs))\n",
        lambda r, n: [L(r, n, 0, 2 * n + 1)],
        4000,
    ),
    Opt(
        "range_sums",
        "def range_sums(xs: list[int], qs: list[list[int]]) -> list[int]:",
        "For each query [l, r] (0-based, inclusive) return sum(xs[l..r]).",
        d("""
        def range_sums(xs, qs):
            return [sum(xs[l:r + 1]) for l, r in qs]
        """),
        d("""
        def range_sums(xs, qs):
            pre = [0]
            for x in xs:
                pre.append(pre[-1] + x)
            return [pre[r + 1] - pre[l] for l, r in qs]
        """),
        lambda r, n: (lambda xs: [xs, [sorted([r.randrange(n), r.randrange(n)]) for _ in range(n)]])(
            L(r, n, -100, 100)
        ),
        3000,
    ),
    Opt(
        "max_subarray",
        "def max_subarray(xs: list[int]) -> int:",
        "Return the largest sum of a non-empty contiguous subarray.",
        d("""
        def max_subarray(xs):
            best = xs[0]
            for i in range(len(xs)):
                s = 0
                for j in range(i, len(xs)):
                    s += xs[j]
                    best = max(best, s)
            return best
        """),
        d("""
        def max_subarray(xs):
            best = cur = xs[0]
            for x in xs[1:]:
                cur = max(x, cur + x)
                best = max(best, cur)
            return best
        """),
        lambda r, n: [L(r, max(n, 1), -100, 100)],
        1500,
    ),
    Opt(
        "next_greater",
        "def next_greater(xs: list[int]) -> list[int]:",
        "For each element, the next strictly greater element to its right, or -1.",
        d("""
        def next_greater(xs):
            out = []
            for i, x in enumerate(xs):
                nxt = -1
                for y in xs[i + 1:]:
                    if y > x:
                        nxt = y
                        break
                out.append(nxt)
            return out
        """),
        d("""
        def next_greater(xs):
            out = [-1] * len(xs)
            stack = []
            for i, x in enumerate(xs):
                while stack and xs[stack[-1]] < x:
                    out[stack.pop()] = x
                stack.append(i)
            return out
        """),
        lambda r, n: [sorted(L(r, n, 0, 10**6), reverse=True) if n > 100 else L(r, n, 0, 9)],
        2500,
    ),
    Opt(
        "fib_mod",
        "def fib_mod(n: int) -> int:",
        "Return the n-th Fibonacci number (fib(0)=0, fib(1)=1) modulo 1_000_000_007.",
        d("""
        def fib_mod(n):
            def f(k):
                return k if k < 2 else (f(k - 1) + f(k - 2)) % 1_000_000_007
            return f(n)
        """),
        d("""
        def fib_mod(n):
            a, b = 0, 1
            for _ in range(n):
                a, b = b, (a + b) % 1_000_000_007
            return a
        """),
        lambda r, n: [min(n, 30) if n > 100 else r.randint(0, 15)],
        200,
    ),
    Opt(
        "lis_length",
        "def lis_length(xs: list[int]) -> int:",
        "Return the length of the longest strictly increasing subsequence.",
        d("""
        def lis_length(xs):
            best = [1] * len(xs)
            for i in range(len(xs)):
                for j in range(i):
                    if xs[j] < xs[i] and best[j] + 1 > best[i]:
                        best[i] = best[j] + 1
            return max(best, default=0)
        """),
        d("""
        import bisect

        def lis_length(xs):
            tails = []
            for x in xs:
                i = bisect.bisect_left(tails, x)
                tails[i:i + 1] = [x]
            return len(tails)
        """),
        lambda r, n: [L(r, n, 0, 10**6)],
        1200,
    ),
    Opt(
        "count_pairs_sum",
        "def count_pairs_sum(xs: list[int], t: int) -> int:",
        "Return the number of index pairs i < j with xs[i] + xs[j] == t.",
        d("""
        def count_pairs_sum(xs, t):
            c = 0
            for i in range(len(xs)):
                for j in range(i + 1, len(xs)):
                    if xs[i] + xs[j] == t:
                        c += 1
            return c
        """),
        d("""
        def count_pairs_sum(xs, t):
            seen, c = {}, 0
            for x in xs:
                c += seen.get(t - x, 0)
                seen[x] = seen.get(x, 0) + 1
            return c
        """),
        lambda r, n: [L(r, n, 0, 50), 50],
        2000,
    ),
    Opt(
        "mode",
        "def mode(xs: list[int]) -> int:",
        "Return the most frequent value of xs (the smallest one on ties); xs is non-empty.",
        d("""
        def mode(xs):
            return min(set(xs), key=lambda v: (-xs.count(v), v))
        """),
        d("""
        from collections import Counter

        def mode(xs):
            c = Counter(xs)
            return min(c, key=lambda v: (-c[v], v))
        """),
        lambda r, n: [L(r, max(n, 1), 0, max(n // 2, 1))],
        3000,
    ),
    Opt(
        "sliding_max",
        "def sliding_max(xs: list[int], k: int) -> list[int]:",
        "Return the maximum of every window of k consecutive elements (1 <= k <= len(xs)).",
        d("""
        def sliding_max(xs, k):
            return [max(xs[i:i + k]) for i in range(len(xs) - k + 1)]
        """),
        d("""
        from collections import deque

        def sliding_max(xs, k):
            q, out = deque(), []
            for i, x in enumerate(xs):
                while q and xs[q[-1]] <= x:
                    q.pop()
                q.append(i)
                if q[0] <= i - k:
                    q.popleft()
                if i >= k - 1:
                    out.append(xs[q[0]])
            return out
        """),
        lambda r, n: (lambda xs: [xs, max(1, min(len(xs), n // 3 or 1))])(L(r, max(n, 1), 0, 10**6)),
        4000,
    ),
    Opt(
        "longest_unique_substring",
        "def longest_unique_substring(s: str) -> int:",
        "Return the length of the longest substring of s without repeated characters.",
        d("""
        def longest_unique_substring(s):
            best = 0
            for i in range(len(s)):
                seen = set()
                for j in range(i, len(s)):
                    if s[j] in seen:
                        break
                    seen.add(s[j])
                    best = max(best, j - i + 1)
            return best
        """),
        d("""
        def longest_unique_substring(s):
            last, start, best = {}, 0, 0
            for i, ch in enumerate(s):
                if last.get(ch, -1) >= start:
                    start = last[ch] + 1
                last[ch] = i
                best = max(best, i - start + 1)
            return best
        """),
        lambda r, n: [S(r, n, "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%&")],
        6000,
        edge=[["aab"], ["abba"]],
    ),
    Opt(
        "join_words",
        "def join_words(words: list[str]) -> str:",
        "Return the words joined by single spaces.",
        d("""
        def join_words(words):
            out = ""
            for i, w in enumerate(words):
                out = out + (" " if i else "") + w
                out = "".join(list(out))
            return out
        """),
        'def join_words(words):\n    return " ".join(words)\n',
        lambda r, n: [[S(r, 3) for _ in range(n)]],
        2000,
    ),
    Opt(
        "prime_count",
        "def prime_count(n: int) -> int:",
        "Return the number of primes <= n.",
        d("""
        def prime_count(n):
            c = 0
            for k in range(2, n + 1):
                if all(k % d for d in range(2, k)):
                    c += 1
            return c
        """),
        d("""
        def prime_count(n):
            if n < 2:
                return 0
            sieve = bytearray([1]) * (n + 1)
            sieve[0] = sieve[1] = 0
            for i in range(2, int(n ** 0.5) + 1):
                if sieve[i]:
                    sieve[i * i::i] = bytearray(len(range(i * i, n + 1, i)))
            return sum(sieve)
        """),
        lambda r, n: [n if n > 100 else r.randint(0, 60)],
        3000,
        edge=[[0], [1]],
    ),
    Opt(
        "sum_of_divisors",
        "def sum_of_divisors(n: int) -> int:",
        "Return the sum of all positive divisors of n (n >= 1).",
        d("""
        def sum_of_divisors(n):
            return sum(d for d in range(1, n + 1) if n % d == 0)
        """),
        d("""
        def sum_of_divisors(n):
            s, d = 0, 1
            while d * d <= n:
                if n % d == 0:
                    s += d + (n // d if d * d != n else 0)
                d += 1
            return s
        """),
        lambda r, n: [1_999_999 if n > 100 else r.randint(1, 200)],
        1000,
        edge=[[36], [49]],
    ),
    Opt(
        "anagram_pairs",
        "def anagram_pairs(words: list[str]) -> int:",
        "Return the number of pairs i < j where words[i] and words[j] are anagrams.",
        d("""
        def anagram_pairs(words):
            c = 0
            for i in range(len(words)):
                for j in range(i + 1, len(words)):
                    if sorted(words[i]) == sorted(words[j]):
                        c += 1
            return c
        """),
        d("""
        from collections import Counter

        def anagram_pairs(words):
            c = Counter("".join(sorted(w)) for w in words)
            return sum(k * (k - 1) // 2 for k in c.values())
        """),
        lambda r, n: [[S(r, 3, "abcd") for _ in range(n)]],
        500,
    ),
    Opt(
        "kth_smallest",
        "def kth_smallest(xs: list[int], k: int) -> int:",
        "Return the k-th smallest element (1-based) of xs.",
        d("""
        def kth_smallest(xs, k):
            ys = list(xs)
            for _ in range(k - 1):
                ys.remove(min(ys))
            return min(ys)
        """),
        "import heapq\n\ndef kth_smallest(xs, k):\n    return heapq.nsmallest(k, xs)[-1]\n",
        lambda r, n: (lambda xs: [xs, max(1, len(xs) // 2)])(L(r, max(n, 1))),
        3000,
    ),
    Opt(
        "pair_with_min_diff",
        "def pair_with_min_diff(xs: list[int]) -> int:",
        "Return the smallest absolute difference between two elements at different positions (len(xs) >= 2).",
        d("""
        def pair_with_min_diff(xs):
            return min(abs(xs[i] - xs[j]) for i in range(len(xs)) for j in range(i + 1, len(xs)))
        """),
        d("""
        def pair_with_min_diff(xs):
            ys = sorted(xs)
            return min(b - a for a, b in zip(ys, ys[1:]))
        """),
        lambda r, n: [L(r, max(n, 2), 0, 10**9)],
        1500,
    ),
    Opt(
        "common_elements",
        "def common_elements(a: list[int], b: list[int]) -> list[int]:",
        "Return the sorted distinct values present in both a and b.",
        d("""
        def common_elements(a, b):
            return sorted({x for x in a if x in b})
        """),
        "def common_elements(a, b):\n    return sorted(set(a) & set(b))\n",
        lambda r, n: [L(r, n, 0, 2 * n), L(r, n, 0, 2 * n)],
        3000,
    ),
    Opt(
        "inversions",
        "def inversions(xs: list[int]) -> int:",
        "Return the number of pairs i < j with xs[i] > xs[j].",
        d("""
        def inversions(xs):
            return sum(1 for i in range(len(xs)) for j in range(i + 1, len(xs)) if xs[i] > xs[j])
        """),
        d("""
        def inversions(xs):
            def sort(a):
                if len(a) < 2:
                    return a, 0
                m = len(a) // 2
                left, x = sort(a[:m])
                right, y = sort(a[m:])
                out, i, j, c = [], 0, 0, x + y
                while i < len(left) and j < len(right):
                    if left[i] <= right[j]:
                        out.append(left[i]); i += 1
                    else:
                        out.append(right[j]); j += 1; c += len(left) - i
                out += left[i:] + right[j:]
                return out, c
            return sort(list(xs))[1]
        """),
        lambda r, n: [L(r, n, 0, 10**6)],
        1500,
        edge=[[[2, 2, 1]]],
    ),
    Opt(
        "running_median_count",
        "def count_above_mean_prefix(xs: list[int]) -> int:",
        "Count indices i where xs[i] is greater than the mean of xs[0..i] (inclusive).",
        d("""
        def count_above_mean_prefix(xs):
            return sum(1 for i in range(len(xs)) if xs[i] * (i + 1) > sum(xs[:i + 1]))
        """),
        d("""
        def count_above_mean_prefix(xs):
            s = c = 0
            for i, x in enumerate(xs):
                s += x
                c += x * (i + 1) > s
            return c
        """),
        lambda r, n: [L(r, n, 0, 1000)],
        4000,
    ),
    Opt(
        "matrix_power_trace",
        "def path_count(adj: list[list[int]], k: int) -> int:",
        "Return the number of walks of exactly k steps from node 0 to node 0 in the directed graph with adjacency matrix adj, modulo 1_000_003.",
        d("""
        def path_count(adj, k):
            n = len(adj)
            def walks(u, steps):
                if steps == 0:
                    return 1 if u == 0 else 0
                return sum(walks(v, steps - 1) for v in range(n) if adj[u][v]) % 1_000_003
            return walks(0, k)
        """),
        d("""
        def path_count(adj, k):
            n = len(adj)
            vec = [1 if i == 0 else 0 for i in range(n)]
            for _ in range(k):
                vec = [sum(vec[u] for u in range(n) if adj[u][v]) % 1_000_003 for v in range(n)]
            return vec[0]
        """),
        lambda r, n: [
            [[1 if r.random() < 0.6 else 0 for _ in range(4)] for _ in range(4)],
            11 if n > 100 else r.randint(0, 5),
        ],
        200,
    ),
    Opt(
        "string_count_sub",
        "def count_occurrences(s: str, p: str) -> int:",
        "Return the number of (possibly overlapping) occurrences of p (non-empty) in s.",
        d("""
        def count_occurrences(s, p):
            return sum(1 for i in range(len(s) - len(p) + 1) if all(s[i + k] == p[k] for k in range(len(p))))
        """),
        d("""
        def count_occurrences(s, p):
            c, i = 0, s.find(p)
            while i >= 0:
                c += 1
                i = s.find(p, i + 1)
            return c
        """),
        lambda r, n: [S(r, n, "ab"), "ab" * (5 if n > 100 else 1)],
        20000,
        edge=[["aaaa", "aa"]],
    ),
    Opt(
        "unique_paths",
        "def unique_paths(h: int, w: int) -> int:",
        "Return the number of right/down lattice paths through an h x w grid of cells, from the top-left to the bottom-right cell.",
        d("""
        def unique_paths(h, w):
            def go(i, j):
                if i == h - 1 or j == w - 1:
                    return 1
                return go(i + 1, j) + go(i, j + 1)
            return go(0, 0)
        """),
        "import math\n\ndef unique_paths(h, w):\n    return math.comb(h + w - 2, h - 1)\n",
        lambda r, n: [10, 11] if n > 100 else [r.randint(1, 6), r.randint(1, 6)],
        200,
    ),
    Opt(
        "balanced_prefixes",
        "def balanced_prefixes(s: str) -> int:",
        "Return how many non-empty prefixes of the bracket string s have equally many '(' and ')'.",
        d("""
        def balanced_prefixes(s):
            return sum(1 for i in range(1, len(s) + 1) if s[:i].count("(") == s[:i].count(")"))
        """),
        d("""
        def balanced_prefixes(s):
            d = c = 0
            for ch in s:
                d += 1 if ch == "(" else -1
                c += d == 0
            return c
        """),
        lambda r, n: [S(r, n, "()")],
        4000,
    ),
    Opt(
        "longest_run",
        "def longest_run(xs: list[int]) -> int:",
        "Return the length of the longest run of consecutive integers (in value) present in xs, in any order.",
        d("""
        def longest_run(xs):
            best = 0
            for x in xs:
                k = 0
                while x + k in xs:
                    k += 1
                best = max(best, k)
            return best
        """),
        d("""
        def longest_run(xs):
            s, best = set(xs), 0
            for x in s:
                if x - 1 not in s:
                    k = 1
                    while x + k in s:
                        k += 1
                    best = max(best, k)
            return best
        """),
        lambda r, n: [L(r, n, 0, n)],
        1500,
        edge=[[[1, 3, 4]]],
    ),
    Opt(
        "count_smaller_after",
        "def count_smaller_after(xs: list[int]) -> list[int]:",
        "For each i, the number of j > i with xs[j] < xs[i].",
        d("""
        def count_smaller_after(xs):
            return [sum(1 for y in xs[i + 1:] if y < x) for i, x in enumerate(xs)]
        """),
        d("""
        import bisect

        def count_smaller_after(xs):
            seen, out = [], []
            for x in reversed(xs):
                out.append(bisect.bisect_left(seen, x))
                bisect.insort(seen, x)
            return out[::-1]
        """),
        lambda r, n: [L(r, n, 0, 10**6)],
        1500,
    ),
    Opt(
        "sum_multiples",
        "def sum_multiples(n: int) -> int:",
        "Return the sum of all positive integers below n divisible by 3 or 5.",
        "def sum_multiples(n):\n    return sum(k for k in range(n) if k % 3 == 0 or k % 5 == 0)\n",
        d("""
        def sum_multiples(n):
            def s(d):
                m = (n - 1) // d
                return d * m * (m + 1) // 2
            return s(3) + s(5) - s(15)
        """),
        lambda r, n: [600_000 if n > 100 else r.randint(0, 100)],
        1000,
    ),
    Opt(
        "grid_min_path",
        "def grid_min_path(g: list[list[int]]) -> int:",
        "Return the minimum sum of a right/down path from the top-left to the bottom-right of the grid g.",
        d("""
        def grid_min_path(g):
            h, w = len(g), len(g[0])
            def go(i, j):
                if i == h - 1 and j == w - 1:
                    return g[i][j]
                best = float("inf")
                if i + 1 < h:
                    best = min(best, go(i + 1, j))
                if j + 1 < w:
                    best = min(best, go(i, j + 1))
                return g[i][j] + best
            return go(0, 0)
        """),
        d("""
        def grid_min_path(g):
            h, w = len(g), len(g[0])
            row = [0] * w
            for i in range(h):
                for j in range(w):
                    up = row[j] if i else None
                    left = row[j - 1] if j else None
                    prev = min(v for v in (up, left) if v is not None) if (i or j) else 0
                    row[j] = g[i][j] + prev
            return row[-1]
        """),
        lambda r, n: [
            [
                [r.randint(0, 9) for _ in range(9 if n > 100 else r.randint(1, 4))]
                for _ in range(9 if n > 100 else r.randint(1, 4))
            ]
        ],
        200,
    ),
    Opt(
        "word_freq_top",
        "def top_word(words: list[str]) -> str:",
        "Return the most frequent word (the alphabetically smallest on ties); words is non-empty.",
        d("""
        def top_word(words):
            best = None
            for w in sorted(set(words)):
                if best is None or words.count(w) > words.count(best):
                    best = w
            return best
        """),
        d("""
        from collections import Counter

        def top_word(words):
            c = Counter(words)
            return min(c, key=lambda w: (-c[w], w))
        """),
        lambda r, n: [[S(r, 2, "abcdefghijklmnopqrstuvwxyz") for _ in range(max(n, 1))]],
        4000,
    ),
    Opt(
        "subset_sum_exists",
        "def subset_sum_exists(xs: list[int], t: int) -> bool:",
        "Return True if some subset of xs (positive ints) sums to exactly t.",
        d("""
        def subset_sum_exists(xs, t):
            def go(i, left):
                if left == 0:
                    return True
                if i == len(xs) or left < 0:
                    return False
                return go(i + 1, left - xs[i]) or go(i + 1, left)
            return go(0, t)
        """),
        d("""
        def subset_sum_exists(xs, t):
            reach = 1
            for x in xs:
                reach |= reach << x
            return bool(reach >> t & 1)
        """),
        lambda r, n: (
            [[r.randint(1, 50) * 2 for _ in range(20)], 2 * 10**4 + 1]
            if n > 100
            else [L(r, r.randint(0, 6), 1, 9), r.randint(0, 20)]
        ),
        200,
    ),
    Opt(
        "palindrome_substrings",
        "def palindrome_substrings(s: str) -> int:",
        "Return the number of palindromic substrings of s (by position).",
        d("""
        def palindrome_substrings(s):
            return sum(1 for i in range(len(s)) for j in range(i + 1, len(s) + 1) if s[i:j] == s[i:j][::-1])
        """),
        d("""
        def palindrome_substrings(s):
            c = 0
            for center in range(2 * len(s) - 1):
                lo, hi = center // 2, center // 2 + center % 2
                while lo >= 0 and hi < len(s) and s[lo] == s[hi]:
                    c += 1
                    lo -= 1
                    hi += 1
            return c
        """),
        lambda r, n: [S(r, n, "abc")],
        350,
    ),
    Opt(
        "min_coins",
        "def min_coins(n: int) -> int:",
        "Return the fewest coins of values 1, 5, 11 that sum to n.",
        d("""
        def min_coins(n):
            def go(k):
                if k == 0:
                    return 0
                return 1 + min(go(k - c) for c in (1, 5, 11) if c <= k)
            return go(n)
        """),
        d("""
        def min_coins(n):
            best = [0] * (n + 1)
            for k in range(1, n + 1):
                best[k] = 1 + min(best[k - c] for c in (1, 5, 11) if c <= k)
            return best[n]
        """),
        lambda r, n: [31 if n > 100 else r.randint(0, 25)],
        200,
    ),
    Opt(
        "sorted_squares",
        "def sorted_squares(xs: list[int]) -> list[int]:",
        "Return the squares of xs in non-decreasing order.",
        d("""
        def sorted_squares(xs):
            ys = [x * x for x in xs]
            for i in range(len(ys)):
                for j in range(len(ys) - 1 - i):
                    if ys[j] > ys[j + 1]:
                        ys[j], ys[j + 1] = ys[j + 1], ys[j]
            return ys
        """),
        "def sorted_squares(xs):\n    return sorted(x * x for x in xs)\n",
        lambda r, n: [L(r, n, -1000, 1000)],
        700,
    ),
    Opt(
        "char_histogram",
        "def char_histogram(s: str) -> list[list]:",
        "Return [char, count] pairs for the distinct characters of s, sorted by character.",
        d("""
        def char_histogram(s):
            return [[c, s.count(c)] for c in sorted(set(s))] if len(s) < 10 else [[c, sum(1 for x in s if x == c)] for c in sorted(set(s))]
        """),
        "from collections import Counter\n\ndef char_histogram(s):\n    return [[c, k] for c, k in sorted(Counter(s).items())]\n",
        lambda r, n: [S(r, n, "abcdefghijklmnopqrstuvwxyz0123456789")],
        20000,
    ),
    Opt(
        "triangle_max_path",
        "def triangle_max_path(t: list[list[int]]) -> int:",
        "t is a triangle (row i has i+1 numbers); return the maximum top-to-bottom path sum moving to adjacent numbers below.",
        d("""
        def triangle_max_path(t):
            def go(i, j):
                if i == len(t) - 1:
                    return t[i][j]
                return t[i][j] + max(go(i + 1, j), go(i + 1, j + 1))
            return go(0, 0)
        """),
        d("""
        def triangle_max_path(t):
            row = list(t[-1])
            for i in range(len(t) - 2, -1, -1):
                row = [t[i][j] + max(row[j], row[j + 1]) for j in range(i + 1)]
            return row[0]
        """),
        lambda r, n: [[[r.randint(0, 99) for _ in range(i + 1)] for i in range(16 if n > 100 else r.randint(1, 5))]],
        200,
    ),
    Opt(
        "gcd_all_pairs",
        "def max_pair_gcd(xs: list[int]) -> int:",
        "Return the largest gcd of two elements at different positions (len(xs) >= 2, values 1..2000).",
        d("""
        import math

        def max_pair_gcd(xs):
            return max(math.gcd(xs[i], xs[j]) for i in range(len(xs)) for j in range(i + 1, len(xs)))
        """),
        d("""
        def max_pair_gcd(xs):
            m = max(xs)
            cnt = [0] * (m + 1)
            for x in xs:
                cnt[x] += 1
            for g in range(m, 0, -1):
                if sum(cnt[g::g]) >= 2:
                    return g
            return 1
        """),
        lambda r, n: [L(r, max(n, 2), 1, 2000)],
        1200,
    ),
    Opt(
        "distinct_substrings_k",
        "def distinct_substrings_k(s: str, k: int) -> int:",
        "Return the number of distinct substrings of length k (1 <= k) in s.",
        d("""
        def distinct_substrings_k(s, k):
            seen = []
            for i in range(len(s) - k + 1):
                if s[i:i + k] not in seen:
                    seen.append(s[i:i + k])
            return len(seen)
        """),
        "def distinct_substrings_k(s, k):\n    return len({s[i:i + k] for i in range(len(s) - k + 1)})\n",
        lambda r, n: [S(r, n, "abcd"), 6 if n > 100 else r.randint(1, 3)],
        4000,
    ),
    Opt(
        "stairs_ways",
        "def stairs_ways(n: int) -> int:",
        "Return the number of ways to climb n stairs taking 1, 2 or 3 steps at a time.",
        d("""
        def stairs_ways(n):
            if n < 0:
                return 0
            if n == 0:
                return 1
            return stairs_ways(n - 1) + stairs_ways(n - 2) + stairs_ways(n - 3)
        """),
        d("""
        def stairs_ways(n):
            a, b, c = 1, 0, 0
            for _ in range(n):
                a, b, c = a + b + c, a, b
            return a
        """),
        lambda r, n: [20 if n > 100 else r.randint(0, 12)],
        200,
    ),
    Opt(
        "rotate_k",
        "def rotate_k(xs: list[int], k: int) -> list[int]:",
        "Rotate xs right by k (k >= 0) positions.",
        d("""
        def rotate_k(xs, k):
            ys = list(xs)
            for _ in range(k):
                if ys:
                    ys.insert(0, ys.pop())
            return ys
        """),
        d("""
        def rotate_k(xs, k):
            if not xs:
                return []
            k %= len(xs)
            return xs[-k:] + xs[:-k] if k else list(xs)
        """),
        lambda r, n: [L(r, n), 3 * n + 7 if n > 100 else r.randint(0, 10)],
        3000,
    ),
]


#: In-between references (better complexity or constant than the baseline, short of the
#: expert) that give the percentile view more than two points.
MIDDLES = {
    "two_sum_exists": d("""
        def two_sum_exists(xs, t):
            ys = sorted(xs)
            i, j = 0, len(ys) - 1
            while i < j:
                s = ys[i] + ys[j]
                if s == t:
                    return True
                if s < t:
                    i += 1
                else:
                    j -= 1
            return False
        """),
    "count_distinct": d("""
        def count_distinct(xs):
            ys = sorted(xs)
            return sum(1 for i, y in enumerate(ys) if i == 0 or y != ys[i - 1])
        """),
    "dedupe_keep_order": d("""
        def dedupe_keep_order(xs):
            seen, out = set(), []
            for x in xs:
                if x not in seen:
                    seen.add(x)
                    out.append(x)
            return out
        """),
    "max_subarray": d("""
        def max_subarray(xs):
            pre = [0]
            for x in xs:
                pre.append(pre[-1] + x)
            best, low = xs[0], pre[0]
            for k in range(1, len(pre)):
                best = max(best, pre[k] - low)
                low = min(low, pre[k])
            return best
        """),
    "count_pairs_sum": d("""
        def count_pairs_sum(xs, t):
            from collections import Counter
            c = Counter(xs)
            total = 0
            for x in c:
                y = t - x
                if x < y:
                    total += c[x] * c.get(y, 0)
                elif x == y:
                    total += c[x] * (c[x] - 1) // 2
            return total
        """),
    "mode": d("""
        def mode(xs):
            counts = {}
            for x in xs:
                counts[x] = counts.get(x, 0) + 1
            return min(counts, key=lambda v: (-counts[v], v))
        """),
    "prime_count": d("""
        def prime_count(n):
            c = 0
            for k in range(2, n + 1):
                d = 2
                while d * d <= k and k % d:
                    d += 1
                c += d * d > k
            return c
        """),
    "sum_of_divisors": d("""
        def sum_of_divisors(n):
            return sum(d for d in range(1, n // 2 + 1) if n % d == 0) + n
        """),
}


def opt_task(p: Opt, index: int) -> dict[str, Any]:
    """The task dict of one optimisation problem; expected outputs from the expert."""
    import copy

    from .._runner import encode

    ns_e: dict[str, Any] = {}
    ns_b: dict[str, Any] = {}
    exec(p.expert, ns_e)  # our reference code, on the host
    exec(p.baseline, ns_b)
    middle = p.middle or MIDDLES.get(p.id)
    ns_m: dict[str, Any] = {}
    if middle:
        exec(middle, ns_m)
    entry = p.signature.split("def ", 1)[1].split("(", 1)[0]
    rng = random.Random(f"opt-{p.id}")
    small = [p.gen(rng, n) for n in (0, 1, 2, 3, 5, 8, 8, 12)]
    small = [a for a in small if _ok(ns_e[entry], a)] + p.edge
    big = [p.gen(rng, p.big)]
    tests = []
    for args in small + big:
        want = encode(ns_e[entry](*copy.deepcopy(args)))
        if args not in big and encode(ns_b[entry](*copy.deepcopy(args))) != want:
            raise AssertionError(f"baseline and expert of {p.id} disagree on {args!r}")
        if middle and encode(ns_m[entry](*copy.deepcopy(args))) != want:
            raise AssertionError(f"middle reference and expert of {p.id} disagree on {args!r}")
        tests.append({"args": args, "expected": want})
    if len({repr(t["expected"]) for t in tests}) < 2:
        raise AssertionError(f"every test of {p.id} expects the same value: a constant answer would pass")
    prompt = (
        f"This Python function is correct but slow. Make it as fast as you can while keeping its "
        f"behaviour exactly.\n\n{p.doc}\n\n```python\n{p.baseline.rstrip()}\n```\n\n"
        "Reply with the complete faster function in a ```python code block."
    )
    task = {
        "id": f"opt-{p.id}",
        "difficulty": "medium",
        "split": "test" if index % 5 == 4 else "train",
        "kind": "function",
        "language": "python",
        "prompt": prompt,
        "entry_point": entry,
        "tests": tests[: len(small)],
        "perf_tests": tests[len(small) :],
        "baseline": p.baseline,
        "gold": p.expert,
        "references": [p.baseline, p.expert] + ([middle] if middle else []),
    }
    return task


def _ok(fn: Callable[..., Any], args: list[Any]) -> bool:
    import copy

    try:
        fn(*copy.deepcopy(args))
        return True
    except Exception:  # noqa: BLE001 - sizes a problem does not define (empty input) are skipped
        return False
