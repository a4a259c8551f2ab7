"""Sandbox overheads against the naive way, in one process; prints ratios.

(a) local ``run("python3 -c pass")`` vs a bare ``subprocess.run`` of the same interpreter
    (goal: at most 1.5x). The calls alternate, so both see the same load; runs back to
    back with no pause (the next launcher then starts while the current command runs; see
    ``codegym.sandbox.local``) are printed after it;
(b) docker ``exec`` in a warm container vs ``docker run --rm`` of the same command
    (goal: at least 3x faster);
(c) ``fork()`` and ``restore()`` of a 100 MB, 5,000-file work dir vs ``cp -a`` of it
    (goal: at most 0.1x). A docker fork takes a spare container when one is ready (each fork
    here is followed by a command in it and a second's pause, as in a search that steps
    its children); the fork that must wait for ``docker run`` is printed for reference.

Run: ``.venv/bin/python bench/sandbox.py [--repeat N] [--skip-docker]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from codegym.sandbox import Sandbox, create
from codegym.sandbox.docker import _ro_paths, base_image


def timeit(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of ``fn`` over ``repeat`` calls, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def paired(ours: Callable[[], object], base: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median seconds of each, calls alternated so both see the same load."""
    ours(), base()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, out in ((ours, times[0]), (base, times[1])):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return statistics.median(times[0]), statistics.median(times[1])


def make_tree(root: Path, files: int = 5000, total_mb: int = 100) -> None:
    size = total_mb * 2**20 // files
    blob = os.urandom(size)
    for i in range(files):
        d = root / f"d{i % 50:02d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.bin").write_bytes(blob)


def row(name: str, ours: float, base: float, goal: str) -> None:
    print(
        f"{name:<44} ours {ours * 1000:8.2f} ms   baseline {base * 1000:8.2f} ms   ratio {ours / base:6.3f}x   ({goal})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--skip-docker", action="store_true")
    args = parser.parse_args()

    with create("local") as sb:
        ours, base = paired(
            lambda: sb.run(["python3", "-c", "pass"]),
            lambda: subprocess.run([sys.executable, "-c", "pass"], check=True),
            args.repeat,
        )
    row("(a) local run(python3 -c pass) / bare", ours, base, "goal <= 1.5x")
    with create("local") as sb:
        ours = timeit(lambda: sb.run(["python3", "-c", "pass"]), args.repeat)
    base = timeit(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), args.repeat)
    row("    the same, runs back to back", ours, base, "goal <= 1.5x")

    if not args.skip_docker:
        with create("docker") as sb:
            ours = timeit(lambda: sb.run(["true"]), args.repeat)
        binds = [f"-v{p}:{p}:ro" for p in _ro_paths()]
        image = base_image()
        base = timeit(
            lambda: subprocess.run(
                ["docker", "run", "--rm", "--network=none", *binds, image, "/usr/bin/true"], check=True
            ),
            max(3, args.repeat // 4),
        )
        row("(b) docker exec / docker run --rm", ours, base, "goal <= 0.33x")

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        make_tree(src)
        copies = iter(range(10**6))
        base = timeit(
            lambda: subprocess.run(["cp", "-a", str(src), f"{tmp}/copy{next(copies)}"], check=True),
            max(3, args.repeat // 4),
        )
        with create("local", workdir_from=src, disk_mb=512) as sb:
            ours_fork, ours_restore = fork_and_restore(sb, args.repeat, settle=0.0)
        row("(c) local fork() / cp -a (100 MB, 5000 files)", ours_fork, base, "goal <= 0.1x")
        row("(c) local restore() / cp -a", ours_restore, base, "goal <= 0.1x")

        if not args.skip_docker:
            from codegym.sandbox.docker import _spares

            with create("docker", workdir_from=src, disk_mb=512) as sb:
                ours_fork, ours_restore = fork_and_restore(sb, max(3, args.repeat // 4), settle=1.0)
                target, _spares.target = _spares.target, 0
                cold_fork, _ = fork_and_restore(sb, max(3, args.repeat // 4), settle=0.0)
                _spares.target = target
            row("(c) docker fork() / cp -a", ours_fork, base, "goal <= 0.1x")
            row("    docker fork(), no spare ready / cp -a", cold_fork, base, "for reference")
            row("(c) docker restore() / cp -a", ours_restore, base, "goal <= 0.1x")


def fork_and_restore(sb: Sandbox, repeat: int, settle: float) -> tuple[float, float]:
    """Median seconds of ``fork()`` and of ``restore()``.

    Each fork runs one command (a search steps its children) and then ``settle`` seconds
    pass untimed: the docker backend starts spare containers in the background meanwhile.
    Each restore undoes a change to two files.
    """
    snap = sb.snapshot()
    fork_times, restore_times = [], []
    for i in range(repeat + 1):
        t0 = time.perf_counter()
        child = sb.fork()
        fork_times.append(time.perf_counter() - t0)
        child.run("true")
        child.close()
        sb.run("echo change > d00/f0.bin; rm d01/f1.bin")
        t0 = time.perf_counter()
        sb.restore(snap)
        restore_times.append(time.perf_counter() - t0)
        if i == 0:  # warm-up
            fork_times, restore_times = [], []
        time.sleep(settle)
    return statistics.median(fork_times), statistics.median(restore_times)


if __name__ == "__main__":
    main()
