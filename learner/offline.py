"""Offline mode: train from logged rollouts instead of sampling.

Each JSONL line is one attempt::

    {"prompt": "...", "completion": "...", "reward": 1.0,
     "token_rewards": [[start, end, value], ...],   # optional, spans over completion
     "task_id": "t1"}                               # optional; same id = same group

Lines with ``infra_error`` set are dropped. Log-probs of the logging policy are rarely
logged, so the trainer's own log-probs stand in for the old policy (ratio 1 at the first
pass; ``num_iterations > 1`` then clips against them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codegym.learner.rollout import Sample, spans_to_token_rewards, token_offsets


def load_offline(path: str | Path, tokenizer: Any = None, template: str = "{observation}\n") -> list[Any]:
    """Read logged attempts; with a tokenizer, return :class:`Sample` objects ready for the loss.

    Without a tokenizer the raw records (dicts) are returned (used to train the tiny
    tokenizer). ``prompt`` is taken as the observation and formatted with ``template``.
    """
    records = []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        rec = json.loads(line)
        for key in ("prompt", "completion", "reward"):
            if key not in rec:
                raise ValueError(f"{path}:{n}: expected key {key!r} in every logged attempt, got {sorted(rec)}")
        if not rec.get("infra_error"):
            records.append(rec)
    if tokenizer is None:
        return records
    groups: dict[str, int] = {}
    samples = []
    for rec in records:
        key = str(rec.get("task_id", rec["prompt"]))
        group = groups.setdefault(key, len(groups))
        prompt_ids = list(tokenizer(template.format(observation=rec["prompt"]), add_special_tokens=False)["input_ids"])
        ids = list(tokenizer(rec["completion"], add_special_tokens=False)["input_ids"])
        tr, touched = spans_to_token_rewards(
            token_offsets(tokenizer, ids, rec["completion"]), rec.get("token_rewards", [])
        )
        ids.append(tokenizer.eos_token_id)
        samples.append(
            Sample(
                task_id=key,
                group=group,
                prompt_ids=prompt_ids,
                token_ids=ids,
                sampler_logp=[0.0] * len(ids),
                loss_mask=[1] * len(ids),
                token_rewards=tr + [0.0],
                reward_positions=touched + [0],
                reward=float(rec["reward"]),
                text=[rec["completion"]],
            )
        )
    return samples
