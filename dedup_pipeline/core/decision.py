"""The decision whether rows are a pair: the one place it is made, in two parts. `confirm`
measures candidate pairs (rows sharing a key) wherever their sketches are, per key or per
partition; `settle` turns the confirmed pairs, their evidence and the rows around them into
pairs, copies, pairs linked through a third row and possible pairs. `decide` is the two over
one table: the batch on one machine, the re-run, `check`, `add`, `watch` and `explain` call
it (or, for one pair, its smallest case `relate`); the batch on Spark confirms in its
executors and calls `settle` at its driver (jobs/spark.py). A rule change goes here.

A pair is two rows of different texts (rows of one text are copies of the first of them,
pairs.Similar) that are similar as `confirm` decides, and that either
- share a key and carry evidence of their own: the same submitter (a value in one of the
  `submitter` fields), or texts the same as written up to a copy's edits (`WRITTEN`); or
- carry no evidence of their own, but a third row links them: it matches one by its
  submitter and the other as written. A copy of a row, made by someone else, stands for what
  that row's submitter filed. This finds a re-submission's edits from another person's copy
  of the original (benchmarks/quality), while two strangers' form letters stay apart:
  nothing links them but text (`corroborate`).
Two rows that share no key but are both paired with a third row by a key and evidence of
their own are compared too (`through_a_third`): two re-submissions of one petition, each
like it, may be less like each other than either is like it.

Reviewers have the last word (`obey`): a pair they decided different is no pair, one they
decided the same is one (`confirmed`), until either row changes. Pairs whose texts are
similar and keep each other's particulars, filed near in time, but that nothing else links
are `possible`: another person's copy with more edits than a copy's, or a form letter
signed by another; listed for a person, never a pair. A form letter filled in anew (its
place, company or amounts replaced) is not: it is another matter.

`decide` decides every pair of a table at once, or, given a `focus`, exactly the pairs the
whole table would give of the focus rows and of the rows around them (`centre`): the
incremental paths read that neighbourhood from the store and decide it here, so that they
give the batch's answers by construction.

Pure: no I/O.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import numpy as np

from .pairs import Pairs, Similar, copy_classes, originals
from .shingles import (ALIGNED_CHARS, Differences, ShingleScheme, Sketch, SketchTable, candidates,
                       differences, overlap_pairs, same_submitter, unsigned)

SUBMITTER, WRITTEN = 1, 2  # evidence a confirmed pair carries: a bit for each kind
AUTO, CONFIRMED = "auto", "confirmed"  # a pair the rule made; one a reviewer decided the same
NOT_MEASURED = -1.0  # the distance of a pair a reviewer made that the rule does not
_NONE = np.zeros(0, np.int64)


class Verdict(NamedTuple):
    """What a reviewer last decided of a pair, and whether a row has changed since."""

    same: bool
    stale: bool


def id_order(row_id: Any) -> tuple:
    """A sort key for ids of any types together, in SQLite's order: numbers (and other
    values) first, then text, then bytes; an untyped id column can hold all three."""
    return isinstance(row_id, (str, bytes)), isinstance(row_id, bytes), row_id


def pair_key(a: Any, b: Any) -> tuple[Any, Any]:
    """A pair as decisions name it: its rows in id order."""
    return (a, b) if id_order(a) <= id_order(b) else (b, a)


class Confirmed(NamedTuple):
    """Candidate pairs whose texts are similar (positions), their Jaccard and evidence bits,
    and whether one text keeps the other's particulars (`keeps_particulars`)."""

    i: np.ndarray
    j: np.ndarray
    jaccard: np.ndarray
    evidence: np.ndarray
    kept: np.ndarray


class Known(NamedTuple):
    """What the rounds of a focused decision confirmed so far, by the caller's numbers of the
    rows (`decide`'s `numbers`): every candidate pair compared (codes a << 32 | b, sorted) and
    those similar (`found`, its i and j in those numbers). A pair's confirmation depends on its
    two rows alone, so a round over more rows takes it as it was."""

    compared: np.ndarray
    found: Confirmed


