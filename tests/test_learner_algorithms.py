"""Each GRPO-family formula on small tensors whose results were worked out by hand."""

import math

import pytest
import torch
from codegym.learner import algorithms as alg

approx = pytest.approx


def close(t, want):
    """``t`` equals the hand-computed ``want`` (nested lists) to float precision."""
    torch.testing.assert_close(t.detach().float(), torch.tensor(want, dtype=torch.float), rtol=1e-4, atol=1e-5)
    return True


def test_grpo_advantage_is_reward_minus_group_mean_over_group_std():
    adv = alg.group_advantages(torch.tensor([1.0, 0, 0, 1, 2, 2]), torch.tensor([0, 0, 0, 0, 1, 1]))
    # group 0: mean 0.5, std 0.5; group 1: all equal -> zero advantage
    assert adv.tolist() == approx([1, -1, -1, 1, 0, 0], abs=1e-5)


def test_dr_grpo_advantage_does_not_divide_by_the_std():
    adv = alg.group_advantages(torch.tensor([1.0, 0, 0, 0]), torch.tensor([3, 3, 3, 3]), scale=False)
    assert adv.tolist() == approx([0.75, -0.25, -0.25, -0.25])


def test_sequence_advantage_is_broadcast_onto_loss_tokens_only():
    out = alg.broadcast(torch.tensor([2.0, -1.0]), torch.tensor([[1.0, 1, 0], [1, 0, 0]]))
    assert out.tolist() == [[2, 2, 0], [-1, 0, 0]]


def test_bot_grpo_weights_each_token_by_the_inverse_length_of_its_sequence():
    tr = torch.tensor([[1.0, 0, 0, 0], [0, 0, 0, 0]])
    mask = torch.tensor([[1.0, 1, 0, 0], [1, 1, 1, 1]])
    adv = alg.bot_grpo_advantages(tr, mask, torch.tensor([0, 0]))
    # weights 1/2 (x2) and 1/4 (x4): mean 0.25; var (0.5*.75^2 + 0.5*.25^2 + 4*.25*.25^2)/2 = 0.1875
    std = math.sqrt(0.1875)
    assert adv[0].tolist() == approx([0.75 / std, -0.25 / std, 0, 0], rel=1e-4)
    assert adv[1].tolist() == approx([-0.25 / std] * 4, rel=1e-4)


def test_pure_min_form_credits_each_token_with_the_worst_reward_ahead():
    tr = torch.tensor([[0.5, 0.0, -1.0, 0.2], [0.3, 0.3, 0.3, 0.3]])
    pos = torch.tensor([[1.0, 0, 1, 1], [0, 0, 0, 0]])
    out = alg.pure_min_form(tr, pos, torch.ones(2, 4))
    assert close(out, [[-1, -1, -1, 0.2], [0, 0, 0, 0]])


def test_pure_soft_min_weights_the_rewards_ahead_by_softmax_of_minus_reward_over_temperature():
    tr = torch.tensor([[0.5, 0.0, -1.0, 0.2], [0.3, 0.3, 0.3, 0.3]])
    pos = torch.tensor([[1.0, 0, 1, 1], [0, 0, 0, 0]])
    e = math.exp
    # T = 1, by hand: token 3 sees {0.2}; tokens 1 and 2 see {-1, 0.2}; token 0 sees {0.5, -1, 0.2}.
    t2 = (e(1) * -1 + e(-0.2) * 0.2) / (e(1) + e(-0.2))
    t0 = (e(-0.5) * 0.5 + e(1) * -1 + e(-0.2) * 0.2) / (e(-0.5) + e(1) + e(-0.2))
    out = alg.pure_min_form(tr, pos, torch.ones(2, 4), temperature=1.0)
    assert close(out, [[t0, t2, t2, 0.2], [0, 0, 0, 0]])
    # T = 0.5 doubles the exponents.
    t2 = (e(2) * -1 + e(-0.4) * 0.2) / (e(2) + e(-0.4))
    assert out.shape == (2, 4) and alg.pure_min_form(tr, pos, torch.ones(2, 4), 0.5)[0, 2].item() == approx(t2)
    # T -> 0 is the hard min (no overflow), T -> inf the mean of the rewards ahead.
    assert close(alg.pure_min_form(tr, pos, torch.ones(2, 4), 1e-4), [[-1, -1, -1, 0.2], [0, 0, 0, 0]])
    mean = alg.pure_min_form(tr, pos, torch.ones(2, 4), 1e6)
    assert close(mean, [[(0.5 - 1 + 0.2) / 3, -0.4, -0.4, 0.2], [0, 0, 0, 0]])
    # The loss mask still applies.
    assert alg.pure_min_form(tr, pos, torch.tensor([[1.0, 1, 0, 0], [1, 1, 1, 1]]), 1.0)[0, 2:].tolist() == [0, 0]


def test_leap_tournament_turns_rewards_into_within_group_win_rates():
    out = alg.leap_rank_transform(torch.tensor([3.0, 1, 1, 0, 7]), torch.tensor([0, 0, 0, 0, 1]))
    assert out.tolist() == approx([1.0, 0.5, 0.5, 0.0, 0.5])


def test_dapo_overlong_penalty_is_zero_then_linear_then_minus_one():
    out = alg.overlong_penalty(torch.tensor([6, 8, 10, 11]), max_len=10, buffer=4)
    assert out.tolist() == approx([0.0, -0.5, -1.0, -1.0])


