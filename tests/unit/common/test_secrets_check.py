"""Secrets beyond loopback: placeholders and guessable values are refused, random ones pass."""

from __future__ import annotations

import base64
import random
import re
from pathlib import Path

import pytest

from hebei.common.secrets_check import MIN_BITS, entropy_bits, weakness

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = [ROOT / "deploy" / ".env.example", ROOT / "k8s" / "secrets.env.example"]
RNG = random.Random(43)  # seeded: every test process collects the same cases


def token_hex(nbytes: int) -> str:
    return RNG.randbytes(nbytes).hex()


def token_urlsafe(nbytes: int) -> str:
    return base64.urlsafe_b64encode(RNG.randbytes(nbytes)).rstrip(b"=").decode()


SECRET_KEYS = re.compile(r"^#?\s*(HEBEI_\w*(TOKEN|KEY)|[\w-]*(token|key))=(.+)$", re.M)


def example_values() -> list[str]:
    values = [
        m.group(4).strip() for path in EXAMPLES for m in SECRET_KEYS.finditer(path.read_text())
    ]
    assert len(values) >= 6  # the operator and service tokens and the log key of both files
    return values


@pytest.mark.parametrize("value", example_values())
def test_every_example_secret_of_the_docs_is_refused(value: str) -> None:
    assert weakness(value) is not None


@pytest.mark.parametrize(
    "value",
    [
        token_hex(32),  # openssl rand -hex 32, as the docs say
        token_hex(24),  # openssl rand -hex 24
        token_urlsafe(24),  # what hebei up makes
        token_urlsafe(32),
    ],
)
def test_random_secrets_pass(value: str) -> None:
    assert entropy_bits(value) >= MIN_BITS
    assert weakness(value) is None


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("hunter2hunter2hunter2hunter2hunter2", "too easy to guess"),
        ("a" * 200, "too easy to guess"),
        ("0123456789" * 4, "too easy to guess"),
        ("Tr0ub4dor&3", "too easy to guess"),
        ("CHANGEME-" + token_hex(32), "placeholder"),
        ("your-token-" + token_hex(32), "placeholder"),
        ("", "too easy to guess"),
    ],
)
def test_guessable_and_placeholder_values_are_refused(value: str, why: str) -> None:
    reason = weakness(value)
    assert reason is not None and why in reason
