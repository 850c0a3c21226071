"""The contracts: buf lint (STANDARD), no breaking change since the last commit, generated code
fresh, and the protos in step with the rules engine and the auth configuration."""

from __future__ import annotations

import filecmp
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hebei.common.auth import METHOD_ROLES
from hebei.rules.melds import MeldKind
from hebei.rules.tiles import N_KINDS, TILE_NAMES
from hebei.v1 import types_pb2

ROOT = Path(__file__).resolve().parents[3]
PROTOS = ROOT / "protos"
GENERATED = ROOT / "services" / "hebei" / "v1"
BUF = Path(sys.executable).with_name("buf")  # the pinned buf-bin wheel


def buf(*args: str) -> subprocess.CompletedProcess:
    assert BUF.exists(), f"{BUF} is missing: install the dev extras (`make test` does)"
    return subprocess.run(
        [str(BUF), *args], cwd=PROTOS, capture_output=True, text=True, timeout=120
    )


def test_buf_lint_passes() -> None:
    result = buf("lint")
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_breaking_change_since_last_commit() -> None:
    has_git = (ROOT / ".git").exists()
    committed = (
        has_git
        and subprocess.run(
            ["git", "cat-file", "-e", "HEAD:protos/hebei/v1"], cwd=ROOT, capture_output=True
        ).returncode
        == 0
    )
    if not committed:
        pytest.skip("no committed contracts to compare with (not a git checkout)")
    result = buf("breaking", "--against", "../.git#ref=HEAD,subdir=protos")
    assert result.returncode == 0, result.stdout + result.stderr


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    result = subprocess.run(
        ["make", "-s", "protos", f"PROTO_OUT={tmp_path}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    fresh_dir = tmp_path / "hebei" / "v1"
    fresh = sorted(p.name for p in fresh_dir.iterdir())
    committed = sorted(p.name for p in GENERATED.iterdir() if "_pb2" in p.name)
    assert fresh == committed, "run `make protos`: the set of generated files changed"
    _, mismatch, errors = filecmp.cmpfiles(fresh_dir, GENERATED, fresh, shallow=False)
    assert not mismatch and not errors, f"stale generated code, run `make protos`: {mismatch}"


def test_tile_enum_is_kind_plus_one() -> None:
    assert types_pb2.Tile.Value("TILE_UNSPECIFIED") == 0
    honors = ["EAST", "SOUTH", "WEST", "NORTH", "WHITE", "GREEN", "RED"]
    for kind in range(N_KINDS):
        name = TILE_NAMES[kind]
        label = name.upper() if name[1] != "z" else honors[int(name[0]) - 1]
        assert types_pb2.Tile.Value(f"TILE_{label}") == kind + 1, name
    assert len(types_pb2.Tile.values()) == N_KINDS + 1


def test_meld_kinds_cover_the_rules() -> None:
    for kind in MeldKind:
        assert types_pb2.MeldKind.Value(f"MELD_KIND_{kind.name}") > 0


def _commented_rpcs(role_word: str) -> set[str]:
    """RPCs whose doc comment starts with e.g. "Operator:" or "Service:" in the protos."""
    found = set()
    for path in sorted((PROTOS / "hebei" / "v1").glob("*.proto")):
        text = path.read_text()
        service, pending = None, False
        for line in text.splitlines():
            if m := re.match(r"service (\w+)", line):
                service = m.group(1)
            if m := re.match(rf"\s*// {role_word}[:/].*", line):
                pending = True
                continue
            if (m := re.match(r"\s*rpc (\w+)", line)) and pending:
                found.add(f"/hebei.v1.{service}/{m.group(1)}")
            if not line.strip().startswith("//"):
                pending = False
    return found


def test_auth_config_matches_proto_comments() -> None:
    marked = _commented_rpcs("Operator") | _commented_rpcs("Service")
    assert marked == set(METHOD_ROLES)
