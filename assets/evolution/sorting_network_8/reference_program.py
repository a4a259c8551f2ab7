"""Batcher's odd-even merge sort: 19 comparators for 8 wires (optimal)."""

# EVOLVE-BLOCK-START
def network(n):
    pairs = []
    p = 1
    while p < n:
        k = p
        while k >= 1:
            for j in range(k % p, n - k, 2 * k):
                for i in range(min(k, n - j - k)):
                    if (i + j) // (2 * p) == (i + j + k) // (2 * p):
                        pairs.append([i + j, i + j + k])
            k //= 2
        p *= 2
    return pairs
# EVOLVE-BLOCK-END


def run():
    return network(8)
