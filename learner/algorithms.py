"""The GRPO family as pure tensor functions: advantages, ratios, masks, losses.

Notation follows the papers: a batch holds groups of G samples ``o_i`` of one prompt ``q``;
``r_i`` is the sequence reward, ``r_{i,t}`` a token reward, ``|o_i|`` the sample's length.
Every tensor is ``(B,)`` per sample or ``(B, T)`` per token, with ``mask`` ``(B, T)`` (1.0 on
the tokens the model wrote and learns from, 0.0 on padding and env observations).
Nothing here touches models or envs, so each formula has a unit test on hand-computed numbers
(``tests/test_learner_algorithms.py``).
"""

from __future__ import annotations

import torch

Tensor = torch.Tensor
EPS = 1e-6


# ============================================================ reward transforms
def leap_rank_transform(rewards: Tensor, group: Tensor) -> Tensor:
    """LEAP's pairwise tournament: each reward becomes its win rate inside its group.

    ``r'_i = (sum_{j != i} [r_i > r_j] + 0.5 [r_i = r_j]) / (G - 1)`` over the ``G`` members of
    ``i``'s group; robust to the reward's scale and outliers (rank-based group rewards,
    LEAP, 2025). Shapes: ``rewards (B,)``, ``group (B,)`` -> ``(B,)``.
    """
    same = group[:, None] == group[None, :]  # (B, B)
    wins = (rewards[:, None] > rewards[None, :]).float() + 0.5 * (rewards[:, None] == rewards[None, :]).float()
    wins = (wins * same).sum(1) - 0.5  # remove the self-tie
    size = same.sum(1).float()
    return torch.where(size > 1, wins / (size - 1).clamp(min=1), torch.full_like(wins, 0.5))


def overlong_penalty(lengths: Tensor, max_len: int, buffer: int) -> Tensor:
    """DAPO's soft overlong punishment (Yu et al. 2025, eq. 13), added to the reward.

    ``R(L) = 0`` if ``L <= L_max - L_cache``; ``((L_max - L_cache) - L) / L_cache`` if
    ``L_max - L_cache < L <= L_max``; ``-1`` beyond. ``lengths (B,)`` -> ``(B,)``.
    """
    if buffer <= 0:
        return torch.zeros_like(lengths, dtype=torch.float)
    start = max_len - buffer
    lengths = lengths.float()
    soft = (start - lengths) / buffer
    return torch.where(
        lengths <= start, torch.zeros_like(soft), torch.where(lengths <= max_len, soft, -torch.ones_like(soft))
    )


# ============================================================ group statistics
def _group_mean_std(values: Tensor, weights: Tensor, group: Tensor, n_groups: int) -> tuple[Tensor, Tensor]:
    """Weighted mean and (population) std per group of flat ``values`` -> ``(n_groups,)`` each."""
    wsum = torch.zeros(n_groups, dtype=values.dtype).index_add_(0, group, weights)
    mean = torch.zeros(n_groups, dtype=values.dtype).index_add_(0, group, weights * values) / wsum.clamp(min=EPS)
    var = torch.zeros(n_groups, dtype=values.dtype).index_add_(0, group, weights * (values - mean[group]) ** 2)
    return mean, (var / wsum.clamp(min=EPS)).sqrt()


def group_advantages(rewards: Tensor, group: Tensor, scale: bool = True) -> Tensor:
    """GRPO (Shao et al. 2024, DeepSeekMath) and Dr. GRPO (Liu et al. 2025) advantages.

    GRPO: ``A_i = (r_i - mean_j r_j) / (std_j r_j + eps)``. Dr. GRPO (``scale=False``):
    ``A_i = r_i - mean_j r_j`` (no std division, which favours too-easy and too-hard groups).
    The std is the population std over the group. ``(B,)`` -> ``(B,)``; broadcast to tokens
    with :func:`broadcast`.
    """
    group = _dense(group)
    n = int(group.max()) + 1 if group.numel() else 0
    mean, std = _group_mean_std(rewards.float(), torch.ones_like(rewards, dtype=torch.float), group, n)
    adv = rewards.float() - mean[group]
    return adv / (std[group] + EPS) if scale else adv


def broadcast(adv: Tensor, mask: Tensor) -> Tensor:
    """Sequence advantage ``(B,)`` to every loss token: ``A_{i,t} = A_i * mask_{i,t}`` -> ``(B, T)``."""
    return adv[:, None] * mask


