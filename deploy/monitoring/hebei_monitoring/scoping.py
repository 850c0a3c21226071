"""Every dashboard query scoped by the cluster and namespace variables: :func:`scoped` adds
the matchers to each series selector of a PromQL expression.
"""

from __future__ import annotations

import re

SCOPE_MATCHERS = 'cluster=~"$cluster",namespace=~"$namespace"'
_SKIPPED = re.compile(
    r'"(?:[^"\\]|\\.)*"'  # strings
    r"|\[[^\]]*\]"  # range windows
    r"|\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)"  # label lists
    r"|\d+(?:\.\d+)?(?:e[+-]?\d+)?[smhdwy]?\b"  # numbers and durations
)
_NAME = re.compile(r"(?<![\w.:$])[a-zA-Z_:][\w:]*")
_KEYWORDS = {"and", "or", "unless", "bool", "offset", "inf", "nan"} | {
    "sum",
    "min",
    "max",
    "avg",
    "group",
    "count",
    "stddev",
    "stdvar",
    "topk",
    "bottomk",
    "quantile",
    "count_values",
}  # fmt: skip  (aggregations: followed by "by (...)" rather than "(")


def scoped(expr: str, matchers: str = SCOPE_MATCHERS) -> str:
    """``expr`` with ``matchers`` added to every series selector (the names that are not
    functions, keywords or label names)."""
    out, pos = [], 0
    while pos < len(expr):
        skip = _SKIPPED.match(expr, pos)
        if skip:
            out.append(skip.group(0))
            pos = skip.end()
            continue
        name = _NAME.match(expr, pos)
        if not name or (pos and (expr[pos - 1].isalnum() or expr[pos - 1] in "_:$")):
            out.append(expr[pos])
            pos += 1
            continue
        out.append(name.group(0))
        pos = name.end()
        rest = expr[pos:].lstrip()
        if name.group(0) in _KEYWORDS or rest.startswith("("):
            continue
        if expr.startswith("{", pos):
            close = expr.index("}", pos)
            inner = expr[pos + 1 : close]
            out.append("{" + (f"{inner},{matchers}" if inner.strip() else matchers) + "}")
            pos = close + 1
        else:
            out.append("{" + matchers + "}")
    return "".join(out)
