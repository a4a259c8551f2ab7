"""A persistent shell over a sandbox whose ``run`` kills everything it started.

Every ``Sandbox.run`` ends all of its processes, so there is no long-lived bash to keep
state in. The harness keeps the state a user of a terminal notices instead: before each
command the wrapper ``cd``s into the saved working directory and sources the saved
variables and functions; when the command ends (even by ``exit``) an ``EXIT`` trap saves
``pwd``, the variables (``declare -p``, read-only and bash-internal ones left out) and the
functions (``declare -f``) into ``.codegym/`` in the work dir. So ``cd``, ``export`` and
plain assignments persist between steps, and snapshots and forks of the work dir carry the
shell state with them. What does not persist: background jobs (they are killed with the
step, by the sandbox's guarantee), ``set -o`` options, aliases and open file descriptors.
"""

from __future__ import annotations

from codegym.sandbox import ExecResult, Sandbox

from .repo import GIT_ENV, STATE_DIR

_SKIP = (
    "BASH",
    "BASHOPTS",
    "BASHPID",
    "BASH_",
    "COLUMNS",
    "COMP_",
    "DIRSTACK",
    "EUID",
    "FUNCNAME",
    "GROUPS",
    "HISTCMD",
    "HOSTNAME",
    "HOSTTYPE",
    "IFS",
    "LINENO",
    "LINES",
    "MACHTYPE",
    "OLDPWD",
    "OPTERR",
    "OPTIND",
    "OSTYPE",
    "PIPESTATUS",
    "PPID",
    "PS4",
    "PWD",
    "RANDOM",
    "SECONDS",
    "SHELLOPTS",
    "SHLVL",
    "SRANDOM",
    "UID",
    "EPOCH",
    "_",
    "__cg",
)

WRAPPER = r"""
__cg_state=/sandbox/%(state)s
cd "$(cat "$__cg_state/cwd" 2>/dev/null || echo /sandbox)" 2>/dev/null || cd /sandbox
[ -f "$__cg_state/vars" ] && . "$__cg_state/vars" 2>/dev/null
[ -f "$__cg_state/funcs" ] && . "$__cg_state/funcs" 2>/dev/null
__cg_save() {
  mkdir -p "$__cg_state" 2>/dev/null
  pwd > "$__cg_state/cwd" 2>/dev/null
  declare -p 2>/dev/null | grep -Ev '^declare -[a-zA-Z]*r' \
    | grep -Ev '^declare -[^ ]+ (%(skip)s)(=|$)' > "$__cg_state/vars" 2>/dev/null
  for __cg_f in $(declare -F | awk '{print $3}' | grep -v '^__cg'); do declare -f "$__cg_f"; done \
    > "$__cg_state/funcs.new" 2>/dev/null
  mv -f "$__cg_state/funcs.new" "$__cg_state/funcs" 2>/dev/null
}
trap __cg_save EXIT
__cg_cmd=$CODEGYM_CMD
unset CODEGYM_CMD
eval "$__cg_cmd"
"""


def _wrapper() -> str:
    skip = "|".join(
        f"{name}[A-Za-z0-9_]*" if name.endswith("_") or name in ("__cg", "EPOCH") else name for name in _SKIP
    )
    return WRAPPER % {"state": STATE_DIR, "skip": skip}


def run_shell(sb: Sandbox, command: str, timeout: float) -> ExecResult:
    """Run one command of a persistent shell session (state as in the module docstring)."""
    env = {k: v for k, v in GIT_ENV.items() if not k.endswith("_DATE")}
    env.update(CODEGYM_CMD=command, TERM="dumb", PAGER="cat", GIT_PAGER="cat")
    return sb.run(["/bin/bash", "-c", _wrapper()], timeout=timeout, env=env)


def cap_output(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters (head and tail), saying what was cut."""
    if len(text) <= limit:
        return text
    head = text[: limit * 2 // 3]
    tail = text[-(limit // 3) :]
    cut = len(text) - len(head) - len(tail)
    return f"{head}\n[... output cut: {cut} characters not shown; narrow the command (head, grep, sed -n) ...]\n{tail}"


def format_result(res: ExecResult, limit: int) -> str:
    """A command's result as the agent reads it: output, exit code, and what went wrong."""
    out = res.stdout
    if res.stderr:
        out = f"{out}{'' if not out or out.endswith(chr(10)) else chr(10)}{res.stderr}"
    text = cap_output(out, limit)
    notes = []
    if res.output_truncated:
        notes.append("the sandbox kept only the first part of a very long output")
    if res.timed_out:
        notes.append("the command hit its time limit and was killed")
    if res.oom_killed:
        notes.append("a process ran out of memory and was killed")
    tail = f"[exit code {res.exit_code}{'; ' + '; '.join(notes) if notes else ''}]"
    return f"{text}{'' if not text or text.endswith(chr(10)) else chr(10)}{tail}"
