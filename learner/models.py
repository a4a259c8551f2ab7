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


def load_model(path: str | Path) -> tuple[torch.nn.Module, PreTrainedTokenizerFast]:
    """Load a Hugging Face causal LM and its tokenizer from a local folder (no download)."""
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=torch.float32)
    return model, tokenizer


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
