"""Circle packing: 26 circles in the unit square, maximise the sum of radii (AlphaEvolve's benchmark)."""

# EVOLVE-BLOCK-START
def pack(n):
    """Small circles on a 6 x 5 grid."""
    out = []
    for i in range(n):
        out.append([0.1 + 0.16 * (i % 6), 0.1 + 0.2 * (i // 6), 0.05])
    return out
# EVOLVE-BLOCK-END


def run():
    return pack(26)
