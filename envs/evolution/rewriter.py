"""Rewriters: the prompt composed from the prefix, and the backends that turn it into a child.

``procedural`` (the default) needs no model: AST-level edits of the EVOLVE blocks
(constants moved, operators swapped, statements reordered, a function crossed over from an
inspiration), steered by the same prefix a model would read, so that everything runs and
is tested on the CPU. ``openai:URL`` sends the prompt to any OpenAI-compatible chat
endpoint and takes the last fenced block of the reply as the child.
"""

from __future__ import annotations

import ast
import json
import textwrap
import urllib.request
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegym.core.extract import extract_code
from codegym.errors import InfraError

from .database import Program
from .prefix import Prefix
from .tasks import blocks

_OPS = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
}


@dataclass(frozen=True)
class Prompt:
    """The rewriter's prompt and where each module's section lies in it."""

    text: str
    sections: dict[str, tuple[int, int]]


def compose(description: str, parent: Program, prefix: Prefix, inspirations: list[Program], focus: str) -> Prompt:
    """The prompt a model rewriter reads: one section per module of the prefix."""
    parts: list[tuple[str, str]] = [
        ("task", f"# Task\n{description}\n"),
        (
            "parent",
            f"# Parent program (rule: {prefix.parent}, fitness {parent.fitness:.6g})\n```python\n{parent.code}```\n",
        ),
        ("mutation", f"# Mutation\nKind: {prefix.mutation}; strength {prefix.strength:.2f} (0 small, 1 bold).\n"),
        ("diversity", f"# Diversity\nNovelty pressure {prefix.novelty:.2f}: prefer a different approach.\n"),
        (
            "memory",
            "# Past attempts\n"
            + "".join(f"- fitness {p.fitness:.6g}:\n```python\n{p.code}```\n" for p in inspirations),
        ),
        ("credit", f"# Focus\nRewrite only {focus} inside the EVOLVE-BLOCK markers; reply with the full program.\n"),
    ]
    text, sections = "", {}
    for name, part in parts:
        sections[name] = (len(text), len(text) + len(part))
        text += part
    return Prompt(text, sections)


def functions(code: str) -> list[str]:
    """Names of the functions defined in the EVOLVE blocks of ``code``."""
    names = []
    for node in _block_trees(code):
        names += [n.name for n in ast.walk(node) if isinstance(n, ast.FunctionDef)]
    return names


def _block_trees(code: str) -> list[ast.Module]:
    lines = code.splitlines()
    trees = []
    for first, last in blocks(code):
        try:
            trees.append(ast.parse(textwrap.dedent("\n".join(lines[first:last]))))
        except SyntaxError:
            continue
    return trees


class ProceduralRewriter:
    """AST edits of the EVOLVE blocks, as many as the strength asks, of the kind the prefix names."""

    def rewrite(self, parent: Program, prefix: Prefix, inspirations: list[Program], rng: np.random.Generator) -> str:
        """The child's full text (the parent's when no edit applies)."""
        lines = parent.code.splitlines()
        spans = blocks(parent.code)
        names = functions(parent.code)
        target = names[(prefix.credit - 1) % len(names)] if prefix.credit and names else None
        donors = [t for p in inspirations for t in _block_trees(p.code)]
        out = list(lines)
        for first, last in reversed(spans):  # later blocks first: earlier line numbers stay valid
            raw = "\n".join(lines[first:last])
            src = textwrap.dedent(raw)
            indent = raw[: len(raw) - len(raw.lstrip())].rpartition("\n")[2] if src != raw else ""
            try:
                tree = ast.parse(src)
            except SyntaxError:
                continue
            for _ in range(1 + int(round(prefix.strength * 4))):
                kind = prefix.mutation
                if kind == "rewrite" or (kind == "constants" and rng.random() < prefix.novelty):
                    kind = ("constants", "operators", "reorder", "crossover")[int(rng.integers(4))]
                _edit(tree, kind, target, prefix.strength, donors, rng)
            new = ast.unparse(ast.fix_missing_locations(tree))
            out[first:last] = [indent + ln if ln else ln for ln in new.splitlines()]
        return "\n".join(out) + "\n"


