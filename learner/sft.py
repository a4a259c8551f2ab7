"""Supervised warm start on gold actions, so a tiny model writes parseable code before RL."""

from __future__ import annotations

import random
import warnings
from collections.abc import Sequence

import torch


def sft_examples(env, task_ids: Sequence[str], template: str) -> list[tuple[str, str]]:
    """``(prompt text, gold action)`` pairs from ``env.unwrapped.gold_action()`` per task.

    Returns an empty list when the env has no gold actions (the warm start is then skipped).
    """
    from codegym.learner.rollout import obs_text, reset_to

    pairs = []
    for task_id in task_ids:
        obs = reset_to(env, task_id)
        try:
            gold = env.unwrapped.gold_action()
        except (AttributeError, NotImplementedError):
            return []
        pairs.append((template.format(observation=obs_text(obs)), gold))
    return pairs


def sft_train(
    model: torch.nn.Module,
    tokenizer,
    pairs: Sequence[tuple[str, str]],
    steps: int,
    lr: float,
    batch_size: int,
    seed: int = 0,
    on_step=None,
    max_prompt_tokens: int = 256,
    max_new_tokens: int = 256,
    prompt_overflow: str = "cut_middle",
) -> list[float]:
    """Train on ``prompt -> gold + EOS`` with the loss on the completion tokens only.

    Prompts longer than ``max_prompt_tokens`` are cut from the middle or refused, as in a
    rollout (``prompt_overflow``), and golds keep their first ``max_new_tokens`` (what a
    rollout could produce). Returns the loss of each step;
    ``on_step(step, loss)`` is called after each.
    """
    from codegym.learner.rollout import PromptCutWarning, fit_prompt

    rng = random.Random(seed)
    data, cuts = [], []
    for k, (prompt, gold) in enumerate(pairs):
        p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        p, cut = fit_prompt(tokenizer, p, max_prompt_tokens, prompt_overflow, f"warm-start prompt {k}", warn=False)
        cuts += [cut] if cut else []
        c = tokenizer(gold, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        data.append((p, list(c)[:max_new_tokens]))
    if cuts:
        warnings.warn(
            f"{len(cuts)} of {len(pairs)} warm-start prompts are longer than max_prompt_tokens={max_prompt_tokens}: "
            f"cut from the middle, {min(cuts)} to {max(cuts)} tokens each",
            PromptCutWarning,
            stacklevel=2,
        )
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=0.0)
    losses = []
    model.train()
    for step in range(steps):
        chunk = [data[rng.randrange(len(data))] for _ in range(batch_size)]
        width = max(len(p) + len(c) for p, c in chunk)
        ids = torch.full((len(chunk), width), tokenizer.pad_token_id)
        labels = torch.full((len(chunk), width), -100)
        attn = torch.zeros((len(chunk), width), dtype=torch.long)
        for i, (p, c) in enumerate(chunk):
            ids[i, : len(p) + len(c)] = torch.tensor(p + c)
            labels[i, len(p) : len(p) + len(c)] = torch.tensor(c)
            attn[i, : len(p) + len(c)] = 1
        loss = model(input_ids=ids, attention_mask=attn, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
        if on_step is not None:
            on_step(step, losses[-1])
    return losses
