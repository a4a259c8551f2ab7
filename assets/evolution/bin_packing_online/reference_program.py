"""Best fit, with a preference for bins the item nearly fills (FunSearch's heuristics look like this)."""

CAPACITY = 150


# EVOLVE-BLOCK-START
def priority(item, remaining):
    out = []
    for r in remaining:
        gap = r - item
        out.append(-gap + (10.0 if gap == 0 else 0.0) - (5.0 if 0 < gap < 20 else 0.0))
    return out
# EVOLVE-BLOCK-END


def pack(items):
    remaining, where = [], []
    for item in items:
        scores = priority(item, remaining)
        fits = [i for i in range(len(remaining)) if remaining[i] >= item]
        if fits:
            b = max(fits, key=lambda i: (scores[i], -i))
        else:
            remaining.append(CAPACITY)
            b = len(remaining) - 1
        remaining[b] -= item
        where.append(b)
    return where


def run(instances):
    return [pack(items) for items in instances]
