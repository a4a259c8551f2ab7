"""Smith's rule (shortest weighted processing time first): optimal."""

# EVOLVE-BLOCK-START
def priority(p, w):
    return p / w
# EVOLVE-BLOCK-END


def run(instances):
    return [sorted(range(len(jobs)), key=lambda i: (priority(*jobs[i]), i)) for jobs in instances]
