"""Single-machine scheduling: a priority rule orders the jobs."""

# EVOLVE-BLOCK-START
def priority(p, w):
    """Lower runs first. First come, first served."""
    return 0.0
# EVOLVE-BLOCK-END


def run(instances):
    return [sorted(range(len(jobs)), key=lambda i: (priority(*jobs[i]), i)) for jobs in instances]