class Decided(NamedTuple):
    """The pairs decided (positions, i < j, with 1 − similarity), each row's first row of the
    same text, and why each pair is one: its own `evidence` (0: linked by the row `via`), and
    whether it shares a key (else it was compared for a third row paired with both); and the
    `possible` pairs: similar texts keeping each other's particulars that nothing else links
    (another person's copy with more edits than a copy's, a form letter signed by another),
    for a person to decide."""

    pairs: Pairs
    original: np.ndarray
    evidence: np.ndarray
    shares_key: np.ndarray
    via: np.ndarray  # the third row linking a pair without evidence of its own, else -1
    centre: np.ndarray  # the rows whose every row sharing a key a focused decision needs
    possible: Pairs = (_NONE, _NONE, np.zeros(0))
    known: Known | None = None  # what a focused decision confirmed, for its next round (`decide`)

    @property
    def similar(self) -> Similar:
        return Similar(self.pairs, self.original)

    def of(self, a: int, b: int) -> int | None:
        """The position of pair (a, b) among the pairs, or None when it is none."""
        i, j, _ = self.pairs
        at = np.flatnonzero((i == min(a, b)) & (j == max(a, b)))
        return int(at[0]) if len(at) else None


def corroborates(first: int, second: int) -> bool:
    """Whether a row matched by `first` to one row and by `second` to another links the two."""
    return bool(first & SUBMITTER and second & WRITTEN or first & WRITTEN and second & SUBMITTER)


def decide(rule: ShingleScheme, table: SketchTable, focus: np.ndarray | None = None, threads: int = 1,
           numbers: np.ndarray | None = None, known: Known | None = None) -> Decided:
    """Every pair of the table; or, given `focus` (a row mask), the pairs of a focus row and
    those of two rows of the `centre` around it, as the whole table would decide them when
    the table holds every row sharing a key with a row of the centre (the incremental paths
    read those rows and decide again until it does). On `threads` threads: `confirm`, then
    `settle`. Given the rows' `numbers` in the caller (increasing, below 2³¹), a focused
    decision returns what it confirmed (`Decided.known`), and takes what an earlier round over
    fewer of the rows confirmed (`known`) instead of confirming it again."""
    original = originals(table.identity)
    found, centre, near, known = _confirmed(rule, table, original, focus, threads, numbers, known)
    more = partial(confirm, rule, table, threads=threads)
    return settle(rule, found, Around(original, table.people, near), more, focus, centre)._replace(known=known)


class Around(NamedTuple):
    """What `settle` needs of the rows around the confirmed pairs (positions): each row's
    first row of the same text (`original`), its submitters (`people`, one row of hashes per
    row), and the candidate pairs `confirm` was given (`compared`: i, j)."""

    original: np.ndarray
    people: np.ndarray
    compared: tuple[np.ndarray, np.ndarray]


def settle(rule: ShingleScheme, found: Confirmed, around: Around, more: Callable[[np.ndarray, np.ndarray], Confirmed],
           focus: np.ndarray | None = None, centre: np.ndarray | None = None) -> Decided:
    """The pairs, copies, third-row links and possible pairs of the confirmed candidates
    sharing a key (`found`) and the rows `around` them; `more` confirms the pairs of rows
    both paired with a third row (`through_a_third`) where their sketches are. Given `focus`
    and `centre`, only the pairs a focused decision gives (`decide`). Every engine calls it."""
    centre = np.ones(len(around.original), bool) if centre is None else centre
    edges = _take(found, found.evidence > 0)
    shares_key = np.ones(len(found.i), bool)
    if rule.corroborate:
        extra = more(*through_a_third(edges.i, edges.j, around.original, *around.compared))
        found = Confirmed(*(np.concatenate(x) for x in zip(found, extra)))
        shares_key = np.concatenate([shares_key, np.zeros(len(extra.i), bool)])
    via = _via(rule, found, edges, around)
    keep = (found.evidence > 0) | (via >= 0)
    maybe = ~keep & found.kept
    if focus is not None:
        near = focus[found.i] | focus[found.j] | centre[found.i] & centre[found.j]
        keep, maybe = keep & near, maybe & (focus[found.i] | focus[found.j])
    order = np.lexsort((found.j[keep], found.i[keep]))
    return Decided(_sorted(found.i[keep], found.j[keep], distances(rule, found.jaccard[keep])), around.original,
                   found.evidence[keep][order], shares_key[keep][order], via[keep][order], centre,
                   _sorted(found.i[maybe], found.j[maybe], distances(rule, found.jaccard[maybe])))


