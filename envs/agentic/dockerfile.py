"""A task's Dockerfile, applied: ``docker build`` where its base image is here, else step by step.

Harbor and Terminal-Bench tasks describe their starting machine with a Dockerfile
(``FROM``, ``WORKDIR /app``, ``COPY``, ``RUN``, ``ENV``). There is no image registry on our
machines, so a ``FROM`` image is usable only when it is already loaded locally. Where it is
not, the image can be *mapped* to a local base with the setting :data:`BASE_IMAGES_ENV`
(``CODEGYM_BASE_IMAGES="python:3.13-slim-bookworm=sandbox,ubuntu:*=sandbox"``) or the env
argument ``base_images={...}``; its value is ``sandbox`` (the sandbox's own system: Debian
12 with Python, git, gcc and make) or the name of another local image. The image name
:data:`SANDBOX_IMAGE` always means the sandbox's own system.

On the sandbox's own system the steps are executed in order in a sandbox (either backend):
``WORKDIR`` makes the folder, ``COPY`` / ``ADD`` copy from the build context (``ADD``
unpacks local tar archives; URLs are refused: there is no network), ``ENV`` / ``ARG`` set
variables (with Docker's ``$VAR`` / ``${VAR:-default}`` substitution), ``SHELL`` changes the
shell, ``RUN`` runs as the sandbox user in the current ``WORKDIR`` with the variables set so
far. Absolute paths a task uses (``/app``, ``/data``) live in the work dir: each top-level
folder is an alias of ``/sandbox/<name>``. A ``RUN`` that fails, or a step that cannot be
applied, raises :class:`~codegym.errors.InfraError` with its output. ``USER``, ``CMD``,
``ENTRYPOINT``, ``EXPOSE``, ``LABEL``, ``VOLUME`` and ``HEALTHCHECK`` change nothing here.
"""

from __future__ import annotations

import fnmatch
import io
import json
import os
import posixpath
import re
import secrets
import shlex
import sys
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.errors import CodegymError, InfraError
from codegym.sandbox import Sandbox
from codegym.sandbox.base import RESERVED_ALIASES

#: The setting that maps ``FROM`` images to local bases (``IMAGE=BASE`` pairs, comma-separated).
BASE_IMAGES_ENV = "CODEGYM_BASE_IMAGES"
#: A base value (and an image name) meaning the sandbox's own system.
SANDBOX_BASE = "sandbox"
SANDBOX_IMAGE = "codegym/sandbox"
#: The PATH of an image that sets none (Docker's default).
IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: The PATH a RUN step starts with on the sandbox's own system: its Python (with pytest) first,
#: then a Debian image's.
DEFAULT_PATH = f"{sys.prefix}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

_IGNORED = {"USER", "CMD", "ENTRYPOINT", "EXPOSE", "LABEL", "VOLUME", "HEALTHCHECK", "STOPSIGNAL", "MAINTAINER"}
_KNOWN = _IGNORED | {"FROM", "WORKDIR", "COPY", "ADD", "ENV", "ARG", "RUN", "SHELL", "ONBUILD"}
_ARCHIVES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


class BaseImageError(CodegymError):
    """A task's ``FROM`` image is not on this machine and no local base stands in for it."""


@dataclass(frozen=True)
class Step:
    """One instruction: its keyword, its text after the flags, its flags and its line."""

    keyword: str
    value: str
    line: int
    flags: dict[str, str] = field(default_factory=dict)
    heredoc: str | None = None

    def exec_form(self) -> list[str] | None:
        """The JSON-array form's arguments (``RUN ["a", "b"]``), or None for the shell form."""
        text = self.value.strip()
        if not text.startswith("["):
            return None
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            return None
        return parsed if isinstance(parsed, list) and all(isinstance(a, str) for a in parsed) else None


@dataclass
class Dockerfile:
    """A parsed Dockerfile: the base image of its one stage and the steps after ``FROM``."""

    source: str
    base: str
    steps: list[Step]
    stages: int = 1

    def step_text(self, step: Step) -> str:
        """``file:line: KEYWORD value`` for messages."""
        return f"{self.source}:{step.line}: {step.keyword} {step.value}".strip()[:300]


