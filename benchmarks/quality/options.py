"""Rules for another submitter's text, compared pair by pair (issue 22): which evidence tells
another person's copy from a form letter filled in for another case.

Every pair of rows whose texts pass the similarity test (numbers folded: Jaccard >= 0.3, or
70% of the smaller inside the larger) and that share no submitter is decided by each rule
alone, without keys or corroboration through a third row: what the evidence itself can
tell. The pipeline's own figures (keys and corroboration included) are the variants of ours
in the main tables.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Sequence

import numpy as np
from scipy import sparse

from .methods import make_config

NUMBER = re.compile(r"\d+")


@dataclass
class Pair:
    """What a rule may read of a pair: its ids, its labels and its differences."""

    ids: tuple[int, int]
    true: bool
    edit: str | None
    smaller: int  # shingles as written of the smaller text
    changed: int  # shingles as written of the side with fewer of its own
    changed_folded: int  # the same with numbers folded
    contained: float  # verbatim containment of the smaller in the larger
    jaccard: float  # verbatim Jaccard
    numbers_changed: int  # numbers of the text with more of them that the other lacks
    title: bool  # the same non-blank title
    days: float  # days between their filing
    filed_apart: int  # days between their filing days (the scheme's `filed`)
    aligned: tuple[int, int, int]  # aligned: single characters replaced, numbers changed, words replaced
    letters: int  # characters of the shorter text
    identical: bool  # the same compared text


def _incidence(sets: Sequence[np.ndarray]) -> sparse.csr_matrix:
    vocab: dict[int, int] = {}
    cols = [vocab.setdefault(h, len(vocab)) for s in sets for h in s.tolist()]
    starts = np.concatenate(([0], np.cumsum([len(s) for s in sets])))
    return sparse.csr_matrix((np.ones(len(cols)), cols, starts), shape=(len(sets), len(vocab)))


def pairs_of(rows: Sequence[dict], truth: set, edits: dict | None = None) -> list[Pair]:
    """The pairs of other submitters whose texts are similar, numbers folded."""
    from dedup_pipeline.core.schemes import scheme_of
    from dedup_pipeline.core.shingles import differences, filed_day

    config = make_config({})
    sketches = scheme_of(config).probes(rows)
    folded, written = _incidence([s.shingles for s in sketches]), _incidence([s.verbatim for s in sketches])
    both = sparse.triu(folded @ folded.T, 1).tocoo()
    i, j, common = both.row, both.col, both.data
    size = np.diff(folded.indptr)
    smaller = np.minimum(size[i], size[j])
    similar = (common / (size[i] + size[j] - common) >= 0.3) | ((smaller >= 8) & (common / smaller >= 0.7))
    i, j, common, smaller = i[similar], j[similar], common[similar], smaller[similar]
    people = np.array([s.people for s in sketches])
    other = ~np.any((people[i] == people[j]) & (people[i] != 0), axis=1)
    i, j, common, smaller = i[other], j[other], common[other], smaller[other]
    same = np.asarray(written[i].multiply(written[j]).sum(axis=1)).ravel()
    wsize = np.diff(written.indptr)
    wsmall = np.minimum(wsize[i], wsize[j])
    texts = [s.text for s in sketches]
    numbers = [Counter(NUMBER.findall(text)) for text in texts]
    out = []
    for n, (a, b) in enumerate(zip(i.tolist(), j.tolist())):
        ra, rb = rows[a], rows[b]
        ids = (min(ra["id"], rb["id"]), max(ra["id"], rb["id"]))
        more = max(sum(numbers[a].values()), sum(numbers[b].values()))
        days = abs((datetime.fromisoformat(str(ra["created_at"])) - datetime.fromisoformat(str(rb["created_at"])))
                   .total_seconds()) / 86400
        out.append(Pair(ids, ids in truth, (edits or {}).get(ids), int(wsmall[n]), int(wsmall[n] - same[n]),
                        int(smaller[n] - common[n]), float(same[n] / max(1, wsmall[n])),
                        float(same[n] / max(1, wsize[a] + wsize[b] - same[n])),
                        more - sum((numbers[a] & numbers[b]).values()),
                        bool(ra.get("title")) and ra.get("title") == rb.get("title"), days,
                        abs(filed_day(ra["created_at"]) - filed_day(rb["created_at"])),
                        tuple(differences(texts[a], texts[b])), min(len(texts[a]), len(texts[b])),
                        texts[a] == texts[b]))
    return out


def shared_by_few(pairs: list[Pair], budget: int, others: int, as_of_later: bool) -> set[tuple[int, int]]:
    """Pairs within `budget` (numbers folded) whose text no more than `others` further rows
    share within that budget: a form letter's text is shared by many (I-Match's idea, seed
    003 §1). Counted over the whole table (a batch) or over the rows filed up to the pair's
    later row (what an incremental check sees when that row arrives)."""
    near = defaultdict(set)
    for p in pairs:
        if p.changed_folded <= budget:
            near[p.ids[0]].add(p.ids[1])
            near[p.ids[1]].add(p.ids[0])
    kept = set()
    for p in pairs:
        if p.changed_folded > budget:
            continue
        a, b = p.ids
        sharing = (near[a] | near[b]) - {a, b}
        if as_of_later:
            sharing = {x for x in sharing if x < b}
        if len(sharing) <= others:
            kept.add(p.ids)
    return kept


def edited(p: Pair, edits: int) -> bool:
    """The rule before this one (shingles counted, not aligned): at most `edits` characters
    changed in place (2-character shingles, texts of 8 or more), or 98% of the smaller text
    inside the larger."""
    return (p.smaller >= 8 and p.changed <= 2 * edits) or p.contained >= 0.98


def copied(p: Pair, slips: int = 3, numbers: int = 2, days: float | None = 30, words: int = 0) -> bool:
    """The scheme's test (shingles.ShingleScheme.copied): the same text; or, filed within
    `days` (None: dates not compared), the same as written, or aligned at most `slips` single
    characters replaced, `numbers` numbers changed and `words` words of two or more
    characters replaced (texts of 9 or more characters)."""
    slipped, changed, replaced = p.aligned[:3]
    aligned = p.letters >= 9 and slipped <= slips and changed <= numbers and replaced <= words
    in_time = days is None or p.filed_apart <= days
    return p.identical or in_time and (p.jaccard >= 1.0 or p.contained >= 0.98 or aligned)


RULES: list[tuple[str, Callable[[Pair], bool] | tuple]] = [
    ("before issue 22: Jaccard >= 0.92 or 98% contained, as written", lambda p: p.jaccard >= 0.92 or p.contained >= 0.98),
    ("default: filed within 30 days, aligned, at most 3 single characters replaced, 2 numbers changed, no "
     "word replaced, or the same as written; or the same text", copied),
    ("the same as written whenever filed (the rule before the date applied to it)",
     lambda p: p.jaccard >= 1.0 or p.contained >= 0.98 or copied(p)),
    ("aligned: numbers kept", lambda p: copied(p, numbers=0)),
    ("aligned: 1 number changed", lambda p: copied(p, numbers=1)),
    ("aligned: 2 single characters", lambda p: copied(p, slips=2)),
    ("aligned: 5 single characters", lambda p: copied(p, slips=5)),
    ("aligned: a word replaced too", lambda p: copied(p, words=1)),
    ("aligned: filed within 7 days", lambda p: copied(p, days=7)),
    ("aligned: filed within 90 days", lambda p: copied(p, days=90)),
    ("aligned: dates not compared", lambda p: copied(p, days=None)),
    ("aligned: numbers kept, dates not compared", lambda p: copied(p, numbers=0, days=None)),
    ("shingles counted (the rule before alignment): changed in place <= 2 shingles (edits 1) or 98% contained",
     lambda p: edited(p, 1)),
    ("changed in place <= 4 (edits 2) or 98% contained", lambda p: edited(p, 2)),
    ("changed in place <= 6 (edits 3) or 98% contained", lambda p: edited(p, 3)),
    ("shingles counted, numbers folded: changed <= 4 and every number kept (typos only), or edits 1",
     lambda p: edited(p, 1) or (p.changed_folded <= 4 and p.numbers_changed == 0)),
    ("shingles counted, numbers folded: changed <= 6 and at most one number changed, or edits 1",
     lambda p: edited(p, 1) or (p.changed_folded <= 6 and p.numbers_changed <= 1)),
    ("shingles counted, numbers folded: changed <= 6 and the same title, or edits 1",
     lambda p: edited(p, 1) or (p.changed_folded <= 6 and p.title)),
    ("shingles counted, numbers folded: changed <= 6 and filed within 30 days, or edits 1",
     lambda p: edited(p, 1) or (p.changed_folded <= 6 and p.days <= 30)),
    ("document frequency: numbers folded, changed <= 6, shared by <= 2 further rows (whole table)", (6, 2, False)),
    ("document frequency: the same, rows up to the later one (incremental)", (6, 2, True)),
    ("document frequency: changed <= 6, shared by no further row (whole table)", (6, 0, False)),
]


def decide(pairs: list[Pair]) -> dict[str, set[tuple[int, int]]]:
    """The pairs each rule accepts."""
    out = {}
    for name, rule in RULES:
        out[name] = shared_by_few(pairs, *rule) if isinstance(rule, tuple) else {p.ids for p in pairs if rule(p)}
    return out


def table(dev: list[Pair], test: list[Pair], sample: list[Pair]) -> list[str]:
    """Each rule on the dev set (where the default was chosen), the test set and the sample."""
    def figures(pairs: list[Pair], accepted: set) -> str:
        copies = [p for p in pairs if p.edit == "other_submitter_edited"]
        return (f"{sum(p.ids in accepted for p in copies)}/{len(copies)} | "
                f"{sum(p.true and p.ids in accepted for p in pairs)}/{sum(p.true for p in pairs)} | "
                f"{sum(not p.true and p.ids in accepted for p in pairs)}")
    rules = list(zip(decide(dev).items(), decide(test).values(), decide(sample).values()))
    lines = ["| rule | dev: edited copies | dev: true pairs | dev: false | test: edited copies | test: true pairs "
             "| test: false | sample: true pairs | sample: false |", "|---" * 9 + "|"]
    for (name, on_dev), on_test, on_sample in rules:
        lines.append(f"| {name} | {figures(dev, on_dev)} | {figures(test, on_test)} | "
                     f"{sum(p.true and p.ids in on_sample for p in sample)}/{sum(p.true for p in sample)} | "
                     f"{sum(not p.true and p.ids in on_sample for p in sample)} |")
    return lines
