"""DSatur: colour the most constrained vertex next, with its smallest free colour."""

# EVOLVE-BLOCK-START
def colour(n, edges):
    nb = [set() for _ in range(n)]
    for a, b in edges:
        nb[a].add(b)
        nb[b].add(a)
    col = [-1] * n
    for _ in range(n):
        v = max((u for u in range(n) if col[u] < 0), key=lambda u: (len({col[w] for w in nb[u] if col[w] >= 0}), len(nb[u]), -u))
        used = {col[w] for w in nb[v]}
        col[v] = min(c for c in range(n + 1) if c not in used)
    return col
# EVOLVE-BLOCK-END


def run(graphs):
    return [colour(g["n"], g["edges"]) for g in graphs]