def parse(text: str, source: str = "Dockerfile") -> Dockerfile:
    """Parse a Dockerfile (line continuations, comments, ``RUN <<EOF`` heredocs, ``ARG`` before ``FROM``)."""
    escape = "\\"
    lines = text.splitlines()
    match = re.match(r"#\s*escape\s*=\s*(\S)", lines[0]) if lines else None
    if match:
        escape = match.group(1)
    steps: list[Step] = []
    i = 0
    while i < len(lines):
        start = i
        raw = lines[i].strip()
        i += 1
        if not raw or raw.startswith("#"):
            continue
        # A continuation drops the escape and the line break only (as Docker does); comment
        # and empty lines inside it are skipped.
        joined = raw
        while joined.endswith(escape) and i < len(lines):
            joined = joined[: -len(escape)]
            while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("#")):
                i += 1
            if i < len(lines):
                joined += lines[i].rstrip()
                i += 1
        joined = joined.strip()
        keyword, _, rest = joined.partition(" ")
        keyword = keyword.upper()
        if keyword not in _KNOWN:
            raise InfraError(f"{source}:{start + 1}: unknown instruction {keyword!r}")
        flags: dict[str, str] = {}
        rest = rest.strip()
        while rest.startswith("--"):
            flag, _, rest = rest.partition(" ")
            name, _, value = flag[2:].partition("=")
            flags[name] = value
            rest = rest.strip()
        heredoc = None
        doc = re.match(r"<<(-?)([\"']?)([A-Za-z_][A-Za-z0-9_]*)\2\s*(.*)$", rest)
        if keyword == "RUN" and doc:
            strip_tabs, marker = doc.group(1) == "-", doc.group(3)
            body = []
            while i < len(lines) and (lines[i].lstrip("\t") if strip_tabs else lines[i]) != marker:
                body.append(lines[i].lstrip("\t") if strip_tabs else lines[i])
                i += 1
            if i >= len(lines):
                raise InfraError(f"{source}:{start + 1}: heredoc {marker!r} is never closed")
            i += 1
            heredoc = "\n".join(body) + "\n"
            rest = doc.group(4)
        steps.append(Step(keyword, rest, start + 1, flags, heredoc))
    froms = [n for n, s in enumerate(steps) if s.keyword == "FROM"]
    if not froms:
        raise InfraError(f"{source}: no FROM instruction")
    build_args = _arg_defaults(steps[: froms[0]], {})
    base = _substitute(steps[froms[-1]].value.split()[0], build_args)
    return Dockerfile(source, base, steps[froms[-1] + 1 :], stages=len(froms))


def _arg_defaults(steps: list[Step], known: dict[str, str]) -> dict[str, str]:
    out = dict(known)
    for step in steps:
        if step.keyword == "ARG":
            name, _, default = step.value.strip().partition("=")
            out.setdefault(name.strip(), _unquote(default))
    return out


# ---------------------------------------------------------------------------- base images
def base_mapping(setting: Mapping[str, str] | None = None) -> dict[str, str]:
    """The ``FROM`` -> base map: ``setting`` (the env argument) over :data:`BASE_IMAGES_ENV`."""
    mapping: dict[str, str] = {}
    for pair in os.environ.get(BASE_IMAGES_ENV, "").split(","):
        image, sep, base = pair.partition("=")
        if sep and image.strip() and base.strip():
            mapping[image.strip()] = base.strip()
    mapping.update(setting or {})
    return mapping


def choose_base(image: str, mapping: Mapping[str, str], backend: str, have_image: Any) -> str:
    """Where a Dockerfile ``FROM image`` runs: :data:`SANDBOX_BASE`, or a local image to ``docker build`` on.

    ``have_image(name) -> bool`` says whether an image is loaded locally (docker backend).
    Raises :class:`BaseImageError` naming the image and the two ways out.
    """
    if image == SANDBOX_IMAGE:
        return SANDBOX_BASE
    target = next((base for pattern, base in mapping.items() if fnmatch.fnmatchcase(image, pattern)), None)
    if target == SANDBOX_BASE or (target is None and backend == "docker" and have_image(image)):
        return target or image
    if target is not None and backend == "docker" and have_image(target):
        return target
    if backend != "docker" and have_image(target or image):
        mapped = f"mapped to {target!r}, " if target else ""
        where = f"{mapped}loaded in Docker, which the local sandbox cannot use"
    else:
        where = f"mapped to {target!r}, which is not loaded either" if target else "not on this machine"
    raise BaseImageError(
        f"the task's base image {image!r} is {where} (no image registry is used). Either load it "
        f"('docker load -i image.tar', then use sandbox='docker'), or map it to a local base: "
        f"{BASE_IMAGES_ENV}='{image}=sandbox' (or the env argument base_images={{{image!r}: 'sandbox'}}) "
        "runs the Dockerfile's WORKDIR, COPY, ADD, ENV and RUN steps on the sandbox's own system "
        "(Debian 12, Python 3, git, gcc, make; no network)"
        + ("" if backend == "docker" else "; a loaded image is used with sandbox='docker' only")
    )


