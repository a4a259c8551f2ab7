"""Our GRPO steps against TRL's GRPOTrainer: tokens/s and peak memory, same work, one process.

Same tiny model (saved once, loaded by both from the same folder), same prompts (CodeGen-v0
generated easy tasks), same G, completion length, temperature, loss (GRPO, beta 0, one
iteration), same reward (the env itself, through ``codegym.integrations.trl.EnvReward`` for
TRL). Each side runs ``--warmup`` untimed steps then ``--steps`` timed ones.

tokens/s = completion tokens sampled / wall time of the timed steps (rollout + reward +
update). Each side runs in a fresh child process (spawned one after the other, never at the
same time); memory is reported as the growth of the resident set size during the timed
steps (sampled every 5 ms), as its growth over the whole training (warm-up step included, from
the RSS once model, data and trainer are built: the first step's allocations, e.g. optimizer
state, land in the warm-up, and the allocator may or may not hand freed pages back to the OS
between steps, so the timed-steps figure alone depends on allocator luck), and as the child's
maximum RSS (imports included).

    .venv/bin/pip install -e '.[bench]'   # TRL
    PYTHONPATH=. .venv/bin/python bench/learner_vs_trl.py [--steps 5] [--reward env|length] [--repeats 2]

Each side runs ``--repeats`` times (fresh child each, ABBA order); tokens/s is each side's
fastest run, memory each side's largest.

``--reward length`` swaps the sandboxed env reward for a cheap in-process one (length of the
completion) so the ratio shows the learner's own overhead without grading time.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import multiprocessing
import os
import tempfile
import threading
import time
import warnings
from queue import Empty

import gymnasium as gym
import torch
from codegym.envs.codegen.generate import generate_tasks
from codegym.learner.config import LearnerConfig
from codegym.learner.models import build_tiny_model, build_tokenizer, count_parameters, load_model
from codegym.learner.trainer import Trainer

import codegym  # noqa: F401
from codegym.integrations.trl import EnvReward, prompt_dataset


class PeakRSS:
    """Samples this process's resident set size in a thread; ``peak_mb`` above the start."""

    def __init__(self) -> None:
        self.start = self.peak = self._rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _rss() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._rss())
            time.sleep(0.005)

    def __enter__(self) -> PeakRSS:
        gc.collect()
        self.start = self.peak = self._rss()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def peak_mb(self) -> float:
        return (self.peak - self.start) / 2**20


class LengthReward:
    """A cheap reward (characters written / 100) for measuring the learners without grading."""

    __name__ = "length"

    def __call__(self, prompts=None, completions=None, **kw):
        return [len(str(c)) / 100 for c in completions]


class LengthEnv(gym.Wrapper):
    """The env with :class:`LengthReward` in place of grading (``--reward length``)."""

    def step(self, action):
        return (
            self.env.unwrapped.episode.last_observation,
            len(action) / 100,
            True,
            False,
            {"task_id": "", "reward_components": {}, "token_rewards": [], "feedback": "", "audit": {}, "verdict": {}},
        )


def make_env(reward: str) -> gym.Env:
    env = gym.make("CodeGen-v0", tasks=generate_tasks(64, 0, "easy", "train"), trace=False)
    return LengthEnv(env) if reward == "length" else env


def run_ours(args: argparse.Namespace, model_dir: str, out_dir: str) -> dict:
    env = make_env(args.reward)
    cfg = LearnerConfig(
        torch_threads=args.threads,
        model=model_dir,
        algorithm="grpo",
        num_generations=args.G,
        tasks_per_step=args.prompts,
        max_new_tokens=args.max_new_tokens,
        temperature=1.0,
        learning_rate=1e-5,
        beta=0.0,
        steps=args.warmup + args.steps,
        progress=False,
        out_dir=out_dir,
    )
    trainer = Trainer(cfg, env=env)
    with PeakRSS() as whole:
        for _ in range(args.warmup):
            trainer.train_step()
        t0 = time.perf_counter()
        with PeakRSS() as mem:
            recs = [trainer.train_step() for _ in range(args.steps)]
        seconds = time.perf_counter() - t0
    trainer.close()
    env.close()
    return {
        "tokens": sum(r["generated_tokens"] for r in recs),
        "seconds": seconds,
        "peak_mb": mem.peak_mb,
        "train_peak_mb": whole.peak_mb,
    }


def run_trl(args: argparse.Namespace, model_dir: str, out_dir: str) -> dict:
    warnings.filterwarnings("ignore")
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    torch.set_num_threads(args.threads)
    env = make_env(args.reward)
    counted = {"tokens": 0}
    reward = EnvReward(env) if args.reward == "env" else LengthReward()

    def reward_fn(prompts=None, completions=None, completion_ids=None, **kw):
        counted["tokens"] += sum(len(c) for c in completion_ids)
        return reward(prompts=prompts, completions=completions, **kw)

    reward_fn.__name__ = "codegym"
    cfg = GRPOConfig(
        output_dir=out_dir,
        use_cpu=True,
        bf16=False,
        report_to="none",
        save_strategy="no",
        logging_steps=1,
        per_device_train_batch_size=args.G * args.prompts,
        num_generations=args.G,
        max_completion_length=args.max_new_tokens,
        max_steps=args.warmup + args.steps,
        learning_rate=1e-5,
        temperature=1.0,
        top_p=1.0,
        top_k=0,
        beta=0.0,
        loss_type="grpo",
        num_iterations=1,
        seed=0,
        dataloader_num_workers=0,
        disable_tqdm=True,
    )
    model, tok = load_model(model_dir)
    dataset = prompt_dataset(env.unwrapped, "train")
    trainer = GRPOTrainer(model=model, reward_funcs=reward_fn, args=cfg, train_dataset=dataset, processing_class=tok)
    marks: dict = {}

    class Clock(TrainerCallback):
        def on_train_begin(self, a, state, control, **kw):
            marks["whole"] = PeakRSS().__enter__()

        def on_step_end(self, a, state, control, **kw):
            if state.global_step == args.warmup:
                counted["tokens"] = 0
                marks["t0"] = time.perf_counter()
                marks["mem"] = PeakRSS().__enter__()

    trainer.add_callback(Clock())
    trainer.train()
    seconds = time.perf_counter() - marks["t0"]
    marks["mem"].__exit__()
    marks["whole"].__exit__()
    env.close()
    return {
        "tokens": counted["tokens"],
        "seconds": seconds,
        "peak_mb": marks["mem"].peak_mb,
        "train_peak_mb": marks["whole"].peak_mb,
    }


