"""Shared fixtures: the sandbox backends (local, and Docker where an engine runs or in CI)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests import helpers such as toy_env


def docker_available() -> bool:
    try:
        import docker

        docker.from_env(timeout=5).ping()
        return True
    except Exception:  # noqa: BLE001
        return False


BACKENDS = [
    "local",
    pytest.param(
        "docker",
        marks=[
            pytest.mark.docker,
            pytest.mark.skipif(
                not docker_available() and os.environ.get("CI") != "true",
                reason="no Docker engine (scripts/setup.sh starts one; CI always runs these)",
            ),
        ],
    ),
]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param
