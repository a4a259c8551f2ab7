"""Dynamic programming over capacities: optimal."""

# EVOLVE-BLOCK-START
def choose(weights, values, capacity):
    best = [[0] * (capacity + 1) for _ in range(len(weights) + 1)]
    for i in range(len(weights)):
        for c in range(capacity + 1):
            best[i + 1][c] = best[i][c]
            if weights[i] <= c:
                best[i + 1][c] = max(best[i + 1][c], best[i][c - weights[i]] + values[i])
    taken, c = [], capacity
    for i in range(len(weights), 0, -1):
        if best[i][c] != best[i - 1][c]:
            taken.append(i - 1)
            c -= weights[i - 1]
    return sorted(taken)
# EVOLVE-BLOCK-END


def run(instances):
    return [choose(k["weights"], k["values"], k["capacity"]) for k in instances]
