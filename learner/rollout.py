"""Rollouts: sample G attempts per task from the policy and grade them in the env.

Token-in, token-out: the exact sampled ids and their log-probs are kept (no re-tokenising of
the model's text), the env's observations between turns are tokenised and appended with a
zero loss mask, and ``info["token_rewards"]`` character spans are mapped onto the sampled
tokens through character offsets. Samples whose ``info`` reports an ``infra_error`` are
marked so the trainer drops them instead of learning from a fake zero.

Each model turn is a :class:`Turn` of its sample (its tokens and the env's reward for it);
the sample's ``reward`` is the episode's return as :mod:`codegym.learner.returns` defines it
for the env's family (never a plain sum of re-graded scores). Under ``RecoveryWrapper`` every
attempt of a chain is a sample of its own, with its own return and its attempt index
(FC-SWE's active-set groups: the attempts of one task at one index are compared). Prompts
longer than ``max_prompt_tokens`` are cut from the middle with a warning, or refused.
"""

from __future__ import annotations

import codecs
import functools
import inspect
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import torch
from codegym.learner.returns import ReturnRule, episode_return, is_solved, resolve_rule


@dataclass
class Turn:
    """One model turn of a sample: ``token_ids[start:end]`` (the model's tokens) and its reward."""

    start: int
    end: int
    reward: float


@dataclass
class Sample:
    """One episode of one task (one attempt of a recovery chain), ready for the loss.

    Attributes:
        task_id: the task (reset options) it solved.
        group: index of its group (same task, same step).
        prompt_ids: context tokens before the first model token.
        token_ids: every token after the prompt: model tokens and env observation tokens.
        sampler_logp: log-prob of each token under the sampler (0 on observation tokens).
        loss_mask: 1 where the model wrote the token (learned from), 0 where the env did.
        token_rewards: process reward of each token (from ``info["token_rewards"]``).
        reward_positions: 1 where some span covered the token.
        reward: the episode's return G (:func:`codegym.learner.returns.episode_return`).
        infra_error: what broke, when the env reported an infrastructure failure.
        text: the actions the model wrote, one per turn.
        truncated: a turn ran out of ``max_new_tokens`` before the end token.
        components: the last turn's ``info["reward_components"]``.
        turns: the model turns, each with its tokens and its step reward.
        score: the episode's undiscounted score (last reward or sum, by family).
        solved: ``score`` reached the family's solved mark.
        attempt: 0-based attempt index in a recovery chain (0 without one).
        chain_id: the recovery chain's id (``info["recovery"]["chain_id"]``), else None.
        prompt_cut: prompt tokens cut from the middle to fit ``max_prompt_tokens``.

    """

    task_id: str
    group: int
    prompt_ids: list[int]
    token_ids: list[int] = field(default_factory=list)
    sampler_logp: list[float] = field(default_factory=list)
    loss_mask: list[int] = field(default_factory=list)
    token_rewards: list[float] = field(default_factory=list)
    reward_positions: list[int] = field(default_factory=list)
    reward: float = 0.0
    infra_error: str | None = None
    text: list[str] = field(default_factory=list)
    truncated: bool = False
    components: dict[str, float] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)
    score: float = 0.0
    solved: bool = False
    attempt: int = 0
    chain_id: str | None = None
    prompt_cut: int = 0

    @property
    def has_process_reward(self) -> bool:
        """Whether any span of the env's process signal touched this sample."""
        return any(self.reward_positions)


