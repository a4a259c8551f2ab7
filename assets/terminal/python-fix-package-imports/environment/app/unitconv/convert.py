FACTORS = {"km": 1000.0, "m": 1.0, "cm": 0.01}


def convert(value, src, dst):
    return value * FACTORS[src] / FACTORS[dst]