def bot_grpo_advantages(token_rewards: Tensor, mask: Tensor, group: Tensor, scale: bool = True) -> Tensor:
    """BoT-GRPO: per-token advantages against the length-weighted group statistics.

    All token rewards ``r_{i,t}`` of a group are pooled, each weighted by ``w_i = 1 / |o_i|``
    (so each sequence weighs the same, whatever its length):
    ``mu = sum_{i,t} w_i r_{i,t} / sum_{i,t} w_i``,
    ``sigma^2 = sum_{i,t} w_i (r_{i,t} - mu)^2 / sum_{i,t} w_i``,
    ``A_{i,t} = (r_{i,t} - mu) / (sigma + eps)`` (``scale=False``: no division).
    Shapes: ``token_rewards (B, T)``, ``mask (B, T)``, ``group (B,)`` -> ``(B, T)``.
    """
    group = _dense(group)
    n = int(group.max()) + 1
    lengths = mask.sum(1).clamp(min=1)  # |o_i|
    w = (mask / lengths[:, None]).flatten()  # (B*T,)
    tok_group = group[:, None].expand_as(mask).flatten()
    mean, std = _group_mean_std(token_rewards.float().flatten(), w, tok_group, n)
    adv = token_rewards.float() - mean[group][:, None]
    if scale:
        adv = adv / (std[group][:, None] + EPS)
    return adv * mask


def pure_min_form(token_rewards: Tensor, reward_positions: Tensor, mask: Tensor, temperature: float = 0.0) -> Tensor:
    r"""PURE min-form credit: each token's process return is the worst reward ahead of it.

    Cheng et al. 2025, "Stop Summation: Min-Form Credit Assignment Is All Process Reward Model
    Needs for Reasoning", arXiv 2504.15275. The value of token ``t`` is the worst process
    reward still ahead of it, not the sum, which stops the policy from farming many small
    positive steps. With ``F_t`` the rewarded tokens at or after ``t`` (``reward_positions``
    marks them):

    * ``temperature = 0`` (hard min): ``G_{i,t} = min_{t' in F_t} r_{i,t'}``;
    * ``temperature = T > 0`` (soft min, PURE's temperature-weighted form):
      ``G_{i,t} = sum_{t' in F_t} softmax_{F_t}(-r / T)_{t'} * r_{i,t'}``
      ``= sum_{t' in F_t} exp(-r_{i,t'}/T) r_{i,t'} / sum_{t' in F_t} exp(-r_{i,t'}/T)``.
      ``T -> 0`` gives the hard min, ``T -> inf`` the mean of the rewards ahead.

    ``G_{i,t} = 0`` when no rewarded token lies ahead. (PURE's released code normalises the
    softmax weights over the whole sequence and then sums the suffix; normalising over the
    suffix ``F_t``, as here, keeps ``T -> 0`` equal to the min over the future that defines
    min-form credit at every token.) Computed in log space (reverse ``logcumsumexp``, the
    positive and negative parts of ``r`` apart), so a small ``T`` neither overflows nor
    underflows. Shapes ``(B, T)`` -> ``(B, T)``.
    """
    rewarded = reward_positions.bool()
    r = token_rewards.float()
    if temperature <= 0:
        big = torch.finfo(torch.float).max
        masked = torch.where(rewarded, r, torch.full_like(r, big))
        # Suffix minimum: flip, cumulative min, flip back.
        suffix = torch.flip(torch.cummin(torch.flip(masked, [1]), dim=1).values, [1])
        return torch.where(suffix >= big, torch.zeros_like(suffix), suffix) * mask

    def suffix_logsumexp(x: Tensor) -> Tensor:
        return torch.flip(torch.logcumsumexp(torch.flip(x, [1]), dim=1), [1])

    neg_inf = torch.full_like(r, -float("inf"))
    logits = torch.where(rewarded, -r / temperature, neg_inf)  # log of the unnormalised weights
    log_z = suffix_logsumexp(logits)
    log_pos = suffix_logsumexp(logits + torch.log(r.clamp(min=0)))  # log sum w r over r > 0
    log_neg = suffix_logsumexp(logits + torch.log((-r).clamp(min=0)))  # log sum w |r| over r < 0
    value = torch.exp(log_pos - log_z) - torch.exp(log_neg - log_z)
    ahead = torch.isfinite(log_z)
    return torch.where(ahead, value, torch.zeros_like(value)).nan_to_num(0.0) * mask