# ============================================================ sampling
@torch.inference_mode()
def generate(
    model: torch.nn.Module,
    contexts: Sequence[Sequence[int]],
    max_new_tokens: int,
    eos_id: int,
    pad_id: int,
    temperature: float = 1.0,
    top_k: int = 0,
    greedy: bool = False,
    generator: torch.Generator | None = None,
) -> tuple[list[list[int]], list[list[float]], list[bool]]:
    """Sample continuations of a batch of token contexts with a KV cache.

    Returns per row: the sampled ids (ending with ``eos_id`` when the model stopped), their
    log-probs under ``softmax(logits / temperature)`` (what the trainer recomputes), and
    whether the row stopped before ``max_new_tokens``. A group's G rows share one context,
    so the prompt is run once per distinct context and its KV cache copied to the G rows;
    rows that have stopped leave the batch (once a quarter of it has).
    """
    device = next(model.parameters()).device
    b, width = len(contexts), max(len(c) for c in contexts)
    rows: dict[tuple[int, ...], int] = {}
    of = torch.tensor([rows.setdefault(tuple(c), len(rows)) for c in contexts])  # row -> distinct context
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    attn = torch.zeros((len(rows), width), dtype=torch.long)
    for i, c in enumerate(rows):  # left padding keeps every row's next token at the end
        ids[i, width - len(c) :] = torch.tensor(c, dtype=torch.long)
        attn[i, width - len(c) :] = 1
    ids, attn, of = ids.to(device), attn.to(device), of.to(device)
    pos = (attn.cumsum(-1) - 1).clamp(min=0)
    # transformers 5 names the KV cache ``cache``; 4.x named it ``past_key_values``.
    base = model.get_base_model() if hasattr(model, "get_base_model") else model  # peft wraps forward
    cache_kw = "cache" if "cache" in inspect.signature(base.forward).parameters else "past_key_values"
    out = model(input_ids=ids, attention_mask=attn, position_ids=pos, use_cache=True, logits_to_keep=1)
    past, logits = getattr(out, cache_kw), out.logits[:, -1].float()
    if len(rows) < b:  # copy each distinct prompt's cache to its rows
        past.batch_select_indices(of)
        logits, attn, pos = logits[of], attn[of], pos[of]
    last = pos[:, -1]
    # The attention mask of every decode step is a prefix of one preallocated mask.
    attn = torch.cat([attn, torch.ones((b, max_new_tokens), dtype=attn.dtype, device=device)], 1)
    tokens = torch.zeros((b, max_new_tokens), dtype=torch.long)
    logps = torch.zeros((b, max_new_tokens))
    done = torch.zeros(b, dtype=torch.bool)
    lengths = torch.full((b,), max_new_tokens)
    live = torch.arange(b)  # the output row of each row still in the decode batch
    ended = torch.zeros(b, dtype=torch.bool, device=device)  # in the batch, but past its end token
    for t in range(max_new_tokens):
        logp_all = torch.log_softmax(logits / temperature, -1)
        if greedy:
            tok = logits.argmax(-1)
        else:
            probs = logp_all.exp()
            if top_k:
                scores = logits / temperature
                kth = torch.topk(scores, min(top_k, scores.shape[-1])).values[:, -1:]
                probs = torch.softmax(scores.masked_fill(scores < kth, -float("inf")), -1)
            # torch.multinomial(p, 1) is argmax(p / q), q ~ Exp(1) (the exponential race). The
            # noise is drawn for all b rows whichever have left the batch, so each row's draw,
            # and the generator's state afterwards, do not depend on when rows leave.
            q = torch.empty((b, probs.shape[-1]), device=device).exponential_(1, generator=generator)
            tok = (probs / q[live.to(device)]).argmax(-1)
        tok = torch.where(ended, torch.full_like(tok, pad_id), tok)
        tokens[live, t], logps[live, t] = tok.cpu(), logp_all.gather(1, tok[:, None]).squeeze(1).cpu()
        newly = (~ended) & (tok == eos_id)
        lengths[live[newly.cpu()]] = t + 1
        done[live[newly.cpu()]] = True
        ended |= newly
        if bool(ended.all()) or t == max_new_tokens - 1:
            break
        if 4 * int(ended.sum()) >= len(live):
            # A quarter of the batch has stopped: drop those rows (cache included) instead of
            # decoding padding for them; waiting for a quarter keeps the cache copies rare.
            keep = (~ended).nonzero().squeeze(1)
            past.batch_select_indices(keep)
            tok, attn, last, live = tok[keep], attn[keep], last[keep], live[keep.cpu()]
            ended = ended[keep]
        last = last + 1
        out = model(
            input_ids=tok[:, None],
            attention_mask=attn[:, : width + t + 1],
            position_ids=last[:, None],
            use_cache=True,
            **{cache_kw: past},
        )
        past, logits = getattr(out, cache_kw), out.logits[:, -1].float()
    seqs = [tokens[i, : lengths[i]].tolist() for i in range(b)]
    lps = [logps[i, : lengths[i]].tolist() for i in range(b)]
    return seqs, lps, [bool(d) for d in done.cpu()]


