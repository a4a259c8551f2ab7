"""A cap set in F_3^4 (FunSearch's cap-set problem, small n)."""

# EVOLVE-BLOCK-START
def cap(n):
    """Vectors with entries 0 and 1 only form a cap; take a few of them."""
    out = []
    for m in range(2**n):
        out.append([(m >> b) & 1 for b in range(n)])
        if len(out) >= 10:
            break
    return out
# EVOLVE-BLOCK-END


def run():
    return cap(4)