# ---------------------------------------------------------------------------- applying
@dataclass
class Applied:
    """What applying a Dockerfile left: the final ``WORKDIR``, the variables and a log of the steps."""

    workdir: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)


def top_folders(dockerfile: Dockerfile) -> set[str]:
    """Top-level folders the steps name (``/app``, ``/data``): they become aliases of work-dir folders.

    From ``WORKDIR`` and ``COPY``/``ADD`` destinations, and absolute paths in ``RUN`` text
    (a folder that is only a word there costs one empty link).
    """
    names: set[str] = set()
    for step in dockerfile.steps:
        texts = [step.value] + ([step.heredoc] if step.heredoc else [])
        for text in texts:
            for match in re.finditer(r"(?<![\w.:/~$-])/([A-Za-z0-9_][A-Za-z0-9._-]*)", text):
                names.add(match.group(1))
    return {n for n in names if n not in RESERVED_ALIASES}


def apply_steps(
    dockerfile: Dockerfile, context: Path, sb: Sandbox, timeout: float, extra_env: Mapping[str, str] | None = None
) -> Applied:
    """Run the Dockerfile's steps in ``sb`` (its aliases set up by the caller); see the module docstring."""
    if dockerfile.stages > 1:
        raise InfraError(
            f"{dockerfile.source}: a multi-stage Dockerfile ({dockerfile.stages} FROM lines) can only be applied "
            "by docker build: load its images and use sandbox='docker'"
        )
    state = Applied(env={"PATH": DEFAULT_PATH, **(extra_env or {})})
    args: dict[str, str] = {}
    shell = ["/bin/sh", "-c"]
    for step in dockerfile.steps:
        variables = {**args, **state.env}
        where = dockerfile.step_text(step)
        kw = step.keyword
        if kw in _IGNORED or kw == "ONBUILD":
            state.log.append(f"{kw}: no effect here")
        elif kw == "ARG":
            name, _, default = step.value.strip().partition("=")
            args[name.strip()] = _substitute(_unquote(default), variables)
        elif kw == "ENV":
            state.env.update(_env_pairs(step.value, variables, where))
        elif kw == "SHELL":
            form = step.exec_form()
            if not form:
                raise InfraError(f'{where}: SHELL needs the JSON form, e.g. SHELL ["/bin/bash", "-c"]')
            shell = form
        elif kw == "WORKDIR":
            state.workdir = _absolute(_substitute(_unquote(step.value.strip()), variables), state.workdir)
            _check_path(state.workdir, where)
            _run(sb, ["mkdir", "-p", "--", state.workdir], "/", state.env, timeout, where)
        elif kw in ("COPY", "ADD"):
            _copy_step(dockerfile, step, context, sb, state, variables, timeout)
        elif kw == "RUN":
            form = step.exec_form()
            run_env = {**args, **state.env}
            if step.heredoc is not None:
                argv = [*shell, step.heredoc]
            else:
                argv = form if form is not None else [*shell, step.value]
            res = _run(sb, argv, state.workdir, run_env, timeout, where)
            state.log.append(f"RUN (line {step.line}) ok in {res.duration_s:.1f} s")
    return state


def _run(sb: Sandbox, argv: list[str], cwd: str, env: Mapping[str, str], timeout: float, where: str) -> Any:
    # PWD lets the shell print the folder as the Dockerfile names it (/app), not as the link's target.
    res = sb.run(argv, timeout=timeout, cwd=cwd, env={**env, "PWD": cwd})
    if not res.ok:
        why = "timed out" if res.timed_out else "ran out of memory" if res.oom_killed else f"exit {res.exit_code}"
        output = (res.stdout + res.stderr)[-2000:]
        raise InfraError(f"the task's Dockerfile step failed ({why}): {where}\n{output}")
    return res