# ============================================================ spans -> tokens
def token_offsets(tokenizer: Any, ids: Sequence[int], text: str) -> list[tuple[int, int]]:
    """Character span of each token of ``ids`` inside ``text`` (the decoded ``ids``).

    Uses the tokenizer's offset mapping when re-encoding ``text`` gives back ``ids`` (the
    usual case); otherwise (the sampler chose a non-canonical split) the offsets come from
    the characters decoded after each token, which is exact for byte-level tokenizers up to
    partial UTF-8 characters (those attach to the token that completes them).
    """
    if ids:
        enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        if list(enc["input_ids"]) == list(ids):
            return [tuple(o) for o in enc["offset_mapping"]]
    counts = _byte_level_char_counts(tokenizer, ids)
    if counts is None:  # not a plain byte-level BPE: decode growing prefixes
        heads = [list(ids[: i + 1]) for i in range(len(ids))]
        backend = getattr(tokenizer, "backend_tokenizer", None)
        if backend is not None and not getattr(tokenizer, "clean_up_tokenization_spaces", False):
            prefixes = backend.decode_batch(heads, skip_special_tokens=True)  # one call into Rust
        else:
            prefixes = tokenizer.batch_decode(heads, skip_special_tokens=True)
        counts = [len(prefix.rstrip("\ufffd")) for prefix in prefixes]
    offsets, prev = [], 0
    for count in counts:
        n = min(count, len(text))
        offsets.append((prev, max(n, prev)))
        prev = max(n, prev)
    return offsets


@functools.lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level alphabet, inverted: the character standing for each byte -> the byte."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            chars[chr(byte)] = byte
        else:
            chars[chr(256 + extra)] = byte
            extra += 1
    return chars


def _byte_level_char_counts(tokenizer: Any, ids: Sequence[int]) -> list[int] | None:
    """Characters decoded after each token, in one pass, for byte-level BPE tokenizers.

    Each token stands for bytes; an incremental UTF-8 decoder (invalid bytes become U+FFFD, as
    the tokenizer's own lossy decoding does) holds back a partial character until the token
    that completes it. Special tokens decode to nothing (``skip_special_tokens``). None when
    the tokenizer is not a plain byte-level one (then the caller decodes prefixes).
    """
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None or type(backend.decoder).__name__ != "ByteLevel":
        return None
    special = set(getattr(tokenizer, "all_special_ids", []))
    added = {i for i in backend.get_added_tokens_decoder() if i not in special}
    if added & set(ids):  # added tokens are stored as text, not bytes
        return None
    table = _byte_decoder()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    counts, n = [], 0
    for tok_id in ids:
        piece = backend.id_to_token(tok_id)
        if tok_id not in special and piece is not None:
            if any(ch not in table for ch in piece):
                return None
            n += len(decoder.decode(bytes(table[ch] for ch in piece)))
        counts.append(n)
    return counts


def spans_to_token_rewards(
    offsets: Sequence[tuple[int, int]], spans: Sequence[Sequence[float]]
) -> tuple[list[float], list[int]]:
    """Map ``[start, end, value]`` character spans onto tokens.

    A token gets the value of every span it overlaps (overlapping spans add, as docs/contract.md
    says for characters); tokens outside every span get 0. Returns the per-token rewards and
    a 0/1 list of tokens some span touched.
    """
    rewards, touched = [0.0] * len(offsets), [0] * len(offsets)
    for start, end, value in spans:
        for k, (a, b) in enumerate(offsets):
            if a < end and b > start:
                rewards[k] += float(value)
                touched[k] = 1
    return rewards, touched


# ============================================================ episodes
def task_refs(env: gym.Env, split: str | None) -> list[str]:
    """Ids of the env's tasks in ``split`` (None: all); needs ``env.unwrapped.tasks``.

    An env without a task list is driven by seeds instead: ids ``"seed:N"``.
    """
    tasks = getattr(env.unwrapped, "tasks", None)
    if tasks is None:
        return [f"seed:{i}" for i in range(1000)]
    return [t.id for t in tasks if split is None or getattr(t, "split", None) == split]