def test_dynamic_sampling_drops_groups_whose_rewards_are_all_equal():
    keep = alg.dynamic_sampling_keep(torch.tensor([1.0, 1, 0, 1]), torch.tensor([0, 0, 1, 1]))
    assert keep.tolist() == [False, False, True, True]


def test_clip_higher_lets_positive_advantages_grow_further_than_negative_ones_shrink():
    logp = torch.log(torch.tensor([[1.5, 1.5, 0.5]]))
    adv = torch.tensor([[1.0, -1.0, -1.0]])
    loss, clipped = alg.ppo_clip_loss(logp, torch.zeros(1, 3), adv, eps_low=0.2, eps_high=0.28)
    assert close(loss, [[-1.28, 1.5, 0.8]])
    assert clipped.tolist() == [[1, 0, 1]]
    symmetric, _ = alg.ppo_clip_loss(logp, torch.zeros(1, 3), adv, 0.2, 0.2)
    assert symmetric[0, 0].item() == approx(-1.2)


def test_gspo_uses_one_length_normalised_ratio_per_sequence():
    logp = torch.tensor([[0.2, 0.0]], requires_grad=True)
    mask = torch.ones(1, 2)
    loss, _ = alg.gspo_loss(logp, torch.zeros(1, 2), torch.tensor([[2.0, 2.0]]), mask, 0.2, 0.2)
    s = math.exp(0.1)
    assert close(loss, [[-2 * s, -2 * s]])
    loss.sum().backward()
    assert close(logp.grad, [[-2 * s, -2 * s]])  # d/dlogp_t of -2*2*s = -4 s / 2
    tight, clipped = alg.gspo_loss(logp.detach(), torch.zeros(1, 2), torch.tensor([[2.0, 2.0]]), mask, 0.2, 0.05)
    assert close(tight, [[-2.1, -2.1]]) and clipped.tolist() == [[1, 1]]


def test_gspo_token_keeps_the_sequence_ratio_value_but_per_token_advantages():
    logp = torch.tensor([[0.2, 0.0]], requires_grad=True)
    loss, _ = alg.gspo_loss(
        logp, torch.zeros(1, 2), torch.tensor([[1.0, 3.0]]), torch.ones(1, 2), 0.2, 0.2, token_level=True
    )
    s = math.exp(0.1)
    assert close(loss, [[-s, -3 * s]])
    loss.sum().backward()
    assert close(logp.grad, [[-s, -3 * s]])


def test_k3_kl_matches_its_formula_and_is_zero_at_the_reference():
    logp, ref = torch.log(torch.tensor([0.5, 0.3])), torch.log(torch.tensor([0.25, 0.3]))
    assert alg.k3_kl(logp, ref).tolist() == approx([0.5 + math.log(2) - 1, 0.0], abs=1e-6)


def test_truncated_importance_weights_are_capped():
    w = alg.tis_weights(torch.log(torch.tensor([3.0, 0.5])), torch.zeros(2), cap=2.0)
    assert w.tolist() == approx([2.0, 0.5])


def test_carm_masks_drift_that_the_geometric_mean_lets_cancel():
    logp, old, mask = torch.tensor([[0.6, -0.6], [0.1, 0.0]]), torch.zeros(2, 2), torch.ones(2, 2)
    assert alg.sequence_mask(logp, old, mask, "carm", 0.5).tolist() == [0.0, 1.0]
    assert alg.sequence_mask(logp, old, mask, "geometric", 0.5).tolist() == [1.0, 1.0]
    assert alg.sequence_mask(logp + 1, old, mask, "geometric", 0.5).tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "mode, want", [("token-mean", 2.0), ("seq-mean-token-mean", 2.25), ("seq-mean-token-sum-norm", 0.75)]
)
def test_loss_aggregation_modes(mode, want):
    per_tok = torch.tensor([[1.0, 2, 9], [3, 9, 9]])
    mask = torch.tensor([[1.0, 1, 0], [1, 0, 0]])
    assert alg.aggregate_loss(per_tok, mask, mode, max_len=4).item() == approx(want)


def test_vigor_gives_the_rest_of_the_budget_to_high_variance_tasks():
    assert alg.vigor_allocation([[1, 1], [1, 0], [0, 0]], budget=4) == [0, 6, 0]
    assert alg.vigor_allocation([[1, 0], [1, 0], [1, 1]], budget=3) == [2, 1, 0]
    assert alg.vigor_allocation([[1, 1], [0, 0]], budget=3) == [1, 1]  # no variance anywhere: even


def test_erpo_keeps_only_the_best_and_worst_of_each_group():
    keep = alg.erpo_rank_keep(torch.tensor([0.1, 0.5, 0.9, 0.3, 1, 2]), torch.tensor([0, 0, 0, 0, 1, 1]), keep=1)
    assert keep.tolist() == [True, False, True, False, True, True]


def test_erpo_entropy_ceiling_masks_uncertain_tokens():
    assert alg.entropy_ceiling_mask(torch.tensor([[0.5, 2.0]]), 1.0).tolist() == [[1.0, 0.0]]
    assert alg.entropy_ceiling_mask(torch.tensor([[0.5, 2.0]]), 0.0).tolist() == [[1.0, 1.0]]
