"""``LearnerConfig``: every knob of the learner in one documented dataclass.

Documented like TRL's ``GRPOConfig``: each field says its type, default, meaning and valid
range; cross-field checks happen once, in ``__post_init__``, and name both fields. A config
comes from Python, from a YAML file (:meth:`LearnerConfig.from_yaml`) or from ``key=value``
overrides on the command line (:meth:`LearnerConfig.with_overrides`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

ALGORITHMS = ("grpo", "dr_grpo", "dapo", "gspo", "gspo_token", "bot_grpo", "pure")
LOSS_AGGREGATIONS = ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum-norm")
SEQ_MASKS = ("none", "carm", "geometric")
ALLOCATIONS = ("uniform", "vigor")
REWARD_TRANSFORMS = ("none", "leap")
EPISODE_RETURNS = ("auto", "final", "sum")
PROMPT_OVERFLOWS = ("cut_middle", "error")

# What choosing an algorithm changes, when the user left the field at None (its paper's
# setting). Explicit values always win.
ALGORITHM_DEFAULTS: dict[str, dict[str, Any]] = {
    "grpo": {"loss_aggregation": "seq-mean-token-mean", "scale_rewards": True},
    "dr_grpo": {"loss_aggregation": "seq-mean-token-sum-norm", "scale_rewards": False},
    "dapo": {
        "loss_aggregation": "token-mean",
        "scale_rewards": True,
        "epsilon_high": 0.28,
        "dynamic_sampling": True,
        "overlong_buffer": "quarter",
    },
    "gspo": {"loss_aggregation": "seq-mean-token-mean", "scale_rewards": True, "epsilon": 3e-4, "epsilon_high": 4e-4},
    "gspo_token": {
        "loss_aggregation": "seq-mean-token-mean",
        "scale_rewards": True,
        "epsilon": 3e-4,
        "epsilon_high": 4e-4,
    },
    "bot_grpo": {"loss_aggregation": "token-mean", "scale_rewards": True},
    "pure": {"loss_aggregation": "token-mean", "scale_rewards": True},
}


@dataclass
class LearnerConfig:
    r"""Configuration of a training run (``codegym train``).

    Model
        model (str, default ``"tiny"``): ``"tiny"`` builds a small Llama-style model from a
            config and trains a byte-level BPE tokenizer on the env's task text; any other
            value is a local path to a Hugging Face causal LM (nothing is downloaded).
        tiny_layers (int, default 4, >= 1): layers of the tiny model (about 1.1 M parameters
            with the other defaults).
        tiny_hidden (int, default 128, >= 16, divisible by ``tiny_heads``): its width.
        tiny_heads (int, default 4, >= 1): its attention heads.
        vocab_size (int, default 1024, 260..65536): target vocabulary of the tiny tokenizer.
        lora_rank (int, default 0, >= 0): 0 trains all weights; > 0 wraps the model with a
            ``peft`` LoRA adapter of this rank.

    Environment
        env_id (str, default ``"CodeGen-v0"``): id given to ``gym.make``.
        env_kwargs (dict, default ``{}``): keyword arguments of ``gym.make``.
        train_split (str, default ``"train"``): task split RL trains on.
        sft_split (str | None, default None): split whose gold actions the warm start
            imitates (and the tiny tokenizer is trained on); None: ``train_split``.
        eval_split (str, default ``"test"``): held-out split evaluated on.
        max_turns (int, default 1, >= 1): model turns per episode (per attempt of a recovery
            chain); observations the env writes between turns are appended to the context
            and masked out of the loss.
        episode_return (str, default ``"auto"``): how a multi-turn episode's step rewards make
            its return: ``final`` (the last turn's reward: envs that re-grade the whole
            attempt every turn), ``sum`` (the discounted sum: envs whose turns earn separate
            rewards); ``auto`` takes the env family's rule from the table in
            :mod:`codegym.learner.returns` (the one place it is defined).
        turn_discount (float, default 1.0, in (0, 1]): gamma of ``sum`` returns,
            ``G = sum_t gamma^t r_t``.
        turn_penalty (float, default 0.0, >= 0): subtracted from the return for each turn
            after the first, so that solving earlier is better (``final`` and ``sum``).
        prompt_template (str, default ``"{observation}\n"``): how an observation becomes
            context text; must contain ``{observation}``.
        env_workers (int, default 4, >= 1): envs grading in parallel threads (forks of the
            env via ``env.unwrapped.fork()``; envs without ``fork`` grade one at a time).
            Multi-turn rollouts run this many episodes at once.

    Sampling
        num_generations (int, default 8, >= 2): G, attempts per task (group size).
        tasks_per_step (int, default 4, >= 1): tasks (groups) per training step.
        max_new_tokens (int, default 64, >= 1): tokens per model turn.
        max_prompt_tokens (int, default 256, >= 1): most prompt tokens; what happens to a
            longer prompt is ``prompt_overflow``'s choice.
        prompt_overflow (str, default ``"cut_middle"``): ``cut_middle`` keeps the start (the
            task statement) and the end, half the budget each, puts a marker with the count
            in between and warns (``PromptCutWarning``; the step's ``prompt_tokens_cut``
            metric); ``error`` raises ``PromptTooLongError``. Never cut silently.
        temperature (float, default 1.0, > 0): sampling temperature.
        top_k (int, default 0, >= 0): 0 samples from the full distribution.

    Algorithm
        algorithm (str, default ``"grpo"``): one of ``grpo``, ``dr_grpo``, ``dapo``,
            ``gspo``, ``gspo_token``, ``bot_grpo``, ``pure`` (formulas in
            :mod:`codegym.learner.algorithms`).
        loss_aggregation (str | None, default None): ``token-mean``,
            ``seq-mean-token-mean`` or ``seq-mean-token-sum-norm``; None takes the
            algorithm's paper setting.
        scale_rewards (bool | None, default None): divide group advantages by the group std
            (False is Dr. GRPO); None takes the algorithm's setting.
        epsilon (float | None, default None, > 0): lower clip range; None: 0.2 (GSPO 3e-4).
        epsilon_high (float | None, default None, >= epsilon): upper clip range (DAPO's
            clip-higher); None equals ``epsilon`` (DAPO 0.28, GSPO 4e-4).
        dynamic_sampling (bool | None, default None): drop groups whose rewards are all
            equal (DAPO); None takes the algorithm's setting. Dropped groups are refilled:
            more groups are sampled until ``tasks_per_step`` groups with reward variance are
            in the batch or ``dynamic_sampling_max_rounds`` rounds were generated.
        dynamic_sampling_max_rounds (int, default 3, >= 1): most generation rounds of
            ``tasks_per_step`` groups per step under dynamic sampling (DAPO's
            ``max_num_gen_batches``); 1 drops without refilling. When the rounds run out the
            step trains on the groups it has (logged as ``groups_used``).
        overlong_buffer (int | None, default None, 0..max_new_tokens): DAPO soft overlong
            punishment length L_cache; 0 turns it off; None: ``max_new_tokens // 4`` for DAPO,
            else 0.
        beta (float, default 0.0, >= 0): weight of the k3 KL to the reference model
            (the policy at the start of RL); 0 loads no reference.
        num_iterations (int, default 1, >= 1): optimisation passes per batch (mu).
        micro_batch_size (int, default 16, >= 0): samples per forward/backward of an update;
            the micro-batches' gradients add up to the whole batch's (each loss weighted by
            its share of the normaliser), so only peak memory changes. 0 runs the whole
            batch at once (also what ``seq_mask`` and ``entropy_ceiling`` do, whose masks
            are known only after the forward).
        tis_cap (float, default 0.0, >= 0): truncated importance sampling cap C on
            ``pi_old / pi_sampler``; 0 turns it off.
        seq_mask (str, default ``"none"``): ``carm`` masks sequences whose mean absolute token
            log-ratio exceeds ``seq_mask_threshold``; ``geometric`` masks on the absolute
            mean (geometric-mean ratio).
        seq_mask_threshold (float, default 0.5, > 0): the threshold of ``seq_mask``.
        allocation (str, default ``"uniform"``): ``vigor`` spends ``num_generations`` per
            task as a fixed budget: ``vigor_initial`` per task first, the rest to the tasks of
            highest reward variance.
        vigor_initial (int, default 4, 2..num_generations): first-round rollouts per task.
        reward_transform (str, default ``"none"``): ``leap`` replaces rewards with pairwise
            tournament win rates within the group.
        erpo_keep (int, default 0, >= 0): ERPO rank masking: keep only the ``erpo_keep``
            best and worst samples of each group; 0 keeps all.
        entropy_ceiling (float, default 0.0, >= 0): ERPO entropy ceiling: mask tokens whose
            policy entropy (nats) exceeds it; 0 turns it off.
        pure_temperature (float, default 0.0, >= 0): temperature T of PURE's soft-min credit
            (``algorithm="pure"``): each token's process return is the ``softmax(-r / T)``
            weighted mean of the process rewards ahead of it; 0 is the exact (hard) min form.
        outcome_weight (float, default 1.0, >= 0): token-level algorithms (``bot_grpo``) use
            ``r_{i,t} = outcome_weight * r_i + p_{i,t}`` (sequence reward on every token plus the
            env's process reward ``p``); 0 uses the process signal alone (a sample without any
            span then gets its sequence reward on every token).

    Optimisation
        learning_rate (float, default 1e-4, > 0): AdamW learning rate of RL steps.
        max_grad_norm (float, default 1.0, > 0): gradient clipping norm.
        steps (int, default 50, >= 0): RL steps.
        sft_steps (int, default 0, >= 0): supervised warm-start steps on gold actions.
        sft_learning_rate (float, default 1e-3, > 0): learning rate of the warm start.
        sft_batch_size (int, default 16, >= 1): gold examples per warm-start step.

    Running
        seed (int, default 0): seeds Python, NumPy, torch and task choice.
        out_dir (str, default ``"runs/train"``): metrics.jsonl, plots, checkpoints.
        eval_every (int, default 0, >= 0): evaluate every N steps (0: only before and after).
        eval_tasks (int, default 32, >= 1): held-out tasks per evaluation (greedy, 1 each).
        eval_samples (int, default 1, >= 1): with > 1, evaluations also sample this many
            attempts per task at ``temperature`` (``sampled_pass_rate``: pass@1 from n samples).
        save_every (int, default 0, >= 0): checkpoint every N steps (0: only at the end).
        resume (bool, default False): continue from the latest checkpoint in ``out_dir``.
        offline_data (str | None, default None): JSONL of logged rollouts; trains on them
            with no online sampling (no env is made).
        pass_threshold (float | None, default None): score at or above which an episode is
            solved (``pass_rate``: the share of episodes solved; a recovery chain is one
            episode); None takes the env family's solved mark (its full reward; 0.99 for the
            image families). The score is the last turn's reward or the sum, as the return's
            kind says, never the turn-penalised return.
        progress (bool, default True): show a rich progress bar.
        torch_threads (int, default 1, >= 0): CPU threads torch may use; 0 leaves torch's
            default (one per core). 1 is the default because for models this small the
            threads' synchronisation costs more than it gains, and on a shared CPU it is
            ruinous (one SFT step measured 10x slower with 2 threads than with 1 on the
            2-core CI machine under load).
    """

    # Model
    model: str = "tiny"
    tiny_layers: int = 4
    tiny_hidden: int = 128
    tiny_heads: int = 4
    vocab_size: int = 1024
    lora_rank: int = 0
    # Environment
    env_id: str = "CodeGen-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    train_split: str = "train"
    sft_split: str | None = None
    eval_split: str = "test"
    max_turns: int = 1
    episode_return: str = "auto"
    turn_discount: float = 1.0
    turn_penalty: float = 0.0
    prompt_template: str = "{observation}\n"
    env_workers: int = 4
    # Sampling
    num_generations: int = 8
    tasks_per_step: int = 4
    max_new_tokens: int = 64
    max_prompt_tokens: int = 256
    prompt_overflow: str = "cut_middle"
    temperature: float = 1.0
    top_k: int = 0
    # Algorithm
    algorithm: str = "grpo"
    loss_aggregation: str | None = None
    scale_rewards: bool | None = None
    epsilon: float | None = None
    epsilon_high: float | None = None
    dynamic_sampling: bool | None = None
    dynamic_sampling_max_rounds: int = 3
    overlong_buffer: int | None = None
    beta: float = 0.0
    num_iterations: int = 1
    micro_batch_size: int = 16
    tis_cap: float = 0.0
    seq_mask: str = "none"
    seq_mask_threshold: float = 0.5
    allocation: str = "uniform"
    vigor_initial: int = 4
    reward_transform: str = "none"
    erpo_keep: int = 0
    entropy_ceiling: float = 0.0
    pure_temperature: float = 0.0
    outcome_weight: float = 1.0
    # Optimisation
    learning_rate: float = 1e-4
    max_grad_norm: float = 1.0
    steps: int = 50
    sft_steps: int = 0
    sft_learning_rate: float = 1e-3
    sft_batch_size: int = 16
    # Running
    seed: int = 0
    out_dir: str = "runs/train"
    eval_every: int = 0
    eval_tasks: int = 32
    eval_samples: int = 1
    save_every: int = 0
    resume: bool = False
    offline_data: str | None = None
    pass_threshold: float | None = None
    progress: bool = True
    torch_threads: int = 1

    def __post_init__(self) -> None:
        _choice("algorithm", self.algorithm, ALGORITHMS)
        defaults = ALGORITHM_DEFAULTS[self.algorithm]
        for name in ("loss_aggregation", "scale_rewards", "dynamic_sampling", "overlong_buffer"):
            if getattr(self, name) is None:
                setattr(self, name, defaults.get(name, False if name == "dynamic_sampling" else 0))
        if self.overlong_buffer == "quarter":  # DAPO: the last quarter of the length budget
            self.overlong_buffer = max(1, self.max_new_tokens // 4)
        if self.epsilon is None:
            self.epsilon = defaults.get("epsilon", 0.2)
        if self.epsilon_high is None:
            self.epsilon_high = defaults.get("epsilon_high", self.epsilon)
        _choice("loss_aggregation", self.loss_aggregation, LOSS_AGGREGATIONS)
        _choice("seq_mask", self.seq_mask, SEQ_MASKS)
        _choice("allocation", self.allocation, ALLOCATIONS)
        _choice("reward_transform", self.reward_transform, REWARD_TRANSFORMS)
        _choice("episode_return", self.episode_return, EPISODE_RETURNS)
        _choice("prompt_overflow", self.prompt_overflow, PROMPT_OVERFLOWS)
        if not 0 < self.turn_discount <= 1:
            raise ValueError(f"turn_discount must be in (0, 1], got {self.turn_discount}")
        for name, low in (
            ("tiny_layers", 1),
            ("tiny_hidden", 16),
            ("tiny_heads", 1),
            ("max_turns", 1),
            ("env_workers", 1),
            ("num_generations", 2),
            ("tasks_per_step", 1),
            ("max_new_tokens", 1),
            ("max_prompt_tokens", 1),
            ("num_iterations", 1),
            ("dynamic_sampling_max_rounds", 1),
            ("eval_tasks", 1),
            ("eval_samples", 1),
            ("sft_batch_size", 1),
        ):
            if getattr(self, name) < low:
                raise ValueError(f"{name} must be >= {low}, got {getattr(self, name)}")
        for name in (
            "lora_rank",
            "micro_batch_size",
            "steps",
            "sft_steps",
            "eval_every",
            "save_every",
            "top_k",
            "erpo_keep",
            "beta",
            "tis_cap",
            "entropy_ceiling",
            "pure_temperature",
            "outcome_weight",
            "torch_threads",
            "turn_penalty",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        for name in (
            "temperature",
            "learning_rate",
            "sft_learning_rate",
            "max_grad_norm",
            "epsilon",
            "seq_mask_threshold",
        ):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if not 260 <= self.vocab_size <= 65536:
            raise ValueError(f"vocab_size must be in 260..65536 (256 bytes + specials), got {self.vocab_size}")
        # Cross-field checks: each names both fields and the fix.
        if self.tiny_hidden % self.tiny_heads:
            raise ValueError(
                f"tiny_hidden ({self.tiny_hidden}) must be divisible by tiny_heads "
                f"({self.tiny_heads}); pick e.g. tiny_hidden={self.tiny_heads * 32}"
            )
        if self.epsilon_high < self.epsilon:
            raise ValueError(
                f"epsilon_high ({self.epsilon_high}) must be >= epsilon ({self.epsilon}); "
                "clip-higher widens only the upper range"
            )
        if self.overlong_buffer > self.max_new_tokens:
            raise ValueError(
                f"overlong_buffer ({self.overlong_buffer}) must be <= max_new_tokens "
                f"({self.max_new_tokens}); the buffer is the tail of the length budget"
            )
        if self.allocation == "vigor" and not 2 <= self.vigor_initial <= self.num_generations:
            raise ValueError(
                f"vigor_initial ({self.vigor_initial}) must be in 2..num_generations "
                f"({self.num_generations}): the first round needs two samples for a variance"
            )
        if self.erpo_keep and 2 * self.erpo_keep > self.num_generations:
            raise ValueError(
                f"erpo_keep ({self.erpo_keep}) keeps the best and worst erpo_keep of a group, "
                f"so 2*erpo_keep must be <= num_generations ({self.num_generations})"
            )
        if "{observation}" not in self.prompt_template:
            raise ValueError(f"prompt_template must contain '{{observation}}', got {self.prompt_template!r}")
        if self.model != "tiny" and not Path(self.model).exists():
            raise ValueError(
                f"model must be 'tiny' or a local path to a Hugging Face model, got {self.model!r} "
                "which does not exist; nothing is downloaded"
            )

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_yaml(cls, path: str | Path, overrides: list[str] | None = None) -> LearnerConfig:
        """Load a YAML file of field values, then apply ``key=value`` overrides."""
        data = yaml.safe_load(Path(path).read_text()) or {}
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a mapping of config fields, got {type(data).__name__}")
        return cls.from_dict(data, overrides)

    @classmethod
    def from_dict(cls, data: dict[str, Any], overrides: list[str] | None = None) -> LearnerConfig:
        """Build from a dict of field values plus ``key=value`` overrides (values parsed as YAML)."""
        known = {f.name for f in fields(cls)}
        data = dict(data)
        for item in overrides or []:
            if "=" not in item:
                raise ValueError(f"override {item!r} must look like key=value (e.g. steps=20)")
            key, value = item.split("=", 1)
            data[key.strip().replace("-", "_")] = _parse_value(value)
        unknown = sorted(set(data) - known)
        if unknown:
            import difflib

            hints = [
                f"{u} (did you mean {m[0]}?)" if (m := difflib.get_close_matches(u, known, 1)) else u for u in unknown
            ]
            raise ValueError(f"unknown config fields: {', '.join(hints)}")
        return cls(**data)

    def with_overrides(self, overrides: list[str]) -> LearnerConfig:
        """A copy with ``key=value`` overrides applied."""
        return self.from_dict(self.to_dict(), overrides)

    def to_dict(self) -> dict[str, Any]:
        """Plain-data view (JSON/YAML serialisable)."""
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        """JSON text of :meth:`to_dict`."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)


def _parse_value(text: str) -> Any:
    """A ``key=value`` override's value: YAML, plus numbers YAML 1.1 leaves as text (``2e-4``)."""
    value = yaml.safe_load(text)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