def _child(side: str, args: argparse.Namespace, model_dir: str, out_dir: str, queue) -> None:
    import resource

    result = (run_ours if side == "ours" else run_trl)(args, model_dir, out_dir)
    result["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put(result)


def result_of(side: str, proc: multiprocessing.Process, queue) -> dict:
    """What the child running ``side`` put on ``queue``; exit if it died first (its traceback is above)."""
    while True:
        try:
            return queue.get(timeout=5)
        except Empty:
            if not proc.is_alive():
                raise SystemExit(f"the {side} run failed (exit code {proc.exitcode})") from None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--G", type=int, default=8)
    ap.add_argument("--prompts", type=int, default=4, help="prompts per step")
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--reward", choices=("env", "length"), default="env")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads, both sides")
    ap.add_argument(
        "--repeats", type=int, default=2, help="runs per side (ABBA order); the fastest run of each side is compared"
    )
    args = ap.parse_args()
    if importlib.util.find_spec("trl") is None:
        raise SystemExit("TRL is not installed: pip install -e '.[bench]'")
    with tempfile.TemporaryDirectory(prefix="bench-trl-") as tmp:  # the model and each side's run
        tasks = generate_tasks(64, 0, "easy", "train")
        tok = build_tokenizer([t["prompt"] + t["gold"] for t in tasks], 1024)
        model = build_tiny_model(tok, layers=4, hidden=128, heads=4)
        model.save_pretrained(f"{tmp}/model")
        tok.save_pretrained(f"{tmp}/model")
        print(
            f"model: {count_parameters(model) / 1e6:.2f}M parameters, G={args.G}, prompts/step={args.prompts}, "
            f"max_new_tokens={args.max_new_tokens}, reward={args.reward}, torch threads={args.threads}, "
            f"timed steps={args.steps} after {args.warmup} warm-up"
        )
        # Each side runs in a fresh child process so neither inherits the other's allocator pages
        # (in one process the second side reused the first side's freed memory and looked free).
        ctx = multiprocessing.get_context("spawn")
        runs: dict[str, list[dict]] = {"ours": [], "trl": []}
        # ABBA order (ours, TRL, TRL, ours, ...): on a shared CPU the load drifts, and each side
        # keeps its fastest run, so a burst of someone else's work hurts neither side's figure.
        order = [side for k in range(args.repeats) for side in (("ours", "trl") if k % 2 == 0 else ("trl", "ours"))]
        for side in order:
            queue = ctx.Queue()
            proc = ctx.Process(target=_child, args=(side, args, f"{tmp}/model", f"{tmp}/{side}", queue))
            proc.start()
            runs[side].append(result_of(side, proc, queue))
            proc.join()
    if args.repeats > 1:
        for side, rs in runs.items():
            print(f"{side} runs: " + ", ".join(f"{r['tokens'] / r['seconds']:.0f} tok/s" for r in rs))
    results = {}
    for side, rs in runs.items():
        best = dict(max(rs, key=lambda r: r["tokens"] / r["seconds"]))
        for key in ("peak_mb", "train_peak_mb", "max_rss_mb"):  # memory: the worst run
            best[key] = max(r[key] for r in rs)
        results[side] = best
    ours, trl = results["ours"], results["trl"]
    for name, r in (("ours", ours), ("TRL ", trl)):
        print(
            f"{name}: {r['tokens']} tokens in {r['seconds']:.2f}s = {r['tokens'] / r['seconds']:.1f} tok/s, "
            f"peak +{r['peak_mb']:.1f} MB during the timed steps, +{r['train_peak_mb']:.1f} MB during training "
            f"(warm-up included), max RSS {r['max_rss_mb']:.0f} MB"
        )
    ratio = (ours["tokens"] / ours["seconds"]) / (trl["tokens"] / trl["seconds"])
    print(f"ratio tokens/s ours/TRL = {ratio:.2f}x (goal >= 1.5x)")
    print(
        f"ratio peak memory growth ours/TRL = {ours['peak_mb'] / max(trl['peak_mb'], 1e-9):.2f}, "
        f"training peak ours/TRL = {ours['train_peak_mb'] / max(trl['train_peak_mb'], 1e-9):.2f}, "
        f"max RSS ours/TRL = {ours['max_rss_mb'] / trl['max_rss_mb']:.2f} (goal <= 1.0)"
    )


if __name__ == "__main__":
    main()
