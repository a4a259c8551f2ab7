"""Playing episodes from the command line: ``codegym play`` and the main demo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
from rich.console import Console
from rich.table import Table
from rich.text import Text

import codegym  # noqa: F401 - registers the ids
from codegym.core import CodeEnv

#: Envs the demo plays: fast ones that need nothing beyond scripts/setup.sh.
DEMO_ENVS = ("CodeGen-v0", "CodeRepair-v0", "ImageToSVG-v0")


def env_kwargs(
    sandbox: str | None = None, tasks: str | Path | None = None, repo_root: str | Path | None = None
) -> dict[str, Any]:
    """``gym.make`` keyword arguments for the command line's ``--sandbox``, ``--tasks``, ``--repo-root``."""
    kwargs: dict[str, Any] = {}
    if sandbox:
        kwargs["sandbox"] = sandbox
    if tasks is not None:
        kwargs["tasks"] = str(tasks)
    if repo_root is not None:  # CodeRepair / TestGen: local mirrors of SWE-bench repositories
        kwargs["repo_root"] = str(repo_root)
    return kwargs


def code_env(env: gym.Env) -> CodeEnv:
    """The CodeEnv under Gymnasium's wrappers; a clear error for an env that is not one."""
    base = env.unwrapped
    if not isinstance(base, CodeEnv):
        raise TypeError(f"{env.spec.id if env.spec else env} is not a codegym env (CodeEnv subclass)")
    return base


def policy_action(env: gym.Env, policy: str) -> str:
    """The action of ``policy``: gold, random (the action space's sample) or a file's text."""
    if policy == "gold":
        return code_env(env).gold_action()
    if policy == "random":
        return str(env.action_space.sample())
    path = Path(policy)
    if not path.is_file():
        raise SystemExit(f"--policy must be gold, random or a file path; no file {policy!r}")
    return path.read_text(encoding="utf-8")


def highlight_spans(action: str, spans: list[list[float]]) -> Text:
    """The action with token-reward spans coloured: green positive, red negative."""
    text = Text(action)
    for start, end, value in spans:
        if value:
            text.stylize("on dark_green" if value > 0 else "on dark_red", int(start), int(end))
    return text


def show_step(console: Console, title: str, action: str, reward: float, info: dict[str, Any]) -> None:
    """Print one step's reward breakdown, spans and feedback."""
    table = Table(title=f"{title}: reward {reward:.3f}", show_header=True)
    table.add_column("component")
    table.add_column("value", justify="right")
    for name, value in info["reward_components"].items():
        table.add_row(name, f"{value:.3f}")
    if info["audit"]["flags"]:
        table.add_row("audit flags", ", ".join(info["audit"]["flags"]))
    if "infra_error" in info:
        table.add_row("infra error", info["infra_error"])
    console.print(table)
    if info["token_rewards"]:
        console.print(highlight_spans(action[:3000], [s for s in info["token_rewards"] if s[0] < 3000]))
    if info["feedback"]:
        console.print(f"[dim]feedback:[/dim] {info['feedback'][:1500]}")


def play_episode(
    env_id: str,
    policy: str,
    *,
    seed: int = 0,
    task_id: str | None = None,
    sandbox: str | None = None,
    console: Console | None = None,
    tasks: str | Path | None = None,
    repo_root: str | Path | None = None,
) -> float:
    """Play one episode of ``env_id`` (on ``tasks`` in place of its bundled set) and print it."""
    console = console or Console()
    env = gym.make(env_id, **env_kwargs(sandbox, tasks, repo_root))
    try:
        obs, info = env.reset(seed=seed, options={"task_id": task_id} if task_id else None)
        console.rule(f"{env_id} / task {info['task_id']} / policy {policy}")
        text = obs if isinstance(obs, str) else obs.get("text", "")
        console.print(
            text if len(text) <= 1500 else f"{text[:1500]}\n[... {len(text) - 1500} more characters]", markup=False
        )
        total, done = 0.0, False
        while not done:
            action = policy_action(env, policy)
            obs, reward, terminated, truncated, info = env.step(action)
            show_step(console, f"turn {info.get('turn', 1)}", action, float(reward), info)
            total += float(reward)
            done = terminated or truncated
        return total
    finally:
        env.close()


def demo(learner_steps: int = 3, console: Console | None = None) -> None:
    """The main job: gold and a broken attempt on a few envs, then a few learner steps."""
    console = console or Console()
    for env_id in DEMO_ENVS:
        env = gym.make(env_id)
        try:
            _, start = env.reset(seed=0)
            gold = code_env(env).gold_action()
            console.rule(f"{env_id}: task {start['task_id']}")
            _, reward, _, _, info = env.step(gold)
            show_step(console, "gold", gold, float(reward), info)
            env.reset(seed=0)
            broken = gold[: len(gold) // 2]
            _, reward, _, _, info = env.step(broken)
            show_step(console, "broken (gold cut in half)", broken, float(reward), info)
        finally:
            env.close()
    if learner_steps:
        from codegym.envs.codegen.generate import generate_tasks
        from codegym.learner.demo import run_demo

        console.rule("learner: tiny model, SFT warm start, GRPO steps on generated CodeGen-v0 tasks")
        # Generated one-line tasks: the bundled problems are far beyond a model trained for a minute.
        tasks = generate_tasks(150, 0, "easy", "train") + generate_tasks(16, 0, "easy", "test")
        metrics = run_demo(steps=learner_steps, env_kwargs={"tasks": tasks})
        console.print({k: metrics[k] for k in ("before", "after", "sft_loss", "seconds", "parameters") if k in metrics})