def _take(found: Confirmed, at: np.ndarray) -> Confirmed:
    """The confirmed pairs at these positions (or where a mask holds)."""
    return Confirmed(*(x[at] for x in found))


def _via(rule: ShingleScheme, found: Confirmed, edges: Confirmed, around: Around) -> np.ndarray:
    """For each confirmed pair, the third row linking it when it carries no evidence of its
    own (through two `edges`: pairs sharing a key with evidence of their own), else -1."""
    via = np.full(len(found.i), -1, np.int64)
    weak = np.flatnonzero(found.evidence == 0)
    if rule.corroborate and len(weak):
        via[weak] = _links((edges.i, edges.j, edges.evidence), found.i[weak], found.j[weak], around.original,
                           around.people)
    return via


def _sorted(i: np.ndarray, j: np.ndarray, d: np.ndarray) -> Pairs:
    """Pairs (positions) in (i, j) order."""
    order = np.lexsort((j, i))
    return i[order].astype(np.int64), j[order].astype(np.int64), d[order]


def obey(pairs: Mapping[tuple[Any, Any], float], verdicts: Mapping[tuple[Any, Any], Verdict]
         ) -> tuple[dict[tuple[Any, Any], float], set[tuple[Any, Any]]]:
    """The pairs ({(a, b): distance}, either way round) as reviewers decided them ({pair_key:
    Verdict}), and those a reviewer confirmed, keyed as given: a pair decided different is
    dropped, one decided the same kept or made (at NOT_MEASURED when the rule does not pair
    it); a stale verdict (a row changed since) leaves the pair to the rule."""
    standing = {pair: verdict for pair, verdict in verdicts.items() if not verdict.stale}
    if not standing:
        return dict(pairs), set()
    out, confirmed, given = {}, set(), set()
    for (a, b), distance in pairs.items():
        key = pair_key(a, b)
        given.add(key)
        verdict = standing.get(key)
        if verdict is None or verdict.same:
            out[a, b] = distance
            if verdict is not None:
                confirmed.add((a, b))
    for pair, verdict in standing.items():
        if verdict.same and pair not in given:
            out[pair] = NOT_MEASURED
            confirmed.add(pair)
    return out, confirmed


def _confirmed(rule: ShingleScheme, table: SketchTable, original: np.ndarray, focus: np.ndarray | None,
               threads: int = 1, numbers: np.ndarray | None = None, known: Known | None = None
               ) -> tuple[Confirmed, np.ndarray, tuple[np.ndarray, np.ndarray], Known | None]:
    """The candidates `decide` needs, confirmed; the rows they centre on; the candidates
    (i, j); and, given `numbers`, what is known confirmed now: every pair sharing a key,
    centred on every row; or the focus rows, their copies and the rows they pair with by
    evidence of their own, with the candidates of any of these (whatever links a focus row
    lies within one step of them), and no others."""
    if focus is None:
        i, j = candidates(table.keys, original, threads=threads)
        return confirm(rule, table, i, j, threads), np.ones(len(original), bool), (i, j), None
    if not rule.corroborate:
        i, j = candidates(table.keys, original, threads=threads, among=focus)
        return confirm(rule, table, i, j, threads), focus.copy(), (i, j), None
    own = np.isin(original, original[focus])
    i, j = candidates(table.keys, original, threads=threads, among=own)
    found, known = _confirm_known(rule, table, i, j, threads, numbers, known)
    centre = own.copy()
    edges = found.evidence > 0
    centre[found.i[edges]] = centre[found.j[edges]] = True
    k, m = candidates(table.keys, original, threads=threads, among=centre & ~own)
    rest = ~(own[k] | own[m])
    more, known = _confirm_known(rule, table, k[rest], m[rest], threads, numbers, known)
    near = np.concatenate([i, k[rest]]), np.concatenate([j, m[rest]])
    return Confirmed(*(np.concatenate(x) for x in zip(found, more))), centre, near, known


