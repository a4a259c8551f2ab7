"""Our GRPO steps against TRL's GRPOTrainer: tokens/s and peak memory, same work, one process.

Same tiny model (saved once, loaded by both from the same folder), same prompts (CodeGen-v0
generated easy tasks), same G, completion length, temperature, loss (GRPO, beta 0, one
iteration), same reward (the env itself, through ``codegym.integrations.trl.EnvReward`` for
TRL). Each side runs ``--warmup`` untimed steps then ``--steps`` timed ones.

tokens/s = completion tokens sampled / wall time of the timed steps (rollout + reward +
update). Peak memory = highest resident set size sampled every 5 ms during a side's timed
steps, minus the resident size when it started (both sides run in this process, so absolute
peaks would include the other side's leftovers).

    PYTHONPATH=. .venv/bin/python bench/learner_vs_trl.py [--steps 5] [--reward env|length]

``--reward length`` swaps the sandboxed env reward for a cheap in-process one (length of the
completion) so the ratio shows the learner's own overhead without grading time.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import threading
import time
import warnings

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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--G", type=int, default=8)
    ap.add_argument("--prompts", type=int, default=4, help="prompts per step")
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--reward", choices=("env", "length"), default="env")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads, both sides")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    tasks = generate_tasks(64, 0, "easy", "train")
    env = gym.make("CodeGen-v0", tasks=tasks, trace=False)
    if args.reward == "length":
        env = LengthEnv(env)
    tmp = tempfile.mkdtemp(prefix="bench-trl-")
    tok = build_tokenizer([t["prompt"] + t["gold"] for t in tasks], 1024)
    build_tiny_model(tok, layers=4, hidden=128, heads=4).save_pretrained(f"{tmp}/model")
    tok.save_pretrained(f"{tmp}/model")
    model, tok = load_model(f"{tmp}/model")
    print(
        f"model: {count_parameters(model) / 1e6:.2f}M parameters, G={args.G}, prompts/step={args.prompts}, "
        f"max_new_tokens={args.max_new_tokens}, reward={args.reward}, torch threads={torch.get_num_threads()}"
    )

    # ---------------------------------------------------------------- ours
    cfg = LearnerConfig(
        model=f"{tmp}/model",
        algorithm="grpo",
        num_generations=args.G,
        tasks_per_step=args.prompts,
        max_new_tokens=args.max_new_tokens,
        temperature=1.0,
        learning_rate=1e-5,
        beta=0.0,
        steps=args.warmup + args.steps,
        progress=False,
        out_dir=f"{tmp}/ours",
        pass_threshold=1.0,
    )
    ours = Trainer(cfg, env=env)
    for _ in range(args.warmup):
        ours.train_step()
    t0 = time.perf_counter()
    with PeakRSS() as mem_ours:
        recs = [ours.train_step() for _ in range(args.steps)]
    ours_s = time.perf_counter() - t0
    ours_tokens = sum(r["generated_tokens"] for r in recs)
    del ours
    gc.collect()

    # ---------------------------------------------------------------- TRL
    warnings.filterwarnings("ignore")
    from trl import GRPOConfig, GRPOTrainer

    counted = {"tokens": 0}
    reward = EnvReward(env) if args.reward == "env" else LengthReward()

    def reward_fn(prompts=None, completions=None, completion_ids=None, **kw):
        counted["tokens"] += sum(len(c) for c in completion_ids)
        return reward(prompts=prompts, completions=completions, **kw)

    reward_fn.__name__ = "codegym"
    dataset = prompt_dataset(env.unwrapped if args.reward == "length" else env, "train")
    trl_cfg = GRPOConfig(
        output_dir=f"{tmp}/trl",
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
    trl_model, _ = load_model(f"{tmp}/model")
    trainer = GRPOTrainer(
        model=trl_model, reward_funcs=reward_fn, args=trl_cfg, train_dataset=dataset, processing_class=tok
    )
    marks: dict[str, float] = {}

    from transformers import TrainerCallback

    class Clock(TrainerCallback):
        def on_step_end(self, a, state, control, **kw):
            if state.global_step == args.warmup:
                counted["tokens"] = 0
                marks["t0"] = time.perf_counter()
                marks["mem"] = PeakRSS().__enter__()

    trainer.add_callback(Clock())
    trainer.train()
    trl_s = time.perf_counter() - marks["t0"]
    mem_trl = marks["mem"]
    mem_trl.__exit__()
    trl_tokens = counted["tokens"]

    ours_tps, trl_tps = ours_tokens / ours_s, trl_tokens / trl_s
    print(f"ours: {ours_tokens} tokens in {ours_s:.2f}s = {ours_tps:.1f} tok/s, peak +{mem_ours.peak_mb:.1f} MB")
    print(f"TRL : {trl_tokens} tokens in {trl_s:.2f}s = {trl_tps:.1f} tok/s, peak +{mem_trl.peak_mb:.1f} MB")
    print(f"ratio tokens/s ours/TRL = {ours_tps / trl_tps:.2f}x (goal >= 1.5x)")
    print(f"ratio peak memory ours/TRL = {mem_ours.peak_mb / max(mem_trl.peak_mb, 1e-9):.2f} (goal <= 1.0)")
    env.close()


if __name__ == "__main__":
    main()
