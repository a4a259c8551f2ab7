"""Longest strictly increasing subsequence, one array per call."""

# EVOLVE-BLOCK-START
def lis(a):
    """Quadratic dynamic programming: right, but slow on large arrays."""
    best = [1] * len(a)
    for i in range(len(a)):
        for j in range(i):
            if a[j] < a[i] and best[j] + 1 > best[i]:
                best[i] = best[j] + 1
    return max(best, default=0)
# EVOLVE-BLOCK-END


def run(a):
    return lis(a)