def _confirm_known(rule: ShingleScheme, table: SketchTable, i: np.ndarray, j: np.ndarray, threads: int,
                   numbers: np.ndarray | None, known: Known | None) -> tuple[Confirmed, Known | None]:
    """`confirm` of candidates (i, j) in their order, the pairs `known` confirmed taken as
    they were; and what is known with these. Without `numbers`, `confirm` alone."""
    if numbers is None:
        return confirm(rule, table, i, j, threads), None
    numbers = numbers.astype(np.int64)
    known = known or Known(_NONE, Confirmed(_NONE, _NONE, np.zeros(0), _NONE, np.zeros(0, bool)))
    code = numbers[i] << 32 | numbers[j]
    seen = np.isin(code, known.compared)
    new = confirm(rule, table, i[~seen], j[~seen], threads)
    was = known.found
    again = np.isin(was.i << 32 | was.j, code[seen])
    taken = Confirmed(np.searchsorted(numbers, was.i[again]), np.searchsorted(numbers, was.j[again]),
                      *(x[again] for x in was[2:]))
    both = Confirmed(*(np.concatenate(x) for x in zip(new, taken)))
    order = np.argsort(numbers[both.i] << 32 | numbers[both.j], kind="stable")  # the candidates' order
    now = Known(np.union1d(known.compared, code),
                Confirmed(*(np.concatenate(x) for x in zip(was, new._replace(i=numbers[new.i], j=numbers[new.j])))))
    return Confirmed(*(x[order] for x in both)), now


def confirm(rule: ShingleScheme, table: SketchTable, i: np.ndarray, j: np.ndarray, threads: int = 1) -> Confirmed:
    """The candidates (i, j) whose texts are similar, with their Jaccard and the evidence
    they carry (0: a pair only if a third row links it): THE PAIR RULE (shingles.py says
    what it measures)."""
    jaccard, contained = overlap_pairs(table.shingles, i, j, threads)
    sizes = table.shingles.sizes()
    smaller = np.minimum(sizes[i], sizes[j])
    keep = (jaccard >= rule.threshold) | ((smaller >= rule.min_shingles) & (contained >= rule.containment))
    i, j, jaccard = i[keep], j[keep], jaccard[keep]
    people = table.people
    same = same_submitter(people[i], people[j])
    filed_i, filed_j = table.filed[i].astype(np.int64), table.filed[j].astype(np.int64)
    written = as_written(rule, *overlap_pairs(table.verbatim, i, j, threads)) & (
        (table.identity[i] == table.identity[j]) | near_in_time(rule, filed_i, filed_j))
    kept = written.copy()
    left = np.flatnonzero(~written)  # aligned one pair at a time: few are left
    text = table.texts_of(np.concatenate([i[left], j[left]]))
    for n, a, b in zip(left.tolist(), i[left].tolist(), j[left].tolist()):
        d = aligned(rule, text[a], text[b], int(table.filed[a]), int(table.filed[b]), table.people[a], table.people[b])
        written[n], kept[n] = d is not None and is_copy(rule, d), d is not None and keeps_particulars(rule, d)
    evidence = np.where(same, SUBMITTER, 0) | np.where(written, WRITTEN, 0)
    return Confirmed(i, j, jaccard, evidence, kept)