def reset_to(env: gym.Env, task_id: str) -> Any:
    """Reset ``env`` onto ``task_id`` (``seed:N`` ids reset with that seed)."""
    if task_id.startswith("seed:"):
        return env.reset(seed=int(task_id[5:]))[0]
    return env.reset(options={"task_id": task_id})[0]


def obs_text(obs: Any) -> str:
    """The text part of an observation (``Dict`` observations carry it under ``text``)."""
    if isinstance(obs, dict):
        return str(obs.get("text", ""))
    return str(obs)


class PromptTooLongError(ValueError):
    """A prompt is longer than ``max_prompt_tokens`` and ``prompt_overflow="error"``."""


class PromptCutWarning(UserWarning):
    """A prompt was cut from the middle to fit ``max_prompt_tokens``."""


def fit_prompt(
    tokenizer: Any,
    ids: Sequence[int],
    max_tokens: int,
    overflow: str = "cut_middle",
    what: str = "a prompt",
    warn: bool = True,
) -> tuple[list[int], int]:
    """``(ids that fit, tokens cut)``: ``ids`` itself when it fits, else cut or refused.

    ``cut_middle`` keeps the start (where the task statement is) and the end (the answer
    format, the latest feedback), half the budget each, and puts a marker saying how many
    tokens are missing in between, with a :class:`PromptCutWarning`. ``error`` raises
    :class:`PromptTooLongError`. Never silent: cutting only the start lost the task
    statement of every CodeRepair and WebApp prompt at 256 tokens. ``warn=False`` leaves
    the warning to a caller that sums up many prompts in one.
    """
    ids = list(ids)
    if len(ids) <= max_tokens:
        return ids, 0
    if overflow == "error":
        raise PromptTooLongError(
            f"{what} is {len(ids)} tokens, longer than max_prompt_tokens={max_tokens}; raise max_prompt_tokens "
            "or set prompt_overflow=cut_middle to cut it from the middle"
        )
    if overflow != "cut_middle":
        raise ValueError(f"prompt_overflow must be one of ['cut_middle', 'error'], got {overflow!r}")
    marker: list[int] = []
    for _ in range(3):  # the marker's own length changes the count it states; settles at once
        cut = len(ids) - (max_tokens - len(marker))
        marker = _encode(tokenizer, f"\n[... {cut} prompt tokens cut ...]\n")
        if 2 * len(marker) > max_tokens:  # no room for a marker in a tiny budget
            marker = []
            break
    keep = max_tokens - len(marker)
    head, tail = (keep + 1) // 2, keep // 2
    cut = len(ids) - head - tail
    if warn:
        warnings.warn(
            f"{what} is {len(ids)} tokens, longer than max_prompt_tokens={max_tokens}: cut {cut} tokens from its "
            f"middle (kept the first {head} and the last {tail})",
            PromptCutWarning,
            stacklevel=2,
        )
    return ids[:head] + marker + (ids[-tail:] if tail else []), cut


@dataclass
class RolloutSettings:
    """What :func:`rollout` needs from the config.

    ``episode_return``, ``solved_at``, ``turn_discount`` and ``turn_penalty`` make each
    sample's return (:mod:`codegym.learner.returns`): ``auto`` takes the env family's rule.
    """

    max_new_tokens: int = 64
    max_prompt_tokens: int = 256
    max_turns: int = 1
    temperature: float = 1.0
    top_k: int = 0
    greedy: bool = False
    prompt_template: str = "{observation}\n"
    episode_return: str = "auto"
    solved_at: float | None = None
    turn_discount: float = 1.0
    turn_penalty: float = 0.0
    prompt_overflow: str = "cut_middle"


def chain_attempts(env: gym.Env) -> int:
    """Attempts per episode of ``env``: a wrapper's ``max_attempts`` (RecoveryWrapper), else 1."""
    while True:
        attempts = env.__dict__.get("max_attempts") if hasattr(env, "__dict__") else None
        if isinstance(attempts, int):
            return attempts
        if not isinstance(env, gym.Wrapper):
            return 1
        env = env.env


