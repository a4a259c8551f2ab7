"""A 5 x 5 grid of radius 0.1, and one circle in the gap between four of them."""

# EVOLVE-BLOCK-START
def pack(n):
    out = [[0.1 + 0.2 * i, 0.1 + 0.2 * j, 0.1] for i in range(5) for j in range(5)]
    out.append([0.2, 0.2, (2**0.5 - 1) * 0.1 - 1e-9])
    return out[:n]
# EVOLVE-BLOCK-END


def run():
    return pack(26)
