"""More stdin/stdout problems with Python and C++ golds (some JavaScript)."""

# ruff: noqa: E501 - problem data: statements and inline programs read best unwrapped

import random

from . import Io, d, ints


def _lines_of(r: random.Random, lo: int, hi: int, a: int, b: int) -> str:
    xs = ints(r, lo, hi, a, b)
    return f"{len(xs)}\n" + "".join(f"{x}\n" for x in xs)


PROBLEMS = [
    Io(
        "even_odd_count",
        "easy",
        "Read n and then n integers. Print the number of even and the number of odd integers, separated by a space.",
        {
            "python": "input()\nxs = list(map(int, input().split()))\nev = sum(1 for x in xs if x % 2 == 0)\nprint(ev, len(xs) - ev)\n",
            "cpp": '#include <iostream>\nint main() { int n; std::cin >> n; int e = 0; for (int i = 0; i < n; i++) { long long x; std::cin >> x; if (x % 2 == 0) e++; } std::cout << e << " " << n - e << "\\n"; }\n',
        },
        lambda r: (lambda xs: f"{len(xs)}\n{' '.join(map(str, xs))}\n")(ints(r, 1, 12, -20, 20)),
        ["1\n0\n", "3\n-1 -3 5\n"],
    ),
    Io(
        "triangle_area",
        "easy",
        "Read six integers x1 y1 x2 y2 x3 y3, the corners of a triangle. Print its area with exactly one digit after the decimal point.",
        {
            "python": 'x1, y1, x2, y2, x3, y3 = map(int, input().split())\nprint(f"{abs((x2 - x1) * (y3 - y1) - (x3 - x1) * (y2 - y1)) / 2:.1f}")\n',
            "cpp": '#include <cstdio>\n#include <cstdlib>\nint main() { long long a, b, c, d, e, f; scanf("%lld %lld %lld %lld %lld %lld", &a, &b, &c, &d, &e, &f); long long t = llabs((c - a) * (f - b) - (e - a) * (d - b)); printf("%lld.%d\\n", t / 2, t % 2 ? 5 : 0); }\n',
        },
        lambda r: " ".join(str(r.randint(-100, 100)) for _ in range(6)) + "\n",
        ["0 0 1 0 0 1\n", "0 0 2 2 4 4\n"],
    ),
    Io(
        "running_total",
        "easy",
        "Read n and then n integers, one per line. Print the running total after each one, one per line.",
        {
            "python": "n = int(input())\nt = 0\nfor _ in range(n):\n    t += int(input())\n    print(t)\n",
            "cpp": '#include <iostream>\nint main() { int n; std::cin >> n; long long t = 0; while (n--) { long long x; std::cin >> x; t += x; std::cout << t << "\\n"; } }\n',
            "javascript": 'const v = require("fs").readFileSync(0, "utf8").trim().split(/\\s+/).map(Number);\nlet t = 0; const out = [];\nfor (let i = 1; i <= v[0]; i++) { t += v[i]; out.push(t); }\nconsole.log(out.join("\\n"));\n',
        },
        lambda r: _lines_of(r, 1, 10, -1000, 1000),
        ["1\n5\n", "3\n1\n-1\n1\n"],
    ),
    Io(
        "palindrome_check",
        "easy",
        "Read one word of lower-case letters. Print YES if it is a palindrome, else NO.",
        {
            "python": 's = input().strip()\nprint("YES" if s == s[::-1] else "NO")\n',
            "cpp": '#include <algorithm>\n#include <iostream>\n#include <string>\nint main() { std::string s; std::cin >> s; std::string t(s.rbegin(), s.rend()); std::cout << (s == t ? "YES" : "NO") << "\\n"; }\n',
        },
        lambda r: (
            (lambda w: r.choice([w, w + w[::-1], w + w[-2::-1] if len(w) > 1 else w]))(
                "".join(r.choice("abc") for _ in range(r.randint(1, 6)))
            )
            + "\n"
        ),
        ["a\n", "ab\n", "racecar\n"],
    ),
    Io(
        "binary_to_decimal",
        "easy",
        "Read a binary number (up to 60 digits) and print its decimal value.",
        {
            "python": "print(int(input().strip(), 2))\n",
            "cpp": "#include <iostream>\n#include <string>\nint main() { std::string s; std::cin >> s; unsigned long long v = 0; for (char c : s) v = v * 2 + (c - '0'); std::cout << v << \"\\n\"; }\n",
        },
        lambda r: "1" + "".join(r.choice("01") for _ in range(r.randint(0, 59))) + "\n",
        ["0\n", "1\n", "101\n"],
    ),
    Io(
        "second_max_distinct",
        "medium",
        "Read n and then n integers. Print the second largest distinct value, or NONE if there is no such value.",
        {
            "python": 'input()\nvals = sorted(set(map(int, input().split())))\nprint(vals[-2] if len(vals) > 1 else "NONE")\n',
            "cpp": '#include <iostream>\n#include <set>\nint main() { int n; std::cin >> n; std::set<long long> s; while (n--) { long long x; std::cin >> x; s.insert(x); } if (s.size() < 2) std::cout << "NONE\\n"; else std::cout << *std::next(s.rbegin()) << "\\n"; }\n',
        },
        lambda r: (lambda xs: f"{len(xs)}\n{' '.join(map(str, xs))}\n")(ints(r, 1, 8, 0, 6)),
        ["1\n4\n", "3\n2 2 2\n", "2\n1 2\n"],
    ),
    Io(
        "balanced_teams",
        "medium",
        "Read n (even) and n skill values. Split them into two teams of n/2 players each; print the smallest possible absolute difference of the team totals. n <= 16.",
        {
            "python": d("""
        from itertools import combinations
        n = int(input())
        xs = list(map(int, input().split()))
        total = sum(xs)
        best = min(abs(total - 2 * sum(c)) for c in combinations(xs, n // 2))
        print(best)
        """),
            "cpp": d("""
        #include <cstdlib>
        #include <iostream>
        #include <vector>
        int main() { int n; std::cin >> n; std::vector<long long> x(n); long long tot = 0; for (auto& v : x) { std::cin >> v; tot += v; }
          long long best = -1; for (int m = 0; m < (1 << n); m++) { if (__builtin_popcount(m) != n / 2) continue; long long s = 0;
            for (int i = 0; i < n; i++) if (m >> i & 1) s += x[i]; long long d = llabs(tot - 2 * s); if (best < 0 || d < best) best = d; }
          std::cout << best << "\\n"; }
        """),
        },
        lambda r: (lambda n: f"{n}\n{' '.join(str(r.randint(1, 50)) for _ in range(n))}\n")(2 * r.randint(1, 6)),
        ["2\n5 5\n", "4\n1 2 3 10\n"],
    ),
    Io(
        "bfs_grid",
        "hard",
        "Read h w and then h rows of a grid ('.' free, '#' wall, 'S' start, 'E' exit). Print the fewest moves (up/down/left/right) from S to E, or -1.",
        {
            "python": d("""
        from collections import deque
        h, w = map(int, input().split())
        g = [input() for _ in range(h)]
        s = next((i, j) for i in range(h) for j in range(w) if g[i][j] == "S")
        dist = {s: 0}
        q = deque([s])
        ans = -1
        while q:
            i, j = q.popleft()
            if g[i][j] == "E":
                ans = dist[(i, j)]
                break
            for a, b in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
                if 0 <= a < h and 0 <= b < w and g[a][b] != "#" and (a, b) not in dist:
                    dist[(a, b)] = dist[(i, j)] + 1
                    q.append((a, b))
        print(ans)
        """),
            "cpp": d("""
        #include <iostream>
        #include <queue>
        #include <string>
        #include <vector>
        int main() { int h, w; std::cin >> h >> w; std::vector<std::string> g(h); for (auto& r : g) std::cin >> r;
          std::vector<std::vector<int>> d(h, std::vector<int>(w, -1)); std::queue<std::pair<int, int>> q;
          for (int i = 0; i < h; i++) for (int j = 0; j < w; j++) if (g[i][j] == 'S') { d[i][j] = 0; q.push({i, j}); }
          int ans = -1; int di[] = {1, -1, 0, 0}, dj[] = {0, 0, 1, -1};
          while (!q.empty()) { auto [i, j] = q.front(); q.pop(); if (g[i][j] == 'E') { ans = d[i][j]; break; }
            for (int k = 0; k < 4; k++) { int a = i + di[k], b = j + dj[k];
              if (a >= 0 && a < h && b >= 0 && b < w && g[a][b] != '#' && d[a][b] < 0) { d[a][b] = d[i][j] + 1; q.push({a, b}); } } }
          std::cout << ans << "\\n"; }
        """),
        },
        lambda r: _maze(r),
        ["1 2\nSE\n", "1 3\nS#E\n", "3 3\nS..\n##.\nE..\n"],
    ),
    Io(
        "interval_cover",
        "hard",
        "Read n intervals 'a b' (a <= b) after the first line with n. Print the total length of their union.",
        {
            "python": d("""
        n = int(input())
        iv = sorted(tuple(map(int, input().split())) for _ in range(n))
        total, cur_a, cur_b = 0, None, None
        for a, b in iv:
            if cur_b is None or a > cur_b:
                if cur_b is not None:
                    total += cur_b - cur_a
                cur_a, cur_b = a, b
            else:
                cur_b = max(cur_b, b)
        if cur_b is not None:
            total += cur_b - cur_a
        print(total)
        """),
            "cpp": d("""
        #include <algorithm>
        #include <iostream>
        #include <vector>
        int main() { int n; std::cin >> n; std::vector<std::pair<long long, long long>> v(n); for (auto& [a, b] : v) std::cin >> a >> b;
          std::sort(v.begin(), v.end()); long long tot = 0, ca = 0, cb = 0; bool open = false;
          for (auto [a, b] : v) { if (!open || a > cb) { if (open) tot += cb - ca; ca = a; cb = b; open = true; } else cb = std::max(cb, b); }
          if (open) tot += cb - ca; std::cout << tot << "\\n"; }
        """),
        },
        lambda r: (
            lambda n: (
                f"{n}\n"
                + "".join(
                    (lambda a, b: f"{min(a, b)} {max(a, b)}\n")(r.randint(0, 30), r.randint(0, 30)) for _ in range(n)
                )
            )
        )(r.randint(1, 6)),
        ["1\n3 3\n", "2\n1 5\n2 3\n", "2\n0 1\n1 2\n", "2\n1 2\n5 7\n"],
    ),
    Io(
        "caesar_decode",
        "medium",
        "Read k on the first line and a text on the second. Shift every lower-case letter back by k places (wrapping); other characters stay. Print the result.",
        {
            "python": 'k = int(input())\ns = input()\nprint("".join(chr((ord(c) - 97 - k) % 26 + 97) if "a" <= c <= "z" else c for c in s))\n',
            "cpp": "#include <iostream>\n#include <string>\nint main() { int k; std::cin >> k; std::string s; std::getline(std::cin, s); std::getline(std::cin, s); for (auto& c : s) if (c >= 'a' && c <= 'z') c = char(((c - 'a' - k) % 26 + 26) % 26 + 'a'); std::cout << s << \"\\n\"; }\n",
        },
        lambda r: f"{r.randint(0, 60)}\n" + "".join(r.choice("abcxyz ,!") for _ in range(r.randint(1, 15))) + "\n",
        ["3\nabc\n", "0\nhello, world!\n"],
    ),
    Io(
        "knapsack_io",
        "hard",
        "Read n and capacity C, then n lines 'weight value'. Print the best total value of a subset with total weight <= C (0/1 knapsack, C <= 1000).",
        {
            "python": d("""
        n, c = map(int, input().split())
        best = [0] * (c + 1)
        for _ in range(n):
            w, v = map(int, input().split())
            for cap in range(c, w - 1, -1):
                best[cap] = max(best[cap], best[cap - w] + v)
        print(best[c])
        """),
            "cpp": d("""
        #include <algorithm>
        #include <iostream>
        #include <vector>
        int main() { int n, c; std::cin >> n >> c; std::vector<long long> b(c + 1, 0);
          while (n--) { int w; long long v; std::cin >> w >> v; for (int k = c; k >= w; k--) b[k] = std::max(b[k], b[k - w] + v); }
          std::cout << b[c] << "\\n"; }
        """),
        },
        lambda r: (
            lambda n: (
                f"{n} {r.randint(0, 30)}\n" + "".join(f"{r.randint(1, 12)} {r.randint(1, 30)}\n" for _ in range(n))
            )
        )(r.randint(1, 7)),
        ["1 0\n1 5\n", "3 5\n2 3\n3 4\n4 5\n"],
    ),
    Io(
        "number_of_components",
        "hard",
        "An undirected graph has n nodes (1..n) and m edges. Input: n m, then m lines 'u v'. Print the number of connected components.",
        {
            "python": d("""
        import sys
        v = list(map(int, sys.stdin.read().split()))
        n, m = v[0], v[1]
        parent = list(range(n + 1))
        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x
        comps = n
        for i in range(m):
            a, b = find(v[2 + 2 * i]), find(v[3 + 2 * i])
            if a != b:
                parent[a] = b
                comps -= 1
        print(comps)
        """),
            "cpp": d("""
        #include <iostream>
        #include <numeric>
        #include <vector>
        std::vector<int> p; int f(int x) { while (p[x] != x) x = p[x] = p[p[x]]; return x; }
        int main() { int n, m; std::cin >> n >> m; p.resize(n + 1); std::iota(p.begin(), p.end(), 0); int c = n;
          while (m--) { int a, b; std::cin >> a >> b; a = f(a); b = f(b); if (a != b) { p[a] = b; c--; } } std::cout << c << "\\n"; }
        """),
        },
        lambda r: (lambda n, m: f"{n} {m}\n" + "".join(f"{r.randint(1, n)} {r.randint(1, n)}\n" for _ in range(m)))(
            r.randint(1, 10), r.randint(0, 8)
        ),
        ["1 0\n", "3 1\n1 2\n", "4 2\n1 2\n3 4\n"],
    ),
    Io(
        "date_day_of_year",
        "medium",
        "Read a date as YYYY-MM-DD (Gregorian). Print its day of the year (1-based).",
        {
            "python": d("""
        y, m, dd = map(int, input().split("-"))
        days = [31, 29 if (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        print(sum(days[: m - 1]) + dd)
        """),
            "cpp": d("""
        #include <cstdio>
        int main() { int y, m, d; scanf("%d-%d-%d", &y, &m, &d); int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
          if (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) days[1] = 29; int s = d; for (int i = 0; i < m - 1; i++) s += days[i]; printf("%d\\n", s); }
        """),
        },
        lambda r: (lambda y, m: f"{y:04d}-{m:02d}-{r.randint(1, 28):02d}\n")(
            r.choice([1900, 2000, 2023, 2024, r.randint(1600, 2400)]), r.randint(1, 12)
        ),
        ["2024-12-31\n", "2023-12-31\n", "1900-03-01\n", "2020-03-01\n"],
    ),
    Io(
        "max_product_pair",
        "medium",
        "Read n (>= 2) and n integers. Print the largest product of two of them at different positions.",
        {
            "python": "input()\nxs = sorted(map(int, input().split()))\nprint(max(xs[0] * xs[1], xs[-1] * xs[-2]))\n",
            "cpp": '#include <algorithm>\n#include <iostream>\n#include <vector>\nint main() { int n; std::cin >> n; std::vector<long long> x(n); for (auto& v : x) std::cin >> v; std::sort(x.begin(), x.end()); std::cout << std::max(x[0] * x[1], x[n - 1] * x[n - 2]) << "\\n"; }\n',
            "javascript": 'const v = require("fs").readFileSync(0, "utf8").trim().split(/\\s+/).map(BigInt);\nconst x = v.slice(1, 1 + Number(v[0])).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));\nconst n = x.length; const a = x[0] * x[1], b = x[n - 1] * x[n - 2];\nconsole.log((a > b ? a : b).toString());\n',
        },
        lambda r: (lambda xs: f"{len(xs)}\n{' '.join(map(str, xs))}\n")(ints(r, 2, 10, -(10**6), 10**6)),
        ["2\n-3 -4\n", "3\n-10 1 2\n"],
    ),
    Io(
        "word_lengths_hist",
        "easy",
        "Read a line of words. For each distinct word length L present, in increasing order, print 'L: count'.",
        {
            "python": 'from collections import Counter\nc = Counter(len(w) for w in input().split())\nfor k in sorted(c):\n    print(f"{k}: {c[k]}")\n',
            "cpp": '#include <iostream>\n#include <map>\n#include <sstream>\n#include <string>\nint main() { std::string line, w; std::getline(std::cin, line); std::istringstream in(line); std::map<size_t, int> c; while (in >> w) c[w.size()]++; for (auto& [k, v] : c) std::cout << k << ": " << v << "\\n"; }\n',
        },
        lambda r: (
            " ".join("".join(r.choice("ab") for _ in range(r.randint(1, 5))) for _ in range(r.randint(1, 8))) + "\n"
        ),
        ["a\n", "aa bb c\n"],
    ),
]


def _maze(r: random.Random) -> str:
    h, w = r.randint(1, 6), r.randint(2, 6)
    g = [[r.choice("..#") for _ in range(w)] for _ in range(h)]
    cells = [(i, j) for i in range(h) for j in range(w)]
    (si, sj), (ei, ej) = r.sample(cells, 2)
    g[si][sj], g[ei][ej] = "S", "E"
    return f"{h} {w}\n" + "".join("".join(row) + "\n" for row in g)
