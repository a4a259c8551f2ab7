"""From samples to a loss: padding into tensors, advantages, and the per-algorithm objective.

Reads top to bottom like the papers: rewards -> advantages ``(B, T)`` -> masks -> ratios ->
clipped surrogate -> regularisers -> aggregation. Shapes are in the comments.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from codegym.learner import algorithms as alg
from codegym.learner.config import LearnerConfig
from codegym.learner.rollout import Sample


@dataclass
class Batch:
    """Padded tensors of a list of samples (B samples, T tokens after the prompt).

    ``input_ids (B, L)`` are prompt + tokens right-padded; ``index (B, T)`` is where the
    logits predicting token t of sample i sit in ``(B, L)``.
    """

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    index: torch.Tensor
    tokens: torch.Tensor
    mask: torch.Tensor
    sampler_logp: torch.Tensor
    token_rewards: torch.Tensor
    reward_positions: torch.Tensor
    rewards: torch.Tensor
    group: torch.Tensor
    has_process: torch.Tensor
    lengths: torch.Tensor


def make_batch(samples: Sequence[Sample], pad_id: int) -> Batch:
    """Pad ``samples`` into a :class:`Batch`."""
    b = len(samples)
    t_max = max(len(s.token_ids) for s in samples)
    l_max = max(len(s.prompt_ids) + len(s.token_ids) for s in samples)
    input_ids = torch.full((b, l_max), pad_id, dtype=torch.long)
    attn = torch.zeros((b, l_max), dtype=torch.long)
    index = torch.zeros((b, t_max), dtype=torch.long)
    per_tok = {k: torch.zeros((b, t_max)) for k in ("mask", "logp", "tr", "pos")}
    tokens = torch.full((b, t_max), pad_id, dtype=torch.long)
    for i, s in enumerate(samples):
        p, n = len(s.prompt_ids), len(s.token_ids)
        input_ids[i, : p + n] = torch.tensor(s.prompt_ids + s.token_ids)
        attn[i, : p + n] = 1
        index[i, :n] = torch.arange(p - 1, p + n - 1)
        tokens[i, :n] = torch.tensor(s.token_ids)
        per_tok["mask"][i, :n] = torch.tensor(s.loss_mask, dtype=torch.float)
        per_tok["logp"][i, :n] = torch.tensor(s.sampler_logp)
        per_tok["tr"][i, :n] = torch.tensor(s.token_rewards)
        per_tok["pos"][i, :n] = torch.tensor(s.reward_positions, dtype=torch.float)
    return Batch(
        input_ids=input_ids,
        attention_mask=attn,
        index=index,
        tokens=tokens,
        mask=per_tok["mask"],
        sampler_logp=per_tok["logp"],
        token_rewards=per_tok["tr"],
        reward_positions=per_tok["pos"],
        rewards=torch.tensor([s.reward for s in samples], dtype=torch.float),
        group=torch.tensor([s.group for s in samples]),
        has_process=torch.tensor([s.has_process_reward for s in samples]),
        lengths=per_tok["mask"].sum(1),
    )


def token_logprobs(
    model: torch.nn.Module, batch: Batch, temperature: float, with_entropy: bool = False
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Log-prob ``(B, T)`` of each token under ``model`` (and the entropy, if asked)."""
    # The LM head only runs on positions from the earliest completion on (not on prompts).
    first = int(batch.index[:, 0].min())
    index = batch.index
    if _accepts(model, "logits_to_keep"):
        keep = batch.input_ids.shape[1] - first
        logits = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask, logits_to_keep=keep).logits
        index = (index - first).clamp(min=0)
    else:
        logits = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits  # (B, L, V)
    # Only the positions that predict a sampled token go through the softmax.
    sel = logits.gather(1, index[..., None].expand(-1, -1, logits.shape[-1])).float() / temperature  # (B, T, V)
    logp_all = torch.log_softmax(sel, -1)
    logp = logp_all.gather(2, batch.tokens[..., None]).squeeze(2)
    ent = None
    if with_entropy:
        ent = -(logp_all.exp() * logp_all).sum(-1).detach()
    return logp, ent