def _copy_step(
    dockerfile: Dockerfile,
    step: Step,
    context: Path,
    sb: Sandbox,
    state: Applied,
    variables: Mapping[str, str],
    timeout: float,
) -> None:
    where = dockerfile.step_text(step)
    if "from" in step.flags:
        raise InfraError(f"{where}: COPY --from needs docker build with the other stage's image loaded")
    form = step.exec_form()
    words = form if form is not None else shlex.split(step.value)
    words = [_substitute(w, variables) for w in words]
    if len(words) < 2:
        raise InfraError(f"{where}: needs a source and a destination")
    *sources, dest = words
    dest_abs = _absolute(dest, state.workdir)
    _check_path(dest_abs, where)
    root = context.resolve()
    matched: list[Path] = []
    for src in sources:
        if re.match(r"^[a-z]+://", src):
            raise InfraError(f"{where}: {src!r} is a URL; there is no network here, put the file in the context")
        hits = sorted(root.glob(src.lstrip("/"))) if any(c in src for c in "*?[") else [root / src.lstrip("/")]
        for hit in hits:
            real = hit.resolve()
            if real != root and root not in real.parents:
                raise InfraError(f"{where}: {src!r} is outside the build context {root}")
            if not hit.exists():
                raise InfraError(f"{where}: {src!r} is not in the build context {root}")
            matched.append(hit)
    into_dir = dest.endswith("/") or len(matched) > 1 or any(h.is_dir() for h in matched)
    chmod = step.flags.get("chmod")
    stage = f".codegym/stage-{secrets.token_hex(6)}"
    for n, hit in enumerate(matched):
        staged = f"{stage}/{n}"
        sb.copy_in(str(hit), staged)
        unpack = step.keyword == "ADD" and hit.is_file() and hit.name.endswith(_ARCHIVES) and tarfile.is_tarfile(hit)
        if unpack or hit.is_dir():
            script = 'mkdir -p -- "$2" && ' + ('tar -xf "$1" -C "$2"' if unpack else 'cp -a -- "$1"/. "$2"/')
        elif into_dir:
            script = 'mkdir -p -- "$2" && cp -a -- "$1" "$2/$3"'
        else:
            script = (
                'if [ -d "$2" ]; then cp -a -- "$1" "$2/$3"; '
                'else mkdir -p -- "$(dirname -- "$2")" && cp -a -- "$1" "$2"; fi'
            )
        if chmod:
            script += ' && chmod -R "$4" -- "$2"' if into_dir or hit.is_dir() else ' && chmod "$4" -- "$2"'
        argv = ["/bin/sh", "-c", script, "sh", f"/sandbox/{staged}", dest_abs, hit.name, chmod or ""]
        _run(sb, argv, "/", state.env, timeout, where)
    sb.run(["rm", "-rf", f"/sandbox/{stage}"], timeout=timeout)
    state.log.append(f"{step.keyword} (line {step.line}) {len(matched)} item(s) to {dest_abs}")


def _check_path(path: str, where: str) -> None:
    top = path.strip("/").split("/")[0]
    if top in RESERVED_ALIASES and path != "/":
        raise InfraError(
            f"{where}: {path} is in the sandbox's read-only system; on the sandbox's own base only folders "
            "such as /app, /opt or /data can be written (load the real base image and use sandbox='docker')"
        )


def _absolute(path: str, workdir: str) -> str:
    """``path`` made absolute against ``workdir`` and normalised (``..`` cannot climb above ``/``)."""
    joined = path if path.startswith("/") else posixpath.join(workdir, path)
    return "/" + posixpath.normpath(joined).lstrip("/")


def _env_pairs(value: str, variables: Mapping[str, str], where: str) -> dict[str, str]:
    text = value.strip()
    out: dict[str, str] = {}
    known = dict(variables)
    if "=" not in text.split(maxsplit=1)[0]:  # legacy form: ENV NAME value with spaces
        name, _, rest = text.partition(" ")
        return {name: _substitute(rest.strip(), known)}
    try:  # substitution first, then the shell's word splitting and quote removal, as Docker does
        words = shlex.split(_substitute(text, known))
    except ValueError as exc:
        raise InfraError(f"{where}: {exc}") from None
    for word in words:
        name, sep, value = word.partition("=")
        if not sep:
            raise InfraError(f"{where}: expected NAME=value, got {word!r}")
        out[name] = value
    return out


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


_VAR = re.compile(r"\\\$|\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")


def _substitute(text: str, variables: Mapping[str, str]) -> str:
    """Docker's variable substitution: ``$X``, ``${X}``, ``${X:-default}``, ``${X:+alt}``; an escaped ``$`` is kept."""

    def one(m: re.Match[str]) -> str:
        if m.group(0) == "\\$":
            return "$"
        name = m.group(1) or m.group(4)
        value = variables.get(name, "")
        if m.group(2) == "-":
            return value or m.group(3)
        if m.group(2) == "+":
            return m.group(3) if value else ""
        return value

    return _VAR.sub(one, text)


