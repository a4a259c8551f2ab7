"""``create(aliases=...)``: top-level paths (Harbor's ``/app``) that are links into the work dir.

They must show the work dir's folder on both backends, follow snapshots, restores and forks
(which only the work dir carries), refuse the sandbox's own folders, and never lead a
command to host files, whatever the command puts at ``/sandbox/<name>``.
"""

from __future__ import annotations

import pytest

from codegym.sandbox import create


def test_an_alias_shows_the_work_dir_folder_and_follows_snapshots_and_forks(backend, tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "logs").mkdir()  # the caller provides each alias's folder
    (tmp_path / "app" / "seed.txt").write_text("seed\n")
    with create(backend, workdir_from=tmp_path, aliases=["/app", "/logs"]) as sb:
        res = sb.run("cd /app && cat seed.txt && echo made > new.txt && mkdir -p /logs/verifier && pwd -P", cwd="/app")
        assert res.ok and res.stdout.splitlines() == ["seed", "/sandbox/app"], res.stderr
        assert sb.read_file("app/new.txt") == b"made\n"
        snap = sb.snapshot()
        sb.run("rm /app/new.txt")
        fork = sb.fork()
        sb.restore(snap)
        assert sb.run("cat /app/new.txt").stdout == "made\n"
        with fork:
            assert fork.run("ls /app").stdout.split() == ["seed.txt"]
            assert fork.run("test -d /logs/verifier").ok


@pytest.mark.parametrize("alias", ["/usr", "/sandbox", "/tmp", "app", "/a/b", "/proc", "/"])
def test_the_sandbox_own_folders_cannot_be_aliases(alias):
    with pytest.raises(ValueError, match="must be a top-level absolute path such as '/app'"):
        create("local", aliases=[alias])


def test_a_link_planted_in_the_work_dir_stays_inside_the_sandbox(backend, tmp_path):
    secret = tmp_path / "host-only-secret.txt"
    secret.write_text("host secret\n")
    (tmp_path / "app").mkdir()
    with create(backend, workdir_from=tmp_path / "app", aliases=["/app"]) as sb:
        # The command replaces the alias's target with links to the host's folders.
        sb.run(f"rm -rf /sandbox/app && ln -s {tmp_path} /sandbox/app")
        res = sb.run("cat /app/host-only-secret.txt")
        assert res.exit_code != 0 and "host secret" not in res.stdout
        sb.run("rm -f /sandbox/app && ln -s / /sandbox/app")
        listing = sb.run("ls /app").stdout.split()
        assert "sandbox" in listing  # the sandbox's own root, not the host's
        assert sb.run(f"cat /app{secret}").exit_code != 0
