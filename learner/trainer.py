"""The training loop: warm start, rollouts, GRPO-family updates, evaluation, checkpoints.

Plumbing only; the math lives in :mod:`codegym.learner.algorithms` and
:mod:`codegym.learner.loss`. The env is any Gymnasium env with text actions whose ``info``
follows docs/contract.md; the learner never imports a codegym family.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import shutil
import time
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from codegym.learner import algorithms as alg
from codegym.learner.config import LearnerConfig
from codegym.learner.loss import advantages, batch_rows, make_batch, policy_loss, token_logprobs
from codegym.learner.models import (
    add_lora,
    build_tiny_model,
    build_tokenizer,
    count_parameters,
    load_lora_checkpoint,
    load_model,
    load_tokenizer,
    save_lora_checkpoint,
)
from codegym.learner.offline import load_offline
from codegym.learner.plots import plot_run
from codegym.learner.rollout import RolloutSettings, Sample, credit_groups, rollout, task_refs
from codegym.learner.sft import sft_examples, sft_train
from gymnasium.utils import seeding


def seed_everything(seed: int) -> torch.Generator:
    """Seed Python, NumPy and torch; return the generator used for sampling."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def _dynamic_keep(samples: list[Sample]) -> list[bool]:
    """DAPO's filter per sample: its advantage group's rewards are not all equal."""
    groups = torch.tensor(credit_groups(samples))
    return alg.dynamic_sampling_keep(torch.tensor([s.reward for s in samples]), groups).tolist()


def _varied_groups(samples: list[Sample]) -> set[int]:
    """Task groups some of whose advantage groups' gradable samples differ in reward."""
    ok = [s for s in samples if not s.infra_error]
    if not ok:
        return set()
    return {s.group for s, k in zip(ok, _dynamic_keep(ok), strict=True) if k}


def pass_rate(samples: list[Sample]) -> float:
    """Share of episodes solved; the attempts of a recovery chain are one episode.

    "Solved" is the family's definition (:mod:`codegym.learner.returns`), not a threshold on
    the return: three wrong turns are not a pass however their rewards add up.
    """
    episodes: dict[Any, bool] = {}
    for s in samples:
        key = s.chain_id if s.chain_id is not None else id(s)
        episodes[key] = episodes.get(key, False) or s.solved
    return float(np.mean(list(episodes.values()))) if episodes else 0.0


#: Wrappers that only check the API; a fork of the env under them is equivalent.
BOOKKEEPING = ("OrderEnforcing", "PassiveEnvChecker", "TimeLimit")


def fork_env(env: gym.Env) -> gym.Env | None:
    """An equivalent copy of ``env`` for another grading thread, or None when there is none.

    A wrapper that changes what ``step`` returns must fork itself (``RecoveryWrapper``
    does); Gymnasium's bookkeeping wrappers are dropped, as the fork of the unwrapped env.
    """
    while isinstance(env, gym.Wrapper) and type(env).__name__ in BOOKKEEPING:
        env = env.env
    fork = getattr(type(env), "fork", None)
    if fork is None:
        return None
    return env.fork()


