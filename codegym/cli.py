"""The ``codegym`` command: list, doctor, play, validate, demo, train, synth-tasks."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from rich.console import Console
from rich.table import Table

console = Console()

# Subcommands owned by other packages: (module, function taking argv) - imported on use.
DELEGATED = {
    "train": ("codegym.learner.cli", "main", "train a model on codegym envs (GRPO family)"),
    "synth-tasks": ("codegym.envs.agentic.synth", "main", "turn a git repository with pytest tests into repair tasks"),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``codegym`` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in DELEGATED:
        module, func, _ = DELEGATED[argv[0]]
        entry: Callable[[list[str]], int] = getattr(importlib.import_module(module), func)
        return int(entry(argv[1:]) or 0)
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    return int(args.run(args) or 0)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codegym", description=__doc__)
    sub = parser.add_subparsers(metavar="COMMAND")
    sub.add_parser("list", help="env ids, one line each").set_defaults(run=cmd_list)
    sub.add_parser("doctor", help="check every real part and say how to fix what is missing").set_defaults(
        run=cmd_doctor
    )

    play = sub.add_parser("play", help="play one episode and show the reward breakdown")
    play.add_argument("env_id")
    play.add_argument("--policy", default="gold", help="gold, random, or a file holding the action text")
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--task-id")
    play.add_argument("--sandbox", choices=["local", "docker"])
    _task_arguments(play)
    play.set_defaults(run=cmd_play)

    validate = sub.add_parser(
        "validate", help="gold earns full reward on every task, N runs agreeing; no-op earns the floor"
    )
    validate.add_argument("--env", action="append", help="env id (repeatable; default: all)")
    validate.add_argument("--runs", type=int, default=3)
    validate.add_argument("--sample", type=int, help="check only this many tasks per env (seeded)")
    validate.add_argument("--seed", type=int, default=0)
    validate.add_argument("--sandbox", choices=["local", "docker"])
    _task_arguments(validate)
    validate.add_argument(
        "--mutants", action="store_true", help="grade every mutant of each gold instead; fail above --threshold"
    )
    validate.add_argument("--threshold", type=float, default=0.02, help="surviving mutant share allowed per family")
    validate.set_defaults(run=cmd_validate)

    demo = sub.add_parser("demo", help="the main job: play envs, then train a few learner steps")
    demo.add_argument("--learner-steps", type=int, default=3)
    demo.add_argument("--skip-learner", action="store_true")
    demo.set_defaults(run=cmd_demo)

    for name, (_, _, summary) in DELEGATED.items():
        sub.add_parser(name, help=summary, add_help=False)
    return parser


def _task_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tasks", help="your own task file or folder in place of the bundled set (any format tasks= reads)"
    )
    parser.add_argument("--repo-root", help="folder of local git mirrors for SWE-bench-format tasks")


def cmd_list(args: argparse.Namespace) -> int:
    """Print every registered env id with its summary."""
    from codegym.registration import ENVS

    table = Table("env id", "what it is")
    for entry in ENVS:
        table.add_row(entry.id, entry.summary)
    console.print(table)
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    """Check each real part; exit 1 when a part the core envs need is missing."""
    from codegym.doctor import run_checks

    table = Table("part", "status", "detail / fix")
    failed_required = False
    for check in run_checks():
        status = "[green]ok" if check.ok else ("[red]missing" if check.required else "[yellow]missing")
        table.add_row(check.name, status, check.detail if check.ok else check.fix)
        failed_required |= check.required and not check.ok
    console.print(table)
    return 1 if failed_required else 0


def cmd_play(args: argparse.Namespace) -> int:
    """One episode with the gold, a random or a file policy."""
    from codegym.play import play_episode

    play_episode(
        args.env_id,
        args.policy,
        seed=args.seed,
        task_id=args.task_id,
        sandbox=args.sandbox,
        console=console,
        tasks=args.tasks,
        repo_root=args.repo_root,
    )
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    """Gold and no-op checks over every task; exit 1 on any failure."""
    from codegym.validate import validate

    if args.mutants:  # hidden tests strong enough to tell a mutant of the gold (codegym/mutants.py)
        from codegym.mutants import check_mutants

        failures = check_mutants(
            args.env,
            sample=args.sample,
            seed=args.seed,
            sandbox=args.sandbox,
            threshold=args.threshold,
            console=console,
            tasks=args.tasks,
            repo_root=args.repo_root,
        )
        return 1 if failures else 0
    failures = validate(
        args.env,
        runs=args.runs,
        sample=args.sample,
        seed=args.seed,
        sandbox=args.sandbox,
        console=console,
        tasks=args.tasks,
        repo_root=args.repo_root,
    )
    return 1 if failures else 0


def cmd_demo(args: argparse.Namespace) -> int:
    """The README's main job."""
    from codegym.play import demo

    demo(learner_steps=0 if args.skip_learner else args.learner_steps, console=console)
    return 0


if __name__ == "__main__":
    sys.exit(main())