# ---------------------------------------------------------------------------- docker build
@dataclass
class Built:
    """A task image made by ``docker build``: its tag, ``WORKDIR``, variables and the build log's tail."""

    tag: str
    workdir: str
    env: dict[str, str]
    log: list[str]


def docker_build(dockerfile: Dockerfile, path: Path, context: Path, base: str, tag: str, timeout: float) -> Built:
    """``docker build`` the task's Dockerfile in its context, ``FROM`` replaced by ``base`` when mapped.

    The context is sent as a tar made here (the same files, with the Dockerfile's ``FROM``
    rewritten when the image was mapped to another local one); there is no network.
    """
    from docker.errors import BuildError

    from codegym.sandbox.docker import _client

    client = _client()
    text = path.read_text(encoding="utf-8")
    if base != dockerfile.base:
        text = re.sub(
            rf"(?im)^(\s*FROM\s+(?:--\S+\s+)*){re.escape(dockerfile.base)}(?=\s|$)", lambda m: m.group(1) + base, text
        )
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for item in sorted(context.rglob("*")):
            if item != path:
                tar.add(item, arcname=str(item.relative_to(context)), recursive=False)
        data = text.encode()
        info = tarfile.TarInfo("Dockerfile")
        info.size, info.mode = len(data), 0o644
        tar.addfile(info, io.BytesIO(data))
    buf.seek(0)
    try:
        image, logs = client.images.build(
            fileobj=buf,
            custom_context=True,
            dockerfile="Dockerfile",
            tag=tag,
            rm=True,
            forcerm=True,
            network_mode="none",
            timeout=int(timeout),
        )
    except BuildError as exc:
        tail = "".join(str(c.get("stream", c.get("error", ""))) for c in exc.build_log)[-2000:]
        raise InfraError(f"docker build of {dockerfile.source} failed: {exc.msg}\n{tail}") from None
    except Exception as exc:  # noqa: BLE001 - the engine failed, not the attempt
        raise InfraError(f"docker build of {dockerfile.source} failed: {exc}") from None
    config = image.attrs.get("Config") or {}
    env = dict(e.partition("=")[::2] for e in config.get("Env") or [])
    log = [str(c.get("stream", "")).rstrip() for c in logs if c.get("stream", "").strip()][-20:]
    return Built(tag, config.get("WorkingDir") or "/", env, log)


def export_folder(tag: str, folder: str, dest: Path) -> None:
    """Copy ``folder`` of image ``tag`` to ``dest`` + its parent path (``/app`` -> ``dest/app``)."""
    from codegym.sandbox.docker import _client

    client = _client()
    container = client.containers.create(tag, command=["true"], network_disabled=True)
    try:
        stream, _ = container.get_archive(folder)
        raw = b"".join(stream)
    except Exception as exc:  # noqa: BLE001 - the engine failed, not the attempt
        raise InfraError(f"could not copy {folder} out of the task image {tag}: {exc}") from None
    finally:
        container.remove(force=True)
    target = dest / posixpath.dirname(folder).lstrip("/")
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
        members = tar.getmembers()
        links = {posixpath.normpath(m.name) for m in members if m.issym() or m.islnk()}
        for m in members:  # the image is the task's, not ours: nothing may land outside target
            name = posixpath.normpath(m.name)
            parents = {posixpath.dirname(name)} | {"/".join(name.split("/")[:i]) for i in range(1, name.count("/"))}
            if name.startswith(("/", "..")) or m.isdev() or parents & links:
                raise InfraError(f"the task image {tag} holds an unsafe path in {folder}: {m.name!r}")
            if m.islnk() and posixpath.normpath(m.linkname).startswith(("/", "..")):
                raise InfraError(f"the task image {tag} holds an unsafe hard link in {folder}: {m.name!r}")
        tar.extractall(target)


def image_as_is(tag: str) -> Built:
    """A loaded image used without a build (Harbor's ``[environment].docker_image``)."""
    from codegym.sandbox.docker import _client

    config = _client().images.get(tag).attrs.get("Config") or {}
    env = dict(e.partition("=")[::2] for e in config.get("Env") or [])
    return Built(tag, config.get("WorkingDir") or "/", env, [])