class Trainer:
    """Trains a causal LM on a Gymnasium text env with the configured GRPO-family algorithm.

    Args:
        cfg: the run's configuration.
        env: the env to train on; None makes ``gym.make(cfg.env_id, **cfg.env_kwargs)``
            (not needed in offline mode).
        model: a causal LM; None builds the tiny model or loads ``cfg.model``.
        tokenizer: its tokenizer (required with ``model``).

    """

    def __init__(
        self,
        cfg: LearnerConfig,
        env: gym.Env | None = None,
        model: torch.nn.Module | None = None,
        tokenizer: Any = None,
    ) -> None:
        self.cfg = cfg
        if cfg.torch_threads:
            torch.set_num_threads(cfg.torch_threads)
        self.generator = seed_everything(cfg.seed)
        self.rng = random.Random(cfg.seed)
        self.out = Path(cfg.out_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        self.env = env
        if env is None and cfg.offline_data is None:
            self.env = gym.make(cfg.env_id, **cfg.env_kwargs)
        self.train_ids = task_refs(self.env, cfg.train_split) if self.env is not None else []
        self.eval_ids = task_refs(self.env, cfg.eval_split) if self.env is not None else []
        self.sft_ids = task_refs(self.env, cfg.sft_split) if self.env is not None and cfg.sft_split else self.train_ids
        if self.env is not None and not self.train_ids:
            raise ValueError(
                f"the env has no tasks in train_split={cfg.train_split!r}; set train_split to one of its splits"
            )
        self.envs = [self.env] if self.env is not None else []
        if cfg.env_workers > 1 and self.env is not None:
            # One fork per grading thread (multi-turn: per concurrent episode).
            forks = [fork_env(self.env) for _ in range(cfg.env_workers - 1)]
            if any(f is None for f in forks):
                warnings.warn(
                    f"env_workers={cfg.env_workers}, but {type(self.env).__name__} cannot be forked (a wrapper "
                    "without fork(), or an env without one): grading runs in one thread",
                    stacklevel=2,
                )
            self.envs += [f for f in forks if f is not None]
        for k, env in enumerate(self.envs):
            # An env that draws random numbers while grading (random tests, fuzzing) would
            # otherwise seed itself from the OS on first use, and forks would copy one stream.
            env.unwrapped.np_random, _ = seeding.np_random(abs(cfg.seed) * 1000 + k)
        self.checkpoint_dir = self.out / "checkpoint"
        self.step, self.sft_done = 0, False
        resuming = cfg.resume and (self.checkpoint_dir / "state.pt").exists()
        if resuming and (self.checkpoint_dir / "adapter_config.json").exists():
            base_path = None if (self.checkpoint_dir / "base").exists() else cfg.model
            model = load_lora_checkpoint(self.checkpoint_dir, cfg.lora_rank, base_path)
            tokenizer = load_tokenizer(self.checkpoint_dir)
        elif resuming:
            model, tokenizer = load_model(self.checkpoint_dir)
        elif model is None:
            model, tokenizer = self._build_model()
        self.model, self.tokenizer = model, tokenizer
        if cfg.lora_rank and not hasattr(model, "peft_config"):
            self.model = add_lora(model, cfg.lora_rank)
        self.ref: torch.nn.Module | None = None
        trainable = [p for p in self.model.parameters() if p.requires_grad]
        # The fused kernel does the whole step in one call (half the time of the per-tensor loop on CPU).
        fused = all(p.device.type in ("cpu", "cuda") and p.dtype.is_floating_point for p in trainable)
        self.opt = torch.optim.AdamW(trainable, lr=cfg.learning_rate, weight_decay=0.0, fused=fused or None)
        self.metrics_path = self.out / "metrics.jsonl"
        if resuming:
            self._load_state()
        elif self.metrics_path.exists():
            self.metrics_path.unlink()
        self.settings = RolloutSettings(
            max_new_tokens=cfg.max_new_tokens,
            max_prompt_tokens=cfg.max_prompt_tokens,
            max_turns=cfg.max_turns,
            temperature=cfg.temperature,
            top_k=cfg.top_k,
            prompt_template=cfg.prompt_template,
            episode_return=cfg.episode_return,
            solved_at=cfg.pass_threshold,
            turn_discount=cfg.turn_discount,
            turn_penalty=cfg.turn_penalty,
            prompt_overflow=cfg.prompt_overflow,
        )

    # ------------------------------------------------------------------ setup
    def _build_model(self) -> tuple[torch.nn.Module, Any]:
        cfg = self.cfg
        if cfg.model != "tiny":
            return load_model(cfg.model)
        texts = [p + g for p, g in sft_examples(self.env, self.sft_ids, cfg.prompt_template)] if self.env else []
        if not texts and cfg.offline_data:
            texts = [r["prompt"] + r["completion"] for r in load_offline(cfg.offline_data)]
        if not texts:
            raise ValueError("the tiny tokenizer needs text: give an env with gold_action() or offline_data")
        tokenizer = build_tokenizer(texts, cfg.vocab_size)
        return build_tiny_model(tokenizer, cfg.tiny_layers, cfg.tiny_hidden, cfg.tiny_heads, seed=cfg.seed), tokenizer

    def log(self, record: dict[str, Any]) -> None:
        """Append one record to ``metrics.jsonl``."""
        with self.metrics_path.open("a") as f:
            f.write(json.dumps(record) + "\n")

    # ------------------------------------------------------------------ phases
    def warm_start(self) -> list[float]:
        """Supervised steps on the gold actions of the train split (``cfg.sft_steps``)."""
        if self.sft_done or not self.cfg.sft_steps or self.env is None:
            return []
        from rich.progress import Progress

        pairs = sft_examples(self.env, self.sft_ids, self.cfg.prompt_template)
        if not pairs:  # the env has no gold actions: nothing to imitate
            self.sft_done = True
            return []
        with Progress(disable=not self.cfg.progress) as bar:
            job = bar.add_task("sft warm start", total=self.cfg.sft_steps)
            losses = sft_train(
                self.model,
                self.tokenizer,
                pairs,
                self.cfg.sft_steps,
                self.cfg.sft_learning_rate,
                self.cfg.sft_batch_size,
                self.cfg.seed,
                max_prompt_tokens=self.cfg.max_prompt_tokens,
                max_new_tokens=self.cfg.max_new_tokens,
                prompt_overflow=self.cfg.prompt_overflow,
                on_step=lambda i, loss: bar.update(job, advance=1, description=f"sft loss {loss:.3f}"),
            )
        self.sft_done = True
        if losses:
            self.log({"kind": "sft", "step": 0, "sft_loss_first": losses[0], "sft_loss_last": losses[-1]})
        return losses

    def evaluate(self, n: int | None = None) -> dict[str, float]:
        """Held-out evaluation on up to ``n`` tasks of ``eval_split``.

        ``reward`` and ``pass_rate`` come from one greedy attempt per task; with
        ``eval_samples > 1`` also ``sampled_reward`` and ``sampled_pass_rate``: the means over
        that many attempts per task sampled at ``temperature`` (pass@1 estimated from n
        samples), from a generator of their own so evaluation does not change training.
        """
        ids = self.eval_ids[: n or self.cfg.eval_tasks]
        if not ids:
            return {}
        self.model.eval()
        greedy = dataclasses.replace(self.settings, greedy=True)
        samples = rollout(self.model, self.tokenizer, self.envs, [(t, k) for k, t in enumerate(ids)], greedy)
        result = self._scores(samples, "")
        if self.cfg.eval_samples > 1:
            jobs = [(t, k) for k, t in enumerate(ids) for _ in range(self.cfg.eval_samples)]
            gen = torch.Generator().manual_seed(self.cfg.seed + 1_000_003)
            result.update(
                self._scores(rollout(self.model, self.tokenizer, self.envs, jobs, self.settings, gen), "sampled_")
            )
        self.log({"kind": "eval", "step": self.step, **result})
        return result

    def _scores(self, samples: list[Sample], prefix: str) -> dict[str, Any]:
        ok = [s for s in samples if not s.infra_error]
        result: dict[str, Any] = {
            f"{prefix}reward": float(np.mean([s.reward for s in ok])) if ok else 0.0,
            f"{prefix}pass_rate": pass_rate(ok),
            f"{prefix}n": len(ok),
        }
        errors = [s.infra_error for s in samples if s.infra_error]
        if errors:  # dropped from the metrics, but worth seeing
            result[f"{prefix}infra_errors"] = len(errors)
            result[f"{prefix}infra_error_example"] = errors[0][:300]
        return result

    def collect(self) -> list[Sample]:
        """Sample this step's groups and return the samples to train on.

        Uniform allocation samples ``num_generations`` attempts for each of ``tasks_per_step``
        tasks; VIGOR a first round, then the rest of the budget by variance. With dynamic
        sampling (DAPO, Yu et al. 2025, Algorithm 1) a group whose rewards are all equal has
        zero advantage, so it is dropped and more groups are sampled, round after round, until
        ``tasks_per_step`` groups with reward variance are in hand (extra ones are cut) or
        ``dynamic_sampling_max_rounds`` rounds were generated. Every generated sample, kept or
        not, is in ``self.last_generated`` (the step's reward and token metrics count them all).
        """
        cfg = self.cfg
        self.model.eval()
        if not cfg.dynamic_sampling:
            self.last_generated = self._collect_round(0)
            self.collect_stats = {"gen_rounds": 1}
            return self.last_generated
        kept: list[Sample] = []
        generated: list[Sample] = []
        groups: list[int] = []  # kept groups, in the order they were sampled
        rounds = 0
        while rounds < cfg.dynamic_sampling_max_rounds and len(groups) < cfg.tasks_per_step:
            fresh = self._collect_round(rounds * cfg.tasks_per_step)  # group ids unique across rounds
            rounds += 1
            generated += fresh
            varied = _varied_groups(fresh)
            groups += [g for g in sorted(varied) if len(groups) < cfg.tasks_per_step]
            kept += [s for s in fresh if s.group in groups]
        self.last_generated = generated
        self.collect_stats = {"gen_rounds": rounds, "groups_used": len(groups)}
        return kept

    def _collect_round(self, group_offset: int) -> list[Sample]:
        """One round of ``tasks_per_step`` groups, numbered from ``group_offset``."""
        cfg = self.cfg
        tasks = [self.rng.choice(self.train_ids) for _ in range(cfg.tasks_per_step)]
        if cfg.allocation == "uniform":
            jobs = [(t, group_offset + g) for g, t in enumerate(tasks) for _ in range(cfg.num_generations)]
            return rollout(self.model, self.tokenizer, self.envs, jobs, self.settings, self.generator)
        first = rollout(
            self.model,
            self.tokenizer,
            self.envs,
            [(t, group_offset + g) for g, t in enumerate(tasks) for _ in range(cfg.vigor_initial)],
            self.settings,
            self.generator,
        )
        by_group: dict[int, list[float]] = defaultdict(list)
        for s in first:
            if s.attempt:  # a chain's later attempts are not draws of the task's first try
                continue
            by_group[s.group - group_offset].append(s.reward)
        extra = alg.vigor_allocation([by_group[g] for g in range(len(tasks))], cfg.num_generations)
        jobs = [(tasks[g], group_offset + g) for g, k in enumerate(extra) for _ in range(k)]
        return first + (
            rollout(self.model, self.tokenizer, self.envs, jobs, self.settings, self.generator) if jobs else []
        )

    def update(self, samples: list[Sample]) -> dict[str, float]:
        """One GRPO-family update on ``samples``; infra-error samples are dropped, not zeroed."""
        cfg = self.cfg
        stats: dict[str, float] = {"infra_dropped": sum(1 for s in samples if s.infra_error)}
        samples = [s for s in samples if not s.infra_error]
        if samples and cfg.dynamic_sampling:
            samples = [s for s, k in zip(samples, _dynamic_keep(samples), strict=True) if k]
        stats["samples_used"] = len(samples)
        if not samples:
            return stats
        batch = make_batch(samples, self.tokenizer.pad_token_id)
        adv = advantages(batch, cfg)  # (B, T)
        rank_keep = alg.erpo_rank_keep(batch.rewards, batch.group, cfg.erpo_keep).float()  # (B,)
        ref_logp = old_logp = None
        self.model.train()
        if cfg.beta:
            with torch.no_grad():
                ref_logp, _ = token_logprobs(self.ref, batch, cfg.temperature)
        offline = not bool((batch.sampler_logp * batch.mask).abs().sum())  # logged data carry no log-probs
        if cfg.num_iterations > 1 or cfg.tis_cap or offline:
            with torch.no_grad():
                old_logp, _ = token_logprobs(self.model, batch, cfg.temperature)
            if offline:  # the logging policy is unknown: the current policy stands in for it
                batch.sampler_logp = old_logp.clone()
        chunks = self._micro_batches(batch, rank_keep)
        for it in range(cfg.num_iterations):
            self.opt.zero_grad()
            totals: dict[str, float] = defaultdict(float)
            for rows, weight, token_share in chunks:
                sub = batch if rows is None else batch_rows(batch, rows)
                pick = (lambda t: t) if rows is None else (lambda t, rows=rows: None if t is None else t[rows])
                logp, ent = token_logprobs(self.model, sub, cfg.temperature, with_entropy=it == 0)
                old = logp.detach() if old_logp is None else pick(old_logp)  # on-policy: ratio 1
                entropy_keep = torch.ones_like(logp)
                if ent is not None:
                    entropy_keep = alg.entropy_ceiling_mask(ent, cfg.entropy_ceiling)
                    stats["entropy"] = stats.get("entropy", 0.0) + float((ent * sub.mask).sum()) / float(
                        batch.mask.sum().clamp(min=1)
                    )
                keep = entropy_keep * pick(rank_keep)[:, None]
                loss, s = policy_loss(logp, old, pick(adv), sub, cfg, pick(ref_logp), keep)
                (loss * weight).backward()
                totals["loss"] += float(loss.detach()) * weight
                for key, value in s.items():
                    totals[key] += value * (token_share if key != "seq_masked" else len(sub.tokens) / len(batch.tokens))
            grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
            self.opt.step()
        stats.update(totals, grad_norm=float(grad_norm), trained_tokens=float(batch.mask.sum()))
        return stats

    def _micro_batches(self, batch: Any, rank_keep: torch.Tensor) -> list[tuple[Any, float, float]]:
        """``(rows, loss weight, token share)`` of each micro-batch (``rows`` None: the batch).

        The loss of a micro-batch is its own mean; weighting it by its share of the batch's
        normaliser (tokens for ``token-mean``, samples otherwise) makes the summed gradients
        those of the whole batch. The normaliser must be known before any forward, so
        micro-batching is off where masks come from the forward itself (``seq_mask``,
        ``entropy_ceiling``), and the whole batch runs at once.
        """
        cfg, b = self.cfg, len(batch.tokens)
        size = cfg.micro_batch_size
        if not size or size >= b or cfg.seq_mask != "none" or cfg.entropy_ceiling:
            return [(None, 1.0, 1.0)]
        mask = batch.mask * rank_keep[:, None]  # the loss mask policy_loss will use
        total = float(mask.sum().clamp(min=1))
        chunks = []
        for start in range(0, b, size):
            rows = torch.arange(start, min(start + size, b))
            tokens = float(mask[rows].sum())
            weight = tokens / total if cfg.loss_aggregation == "token-mean" else len(rows) / b
            chunks.append((rows, weight, tokens / total))
        return chunks

    def train_step(self) -> dict[str, float]:
        """Collect, update, log one step; returns its metrics."""
        t0 = time.perf_counter()
        samples = self.collect()
        t1 = time.perf_counter()
        stats = self.update(samples)
        samples = self.last_generated  # the metrics count every attempt, kept or dropped
        ok = [s for s in samples if not s.infra_error]
        self.step += 1
        record = {
            "kind": "train",
            "step": self.step,
            "reward": float(np.mean([s.reward for s in ok])) if ok else 0.0,
            "pass_rate": pass_rate(ok),
            "length": float(np.mean([sum(s.loss_mask) for s in ok])) if ok else 0.0,
            "generated_tokens": sum(sum(s.loss_mask) for s in samples),
            "prompt_tokens_cut": sum(s.prompt_cut for s in samples),
            "rollout_s": t1 - t0,
            "update_s": time.perf_counter() - t1,
            **self.collect_stats,
            **stats,
        }
        record["tokens_per_s"] = record["generated_tokens"] / max(time.perf_counter() - t0, 1e-9)
        self.log(record)
        return record

    def train(self) -> dict[str, Any]:
        """Warm start, evaluate, run ``cfg.steps`` RL steps, evaluate, plot, checkpoint."""
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        cfg = self.cfg
        if cfg.offline_data:
            return self.train_offline()
        self.warm_start()
        if self.ref is None and cfg.beta:
            self.ref = copy.deepcopy(self.model).eval()
        before = self.evaluate() if self.step == 0 else {}
        history = []
        with Progress(
            TextColumn("[bold]train"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TextColumn("{task.fields[info]}"),
            TimeElapsedColumn(),
            disable=not cfg.progress,
        ) as bar:
            job = bar.add_task("rl", total=cfg.steps, completed=self.step, info="")
            while self.step < cfg.steps:
                rec = self.train_step()
                history.append(rec)
                bar.update(job, advance=1, info=f"reward {rec['reward']:.3f} pass {rec['pass_rate']:.2f}")
                if cfg.eval_every and self.step % cfg.eval_every == 0 and self.step < cfg.steps:
                    self.evaluate()
                if cfg.save_every and self.step % cfg.save_every == 0:
                    self.save()
        after = self.evaluate()
        self.save()
        self.close()
        plot = plot_run(self.metrics_path, self.out / "metrics.png")
        return {
            "before": before,
            "after": after,
            "steps": self.step,
            "history": history,
            "plot": str(plot),
            "parameters": count_parameters(self.model),
            "out_dir": str(self.out),
        }

    def train_offline(self) -> dict[str, Any]:
        """Train on logged rollouts (``cfg.offline_data``) with no sampling."""
        samples = load_offline(self.cfg.offline_data, self.tokenizer, self.cfg.prompt_template)
        history = []
        while self.step < self.cfg.steps:
            groups = sorted({s.group for s in samples})
            chosen = set(self.rng.sample(groups, min(self.cfg.tasks_per_step, len(groups))))
            stats = self.update([s for s in samples if s.group in chosen])
            self.step += 1
            rec = {"kind": "train", "step": self.step, **stats}
            self.log(rec)
            history.append(rec)
        self.save()
        self.close()
        return {
            "steps": self.step,
            "history": history,
            "out_dir": str(self.out),
            "plot": str(plot_run(self.metrics_path, self.out / "metrics.png")),
        }

    def close(self) -> None:
        """Close the env forks the trainer made (the env it was given stays open).

        Forks make their sandboxes again on demand, so evaluating after ``close`` still works.
        """
        for env in self.envs[1:]:
            env.close()

    # ------------------------------------------------------------------ checkpoints
    def save(self) -> Path:
        """Write model, tokenizer, optimizer and RNG state to ``out_dir/checkpoint``."""
        d = self.checkpoint_dir
        d.mkdir(parents=True, exist_ok=True)
        if hasattr(self.model, "peft_config"):
            # peft writes only the adapter; the tiny base lives nowhere else, so it is kept too.
            save_lora_checkpoint(self.model, d, base_on_disk=self.cfg.model != "tiny")
        else:
            self.model.save_pretrained(d)
            for stale in ("adapter_config.json", "adapter_model.safetensors", "lora_full_state.pt"):
                (d / stale).unlink(missing_ok=True)  # a LoRA checkpoint written here earlier
            if (d / "base").exists():
                shutil.rmtree(d / "base")
        self.tokenizer.save_pretrained(d)
        torch.save(
            {
                "step": self.step,
                "sft_done": self.sft_done,
                "opt": self.opt.state_dict(),
                "rng": self.rng.getstate(),
                "gen": self.generator.get_state(),
                "torch": torch.get_rng_state(),
                "env_rng": [e.unwrapped.np_random.bit_generator.state for e in self.envs],
            },
            d / "state.pt",
        )
        (d / "config.json.learner").write_text(self.cfg.to_json())
        return d

    def _load_state(self) -> None:
        state = torch.load(self.checkpoint_dir / "state.pt", weights_only=False)
        self.step, self.sft_done = state["step"], state["sft_done"]
        self.opt.load_state_dict(state["opt"])
        self.rng.setstate(state["rng"])
        self.generator.set_state(state["gen"])
        torch.set_rng_state(state["torch"])
        if len(state.get("env_rng", [])) == len(self.envs):
            for env, rng in zip(self.envs, state["env_rng"], strict=True):
                env.unwrapped.np_random.bit_generator.state = rng
