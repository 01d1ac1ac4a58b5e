"""The stored pairs kept in step with the table as rows change (增量处理): what a new,
changed or removed row decides and un-decides, over the block index and a table of
matches (`dedup_match`, or `MemoryMatches` for tests without servers).

What is a pair is decided as the batch decides it (decision.py, through
`Incremental.decide`): this module keeps what is stored in step with it.

`apply` files the rows that are there, removes those that are gone, and leaves the matches
as a batch over the table would store them (pairs.Similar.linked): every pair both ways,
copies of one text paired with the first of them. It is what `watch` does in each
transaction, and the batch for rows changed while it ran; the invariant, that any sequence
of changes applied this way gives the batch's pairs, is tests/test_matches.py's property.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Protocol, Sequence

from .. import killpoints
from ..core.decision import id_order

if TYPE_CHECKING:
    from .incremental import Incremental, Looked

Pair = tuple[Any, Any, float]  # (row id, similar row id, distance)
Near = Callable[[], dict[Any, Any]]  # the probes of the rows stored around a batch (Incremental.near_stored)


class Matches(Protocol):
    """Similar pairs stored both ways: a row's matches are one read."""

    def forget_rows(self, rows: Sequence) -> None: ...
    def write(self, pairs: Iterable[Pair], confirmed: frozenset = frozenset()) -> None: ...
    def partners(self, rows: Sequence, distance: float | None = None) -> dict[Any, set]: ...
    def pairs_among(self, rows: Sequence) -> set[tuple[Any, Any]]: ...
    def forget_pairs(self, pairs: Iterable[tuple[Any, Any]]) -> None: ...


class MemoryMatches:
    """Matches in a dict, {(row, similar row): distance}, both ways."""

    def __init__(self) -> None:
        self.held: dict[tuple[Any, Any], float] = {}

    def forget_rows(self, rows: Sequence) -> None:
        gone = set(rows)
        self.held = {pair: d for pair, d in self.held.items() if not gone & set(pair)}

    def write(self, pairs: Iterable[Pair], confirmed: frozenset = frozenset()) -> None:
        for a, b, distance in pairs:
            self.held[a, b] = self.held[b, a] = distance

    def partners(self, rows: Sequence, distance: float | None = None) -> dict[Any, set]:
        wanted, found = set(rows), {}
        for (a, b), d in self.held.items():
            if a in wanted and (distance is None or d == distance):
                found.setdefault(a, set()).add(b)
        return found

    def pairs_among(self, rows: Sequence) -> set[tuple[Any, Any]]:
        among = set(rows)
        return {pair for pair in self.held if pair[0] in among and pair[1] in among}

    def forget_pairs(self, pairs: Iterable[tuple[Any, Any]]) -> None:
        for a, b in pairs:
            self.held.pop((a, b), None)
            self.held.pop((b, a), None)


@dataclass
class Applied:
    added: int = 0  # rows written to the index (new or changed)
    removed: int = 0  # rows taken out of it
    matched: int = 0  # pairs of the rows kept after the recheck


def apply(index: Incremental, matches: Matches, present: Mapping[Any, Mapping[str, Any]],
          absent: Sequence) -> Applied:
    """File the rows `present` (as the table has them), remove the `absent` ones, and
    write their matches, un-deciding what they decided before."""
    rows = sorted([*present, *absent], key=str)
    near = cache(lambda: index.near_stored(rows))  # read at most once, and only if needed
    linked = _linked_through(index, matches, rows, near)
    orphans = _copies_of(index, matches, rows, near)
    # Before filing: a pair another worker writes after this, from a lookup that saw
    # these rows filed, is not this batch's to delete.
    matches.forget_rows(rows)
    probes, added = _file(index, present)
    killpoints.reached("apply.filed")
    removed = index.store.remove(index.table, list(absent)) if absent else 0
    killpoints.reached("apply.removed")
    looked = index.decide(probes)
    found, moved, relinked = _linked_copies(looked, probes, orphans, index.scheme.identity)
    relinked, confirmed = index.obey(relinked)  # a reviewer may have split the copies
    found.update(relinked)
    confirmed |= looked.confirmed
    matches.forget_pairs(moved)
    matches.write(((a, b, d) for (a, b), d in found.items()), confirmed)
    matched = _recheck(index, matches, found, probes, confirmed)
    _unlink(index, matches, linked, found)
    killpoints.reached("apply.written")
    return Applied(added, removed, matched)


def _file(index: Incremental, rows: Mapping[Any, Mapping[str, Any]]) -> tuple[dict[Any, Any], int]:
    """Probe rows together and file them; unchanged rows are skipped. Returns their
    probes (what the scheme compares them by) and how many were written."""
    if not rows:
        return {}, 0
    ids = list(rows)
    probes = dict(zip(ids, index.scheme.probes([rows[i] for i in ids])))
    return probes, index.file_many((i, rows[i], probes[i]) for i in ids)


def _copies_of(index: Incremental, matches: Matches, rows: Sequence, near_stored: Near) -> list[tuple[int, set]]:
    """(a text's identity, its rows) for each text whose first row is one of `rows`: the
    copies are linked to that row alone (pairs.Similar), and it may be changing or gone.
    Decided from dedup_match and the copies, never from the row itself: a worker killed
    before its commit has already filed the row's new text."""
    identity = index.scheme.identity
    near = matches.partners(rows, distance=0)  # copies are at 0, and so are texts contained whole
    if not near:
        return []
    held = _current(index, near_stored, set().union(*near.values()) - set(rows))
    out = []
    for row, partners in near.items():
        by_text: dict[int, set] = {}
        for m in partners & held.keys():
            by_text.setdefault(identity(held[m]), set()).add(m)
        out += [(text, copies) for text, copies in by_text.items() if text and _first(copies | {row}) == row]
    return out


