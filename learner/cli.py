"""``codegym train``: run the learner from a YAML config and ``key=value`` overrides.

Examples::

    codegym train steps=30 sft_steps=200 algorithm=dr_grpo
    codegym train --config runs/my.yaml num_generations=16 out_dir=runs/g16
    codegym train --print-config algorithm=dapo      # show the resolved config and exit
    codegym train --resume out_dir=runs/g16          # continue from the last checkpoint

Every field of :class:`~codegym.learner.config.LearnerConfig` can be overridden; values are
parsed as YAML (``env_kwargs={difficulty: easy}``).
"""

from __future__ import annotations

import argparse
import json
import sys

from codegym.learner.config import LearnerConfig


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``codegym train``."""
    p = argparse.ArgumentParser(
        prog="codegym train",
        description="Train a causal LM on a codegym env with the GRPO family.",
        epilog="Any config field can be set as key=value; see LearnerConfig for the list.",
    )
    p.add_argument("--config", help="YAML file of LearnerConfig fields")
    p.add_argument("--resume", action="store_true", help="continue from out_dir/checkpoint")
    p.add_argument("--print-config", action="store_true", help="print the resolved config as JSON and exit")
    p.add_argument("overrides", nargs="*", metavar="key=value", help="config field overrides")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run ``codegym train``; returns the process exit status (0 ok, 2 bad config)."""
    args = build_parser().parse_args(argv)
    overrides = list(args.overrides) + (["resume=true"] if args.resume else [])
    try:
        cfg = LearnerConfig.from_yaml(args.config, overrides) if args.config else LearnerConfig.from_dict({}, overrides)
    except (ValueError, OSError) as exc:
        print(f"codegym train: {exc}", file=sys.stderr)
        return 2
    if args.print_config:
        print(cfg.to_json())
        return 0
    from codegym.learner.trainer import Trainer

    import codegym  # noqa: F401 - registers the env ids with Gymnasium

    result = Trainer(cfg).train()
    summary = {k: result.get(k) for k in ("before", "after", "steps", "plot", "out_dir")}
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