def _scope(tree: ast.AST, target: str | None) -> list[ast.AST]:
    if target is None:
        return list(ast.walk(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == target:
            return list(ast.walk(node))
    return list(ast.walk(tree))


def _edit(tree: ast.Module, kind: str, target: str | None, strength: float, donors: list, rng) -> None:
    nodes = _scope(tree, target)
    if kind == "constants":
        nums = [
            n
            for n in nodes
            if isinstance(n, ast.Constant) and type(n.value) in (int, float) and not isinstance(n.value, bool)
        ]
        if nums:
            n = nums[int(rng.integers(len(nums)))]
            if isinstance(n.value, int):
                step = int(rng.integers(1, 2 + int(strength * 3)))
                n.value = n.value + (step if rng.random() < 0.5 else -step)
            else:
                n.value = float(n.value * np.exp(rng.normal(0.0, 0.05 + strength)))
    elif kind == "operators":
        ops = [n for n in nodes if isinstance(n, ast.BinOp) and type(n.op) in _OPS]
        cmps = [n for n in nodes if isinstance(n, ast.Compare) and type(n.ops[0]) in _OPS]
        calls = [
            n for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("min", "max")
        ]
        pool = ops + cmps + calls
        if pool:
            n = pool[int(rng.integers(len(pool)))]
            if isinstance(n, ast.BinOp):
                n.op = _OPS[type(n.op)]()
            elif isinstance(n, ast.Compare):
                n.ops[0] = _OPS[type(n.ops[0])]()
            else:
                n.func.id = "max" if n.func.id == "min" else "min"
    elif kind == "reorder":
        bodies = [n.body for n in nodes if isinstance(getattr(n, "body", None), list) and len(n.body) >= 2]
        if bodies:
            body = bodies[int(rng.integers(len(bodies)))]
            i = int(rng.integers(len(body) - 1))
            body[i], body[i + 1] = body[i + 1], body[i]
    elif kind == "crossover" and donors:
        mine = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        theirs = [n for d in donors for n in d.body if isinstance(n, ast.FunctionDef) and n.name in mine]
        if target is not None:
            theirs = [n for n in theirs if n.name == target] or theirs
        if theirs:
            donor = theirs[int(rng.integers(len(theirs)))]
            idx = tree.body.index(mine[donor.name])
            tree.body[idx] = donor


class OpenAIRewriter:
    """Any OpenAI-compatible chat endpoint (``openai:http://host:port/v1``)."""

    def __init__(self, url: str, model: str = "default", timeout_s: float = 120.0) -> None:
        self.url, self.model, self.timeout_s = url.rstrip("/"), model, timeout_s

    def complete(self, prompt: Prompt, parent: Program) -> str:
        """The program in the reply's last fenced block (the parent's text when there is none)."""
        body = json.dumps({"model": self.model, "messages": [{"role": "user", "content": prompt.text}]}).encode()
        req = urllib.request.Request(self.url + "/chat/completions", body, {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                reply: Any = json.loads(resp.read())
            text = reply["choices"][0]["message"]["content"]
        except (OSError, KeyError, IndexError, ValueError) as exc:
            raise InfraError(f"the rewriter endpoint {self.url} failed: {exc}") from exc
        found = extract_code(text, language="python")
        return found.code if found is not None and found.fenced else parent.code


class HFRewriter:
    """A local Hugging Face causal LM (``hf:/path/to/model``), loaded once, sampled with the env's seed.

    The prompt is cut to its last ``max_positions - max_new_tokens`` tokens; the child is the
    reply's last fenced block, else the parent's text (a reply without code changes nothing).
    """

    def __init__(self, path: str, max_new_tokens: int = 512) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            self.model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
            self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        except OSError as exc:
            raise ValueError(f"rewriter='hf:{path}': no Hugging Face causal LM there ({exc})") from exc
        self.model.eval()
        self.max_new_tokens = max_new_tokens

    def complete(self, prompt: Prompt, parent: Program, seed: int) -> str:
        """The child's text."""
        import torch

        limit = getattr(self.model.config, "max_position_embeddings", 2048) - self.max_new_tokens
        ids = self.tokenizer(prompt.text, return_tensors="pt").input_ids[:, -max(1, limit) :]
        torch.manual_seed(seed)
        with torch.no_grad():
            out = self.model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=self.max_new_tokens,
                do_sample=True,
                pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
            )
        text = self.tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True)
        found = extract_code(text, language="python")
        return found.code if found is not None and found.fenced else parent.code