def relate(rule: ShingleScheme, a: Sketch, b: Sketch) -> tuple[float | None, int]:
    """One pair, as `confirm` decides it: its similarity (Jaccard, numbers folded, at least
    the threshold) when the texts are similar, else None; and the evidence it carries."""
    return relate_many(rule, [a, b], np.array([0]), np.array([1]))[0]


def relate_many(rule: ShingleScheme, sketches: Sequence[Sketch], i: np.ndarray, j: np.ndarray
                ) -> list[tuple[float | None, int]]:
    """`relate` of each pair (sketches[i[n]], sketches[j[n]]), confirmed together: a pair's
    outcome is its own, whatever else is confirmed beside it."""
    found = confirm(rule, SketchTable.of(sketches), np.asarray(i, np.int64), np.asarray(j, np.int64))
    said = {(a, b): (max(score, rule.threshold), evidence) for a, b, score, evidence in
            zip(found.i.tolist(), found.j.tolist(), found.jaccard.tolist(), found.evidence.tolist())}
    return [said.get(pair, (None, 0)) for pair in zip(np.asarray(i).tolist(), np.asarray(j).tolist())]


def as_written(rule: ShingleScheme, jaccard: np.ndarray, contained: np.ndarray) -> np.ndarray:
    """Whether texts are the same as written, from their verbatim Jaccard and containment."""
    return (jaccard >= rule.verbatim) | (contained >= rule.verbatim_containment)


def near_in_time(rule: ShingleScheme, filed_a, filed_b):
    """Whether rows filed on these days (0: unknown) may be one another's copy: filed within
    `days`, when filing days are configured; scalars or arrays alike."""
    return (not rule.filed) | ((filed_a > 0) & (filed_b > 0) & (np.abs(filed_a - filed_b) <= rule.days))


def copied(rule: ShingleScheme, a: str, b: str, filed_a: int = 0, filed_b: int = 0,
           people_a: np.ndarray = _NONE, people_b: np.ndarray = _NONE) -> bool:
    """Whether one text is the other's copy up to a copy's edits (shingles.py says which),
    and, when the rows' filing days are configured, filed within `days` of it."""
    d = aligned(rule, a, b, filed_a, filed_b, people_a, people_b)
    return d is not None and is_copy(rule, d)


def aligned(rule: ShingleScheme, a: str, b: str, filed_a: int = 0, filed_b: int = 0,
            people_a: np.ndarray = _NONE, people_b: np.ndarray = _NONE) -> Differences | None:
    """The differences of two texts that may be one another's copy, filed near enough in time
    and long enough to tell; else None (not aligned). Signatures that give their own rows'
    submitters (`people_*`) are not compared (`unsigned`): another person who re-signs a
    letter with their own name and phone has copied it."""
    if not near_in_time(rule, filed_a, filed_b):
        return None
    a, b = unsigned(a, b, people_a, people_b)
    if min(len(a), len(b)) < rule.min_shingles + rule.size - 1 or max(len(a), len(b)) > ALIGNED_CHARS:
        return None
    return differences(a, b)


def is_copy(rule: ShingleScheme, d: Differences) -> bool:
    """Whether texts differing so are a copy: no word replaced, a few slips and numbers."""
    return d.words == 0 and d.slips <= rule.slips and d.numbers <= rule.numbers


def keeps_particulars(rule: ShingleScheme, d: Differences) -> bool:
    """Whether texts differing so keep each other's particulars (no name, place or company
    replaced), whatever else differs: more slips or numbers than a copy's (numbers are weak
    evidence: a copy corrects a date, an amount, a house number), or the closing replaced,
    as when another person signs a form letter. Such a pair may be a copy with more edits
    than a copy makes; a person decides (`possible`)."""
    return d.words - d.closing == 0


def distances(rule: ShingleScheme, jaccard: np.ndarray) -> np.ndarray:
    """1 − similarity of confirmed pairs, rounded by Python's round, as one pair is (numpy's
    can differ in the last place)."""
    return np.array([round(1 - x, 4) for x in np.maximum(jaccard, rule.threshold).tolist()], float)


