"""The hidden formula itself."""
import math

# EVOLVE-BLOCK-START
def f(x1, x2):
    return x1 * x1 - 0.5 * x2 + math.sin(x1 * x2)
# EVOLVE-BLOCK-END


def run(points):
    return [f(x1, x2) for x1, x2 in points]