def _linked_copies(looked: Looked, probes: dict[Any, Any], orphans: list[tuple[int, set]],
                   identity: Any) -> tuple[dict[tuple, Any], set[tuple], dict[tuple, Any]]:
    """The pairs as the batch stores them (`looked.linked`, pairs.Similar.linked), the links
    to forget (those to a first row that a row of the batch now precedes), and the links of
    copies whose first row changed or went (`orphans`) to the next, reviewers not yet asked."""
    out, moved, relinked = dict(looked.linked), set(), {}
    for members in looked.copies:
        stored = [m for m in members if m not in probes]  # the batch's rows were unlinked before filing
        if members[0] in probes and stored:
            moved.update((other, stored[0]) for other in stored[1:])
    for was, rest in orphans:
        mine = {m for members in looked.copies if identity(looked.seen[members[0]]) == was for m in members
                if m in probes}
        if not rest or _first(rest | mine) in mine:
            continue  # a row of the batch of this text is the first now, and linked them
        first = _first(rest | mine)
        relinked.update(((m, first), 0) for m in rest if m != first)
    return out, moved, relinked


def _recheck(index: Incremental, matches: Matches, found: dict[tuple, Any], probes: dict[Any, Any],
             confirmed: frozenset) -> int:
    """Check each pair with a row outside the batch against what that row is now: another
    worker may have changed or removed it after the lookup, and cleared its matches
    before this transaction wrote the pair. Returns the pairs kept. A pair is kept as the
    decision keeps it: similar texts with evidence of their own, or, without, linked by a
    third row (`_linked_now`). A pair a reviewer confirmed stands while both rows are as
    decided (the lookup read their verdict)."""
    now = {**index.current({r for pair in found for r in pair if r not in probes}), **probes}
    checked = [(a, b, distance) for (a, b), distance in found.items()
               if not (a in probes and b in probes or (a, b) in confirmed)]
    both = [(a, b) for a, b, _ in checked if a in now and b in now]
    related = dict(zip(both, index.scheme.relate_many([(now[a], now[b]) for a, b in both])))
    linked = _linked_now(index, [pair for pair, (d, evidence) in related.items() if d is not None and not evidence],
                         now)
    stale, moved = [], []
    for a, b, distance in checked:
        d, evidence = related.get((a, b), (None, 0))
        if d is None or not evidence and _ordered((a, b)) not in linked:
            stale.append((a, b))
        elif d != distance:
            moved.append((a, b, d))
    matches.forget_pairs(stale)
    matches.write(moved)
    return len(found) - len(stale)


def _linked_now(index: Incremental, weak: list[tuple], now: Mapping[Any, Any]) -> set[tuple]:
    """The pairs among `weak` (similar texts without evidence of their own) that the
    decision, over these rows as they are `now` and the rows around them, still makes."""
    if not weak:
        return set()
    looked = index.decide({row: now[row] for pair in weak for row in pair})
    return {_ordered(pair) for pair in looked.pairs} & {_ordered(pair) for pair in weak}


def _linked_through(index: Incremental, matches: Matches, rows: Sequence, near_stored: Near) -> set[tuple]:
    """The stored pairs of two rows outside the batch that both match one of its rows (or a
    copy of a row it matches: pairs.Similar links copies to the first of them only), both
    directions: that row may be what linked them (decision.py: a third row), and
    it is changing or gone. Copies are linked whatever else is there: not theirs."""
    if not index.scheme.links:
        return set()
    batch = set(rows)
    groups = [near - batch for near in matches.partners(rows).values()]
    copies = matches.partners(sorted(set().union(*groups), key=str), distance=0) if groups else {}
    groups = [group.union(*(copies.get(m, set()) for m in group)) - batch for group in groups]
    groups = [group for group in groups if len(group) > 1]
    around = sorted(set().union(*groups), key=str)
    pairs = {(a, b) for a, b in matches.pairs_among(around) if any(a in group and b in group for group in groups)}
    held = _current(index, near_stored, {r for pair in pairs for r in pair}) if pairs else {}
    text = {row: index.scheme.identity(probe) for row, probe in held.items()}
    return {(a, b) for a, b in pairs if not text.get(a) or text.get(a) != text.get(b)}


def _current(index: Incremental, near_stored: Near, rows: set) -> dict[Any, Any]:
    """The probes of these rows as the index holds them now: those around the batch's rows
    from `near_stored` (a text's copies in one read), the rest one by one."""
    found = {row: probe for row, probe in near_stored().items() if row in rows}
    return {**found, **index.current(rows - found.keys())}


def _unlink(index: Incremental, matches: Matches, linked: set[tuple], found: dict[tuple, Any]) -> None:
    """Forget the pairs of `linked` that this batch did not find again and that the decision,
    over the rows as the index holds them now, no longer makes."""
    doubtful = {_ordered(pair) for pair in linked} - {_ordered(pair) for pair in found}
    if not doubtful:
        return
    kept = {_ordered(pair) for pair in index.decide(index.current({r for pair in doubtful for r in pair})).pairs}
    matches.forget_pairs(doubtful - kept)


def _ordered(pair: tuple) -> tuple:
    return tuple(sorted(pair, key=str))


def _first(rows: set) -> Any:
    """The first of rows in id order, as the batch reads them: the one copies link to."""
    return min(rows, key=id_order)
