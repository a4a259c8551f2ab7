"""A grid, then a shrinking pattern search from the best grid point."""
import math
import random

# EVOLVE-BLOCK-START
def search(samples=20):
    best = min(((i / 10 - 5, j / 10 - 5) for i in range(101) for j in range(101)), key=lambda p: f(*p))
    step = 0.05
    while step > 1e-9:
        moves = [(best[0] + dx, best[1] + dy) for dx, dy in ((step, 0), (-step, 0), (0, step), (0, -step))]
        cand = min(moves, key=lambda p: f(*p))
        if f(*cand) < f(*best):
            best = cand
        else:
            step /= 2
    return best
# EVOLVE-BLOCK-END


def f(x, y):
    return math.sin(x) * math.cos(y) + math.sin(x * y) + (x * x + y * y) / 20


def run():
    return list(search())