# ============================================================ sample selection
def dynamic_sampling_keep(rewards: Tensor, group: Tensor) -> Tensor:
    """DAPO dynamic sampling: keep only groups whose rewards are not all equal.

    A group with identical rewards has zero advantage everywhere and only dilutes the batch.
    ``(B,)`` -> bool ``(B,)``.
    """
    group = _dense(group)
    n = int(group.max()) + 1
    hi = torch.full((n,), -float("inf")).scatter_reduce(0, group, rewards.float(), "amax")
    lo = torch.full((n,), float("inf")).scatter_reduce(0, group, rewards.float(), "amin")
    return (hi - lo)[group] > 1e-9


def erpo_rank_keep(rewards: Tensor, group: Tensor, keep: int) -> Tensor:
    """ERPO rank masking: learn only from the ``keep`` best and ``keep`` worst of each group.

    With probe-consensus rewards the middle ranks are the noisiest, so they are masked; ties
    are broken by order in the batch. ``keep=0`` keeps everything. ``(B,)`` -> bool ``(B,)``.
    """
    if keep <= 0:
        return torch.ones_like(rewards, dtype=torch.bool)
    group = _dense(group)
    out = torch.zeros_like(rewards, dtype=torch.bool)
    for g in group.unique():
        idx = (group == g).nonzero().flatten()
        order = idx[torch.argsort(rewards[idx], stable=True)]
        out[order[:keep]] = True
        out[order[-keep:]] = True
    return out


def entropy_ceiling_mask(entropy: Tensor, ceiling: float) -> Tensor:
    """ERPO entropy ceiling: drop tokens whose policy entropy exceeds ``ceiling`` nats.

    Very uncertain tokens carry little signal under consensus rewards and their gradient
    inflates entropy further. ``(B, T)`` -> float ``(B, T)``; ``ceiling=0`` keeps all.
    """
    if ceiling <= 0:
        return torch.ones_like(entropy)
    return (entropy <= ceiling).float()


def vigor_allocation(first_rewards: list[list[float]], budget: int) -> list[int]:
    """VIGOR: how many more rollouts each task gets after a first round.

    Every task had ``len(first_rewards[k])`` rollouts; the rest of the fixed budget
    ``budget * n_tasks`` goes, one at a time, to the task of highest reward variance per
    allocated rollout: ``priority_k = var_k / (n_k + 1)`` (the variance of the group-mean
    estimate after one more sample), so high-variance tasks get most and zero-variance tasks
    get none while any task has variance. Returns the extra count per task.
    """
    n_tasks = len(first_rewards)
    counts = [len(r) for r in first_rewards]
    extra = [0] * n_tasks
    remaining = budget * n_tasks - sum(counts)
    var = [float(torch.tensor(r, dtype=torch.float).var(unbiased=False)) if r else 0.0 for r in first_rewards]
    if not any(v > 0 for v in var):
        var = [1.0] * n_tasks  # nothing to go on: spread evenly
    for _ in range(max(remaining, 0)):
        k = max(range(n_tasks), key=lambda j: (var[j] / (counts[j] + extra[j] + 1), -j))
        if var[k] <= 0:
            break
        extra[k] += 1
    return extra


# ============================================================ ratios, clipping, regularisers
def ppo_clip_loss(
    logp: Tensor, old_logp: Tensor, adv: Tensor, eps_low: float, eps_high: float
) -> tuple[Tensor, Tensor]:
    """Token-level clipped surrogate of GRPO/DAPO (``eps_high > eps_low`` is clip-higher).

    ``rho_{i,t} = exp(logp - old_logp)``;
    ``l_{i,t} = -min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A)``.
    Returns the per-token loss ``(B, T)`` and where the clip was active ``(B, T)``.
    """
    ratio = torch.exp(logp - old_logp)
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1 - eps_low, 1 + eps_high) * adv
    return -torch.min(unclipped, clipped), (clipped < unclipped).float()


