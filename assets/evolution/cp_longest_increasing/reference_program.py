"""Patience sorting: O(n log n)."""
import bisect

# EVOLVE-BLOCK-START
def lis(a):
    tails = []
    for x in a:
        i = bisect.bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return len(tails)
# EVOLVE-BLOCK-END


def run(a):
    return lis(a)
