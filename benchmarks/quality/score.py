"""Score reported pairs (and groups) against a labelled dataset.

Pairwise: precision, recall and F1 of the pairs reported. Grouped: the same on every pair
inside one connected component of the reported pairs (or of the groups given), counted
without listing them. Group recall: the share of true groups lying wholly inside one found
component. Breakdowns: recall of each edit (a re-submission paired with the row it was made
from), false positives on each kind of hard negative, recall by text length.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from testing.labelled import LENGTH_BUCKETS, Dataset, length_bucket

Pair = tuple[int, int]


@dataclass
class Score:
    """Every figure of one method on one dataset."""

    precision: float
    recall: float
    f1: float
    grouped_precision: float
    grouped_recall: float
    grouped_f1: float
    group_recall: float
    reported: int
    true_positives: int
    by_edit: dict[str, tuple[int, int]] = field(default_factory=dict)  # edit -> (found, total)
    by_hard: dict[str, tuple[int, int]] = field(default_factory=dict)  # type -> (reported, total)
    by_length: dict[str, tuple[int, int]] = field(default_factory=dict)  # bucket -> (found, total)
    by_submitter: dict[str, tuple[int, int]] = field(default_factory=dict)  # same/other -> (found, total)
    other_false: int = 0  # false pairs that are not hard-negative pairs


def prf(tp: int, reported: int, truth: int) -> tuple[float, float, float]:
    """Precision, recall, F1; an empty report has precision 1 (it claims nothing wrong)."""
    p = tp / reported if reported else 1.0
    r = tp / truth if truth else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def normalized(pairs: Iterable[Pair]) -> set[Pair]:
    """Pairs as (smaller, larger), self-pairs dropped."""
    return {(min(a, b), max(a, b)) for a, b in pairs if a != b}


def components(pairs: Iterable[Pair]) -> list[list[int]]:
    """Connected components (of two or more ids) of the pair graph."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    out: dict[int, list[int]] = {}
    for x in parent:
        out.setdefault(find(x), []).append(x)
    return [sorted(c) for c in out.values() if len(c) > 1]


def grouped_counts(found: list[list[int]], truth: list[list[int]]) -> tuple[int, int, int]:
    """(true pairs implied, pairs implied, true pairs) of found groups against true groups."""
    true_group = {x: g for g, members in enumerate(truth) for x in members}
    implied = sum(len(c) * (len(c) - 1) // 2 for c in found)
    tp = 0
    for c in found:
        shared = Counter(true_group[x] for x in c if x in true_group)
        tp += sum(n * (n - 1) // 2 for n in shared.values())
    return tp, implied, sum(len(g) * (len(g) - 1) // 2 for g in truth)


def group_recall(found: list[list[int]], truth: list[list[int]]) -> float:
    """Share of true groups whose every member is in one found group."""
    where = {x: i for i, c in enumerate(found) for x in c}
    whole = sum(1 for g in truth if g[0] in where and all(where.get(x) == where[g[0]] for x in g))
    return whole / len(truth) if truth else 1.0


def score(ds: Dataset, pairs: Iterable[Pair], groups: list[list[int]] | None = None) -> Score:
    """All figures for `pairs` (and `groups`, else the components of `pairs`) on `ds`."""
    reported = normalized(pairs)
    truth = ds.true_pairs
    tp = len(reported & truth)
    p, r, f = prf(tp, len(reported), len(truth))
    found = components(reported) if groups is None else [sorted(g) for g in groups if len(g) > 1]
    gtp, implied, gtruth = grouped_counts(found, ds.groups)
    gp, gr, gf = prf(gtp, implied, gtruth)
    false = reported - truth
    hard_all = set().union(*ds.hard_pairs.values()) if ds.hard_pairs else set()
    return Score(p, r, f, gp, gr, gf, group_recall(found, ds.groups), len(reported), tp,
                 by_edit=_by_edit(ds, reported, truth), by_length=_by_length(ds, reported, truth),
                 by_submitter=_by_submitter(ds, reported, truth),
                 by_hard={t: (len(false & hp), len(hp)) for t, hp in ds.hard_pairs.items()},
                 other_false=len(false - hard_all))


INDIRECT = "(indirect: two re-submissions, or two edits apart)"


def _by_edit(ds: Dataset, reported: set[Pair], truth: set[Pair]) -> dict[str, tuple[int, int]]:
    """Per edit: re-submissions found paired with their source, of all; and the other true pairs."""
    found, total = Counter(), Counter()
    for a, b, edit in ds.edit_pairs:
        total[edit] += 1
        found[edit] += (a, b) in reported
    indirect = truth - {(a, b) for a, b, _ in ds.edit_pairs}
    out = {e: (found[e], total[e]) for e in sorted(total)}
    out[INDIRECT] = (len(indirect & reported), len(indirect))
    return out


def _by_submitter(ds: Dataset, reported: set[Pair], truth: set[Pair]) -> dict[str, tuple[int, int]]:
    """True pairs filed by the same person (name and phone) or by different people: found, of all."""
    found, total = Counter(), Counter()
    for a, b in truth:
        ra, rb = ds.meta[a], ds.meta[b]
        key = "same name and phone" if (ra.name, ra.phone) == (rb.name, rb.phone) else "different submitter"
        total[key] += 1
        found[key] += (a, b) in reported
    return {k: (found[k], total[k]) for k in sorted(total)}


def _by_length(ds: Dataset, reported: set[Pair], truth: set[Pair]) -> dict[str, tuple[int, int]]:
    """Per length bucket of the shorter content: true pairs found, of all."""
    found, total = Counter(), Counter()
    for a, b in truth:
        bucket = length_bucket(min(ds.length(a), ds.length(b)))
        total[bucket] += 1
        found[bucket] += (a, b) in reported
    return {name: (found[name], total[name]) for _, _, name in LENGTH_BUCKETS if total[name]}
