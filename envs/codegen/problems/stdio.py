"""Stdin/stdout problems (CodeContests style) with golds in Python and C++ (some JS, Rust)."""

# ruff: noqa: E501 - problem data: statements and inline programs read best unwrapped

import random

from . import Io, d, ints


def _arr(r: random.Random, lo_n: int, hi_n: int, lo: int, hi: int) -> str:
    xs = ints(r, lo_n, hi_n, lo, hi)
    return f"{len(xs)}\n{' '.join(map(str, xs))}\n"


PROBLEMS = [
    Io(
        "sum_pair",
        "easy",
        "Read two integers a and b (|a|, |b| <= 10^18) on one line and print a + b.",
        {
            "python": "a, b = map(int, input().split())\nprint(a + b)\n",
            "cpp": d("""
        #include <iostream>
        int main() { long long a, b; std::cin >> a >> b; std::cout << a + b << "\\n"; }
        """),
            "javascript": d("""
        const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(/\\s+/).map(BigInt);
        console.log((a + b).toString());
        """),
            "rust": d("""
        use std::io::Read;
        fn main() {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).unwrap();
            let v: Vec<i128> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
            println!("{}", v[0] + v[1]);
        }
        """),
        },
        lambda r: f"{r.randint(-(10**18), 10**18)} {r.randint(-(10**18), 10**18)}\n",
        ["0 0\n", "-5 3\n"],
        wrong={
            "python": "a, b = map(int, input().split())\nprint(abs(a + b))\n",
            "cpp": '#include <iostream>\nint main() { int a, b; std::cin >> a >> b; std::cout << a + b << "\\n"; }\n',
        },
    ),
    Io(
        "max_in_array",
        "easy",
        "The first line holds n (1 <= n <= 10^5), the second n integers. Print the largest of them.",
        {
            "python": "input()\nprint(max(map(int, input().split())))\n",
            "cpp": d("""
        #include <iostream>
        int main() { int n; std::cin >> n; long long best, x; std::cin >> best;
          for (int i = 1; i < n; i++) { std::cin >> x; if (x > best) best = x; } std::cout << best << "\\n"; }
        """),
            "javascript": d("""
        const t = require("fs").readFileSync(0, "utf8").trim().split(/\\s+/).map(Number);
        console.log(Math.max(...t.slice(1, 1 + t[0])));
        """),
        },
        lambda r: _arr(r, 1, 20, -(10**9), 10**9),
        ["1\n-7\n", "3\n-1 -2 -3\n"],
        wrong={"python": "input()\nxs = list(map(int, input().split()))\nprint(max(xs[1:] or xs))\n"},
    ),
    Io(
        "count_distinct",
        "easy",
        "The first line holds n, the second n integers. Print how many distinct values there are.",
        {
            "python": "input()\nprint(len(set(input().split())))\n",
            "cpp": d("""
        #include <iostream>
        #include <set>
        int main() { int n; std::cin >> n; std::set<long long> s; long long x;
          for (int i = 0; i < n; i++) { std::cin >> x; s.insert(x); } std::cout << s.size() << "\\n"; }
        """),
        },
        lambda r: _arr(r, 1, 20, 0, 8),
        ["1\n5\n", "4\n2 2 2 2\n"],
        wrong={
            "python": "n = int(input())\nxs = input().split()\nprint(sum(1 for i in range(1, n) if xs[i] != xs[i - 1]) + 1)\n"
        },
    ),
    Io(
        "reverse_lines",
        "easy",
        "The first line holds n, then n lines of text follow. Print those lines in reverse order.",
        {
            "python": "n = int(input())\nlines = [input() for _ in range(n)]\nprint('\\n'.join(reversed(lines)))\n",
            "cpp": d("""
        #include <iostream>
        #include <string>
        #include <vector>
        int main() { int n; std::cin >> n; std::string line; std::getline(std::cin, line);
          std::vector<std::string> v(n); for (auto& s : v) std::getline(std::cin, s);
          for (int i = n - 1; i >= 0; i--) std::cout << v[i] << "\\n"; }
        """),
        },
        lambda r: (lambda ls: f"{len(ls)}\n" + "".join(x + "\n" for x in ls))(
            ["".join(r.choice("ab c") for _ in range(r.randint(1, 6))).strip() or "x" for _ in range(r.randint(1, 6))]
        ),
        ["1\nhello\n", "2\na b\nc\n"],
    ),
    Io(
        "grade_letters",
        "easy",
        "Read n scores (0..100), one per line after the first line with n. For each, print its "
        "letter: A for >= 90, B for >= 80, C for >= 70, D for >= 60, else F.",
        {
            "python": d("""
        n = int(input())
        for _ in range(n):
            s = int(input())
            print("A" if s >= 90 else "B" if s >= 80 else "C" if s >= 70 else "D" if s >= 60 else "F")
        """),
            "cpp": d("""
        #include <iostream>
        int main() { int n, s; std::cin >> n; while (n--) { std::cin >> s;
          std::cout << (s >= 90 ? 'A' : s >= 80 ? 'B' : s >= 70 ? 'C' : s >= 60 ? 'D' : 'F') << "\\n"; } }
        """),
        },
        lambda r: (lambda xs: f"{len(xs)}\n" + "".join(f"{x}\n" for x in xs))(ints(r, 1, 8, 0, 100)),
        ["5\n90\n89\n60\n59\n100\n", "4\n80\n79\n70\n69\n"],
        wrong={
            "python": d("""
        n = int(input())
        for _ in range(n):
            s = int(input())
            print("A" if s > 90 else "B" if s > 80 else "C" if s > 70 else "D" if s > 60 else "F")
        """)
        },
    ),
    Io(
        "prefix_queries",
        "medium",
        "The first line holds n and q. The second holds n integers a_1..a_n. Each of the next q "
        "lines holds l r (1-based, l <= r); print a_l + ... + a_r for each, one per line.",
        {
            "python": d("""
        import sys
        data = sys.stdin.read().split()
        n, q = int(data[0]), int(data[1])
        pre = [0]
        for x in data[2:2 + n]:
            pre.append(pre[-1] + int(x))
        out = []
        pos = 2 + n
        for _ in range(q):
            l, r = int(data[pos]), int(data[pos + 1])
            pos += 2
            out.append(str(pre[r] - pre[l - 1]))
        print("\\n".join(out))
        """),
            "cpp": d("""
        #include <cstdio>
        #include <vector>
        int main() { int n, q; scanf("%d %d", &n, &q); std::vector<long long> p(n + 1, 0);
          for (int i = 1; i <= n; i++) { long long x; scanf("%lld", &x); p[i] = p[i - 1] + x; }
          while (q--) { int l, r; scanf("%d %d", &l, &r); printf("%lld\\n", p[r] - p[l - 1]); } }
        """),
            "rust": d("""
        use std::io::Read;
        fn main() {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).unwrap();
            let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
            let (n, q) = (v[0] as usize, v[1] as usize);
            let mut p = vec![0i64; n + 1];
            for i in 0..n { p[i + 1] = p[i] + v[2 + i]; }
            let mut out = String::new();
            for k in 0..q {
                let l = v[2 + n + 2 * k] as usize;
                let r = v[3 + n + 2 * k] as usize;
                out.push_str(&format!("{}\\n", p[r] - p[l - 1]));
            }
            print!("{}", out);
        }
        """),
        },
        lambda r: (
            lambda n, q: (
                f"{n} {q}\n{' '.join(str(r.randint(-100, 100)) for _ in range(n))}\n"
                + "".join(
                    (lambda a, b: f"{min(a, b)} {max(a, b)}\n")(r.randint(1, n), r.randint(1, n)) for _ in range(q)
                )
            )
        )(r.randint(1, 10), r.randint(1, 6)),
        ["1 1\n5\n1 1\n"],
        wrong={
            "python": d("""
        n, q = map(int, input().split())
        a = list(map(int, input().split()))
        for _ in range(q):
            l, r = map(int, input().split())
            print(sum(a[l:r]))
        """)
        },
    ),
    Io(
        "bracket_depth",
        "medium",
        "Read a string of '(' and ')'. Print the maximum nesting depth if it is balanced, else -1.",
        {
            "python": d("""
        s = input().strip()
        depth = best = 0
        for ch in s:
            depth += 1 if ch == "(" else -1
            if depth < 0:
                break
            best = max(best, depth)
        print(best if depth == 0 else -1)
        """),
            "cpp": d("""
        #include <iostream>
        #include <string>
        int main() { std::string s; std::cin >> s; int d = 0, b = 0;
          for (char c : s) { d += c == '(' ? 1 : -1; if (d < 0) break; if (d > b) b = d; }
          std::cout << (d == 0 ? b : -1) << "\\n"; }
        """),
        },
        lambda r: "".join(r.choice("()") for _ in range(r.randint(1, 12))) + "\n",
        ["()\n", ")(\n", "(())()\n"],
    ),
    Io(
        "word_count_sorted",
        "medium",
        "Read text until end of input. Print each distinct word (split on whitespace, "
        "lower-cased) with its count as 'word count', sorted by count descending, then word.",
        {
            "python": d("""
        import sys
        from collections import Counter
        c = Counter(w.lower() for w in sys.stdin.read().split())
        for w, k in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])):
            print(w, k)
        """),
            "cpp": d("""
        #include <algorithm>
        #include <cctype>
        #include <iostream>
        #include <map>
        #include <string>
        #include <vector>
        int main() { std::map<std::string, int> c; std::string w;
          while (std::cin >> w) { for (auto& ch : w) ch = std::tolower(ch); c[w]++; }
          std::vector<std::pair<int, std::string>> v; for (auto& [k, n] : c) v.push_back({-n, k});
          std::sort(v.begin(), v.end()); for (auto& [n, k] : v) std::cout << k << " " << -n << "\\n"; }
        """),
        },
        lambda r: " ".join(r.choice(["a", "b", "B", "c", "dd"]) for _ in range(r.randint(1, 12))) + "\n",
        ["x\n", "b a A\nB\n"],
    ),
    Io(
        "gcd_lcm",
        "easy",
        "Read two positive integers a and b (<= 10^9). Print gcd(a, b) and lcm(a, b) separated by a space.",
        {
            "python": "import math\na, b = map(int, input().split())\ng = math.gcd(a, b)\nprint(g, a // g * b)\n",
            "cpp": d("""
        #include <iostream>
        #include <numeric>
        int main() { long long a, b; std::cin >> a >> b; long long g = std::gcd(a, b);
          std::cout << g << " " << a / g * b << "\\n"; }
        """),
            "javascript": d("""
        let [a, b] = require("fs").readFileSync(0, "utf8").trim().split(/\\s+/).map(BigInt);
        let x = a, y = b; while (y) { [x, y] = [y, x % y]; }
        console.log(`${x} ${a / x * b}`);
        """),
        },
        lambda r: f"{r.randint(1, 10**9)} {r.randint(1, 10**9)}\n",
        ["1 1\n", "6 4\n", "1000000000 999999999\n"],
    ),
    Io(
        "matrix_mult",
        "medium",
        "Read n, then two n x n integer matrices A and B (n rows of n numbers each). Print A*B in "
        "the same format (rows on lines, numbers separated by spaces).",
        {
            "python": d("""
        import sys
        v = list(map(int, sys.stdin.read().split()))
        n = v[0]
        a = [v[1 + i * n:1 + (i + 1) * n] for i in range(n)]
        b = [v[1 + n * n + i * n:1 + n * n + (i + 1) * n] for i in range(n)]
        for i in range(n):
            print(" ".join(str(sum(a[i][k] * b[k][j] for k in range(n))) for j in range(n)))
        """),
            "cpp": d("""
        #include <iostream>
        #include <vector>
        int main() { int n; std::cin >> n; std::vector<std::vector<long long>> a(n, std::vector<long long>(n)), b = a;
          for (auto& r : a) for (auto& x : r) std::cin >> x; for (auto& r : b) for (auto& x : r) std::cin >> x;
          for (int i = 0; i < n; i++) { for (int j = 0; j < n; j++) { long long s = 0;
            for (int k = 0; k < n; k++) s += a[i][k] * b[k][j]; std::cout << s << (j + 1 < n ? " " : "\\n"); } } }
        """),
        },
        lambda r: (
            lambda n: f"{n}\n" + "".join(" ".join(str(r.randint(-9, 9)) for _ in range(n)) + "\n" for _ in range(2 * n))
        )(r.randint(1, 4)),
        ["1\n2\n3\n"],
    ),
    Io(
        "dijkstra",
        "hard",
        "A directed graph has n nodes (1..n) and m weighted edges. Input: n m, then m lines 'u v w' "
        "(w >= 0). Print the shortest distance from node 1 to every node 1..n on one line, "
        "separated by spaces, with -1 for unreachable nodes.",
        {
            "python": d("""
        import heapq, sys
        v = list(map(int, sys.stdin.read().split()))
        n, m = v[0], v[1]
        adj = [[] for _ in range(n + 1)]
        for i in range(m):
            a, b, w = v[2 + 3 * i:5 + 3 * i]
            adj[a].append((b, w))
        dist = [-1] * (n + 1)
        heap = [(0, 1)]
        while heap:
            d0, u = heapq.heappop(heap)
            if dist[u] >= 0:
                continue
            dist[u] = d0
            for b, w in adj[u]:
                if dist[b] < 0:
                    heapq.heappush(heap, (d0 + w, b))
        print(" ".join(map(str, dist[1:])))
        """),
            "cpp": d("""
        #include <cstdio>
        #include <queue>
        #include <vector>
        int main() { int n, m; scanf("%d %d", &n, &m); std::vector<std::vector<std::pair<int, long long>>> adj(n + 1);
          for (int i = 0; i < m; i++) { int a, b; long long w; scanf("%d %d %lld", &a, &b, &w); adj[a].push_back({b, w}); }
          std::vector<long long> d(n + 1, -1); std::priority_queue<std::pair<long long, int>> pq; pq.push({0, 1});
          while (!pq.empty()) { auto [nd, u] = pq.top(); pq.pop(); if (d[u] >= 0) continue; d[u] = -nd;
            for (auto [b, w] : adj[u]) if (d[b] < 0) pq.push({nd - w, b}); }
          for (int i = 1; i <= n; i++) printf("%lld%c", d[i], i == n ? '\\n' : ' '); }
        """),
        },
        lambda r: (
            lambda n, m: (
                f"{n} {m}\n" + "".join(f"{r.randint(1, n)} {r.randint(1, n)} {r.randint(0, 20)}\n" for _ in range(m))
            )
        )(r.randint(1, 8), r.randint(0, 14)),
        ["1 0\n", "3 2\n1 2 5\n2 3 0\n", "3 3\n1 2 5\n1 3 0\n3 2 0\n"],
        wrong={
            "python": d("""
        import sys
        from collections import deque
        v = list(map(int, sys.stdin.read().split()))
        n, m = v[0], v[1]
        adj = [[] for _ in range(n + 1)]
        for i in range(m):
            a, b, w = v[2 + 3 * i:5 + 3 * i]
            adj[a].append((b, w))
        dist = [-1] * (n + 1)
        dist[1] = 0
        q = deque([1])
        while q:
            u = q.popleft()
            for b, w in adj[u]:
                if dist[b] < 0:
                    dist[b] = dist[u] + w
                    q.append(b)
        print(" ".join(map(str, dist[1:])))
        """)
        },
    ),
    Io(
        "lcs_length",
        "hard",
        "Read two strings (one per line, lower-case letters, possibly empty lines). Print the "
        "length of their longest common subsequence.",
        {
            "python": d("""
        import sys
        lines = sys.stdin.read().split("\\n")
        a, b = lines[0].strip(), (lines[1].strip() if len(lines) > 1 else "")
        prev = [0] * (len(b) + 1)
        for ca in a:
            cur = [0]
            for j, cb in enumerate(b, 1):
                cur.append(prev[j - 1] + 1 if ca == cb else max(prev[j], cur[j - 1]))
            prev = cur
        print(prev[-1])
        """),
            "cpp": d("""
        #include <algorithm>
        #include <iostream>
        #include <string>
        #include <vector>
        int main() { std::string a, b; std::getline(std::cin, a); std::getline(std::cin, b);
          std::vector<std::vector<int>> f(a.size() + 1, std::vector<int>(b.size() + 1, 0));
          for (size_t i = 1; i <= a.size(); i++) for (size_t j = 1; j <= b.size(); j++)
            f[i][j] = a[i - 1] == b[j - 1] ? f[i - 1][j - 1] + 1 : std::max(f[i - 1][j], f[i][j - 1]);
          std::cout << f[a.size()][b.size()] << "\\n"; }
        """),
            "rust": d("""
        use std::io::Read;
        fn main() {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).unwrap();
            let mut it = s.split('\\n');
            let a: Vec<u8> = it.next().unwrap_or("").trim().bytes().collect();
            let b: Vec<u8> = it.next().unwrap_or("").trim().bytes().collect();
            let mut f = vec![vec![0usize; b.len() + 1]; a.len() + 1];
            for i in 1..=a.len() { for j in 1..=b.len() {
                f[i][j] = if a[i - 1] == b[j - 1] { f[i - 1][j - 1] + 1 } else { f[i - 1][j].max(f[i][j - 1]) };
            } }
            println!("{}", f[a.len()][b.len()]);
        }
        """),
        },
        lambda r: (
            "".join(r.choice("abc") for _ in range(r.randint(0, 10)))
            + "\n"
            + "".join(r.choice("abc") for _ in range(r.randint(0, 10)))
            + "\n"
        ),
        ["abc\nabc\n", "abc\n\n", "abcde\nace\n"],
    ),
    Io(
        "mean_std",
        "medium",
        "Read n, then n real numbers. Print their mean and population standard deviation with 6 "
        "digits after the decimal point, separated by a space.",
        {
            "python": d("""
        import math
        n = int(input())
        xs = list(map(float, input().split()))
        m = sum(xs) / n
        print(f"{m:.6f} {math.sqrt(sum((x - m) ** 2 for x in xs) / n):.6f}")
        """),
            "cpp": d("""
        #include <cmath>
        #include <cstdio>
        #include <vector>
        int main() { int n; scanf("%d", &n); std::vector<double> x(n); double s = 0;
          for (auto& v : x) { scanf("%lf", &v); s += v; } double m = s / n, q = 0;
          for (auto v : x) q += (v - m) * (v - m); printf("%.6f %.6f\\n", m, std::sqrt(q / n)); }
        """),
        },
        lambda r: (lambda xs: f"{len(xs)}\n{' '.join(f'{x:.2f}' for x in xs)}\n")(
            [r.uniform(-50, 50) for _ in range(r.randint(1, 10))]
        ),
        ["1\n5\n", "2\n1 3\n"],
        float_tol=1e-5,
    ),
    Io(
        "sort_people",
        "medium",
        "Read n, then n lines 'name age'. Print the names sorted by age ascending, ties by name, one per line.",
        {
            "python": d("""
        n = int(input())
        people = []
        for _ in range(n):
            name, age = input().split()
            people.append((int(age), name))
        for age, name in sorted(people):
            print(name)
        """),
            "cpp": d("""
        #include <algorithm>
        #include <iostream>
        #include <string>
        #include <vector>
        int main() { int n; std::cin >> n; std::vector<std::pair<int, std::string>> v(n);
          for (auto& [a, s] : v) std::cin >> s >> a; std::sort(v.begin(), v.end());
          for (auto& [a, s] : v) std::cout << s << "\\n"; }
        """),
        },
        lambda r: (
            lambda n: (
                f"{n}\n"
                + "".join(f"{r.choice(['ann', 'bob', 'cy', 'dee', 'eve'])} {r.randint(1, 5)}\n" for _ in range(n))
            )
        )(r.randint(1, 7)),
        ["1\nzed 30\n", "2\nbob 5\nann 5\n"],
    ),
    Io(
        "primes_upto",
        "medium",
        "Read n (1 <= n <= 10^5). Print the number of primes <= n, then on the next line the "
        "largest such prime (or 0 if none).",
        {
            "python": d("""
        n = int(input())
        sieve = bytearray([1]) * (n + 1)
        sieve[0:2] = b"\\x00\\x00"[: min(2, n + 1)]
        for i in range(2, int(n ** 0.5) + 1):
            if sieve[i]:
                sieve[i * i::i] = bytearray(len(sieve[i * i::i]))
        ps = [i for i in range(n + 1) if sieve[i]]
        print(len(ps))
        print(ps[-1] if ps else 0)
        """),
            "cpp": d("""
        #include <cstdio>
        #include <vector>
        int main() { int n; scanf("%d", &n); std::vector<bool> p(n + 1, true); int c = 0, last = 0;
          for (int i = 2; i <= n; i++) { if (!p[i]) continue; c++; last = i; for (long long j = 1LL * i * i; j <= n; j += i) p[j] = false; }
          printf("%d\\n%d\\n", c, last); }
        """),
        },
        lambda r: f"{r.randint(1, 100000)}\n",
        ["1\n", "2\n", "100\n"],
    ),
]
