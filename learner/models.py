"""Models and tokenizers: a tiny Llama-style model built locally, or any local HF causal LM.

Nothing is downloaded: the tiny tokenizer is a byte-level BPE trained with ``tokenizers`` on
text the caller passes (the env's prompts and gold solutions), and the tiny model is built
from a config with random weights. Real models come from a local path.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

PAD, EOS = "<|pad|>", "<|endoftext|>"


def build_tokenizer(texts: Iterable[str], vocab_size: int = 2048) -> PreTrainedTokenizerFast:
    """Train a byte-level BPE tokenizer on ``texts`` (any Unicode decodes; no unknown token).

    Offsets are not trimmed, so ``offset_mapping`` covers every character: token-level
    rewards given as character spans map onto tokens exactly.
    """
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(list(texts), trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token=PAD, eos_token=EOS, padding_side="left")


def build_tiny_model(
    tokenizer: PreTrainedTokenizerFast,
    layers: int = 4,
    hidden: int = 128,
    heads: int = 4,
    max_positions: int = 1024,
    seed: int = 0,
) -> LlamaForCausalLM:
    """A small Llama-style causal LM with random weights (about 1 M parameters by default)."""
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=4 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=heads,
        max_position_embeddings=max_positions,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.config.use_cache = True
    return model


def load_tokenizer(path: str | Path) -> PreTrainedTokenizerFast:
    """Load a tokenizer from a local folder (pad token set, left padding)."""
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    return tokenizer


def load_model(path: str | Path) -> tuple[torch.nn.Module, PreTrainedTokenizerFast]:
    """Load a Hugging Face causal LM and its tokenizer from a local folder (no download)."""
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=torch.float32)
    return model, load_tokenizer(path)


def save_lora_checkpoint(model: torch.nn.Module, folder: Path, base_on_disk: bool) -> None:
    """Save a ``peft`` LoRA model so :func:`load_lora_checkpoint` rebuilds it exactly.

    The adapter goes where ``peft`` puts it (``adapter_config.json``,
    ``adapter_model.safetensors``). LoRA freezes the base, so a base loaded from disk
    (``base_on_disk``: ``cfg.model`` is a path) is read from there again; a base that exists
    only in memory (the tiny model) is saved too: its config under ``base/`` and every weight
    (base and adapter) in ``lora_full_state.pt``.
    """
    model.save_pretrained(folder)
    if not base_on_disk:
        model.get_base_model().config.save_pretrained(folder / "base")
        torch.save(model.state_dict(), folder / "lora_full_state.pt")


def load_lora_checkpoint(folder: Path, rank: int, base_path: str | None) -> torch.nn.Module:
    """The LoRA model written by :func:`save_lora_checkpoint`, trainable.

    Its parameters come in the order :func:`add_lora` makes them, so a saved optimizer state
    maps onto them. ``base_path`` is the base model's folder when it was on disk; None rebuilds it from
    ``folder/base`` and ``lora_full_state.pt``.
    """
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file
    from transformers import AutoConfig

    if base_path is None:
        base = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(folder / "base"), dtype=torch.float32)
        model = add_lora(base, rank)
        model.load_state_dict(torch.load(folder / "lora_full_state.pt", weights_only=True), strict=True)
        return model
    base, _ = load_model(base_path)
    model = add_lora(base, rank)
    result = set_peft_model_state_dict(model, load_file(folder / "adapter_model.safetensors"))
    if getattr(result, "unexpected_keys", None):
        raise ValueError(f"{folder}: adapter weights do not fit the model: {result.unexpected_keys[:5]}")
    return model


def add_lora(model: torch.nn.Module, rank: int) -> torch.nn.Module:
    """Wrap ``model`` with a ``peft`` LoRA adapter of ``rank`` on its attention projections."""
    from peft import LoraConfig, get_peft_model

    targets = [
        n for n in ("q_proj", "k_proj", "v_proj", "o_proj", "c_attn") if any(n in k for k, _ in model.named_modules())
    ]
    return get_peft_model(model, LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=targets, lora_dropout=0.0))


def count_parameters(model: torch.nn.Module) -> int:
    """Number of parameters (tied weights counted once)."""
    return sum(p.numel() for p in {id(p): p for p in model.parameters()}.values())
