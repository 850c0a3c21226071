"""hebei.rules is pure: it imports the standard library and itself, nothing else, and no I/O."""

import ast
import subprocess
import sys
from pathlib import Path

import hebei.rules

RULES_DIR = Path(hebei.rules.__file__).parent
IO_MODULES = {
    "socket",
    "subprocess",
    "asyncio",
    "threading",
    "multiprocessing",
    "sqlite3",
    "urllib",
    "http",
    "os",
    "io",
    "shutil",
    "tempfile",
    "pathlib",
    "select",
    "signal",
}


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def test_rules_import_only_the_standard_library_and_no_io():
    files = sorted(RULES_DIR.rglob("*.py"))
    assert len(files) > 10
    for path in files:
        for name in _imports(path):
            top = name.split(".")[0]
            if name.startswith("hebei."):
                assert name.startswith("hebei.rules"), f"{path.name} imports {name}"
                continue
            assert top in sys.stdlib_module_names or top == "__future__", (
                f"{path.name} imports {name}"
            )
            assert top not in IO_MODULES, f"{path.name} imports the I/O module {name}"


def test_import_linter_contract_holds():
    lint = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(lint)], capture_output=True, text=True, cwd=Path(__file__).parents[3]
    )
    assert result.returncode == 0, result.stdout + result.stderr
