"""From samples to a loss: padding into tensors, advantages, and the per-algorithm objective.

Reads top to bottom like the papers: rewards -> advantages ``(B, T)`` -> masks -> ratios ->
clipped surrogate -> regularisers -> aggregation. Shapes are in the comments.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from codegym.learner import algorithms as alg
from codegym.learner.config import LearnerConfig
from codegym.learner.rollout import Sample, credit_groups


@dataclass
class Batch:
    """Padded tensors of a list of samples (B samples, T tokens after the prompt).

    ``input_ids (B, L)`` are prompt + tokens right-padded; ``index (B, T)`` is where the
    logits predicting token t of sample i sit in ``(B, L)``. The samples of a group share
    their prompt, so the prompts are also kept once each: ``prompts (U, P)`` left-padded
    with ``prompt_mask (U, P)``, and ``prompt_of (B,)`` says which prompt each sample has.
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
    prompts: torch.Tensor | None = None
    prompt_mask: torch.Tensor | None = None
    prompt_of: torch.Tensor | None = None
    token_attn: torch.Tensor | None = None


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
    distinct: dict[tuple[int, ...], int] = {}
    prompt_of = torch.tensor([distinct.setdefault(tuple(s.prompt_ids), len(distinct)) for s in samples])
    p_max = max(len(p) for p in distinct)
    prompts = torch.full((len(distinct), p_max), pad_id, dtype=torch.long)
    prompt_mask = torch.zeros((len(distinct), p_max), dtype=torch.long)
    for u, p in enumerate(distinct):
        prompts[u, p_max - len(p) :] = torch.tensor(p, dtype=torch.long)
        prompt_mask[u, p_max - len(p) :] = 1
    token_attn = torch.zeros((b, t_max), dtype=torch.long)
    for i, s in enumerate(samples):
        token_attn[i, : len(s.token_ids)] = 1
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
        group=torch.tensor(credit_groups(samples)),  # (task, attempt): FC-SWE's active-set groups
        has_process=torch.tensor([s.has_process_reward for s in samples]),
        lengths=per_tok["mask"].sum(1),
        prompts=prompts,
        prompt_mask=prompt_mask,
        prompt_of=prompt_of,
        token_attn=token_attn,
    )


def batch_rows(batch: Batch, rows: torch.Tensor) -> Batch:
    """The samples ``rows`` of ``batch`` (a micro-batch), keeping only the prompts they use."""
    used, prompt_of = torch.unique(batch.prompt_of[rows], return_inverse=True)
    fields = {
        f.name: getattr(batch, f.name)[rows]
        for f in dataclasses.fields(Batch)
        if f.name not in ("prompts", "prompt_mask", "prompt_of") and getattr(batch, f.name) is not None
    }
    return Batch(**fields, prompts=batch.prompts[used], prompt_mask=batch.prompt_mask[used], prompt_of=prompt_of)


def token_logprobs(
    model: torch.nn.Module,
    batch: Batch,
    temperature: float,
    with_entropy: bool = False,
    share_prompts: bool = True,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Log-prob ``(B, T)`` of each token under ``model`` (and the entropy, if asked).

    With ``share_prompts`` (and fewer distinct prompts than samples) each distinct prompt
    runs once and its KV cache is indexed out to its samples, whose tokens then run on top:
    the same log-probs and gradients as the full ``(B, P + T)`` forward (the prompt's
    activations get the summed gradient of its G samples), on ``U P + B T`` positions
    instead of ``B (P + T)``.
    """
    if share_prompts and batch.prompts is not None and len(batch.prompts) < len(batch.tokens):
        pieces = _shared_prompt_logits(model, batch)  # logits of tokens [0, 1) and [1, T)
    else:
        pieces = [_full_logits(model, batch)]
    logps, ents, start = [], [], 0
    for logits in pieces:  # (B, t, V) each; no (B, T, V) log-softmax is materialised
        tokens = batch.tokens[:, start : start + logits.shape[1]]
        start += logits.shape[1]
        scaled = logits if temperature == 1.0 else logits / temperature
        logz = torch.logsumexp(scaled, -1)  # (B, t)
        logps.append(scaled.gather(2, tokens[..., None]).squeeze(2) - logz)
        if with_entropy:
            with torch.no_grad():  # H = logZ - sum_v p_v z_v
                ents.append(logz - (torch.softmax(scaled, -1) * scaled).sum(-1))
    return torch.cat(logps, 1), (torch.cat(ents, 1) if with_entropy else None)


def _full_logits(model: torch.nn.Module, batch: Batch) -> torch.Tensor:
    """Logits ``(B, T, V)`` predicting each token, from one forward over prompt + tokens."""
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
    return logits.gather(1, index[..., None].expand(-1, -1, logits.shape[-1])).float()


def _shared_prompt_logits(model: torch.nn.Module, batch: Batch) -> list[torch.Tensor]:
    """Logits predicting each token, each distinct prompt run once: ``[(B, 1, V), (B, T-1, V)]``."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    cache_kw = "cache" if "cache" in inspect.signature(base.forward).parameters else "past_key_values"
    pos = (batch.prompt_mask.cumsum(-1) - 1).clamp(min=0)  # (U, P) left padding
    keep = {"logits_to_keep": 1} if _accepts(model, "logits_to_keep") else {}
    out = model(input_ids=batch.prompts, attention_mask=batch.prompt_mask, position_ids=pos, use_cache=True, **keep)
    cache = getattr(out, cache_kw)
    cache.batch_select_indices(batch.prompt_of)  # (U, ...) -> (B, ...), differentiable indexing
    of = batch.prompt_of
    t = batch.tokens.shape[1]
    first = out.logits[of, -1:].float()  # (B, 1, V): predicts token 0
    if t == 1:
        return [first]
    tok_pos = pos[of, -1:] + 1 + torch.arange(t, device=pos.device)[None, :]  # (B, T)
    # The last token is never an input: nothing after it is scored.
    out2 = model(
        input_ids=batch.tokens[:, :-1],
        attention_mask=torch.cat([batch.prompt_mask[of], batch.token_attn[:, :-1]], 1),
        position_ids=tok_pos[:, :-1],
        use_cache=True,
        **{cache_kw: cache},
    )
    return [first, out2.logits.float()]  # (B, 1, V) and (B, T - 1, V)


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
