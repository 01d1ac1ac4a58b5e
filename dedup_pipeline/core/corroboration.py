"""Pairs corroborated through a third row. Two rows whose texts are similar but which carry
no evidence of their own (other submitters, texts not the same as written) are still a
pair when a third row matches one of them by its submitter and the other as written: a
copy of a row, made by someone else, stands for what that row's submitter filed.

This finds a re-submission's edits from another person's copy of the original (measured in
benchmarks/quality), while a form letter filled in by two strangers stays apart: nothing
links them but text.

Pure: edges in, pairs out; the batch and the incremental check both decide with it.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

SUBMITTER, WRITTEN = 1, 2  # evidence a confirmed pair carries: a bit for each kind


def corroborates(first: int, second: int) -> bool:
    """Whether a row matched by `first` to one row and by `second` to another links the two."""
    return bool(first & SUBMITTER and second & WRITTEN or first & WRITTEN and second & SUBMITTER)


def neighbours(edges: Mapping[tuple[Any, Any], int]) -> dict[Any, dict[Any, int]]:
    """{row: {partner: evidence}} of pairs given once each."""
    out: dict[Any, dict[Any, int]] = {}
    for (a, b), evidence in edges.items():
        out.setdefault(a, {})[b] = evidence
        out.setdefault(b, {})[a] = evidence
    return out


def corroborated(edges: Mapping[tuple[Any, Any], int], weak: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The `weak` pairs (similar text, no evidence) that some row links through two `edges`
    (confirmed pairs, with their evidence)."""
    near = neighbours(edges)
    found = []
    for a, b in weak:
        near_a, near_b = near.get(a, {}), near.get(b, {})
        if len(near_a) > len(near_b):
            near_a, near_b = near_b, near_a
        if any(c in near_b and corroborates(e, near_b[c]) for c, e in near_a.items()):
            found.append((a, b))
    return found