def _links(edges: tuple[np.ndarray, np.ndarray, np.ndarray], a: np.ndarray, b: np.ndarray,
           original: np.ndarray, people: np.ndarray) -> np.ndarray:
    """For each pair (a[n], b[n]) without evidence, a third row that links it through two
    `edges` (pairs sharing a key with evidence of their own: i, j, evidence), else -1."""
    near = neighbours(dict(zip(zip(*(x.tolist() for x in edges[:2])), edges[2].tolist())))
    text = dict(enumerate(original.tolist()))
    found = (linking(near, x, y, text, people) for x, y in zip(a.tolist(), b.tolist()))
    return np.array([-1 if c is None else c for c in found], np.int64)


def neighbours(edges: Mapping[tuple[Any, Any], int]) -> dict[Any, dict[Any, int]]:
    """{row: {partner: evidence}} of pairs given once each."""
    out: dict[Any, dict[Any, int]] = {}
    for (a, b), evidence in edges.items():
        out.setdefault(a, {})[b] = evidence
        out.setdefault(b, {})[a] = evidence
    return out


def linking(near: Mapping[Any, Mapping[Any, int]], a: Any, b: Any, text: Mapping[Any, int] | None = None,
            people: Any = None) -> Any:
    """The third row that links rows a and b, which have no evidence of their own, or None:
    a row paired with one by its submitter and with the other as written (`near`: each row's
    partners, by evidence of their own). A copy of a row is such a third row without being
    its listed partner (copies never are): it matches the row as written, and its submitter
    may be the row's. So a copy c of b links (a, b) when paired with a by its submitter, or
    as written when c shares b's submitter (`text`: each row's text, 0 when blank; `people`:
    each row's submitter hashes)."""
    near_a, near_b = near.get(a, {}), near.get(b, {})
    small, large = (near_a, near_b) if len(near_a) <= len(near_b) else (near_b, near_a)
    third = next((c for c, e in small.items() if c in large and corroborates(e, large[c])), None)
    if third is not None or text is None:
        return third
    for x, y in ((a, b), (b, a)):
        for c, e in near.get(x, {}).items():
            if c != y and text.get(y) is not None and text.get(c) == text[y] and (
                    e & SUBMITTER or e & WRITTEN and same_submitter(people[c], people[y])):
                return c
    return None


def through_a_third(i: np.ndarray, j: np.ndarray, original: np.ndarray, near_i: np.ndarray,
                    near_j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (a, b), a < b, of rows of different texts that share no key but are both
    paired with one third row by a key and evidence of their own (edges i–j). Rows of one
    text are such a pair of each other, so a copy of a row's partner is compared with it too.
    `near_*`: the pairs sharing a key, compared already."""
    partners: dict[int, list[int]] = {}
    for x, y in zip(i.tolist(), j.tolist()):
        partners.setdefault(x, []).append(y)
        partners.setdefault(y, []).append(x)
    found: set[tuple[int, int]] = set()
    members = {int(m[0]): m.tolist() for m in copy_classes(original)}
    for middle, around in partners.items():
        by_text: dict[int, list[int]] = {}
        for x in around:
            by_text.setdefault(int(original[x]), []).append(x)
        texts = list(by_text.values())
        for n, first in enumerate(texts):  # pairs of the middle's partners, across texts
            for second in texts[n + 1:]:
                found.update((min(x, y), max(x, y)) for x in first for y in second)
        for text, linked in by_text.items():  # the middle with the copies of a partner's text
            if text in members:
                others = members[text] if len(linked) > 1 else [m for m in members[text] if m != linked[0]]
                found.update((min(middle, m), max(middle, m)) for m in others)
    if not found:
        return _NONE, _NONE
    n = len(original)
    code = np.array(sorted(a * n + b for a, b in found), np.int64)
    code = code[~np.isin(code, np.minimum(near_i, near_j) * n + np.maximum(near_i, near_j))]
    a, b = np.divmod(code, n)
    return a, b