def _accepts(model: torch.nn.Module, name: str) -> bool:
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return name in inspect.signature(base.forward).parameters


# ============================================================ rewards -> advantages
def sequence_rewards(batch: Batch, cfg: LearnerConfig) -> torch.Tensor:
    """Sequence rewards after DAPO overlong shaping and the LEAP transform -> ``(B,)``."""
    r = batch.rewards.clone()
    if cfg.overlong_buffer:
        r = r + alg.overlong_penalty(batch.lengths, cfg.max_new_tokens * cfg.max_turns, cfg.overlong_buffer)
    if cfg.reward_transform == "leap":
        r = alg.leap_rank_transform(r, batch.group)
    return r


def advantages(batch: Batch, cfg: LearnerConfig) -> torch.Tensor:
    """Advantages ``(B, T)`` of the configured algorithm (always per token)."""
    r = sequence_rewards(batch, cfg)  # (B,)
    if cfg.algorithm == "bot_grpo":
        # r_{i,t} = w r_i + p_{i,t}; a sample with no process signal at all keeps its sequence reward.
        w = torch.where(batch.has_process, torch.full_like(r, cfg.outcome_weight), torch.ones_like(r))
        tr = (w * r)[:, None] + batch.token_rewards  # (B, T)
        return alg.bot_grpo_advantages(tr, batch.mask, batch.group, scale=bool(cfg.scale_rewards))
    adv = alg.broadcast(alg.group_advantages(r, batch.group, scale=bool(cfg.scale_rewards)), batch.mask)
    if cfg.algorithm == "pure":
        # PURE: outcome advantage plus the min-form process return.
        adv = adv + alg.pure_min_form(batch.token_rewards, batch.reward_positions, batch.mask, cfg.pure_temperature)
    return adv


# ============================================================ the objective
def policy_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    adv: torch.Tensor,
    batch: Batch,
    cfg: LearnerConfig,
    ref_logp: torch.Tensor | None = None,
    keep_tokens: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Scalar loss and its diagnostics for one optimisation pass.

    Args:
        logp: ``(B, T)`` log-probs under the policy being trained (with grad).
        old_logp: ``(B, T)`` log-probs of the policy that sampled, as the trainer computes them.
        adv: ``(B, T)`` advantages.
        batch: the padded samples (mask, sampler log-probs, groups).
        cfg: the config (algorithm, clip ranges, aggregation, beta, TIS, masks).
        ref_logp: ``(B, T)`` reference log-probs for the k3 KL (``beta > 0``).
        keep_tokens: ``(B, T)`` extra 0/1 mask (ERPO rank and entropy masks).

    """
    mask = batch.mask if keep_tokens is None else batch.mask * keep_tokens  # (B, T)
    # CARM / geometric masking look at the drift from the policy that sampled the tokens.
    seq_keep = alg.sequence_mask(logp, batch.sampler_logp, batch.mask, cfg.seq_mask, cfg.seq_mask_threshold)  # (B,)
    mask = mask * seq_keep[:, None]
    if cfg.algorithm in ("gspo", "gspo_token"):
        per_tok, clipped = alg.gspo_loss(
            logp, old_logp, adv, mask, cfg.epsilon, cfg.epsilon_high, token_level=cfg.algorithm == "gspo_token"
        )
    else:
        per_tok, clipped = alg.ppo_clip_loss(logp, old_logp, adv, cfg.epsilon, cfg.epsilon_high)
    if cfg.tis_cap:
        per_tok = per_tok * alg.tis_weights(old_logp, batch.sampler_logp, cfg.tis_cap)
    kl = torch.zeros_like(logp)
    if cfg.beta and ref_logp is not None:
        kl = alg.k3_kl(logp, ref_logp)
        per_tok = per_tok + cfg.beta * kl
    loss = alg.aggregate_loss(per_tok, mask, cfg.loss_aggregation, cfg.max_new_tokens * cfg.max_turns)
    n = mask.sum().clamp(min=1)
    stats = {
        "clip_frac": float((clipped * mask).sum() / n),
        "kl": float((kl.detach() * mask).sum() / n),
        "seq_masked": float(1 - seq_keep.mean()),
    }
    return loss, stats
