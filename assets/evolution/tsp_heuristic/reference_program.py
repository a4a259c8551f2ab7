"""Nearest neighbour, then 2-opt until no move improves."""
import math

# EVOLVE-BLOCK-START
def tour(cities):
    n = len(cities)
    d = [[math.dist(a, b) for b in cities] for a in cities]
    order, left = [0], set(range(1, n))
    while left:
        nxt = min(left, key=lambda j: (d[order[-1]][j], j))
        order.append(nxt)
        left.remove(nxt)
    improved = True
    while improved:
        improved = False
        for i in range(1, n - 1):
            for j in range(i + 1, n):
                a, b, c, e = order[i - 1], order[i], order[j], order[(j + 1) % n]
                if d[a][c] + d[b][e] < d[a][b] + d[c][e] - 1e-12:
                    order[i : j + 1] = reversed(order[i : j + 1])
                    improved = True
    return order
# EVOLVE-BLOCK-END


def run(instances):
    return [tour(c) for c in instances]
