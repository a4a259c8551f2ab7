"""Hard function-call problems (dynamic programming, graphs, parsing)."""

# ruff: noqa: E501 - problem data: statements and inline programs read best unwrapped

import random

from . import Fn, d, ints, word


def _grid(r: random.Random) -> list[list[str]]:
    h, w = r.randint(1, 5), r.randint(1, 5)
    return [["".join(r.choice("..#") for _ in range(w))] for _ in range(h)]


def _edges(r: random.Random, n: int, m: int) -> list[list[int]]:
    return [[r.randint(0, n - 1), r.randint(0, n - 1)] for _ in range(m)]


PROBLEMS = [
    Fn(
        "edit_distance",
        "hard",
        "def edit_distance(a: str, b: str) -> int:",
        "Return the Levenshtein distance between a and b (insertions, deletions, substitutions).",
        d("""
       def edit_distance(a, b):
           prev = list(range(len(b) + 1))
           for i, ca in enumerate(a, 1):
               cur = [i]
               for j, cb in enumerate(b, 1):
                   cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
               prev = cur
           return prev[-1]
       """),
        lambda r: [word(r, 0, 8, "abc"), word(r, 0, 8, "abc")],
        [["", ""], ["", "abc"], ["kitten", "sitting"]],
    ),
    Fn(
        "lis_length",
        "hard",
        "def lis_length(xs: list[int]) -> int:",
        "Return the length of the longest strictly increasing subsequence of xs.",
        d("""
       import bisect

       def lis_length(xs):
           tails = []
           for x in xs:
               i = bisect.bisect_left(tails, x)
               if i == len(tails):
                   tails.append(x)
               else:
                   tails[i] = x
           return len(tails)
       """),
        lambda r: [ints(r, 0, 15, 0, 20)],
        [[[]], [[5, 5, 5]], [[10, 9, 2, 5, 3, 7, 101, 18]]],
    ),
    Fn(
        "coin_change",
        "hard",
        "def coin_change(coins: list[int], amount: int) -> int:",
        "Return the fewest coins (unlimited supply of each positive denomination) that sum to "
        "amount, or -1 when impossible.",
        d("""
       def coin_change(coins, amount):
           inf = amount + 1
           best = [0] + [inf] * amount
           for a in range(1, amount + 1):
               for c in coins:
                   if c <= a and best[a - c] + 1 < best[a]:
                       best[a] = best[a - c] + 1
           return best[amount] if best[amount] <= amount else -1
       """),
        lambda r: [sorted(set(ints(r, 1, 4, 1, 12))), r.randint(0, 60)],
        [[[2], 3], [[1], 0], [[1, 3, 4], 6], [[1, 5], 7], [[1], 1]],
    ),
    Fn(
        "count_islands",
        "hard",
        "def count_islands(grid: list[str]) -> int:",
        "grid is a list of equal-length strings of '#' (land) and '.' (water). Return the number of "
        "islands: maximal groups of land cells connected horizontally or vertically.",
        d("""
       def count_islands(grid):
           h = len(grid)
           w = len(grid[0]) if h else 0
           seen = set()
           count = 0
           for i in range(h):
               for j in range(w):
                   if grid[i][j] == "#" and (i, j) not in seen:
                       count += 1
                       stack = [(i, j)]
                       seen.add((i, j))
                       while stack:
                           y, x = stack.pop()
                           for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                               if 0 <= ny < h and 0 <= nx < w and grid[ny][nx] == "#" and (ny, nx) not in seen:
                                   seen.add((ny, nx))
                                   stack.append((ny, nx))
           return count
       """),
        lambda r: [[row[0] for row in _grid(r)]],
        [
            [[]],
            [["#.#", ".#.", "#.#"]],
            [["###", "#.#", "###"]],
            [["#.#", "#.#", "###"]],
            [["..#", "..#", "###"]],
            [["#.#", "###"]],
            [[".#", "##"]],
        ],
    ),
    Fn(
        "shortest_path_len",
        "hard",
        "def shortest_path_len(n: int, edges: list[list[int]], s: int, t: int) -> int:",
        "An undirected graph has nodes 0..n-1 and the given edges. Return the number of edges on a "
        "shortest path from s to t, or -1 if t is unreachable.",
        d("""
       from collections import deque

       def shortest_path_len(n, edges, s, t):
           adj = [[] for _ in range(n)]
           for a, b in edges:
               adj[a].append(b)
               adj[b].append(a)
           dist = [-1] * n
           dist[s] = 0
           q = deque([s])
           while q:
               u = q.popleft()
               for v in adj[u]:
                   if dist[v] < 0:
                       dist[v] = dist[u] + 1
                       q.append(v)
           return dist[t]
       """),
        lambda r: (lambda n: [n, _edges(r, n, r.randint(0, 2 * n)), r.randint(0, n - 1), r.randint(0, n - 1)])(
            r.randint(1, 8)
        ),
        [[1, [], 0, 0], [3, [[0, 1]], 0, 2], [4, [[0, 1], [1, 2], [2, 3], [0, 3]], 0, 2]],
    ),
    Fn(
        "eval_expression",
        "hard",
        "def eval_expression(s: str) -> int:",
        "Evaluate an arithmetic expression of non-negative integers, +, -, * and parentheses "
        "(usual precedence, left associativity, spaces allowed) without eval().",
        d("""
       def eval_expression(s):
           toks = []
           i = 0
           while i < len(s):
               if s[i].isdigit():
                   j = i
                   while j < len(s) and s[j].isdigit():
                       j += 1
                   toks.append(int(s[i:j]))
                   i = j
               else:
                   if s[i] != " ":
                       toks.append(s[i])
                   i += 1
           pos = 0

           def expr():
               nonlocal pos
               v = term()
               while pos < len(toks) and toks[pos] in ("+", "-"):
                   op = toks[pos]
                   pos += 1
                   v = v + term() if op == "+" else v - term()
               return v

           def term():
               nonlocal pos
               v = atom()
               while pos < len(toks) and toks[pos] == "*":
                   pos += 1
                   v *= atom()
               return v

           def atom():
               nonlocal pos
               t = toks[pos]
               pos += 1
               if t == "(":
                   v = expr()
                   pos += 1
                   return v
               return t

           return expr()
       """),
        lambda r: [_expr(r, 3)],
        [["7"], ["2+3*4"], ["(2+3)*4"], ["10 - 4 - 3"]],
    ),
    Fn(
        "knapsack",
        "hard",
        "def knapsack(weights: list[int], values: list[int], cap: int) -> int:",
        "0/1 knapsack: return the largest total value of items whose total weight is at most cap.",
        d("""
       def knapsack(weights, values, cap):
           best = [0] * (cap + 1)
           for w, v in zip(weights, values):
               for c in range(cap, w - 1, -1):
                   best[c] = max(best[c], best[c - w] + v)
           return best[cap]
       """),
        lambda r: (lambda n: [ints(r, n, n, 1, 10), ints(r, n, n, 1, 20), r.randint(0, 25)])(r.randint(0, 7)),
        [[[], [], 10], [[5], [10], 4], [[1, 3, 4, 5], [1, 4, 5, 7], 7]],
    ),
    Fn(
        "topo_order",
        "hard",
        "def topo_order(n: int, edges: list[list[int]]) -> list[int]:",
        "Return the lexicographically smallest topological order of nodes 0..n-1 of the directed "
        "graph with edges [a, b] (a before b), or [] if the graph has a cycle.",
        d("""
       import heapq

       def topo_order(n, edges):
           indeg = [0] * n
           adj = [[] for _ in range(n)]
           for a, b in edges:
               adj[a].append(b)
               indeg[b] += 1
           heap = [i for i in range(n) if indeg[i] == 0]
           heapq.heapify(heap)
           out = []
           while heap:
               u = heapq.heappop(heap)
               out.append(u)
               for v in adj[u]:
                   indeg[v] -= 1
                   if indeg[v] == 0:
                       heapq.heappush(heap, v)
           return out if len(out) == n else []
       """),
        lambda r: (
            lambda n: [
                n,
                [sorted(r.sample(range(n), 2)) for _ in range(r.randint(0, n))]
                if n > 1 and r.random() < 0.7
                else _edges(r, n, r.randint(0, n)),
            ]
        )(r.randint(1, 7)),
        [[1, []], [2, [[0, 1], [1, 0]]], [3, [[2, 0]]]],
    ),
    Fn(
        "longest_palindrome_sub",
        "hard",
        "def longest_palindrome_sub(s: str) -> str:",
        "Return the longest palindromic substring of s; among equally long ones, the leftmost.",
        d("""
       def longest_palindrome_sub(s):
           best = ""
           for c in range(len(s)):
               for lo, hi in ((c, c), (c, c + 1)):
                   while lo >= 0 and hi < len(s) and s[lo] == s[hi]:
                       lo -= 1
                       hi += 1
                   if hi - lo - 1 > len(best):
                       best = s[lo + 1:hi]
           return best
       """),
        lambda r: [word(r, 0, 12, "abc")],
        [[""], ["a"], ["babad"], ["cbbd"]],
    ),
    Fn(
        "max_subarray",
        "hard",
        "def max_subarray(xs: list[int]) -> int:",
        "Return the largest sum of a non-empty contiguous subarray of xs (xs is non-empty).",
        d("""
       def max_subarray(xs):
           best = cur = xs[0]
           for x in xs[1:]:
               cur = max(x, cur + x)
               best = max(best, cur)
           return best
       """),
        lambda r: [ints(r, 1, 12, -10, 10)],
        [[[-3]], [[-2, -1, -3]], [[-2, 1, -3, 4, -1, 2, 1, -5, 4]]],
    ),
    Fn(
        "permutations_sorted",
        "hard",
        "def permutations_sorted(s: str) -> list[str]:",
        "Return all distinct permutations of s, sorted.",
        d("""
       def permutations_sorted(s):
           out = set()

           def go(prefix, rest):
               if not rest:
                   out.add(prefix)
               for i in range(len(rest)):
                   go(prefix + rest[i], rest[:i] + rest[i + 1:])

           go("", s)
           return sorted(out)
       """),
        lambda r: [word(r, 0, 5, "aabc")],
        [[""], ["aa"], ["abc"]],
    ),
    Fn(
        "next_greater",
        "hard",
        "def next_greater(xs: list[int]) -> list[int]:",
        "For each element, return the next element to its right that is strictly greater, or -1.",
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
        lambda r: [ints(r, 0, 12, 0, 9)],
        [[[]], [[3, 2, 1]], [[1, 1, 2]]],
    ),
    Fn(
        "word_break",
        "hard",
        "def word_break(s: str, words: list[str]) -> bool:",
        "Return True if s can be split into a sequence of one or more words from the list "
        "(words may repeat); the empty string can be split.",
        d("""
       def word_break(s, words):
           ok = [True] + [False] * len(s)
           for i in range(1, len(s) + 1):
               ok[i] = any(ok[i - len(w)] and s[i - len(w):i] == w for w in words if 0 < len(w) <= i)
           return ok[-1]
       """),
        lambda r: [word(r, 0, 10, "ab"), [word(r, 1, 3, "ab") for _ in range(r.randint(0, 4))]],
        [["", []], ["leetcode", ["leet", "code"]], ["aaab", ["a", "aa"]]],
    ),
    Fn(
        "median_sorted",
        "hard",
        "def median_sorted(a: list[int], b: list[int]) -> float:",
        "Return the median of all numbers of the two sorted lists together (at least one number in total).",
        d("""
       def median_sorted(a, b):
           m = sorted(a + b)
           n = len(m)
           return float(m[n // 2]) if n % 2 else (m[n // 2 - 1] + m[n // 2]) / 2
       """),
        lambda r: [sorted(ints(r, 0, 6, -9, 9)), sorted(ints(r, 1, 6, -9, 9))],
        [[[], [1]], [[1, 3], [2]], [[1, 2], [3, 4]]],
        float_tol=1e-9,
    ),
    Fn(
        "unique_paths_grid",
        "hard",
        "def unique_paths_grid(grid: list[str]) -> int:",
        "Count the paths from the top-left to the bottom-right cell of grid moving only right or "
        "down through '.' cells ('#' is blocked); 0 if either corner is blocked.",
        d("""
       def unique_paths_grid(grid):
           h, w = len(grid), len(grid[0])
           ways = [[0] * w for _ in range(h)]
           for i in range(h):
               for j in range(w):
                   if grid[i][j] == "#":
                       continue
                   if i == 0 and j == 0:
                       ways[i][j] = 1
                   else:
                       ways[i][j] = (ways[i - 1][j] if i else 0) + (ways[i][j - 1] if j else 0)
           return ways[-1][-1]
       """),
        lambda r: [[row[0] for row in _grid(r)]],
        [[["."]], [["#"]], [["...", ".#.", "..."]], [["..", ".."]], [["....", "...."]]],
    ),
]


def _expr(r: random.Random, depth: int) -> str:
    if depth == 0 or r.random() < 0.3:
        return str(r.randint(0, 20))
    a, b = _expr(r, depth - 1), _expr(r, depth - 1)
    op = r.choice(["+", "-", "*"])
    e = f"{a} {op} {b}" if r.random() < 0.5 else f"{a}{op}{b}"
    return f"({e})" if r.random() < 0.4 else e