def gspo_loss(
    logp: Tensor,
    old_logp: Tensor,
    adv: Tensor,
    mask: Tensor,
    eps_low: float,
    eps_high: float,
    token_level: bool = False,
) -> tuple[Tensor, Tensor]:
    """GSPO and GSPO-token (Zheng et al. 2025, "Group Sequence Policy Optimization").

    Sequence ratio ``s_i = exp(mean_t (logp_{i,t} - old_{i,t}))`` (length-normalised);
    GSPO: ``l_i = -min(s_i A_i, clip(s_i, 1 - eps_low, 1 + eps_high) A_i)`` on every token;
    GSPO-token: ``s_{i,t} = sg[s_i] * pi(y_t) / sg[pi(y_t)]`` (same value, per-token gradient
    path) so per-token advantages ``A_{i,t}`` can be used. ``A_i`` is the mean of ``adv``
    over the sample's tokens. Returns per-token loss ``(B, T)`` and clip indicator ``(B, T)``.
    """
    n = mask.sum(1).clamp(min=1)
    log_s = ((logp - old_logp) * mask).sum(1) / n  # (B,)
    if token_level:
        log_sit = log_s.detach()[:, None] + logp - logp.detach()  # (B, T)
        ratio, a = torch.exp(log_sit), adv
    else:
        ratio, a = torch.exp(log_s)[:, None].expand_as(mask), ((adv * mask).sum(1) / n)[:, None].expand_as(mask)
    unclipped = ratio * a
    clipped = torch.clamp(ratio, 1 - eps_low, 1 + eps_high) * a
    return -torch.min(unclipped, clipped) * mask, (clipped < unclipped).float() * mask


def k3_kl(logp: Tensor, ref_logp: Tensor) -> Tensor:
    """Schulman's k3 estimator of KL(pi || pi_ref), per token, unbiased and >= 0.

    ``k3 = exp(ref - logp) - (ref - logp) - 1`` (used by GRPO). ``(B, T)`` -> ``(B, T)``.
    """
    d = ref_logp - logp
    return torch.exp(d) - d - 1


def tis_weights(old_logp: Tensor, sampler_logp: Tensor, cap: float) -> Tensor:
    """Truncated importance sampling of the sampler/trainer mismatch (TIS).

    Yao et al. 2025, "Your efficient RL framework secretly brings you off-policy RL training".

    When the sampler's log-probs differ from the trainer's for the same policy (another
    kernel, precision or engine), each token's loss is weighted by
    ``w_{i,t} = min(pi_old / pi_sampler, C)``, detached. ``(B, T)`` -> ``(B, T)``.
    """
    return torch.clamp(torch.exp(old_logp - sampler_logp), max=cap).detach()


def sequence_mask(logp: Tensor, old_logp: Tensor, mask: Tensor, mode: str, threshold: float) -> Tensor:
    """Sequence masking on the policy drift of each sample -> float ``(B,)`` (1 keep, 0 drop).

    ``carm`` (CARM): ``d_i = mean_t |logp_{i,t} - old_{i,t}|``; drop when ``d_i > threshold``.
    Absolute values cannot cancel, so a sample whose tokens drift both ways is caught.
    ``geometric`` (geometric-mean ratio masking, the baseline CARM improves on):
    ``d_i = |mean_t (logp_{i,t} - old_{i,t})|``, where opposite drifts cancel.
    ``none``: keep all.
    """
    if mode == "none":
        return torch.ones(mask.shape[0])
    n = mask.sum(1).clamp(min=1)
    diff = (logp - old_logp).detach() * mask
    d = diff.abs().sum(1) / n if mode == "carm" else (diff.sum(1) / n).abs()
    return (d <= threshold).float()


# ============================================================ aggregation
def aggregate_loss(per_token: Tensor, mask: Tensor, mode: str, max_len: int) -> Tensor:
    """Reduce a per-token loss ``(B, T)`` to a scalar.

    ``token-mean`` (DAPO): ``sum_{i,t} l m / sum_{i,t} m`` - every token weighs the same.
    ``seq-mean-token-mean`` (GRPO): ``mean_i (sum_t l m / sum_t m)`` - every sample weighs
    the same, so tokens of long samples weigh less.
    ``seq-mean-token-sum-norm`` (Dr. GRPO): ``mean_i (sum_t l m) / L_max`` with a constant
    ``L_max``, removing the length bias.
    """
    if mode == "token-mean":
        return (per_token * mask).sum() / mask.sum().clamp(min=1)
    if mode == "seq-mean-token-mean":
        return ((per_token * mask).sum(1) / mask.sum(1).clamp(min=1)).mean()
    if mode == "seq-mean-token-sum-norm":
        return (per_token * mask).sum(1).mean() / max_len
    raise ValueError(f"unknown loss aggregation {mode!r}")


def _dense(group: Tensor) -> Tensor:
    """Group labels renumbered 0..n-1."""
    return torch.unique(group, return_inverse=True)[1]
