"""The bundled sample (dedup_pipeline/data/sample_petitions.csv) as a second test table:
1,200 rows made from complaint templates, so rows of one template share most of their text
and differ in their particulars (place, company, amount, date, submitter). Its truth: a
re-submission (or exact copy) and its source are duplicates; two rows drawn from one
template with their own particulars are not — the form-letter case at its hardest."""

from __future__ import annotations

import random
from itertools import combinations

from testing import make_sample as ms

from .score import components, grouped_counts, normalized, prf


def template_sample() -> tuple[list[dict], list[list[int]]]:
    """The sample's rows, as the CSV holds them, and its duplicate groups (by row id)."""
    petitions, _ = ms.build(random.Random(ms.SEED))
    groups: dict[int, list[int]] = {}
    for row_id, p in enumerate(petitions, start=1):
        groups.setdefault(id(p.slots), []).append(row_id)  # a copy shares its source's slots
    rows = [dict(zip(ms.COLUMNS, p.row(i))) for i, p in enumerate(petitions, start=1)]
    return rows, [g for g in groups.values() if len(g) > 1]


def sample_scores(pairs, groups: list[list[int]]) -> dict[str, float]:
    """Pairwise and grouped precision, recall and F1 against the sample's groups."""
    truth = {pair for g in groups for pair in combinations(sorted(g), 2)}
    reported = normalized(pairs)
    p, r, f = prf(len(reported & truth), len(reported), len(truth))
    gp, gr, gf = prf(*grouped_counts(components(reported), groups))
    return {"precision": p, "recall": r, "f1": f, "grouped_f1": gf, "pairs": len(reported)}
