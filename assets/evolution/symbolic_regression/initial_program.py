"""Symbolic regression: a formula for a hidden function of two variables."""
import math

# EVOLVE-BLOCK-START
def f(x1, x2):
    return 1.0 * x1 + 0.5 * x2
# EVOLVE-BLOCK-END


def run(points):
    return [f(x1, x2) for x1, x2 in points]