def credit_groups(samples: Sequence[Sample]) -> list[int]:
    """The advantage group of each sample: dense ids of ``(group, attempt)``.

    Without recovery chains this is the task group. With them, the attempts of one task at
    one attempt index form a group (FC-SWE's active set: a chain that succeeded has no
    later attempts, so it leaves the set), and an attempt is compared only with attempts
    made in the same situation.
    """
    ids: dict[tuple[int, int], int] = {}
    return [ids.setdefault((s.group, s.attempt), len(ids)) for s in samples]


def rollout(
    model: torch.nn.Module,
    tokenizer: Any,
    envs: Sequence[gym.Env],
    jobs: Sequence[tuple[str, int]],
    settings: RolloutSettings,
    generator: torch.Generator | None = None,
) -> list[Sample]:
    """Run one episode per ``(task_id, group)`` job and return the samples.

    Generation is batched over all active episodes of a turn; grading runs in one thread per
    env of ``envs`` (sandboxed graders spend most of their time waiting on processes).
    Single-turn episodes share the envs round-robin; multi-turn episodes (and recovery
    chains) need their env to persist between turns, so they run in chunks of ``len(envs)``
    concurrent episodes. A recovery chain gives one sample per attempt; samples come in job
    order, the attempts of one job in attempt order.
    """
    attempts = chain_attempts(envs[0])
    multi = settings.max_turns > 1 or attempts > 1
    rule = resolve_rule(envs[0], settings.episode_return, settings.solved_at, multi_turn=multi)
    if not multi:
        return _run_chunk(
            model, tokenizer, [envs[k % len(envs)] for k in range(len(jobs))], jobs, settings, generator, rule, 1
        )
    samples: list[Sample] = []
    for k in range(0, len(jobs), len(envs)):
        chunk = jobs[k : k + len(envs)]
        samples += _run_chunk(model, tokenizer, list(envs[: len(chunk)]), chunk, settings, generator, rule, attempts)
    return samples


