"""A sorting network for 8 wires: the fewer comparators, the better."""

# EVOLVE-BLOCK-START
def network(n):
    """Bubble sort as a network: every adjacent pair, n - 1 passes."""
    pairs = []
    for p in range(n - 1):
        for i in range(n - 1 - p):
            pairs.append([i, i + 1])
    return pairs
# EVOLVE-BLOCK-END


def run():
    return network(8)