def _encode(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _in_threads(envs: list[gym.Env], items: list[int], fn: Any) -> dict[int, Any]:
    """``fn(i)`` for each item, the items of one env in order, different envs in parallel."""
    by_env: dict[int, list[int]] = {}
    for i in items:
        by_env.setdefault(id(envs[i]), []).append(i)
    if len(by_env) <= 1:
        return {i: fn(i) for i in items}
    with ThreadPoolExecutor(len(by_env)) as pool:
        parts = pool.map(lambda idx: [(i, fn(i)) for i in idx], by_env.values())
        return {i: out for part in parts for i, out in part}


def _new_sample(tokenizer: Any, task_id: str, group: int, obs: Any, s: RolloutSettings, attempt: int = 0) -> Sample:
    text = s.prompt_template.format(observation=obs_text(obs))
    what = f"the prompt of task {task_id!r}" + (f" (attempt {attempt + 1})" if attempt else "")
    ids, cut = fit_prompt(tokenizer, _encode(tokenizer, text), s.max_prompt_tokens, s.prompt_overflow, what)
    return Sample(task_id=task_id, group=group, prompt_ids=ids, attempt=attempt, prompt_cut=cut)


def _append(
    sample: Sample, ids: list[int], logp: list[float], learn: bool, tr: list[float], touched: list[int]
) -> None:
    sample.token_ids += ids
    sample.sampler_logp += logp if learn else [0.0] * len(ids)
    sample.loss_mask += [int(learn)] * len(ids)
    sample.token_rewards += tr
    sample.reward_positions += touched


def _run_chunk(
    model: torch.nn.Module,
    tokenizer: Any,
    envs: list[gym.Env],
    jobs: Sequence[tuple[str, int]],
    s: RolloutSettings,
    generator: torch.Generator | None,
    rule: ReturnRule,
    attempts: int,
) -> list[Sample]:
    """Episodes ``jobs[e]`` on ``envs[e]``; single-turn ones (``attempts == 1 == max_turns``) reset per grading."""
    eos, pad = tokenizer.eos_token_id, tokenizer.pad_token_id
    single = s.max_turns == 1 and attempts == 1
    samples: list[Sample] = []
    owner: list[int] = []  # the episode (job) of each sample
    first_obs: dict[str, Any] = {}
    for e, (task_id, group) in enumerate(jobs):
        if task_id not in first_obs or not single:  # one env shared by single-turn jobs: reset once per task
            first_obs[task_id] = reset_to(envs[0] if single else envs[e], task_id)
        samples.append(_new_sample(tokenizer, task_id, group, first_obs[task_id], s))
        owner.append(e)
    current = list(range(len(jobs)))  # episode -> index of the sample its next turn writes
    turns_in_attempt = [0] * len(jobs)
    active = list(range(len(jobs)))
    for _step in range(s.max_turns * attempts):
        contexts = [samples[current[e]].prompt_ids + samples[current[e]].token_ids for e in active]
        seqs, lps, stopped = generate(
            model, contexts, s.max_new_tokens, eos, pad, s.temperature, s.top_k, s.greedy, generator
        )
        new = {e: (ids, lp, stop) for e, ids, lp, stop in zip(active, seqs, lps, stopped, strict=True)}
        actions = {
            e: tokenizer.decode(ids[:-1] if stop else ids, skip_special_tokens=True)
            for e, (ids, _lp, stop) in new.items()
        }

        def grade(e: int, actions: dict[int, str] = actions) -> tuple[Any, ...]:
            if single:
                reset_to(envs[e], samples[current[e]].task_id)
            return envs[e].step(actions[e])

        results = _in_threads(envs, active, grade)
        still = []
        for e in active:  # tokenising stays in this thread: fast tokenizers are not re-entrant
            ids, lp, stop = new[e]
            sample, action = samples[current[e]], actions[e]
            obs, reward, terminated, truncated, info = results[e]
            action_ids = ids[:-1] if stop else ids
            spans = info.get("token_rewards") or []
            if spans:
                tr, touched = spans_to_token_rewards(token_offsets(tokenizer, action_ids, action), spans)
            else:  # no process signal: no offsets to compute
                tr, touched = [0.0] * len(action_ids), [0] * len(action_ids)
            pad_n = len(ids) - len(action_ids)
            start = len(sample.token_ids)
            _append(sample, ids, lp, True, tr + [0.0] * pad_n, touched + [0] * pad_n)
            sample.turns.append(Turn(start, len(sample.token_ids), float(reward)))
            sample.text.append(action)
            sample.truncated |= not stop
            sample.components = dict(info.get("reward_components", {}))
            recovery = info.get("recovery") or {}
            if recovery:
                sample.chain_id = str(recovery.get("chain_id"))
            turns_in_attempt[e] += 1
            if info.get("infra_error") or terminated or truncated:
                sample.infra_error = str(info["infra_error"]) if info.get("infra_error") else None
                continue
            if recovery.get("restarted"):
                # FC-SWE: the next attempt is a sample of its own, from its own first observation
                # (the failed attempt's patch and feedback, then the task), with its own reward.
                fresh = _new_sample(tokenizer, sample.task_id, sample.group, obs, s, sample.attempt + 1)
                fresh.chain_id = sample.chain_id
                samples.append(fresh)
                owner.append(e)
                current[e], turns_in_attempt[e] = len(samples) - 1, 0
                still.append(e)
                continue
            if turns_in_attempt[e] >= s.max_turns:  # the learner's turn budget is spent
                continue
            # The env's words enter the context but never the loss.
            obs_ids = _encode(tokenizer, s.prompt_template.format(observation=obs_text(obs)))
            _append(sample, obs_ids, [], False, [0.0] * len(obs_ids), [0] * len(obs_ids))
            still.append(e)
        active = still
        if not active:
            break
    for sample in samples:
        sample.reward, sample.score = episode_return(
            [t.reward for t in sample.turns], rule.kind, s.turn_discount, s.turn_penalty, rule.score_kind
        )
        sample.solved = is_solved(sample.score, float(rule.solved_at or 0.0))
    order = sorted(range(len(samples)), key=lambda i: (owner[i], samples[i].attempt))
    return [samples[i] for i in order]
