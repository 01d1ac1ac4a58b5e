"""The stored pairs kept in step with the table as rows change (增量处理): what a new,
changed or removed row decides and un-decides, over the block index and a table of
matches (`dedup_match`, or `MemoryMatches` for tests without servers).

`decided` is the incremental form of the batch's rule (the scheme's `similar`, all rows
at once): the pairs some rows make with the rows sharing a key with them, each related by
the scheme, and those a third row links (corroboration.py).

`apply` files the rows that are there, removes those that are gone, and leaves the matches
as a batch over the table would store them (pairs.Similar.linked): every pair both ways,
copies of one text paired with the first of them. It is what `watch` does in each
transaction, and the batch for rows changed while it ran; the invariant, that any sequence
of changes applied this way gives the batch's pairs, is tests/test_matches.py's property.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple, Protocol, Sequence

from .. import killpoints
from ..core.corroboration import corroborated, corroborates, neighbours

if TYPE_CHECKING:
    from .incremental import Incremental
    from ..core.schemes import Scheme

Pair = tuple[Any, Any, float]  # (row id, similar row id, distance)


class Matches(Protocol):
    """Similar pairs stored both ways: a row's matches are one read."""

    def forget_rows(self, rows: Sequence) -> None: ...
    def write(self, pairs: Iterable[Pair]) -> None: ...
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

    def write(self, pairs: Iterable[Pair]) -> None:
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


class Decided(NamedTuple):
    """What a lookup decided: {(row, other): distance} of its pairs; the probes of every row
    it looked at (`seen`) and their keys; and the pairs among them that share a key and
    carry evidence of their own (`edges`, with it: what links two rows through a third)."""

    pairs: dict[tuple, Any]
    seen: dict[Any, Any]
    keys: dict[Any, set]
    edges: dict[tuple, int]


def decided(scheme: Scheme, probes: Mapping[Any, Any], stored: Mapping[Any, Any],
            keys: Mapping[Any, set]) -> Decided:
    """The pairs the `probes` make with the rows sharing a key with them (`stored`: every
    row's probe, `keys`: its keys) and with each other (once each), and the stored pairs
    they corroborate."""
    under: dict[int, set] = {}
    for row, row_keys in keys.items():
        for key in row_keys:
            under.setdefault(key, set()).add(row)
    near: dict[tuple, tuple[Any, int]] = {}
    for row, p in probes.items():
        for other in set().union(*(under[key] for key in keys[row])) - {row}:
            if (other, row) not in near:
                near[(row, other)] = scheme.relate(p, stored[other])
    if scheme.links:
        near.update(_around(scheme, probes, near, stored, keys))
    edges = {pair: evidence for pair, (d, evidence) in near.items() if d is not None and evidence}
    weak = [pair for pair, (d, evidence) in near.items() if d is not None and not evidence]
    keep = set(edges) | set(corroborated(edges, weak))
    return Decided({pair: near[pair][0] for pair in keep if pair[0] in probes or pair[1] in probes
                    or not near[pair][1]}, dict(stored), dict(keys), edges)


def through_a_third(index: Incremental, matches: Matches, probes: Mapping[Any, Any], looked: Decided,
                    unlinked: Iterable = ()) -> dict[tuple, Any]:
    """{(row, other): distance} of the pairs of rows that share no key but are both paired
    with a third row by a key and evidence of their own, a probe among the three: the
    batch's shingles.through_a_third. Reads the stored pairs of the probes' partners, and
    the copies of their texts (pairs.Similar links copies to the first of them only; those
    `unlinked` from a first row of the batch are not linked yet)."""
    scheme, seen, keys = index.scheme, looked.seen, looked.keys
    edges = dict(looked.edges)
    near = neighbours(edges)
    middles = {o for r in probes for o in near.get(r, ()) if o not in probes}
    around = _stored_partners(index, matches, middles, seen, keys, set(unlinked) - probes.keys())
    for c, partners in around.items():
        for x in partners - {c} - probes.keys():
            if keys[c] & keys[x] and (x, c) not in edges and (c, x) not in edges:
                evidence = scheme.relate(seen[c], seen[x])[1]
                if evidence:
                    edges[c, x] = evidence
    near = neighbours(edges)
    wanted: set[tuple] = set()
    for r in probes:
        mine = list(near.get(r, ()))
        wanted.update((r, x) for c in mine for x in near.get(c, ()) if x != r)
        wanted.update((u, v) for n, u in enumerate(mine) for v in mine[n + 1:])
    text = {row: scheme.identity(seen[row]) for pair in wanted for row in pair}
    related = {}
    for a, b in wanted:
        if (b, a) not in related and not keys[a] & keys[b] and not (text[a] and text[a] == text[b]):
            related[a, b] = scheme.relate(seen[a], seen[b])
    weak = [pair for pair, (d, evidence) in related.items() if d is not None and not evidence]
    keep = {pair for pair, (d, evidence) in related.items() if d is not None and evidence}
    return {pair: related[pair][0] for pair in keep | set(corroborated(edges, weak))}


def _stored_partners(index: Incremental, matches: Matches, rows: set, seen: dict[Any, Any],
                     keys: dict[Any, set], unlinked: set = frozenset()) -> dict[Any, set]:
    """{row: the rows it is stored paired with, and every row of its text (copies `unlinked`
    too)}, each row's probe and keys added to `seen` and `keys`."""
    if not rows:
        return {}
    held = matches.partners(sorted(rows, key=str))
    _look(index, seen, keys, set().union(rows, unlinked, *held.values()))
    identity = index.scheme.identity
    first = {r: min({r} | {f for f in held.get(r, ()) if f in seen and identity(seen[f]) == identity(seen[r])})
             for r in rows & seen.keys()}
    # a first row is stored paired with all its copies; a later copy with the first only
    copies = matches.partners(sorted({f for r, f in first.items() if f != r}, key=str), distance=0)
    _look(index, seen, keys, set().union(*copies.values()) if copies else set())
    by_text: dict[int, set] = {}
    for row, p in seen.items():
        if identity(p):
            by_text.setdefault(identity(p), set()).add(row)
    return {r: (held.get(r, set()) | copies.get(f, set()) | by_text.get(identity(seen[r]), set())) & seen.keys()
            for r, f in first.items()}


def _look(index: Incremental, seen: dict[Any, Any], keys: dict[Any, set], rows: set) -> None:
    """Add the probes and keys of these rows, as the index holds them, to `seen` and `keys`."""
    now = index.current(rows - seen.keys()) if rows - seen.keys() else {}
    seen.update(now)
    keys.update((row, set(index.scheme.keys(p))) for row, p in now.items())


def _around(scheme: Scheme, probes: Mapping[Any, Any], near: Mapping[tuple, tuple[Any, int]],
            stored: Mapping[Any, Any], keys: Mapping[Any, set]) -> dict[tuple, tuple[Any, int]]:
    """The pairs of stored rows near a probe that corroboration may need: a row the probe
    confirms, with any other row near it (candidates: rows sharing a key)."""
    partners = neighbours({pair: evidence for pair, (d, evidence) in near.items() if d is not None})
    found: dict[tuple, tuple[Any, int]] = {}
    for row in probes:
        mine = {o: e for o, e in partners.get(row, {}).items() if o not in probes}
        for u, v in ((u, v) for u, e_u in mine.items() if e_u for v, e_v in mine.items()
                     if u != v and (e_v == 0 or corroborates(e_u, e_v))):
            if (v, u) not in found and (u, v) not in found and keys[u] & keys[v]:
                found[(u, v)] = scheme.relate(stored[u], stored[v])
    return found


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
    linked = _linked_through(index, matches, rows)
    orphans = _copies_of(index, matches, rows)
    # Before filing: a pair another worker writes after this, from a lookup that saw
    # these rows filed, is not this batch's to delete.
    matches.forget_rows(rows)
    probes, added = _file(index, present)
    killpoints.reached("apply.filed")
    removed = index.store.remove(index.table, list(absent)) if absent else 0
    killpoints.reached("apply.removed")
    looked = index.pairs_seen(probes)
    found = dict(looked.pairs)
    if index.scheme.links:
        found.update(through_a_third(index, matches, probes, looked, {m for _, rest in orphans for m in rest}))
    found, moved = _linked_copies(index, found, looked.seen, probes, orphans, rows)
    matches.forget_pairs(moved)
    matches.write((a, b, d) for (a, b), d in found.items())
    matched = _recheck(index, matches, found, probes)
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


def _copies_of(index: Incremental, matches: Matches, rows: Sequence) -> list[tuple[int, set]]:
    """(a text's identity, its rows) for each text whose first row is one of `rows`: the
    copies are linked to that row alone (pairs.Similar), and it may be changing or gone.
    Decided from dedup_match and the copies, never from the row itself: a worker killed
    before its commit has already filed the row's new text."""
    identity = index.scheme.identity
    near = matches.partners(rows, distance=0)  # copies are at 0, and so are texts contained whole
    if not near:
        return []
    held = index.current(set().union(*near.values()) - set(rows))
    out = []
    for row, partners in near.items():
        by_text: dict[int, set] = {}
        for m in partners & held.keys():
            by_text.setdefault(identity(held[m]), set()).add(m)
        out += [(text, copies) for text, copies in by_text.items() if text and _first(copies | {row}) == row]
    return out


def _linked_copies(index: Incremental, found: dict[tuple, Any], seen: dict[Any, Any], probes: dict[Any, Any],
                   orphans: list[tuple[int, set]], rows: Sequence) -> tuple[dict[tuple, Any], set[tuple]]:
    """The pairs found, with rows of one text linked to the first of them rather than to
    each other, as the batch stores them (pairs.Similar); and the links to forget: those
    to a first row that a row of the batch now precedes. Copies whose first row changed
    or went (`orphans`) are linked to the next. `seen`: the probes the pairs were found with."""
    text = {row: index.scheme.identity(p) for row, p in seen.items()}
    out, moved, copies = {}, set(), {}
    for (a, b), distance in found.items():
        if text.get(a) and text.get(a) == text.get(b):
            for row, other in ((a, b), (b, a)):
                if row in probes:
                    copies.setdefault(row, {}).update({row: distance, other: distance})
        else:
            out[a, b] = distance
    for row, mine in copies.items():
        first = _first(mine)
        if first != row:
            out[row, first] = mine[first]
            continue
        out.update(((other, row), d) for other, d in mine.items() if other != row)
        stored = set(mine) - set(probes)  # the batch's rows were unlinked before filing
        if stored:
            previous = _first(stored)
            moved.update((other, previous) for other in stored - {previous})
    for was, rest in orphans:
        mine = {m for m in copies if text.get(m) == was}
        if not rest or _first(rest | mine) in mine:
            continue  # a row of the batch of this text is the first now, and linked them
        first = _first(rest | mine)
        out.update(((m, first), 0) for m in rest if m != first)
    return out, moved


def _recheck(index: Incremental, matches: Matches, found: dict[tuple, Any], probes: dict[Any, Any]) -> int:
    """Check each pair with a row outside the batch against what that row is now: another
    worker may have changed or removed it after the lookup, and cleared its matches
    before this transaction wrote the pair. Returns the pairs kept."""
    now = {**index.current({r for pair in found for r in pair if r not in probes}), **probes}
    stale, moved = [], []
    for (a, b), distance in found.items():
        if a in probes and b in probes:
            continue
        # the text alone: a pair linked through a third row has no evidence of its own
        d = index.scheme.relate(now[a], now[b])[0] if a in now and b in now else None
        if d is None:
            stale.append((a, b))
        elif d != distance:
            moved.append((a, b, d))
    matches.forget_pairs(stale)
    matches.write(moved)
    return len(found) - len(stale)


def _linked_through(index: Incremental, matches: Matches, rows: Sequence) -> set[tuple]:
    """The stored pairs of two rows outside the batch that both match one of its rows (or a
    copy of a row it matches: pairs.Similar links copies to the first of them only), both
    directions: that row may be what linked them (corroboration.py, through_a_third), and
    it is changing or gone."""
    if not index.scheme.links:
        return set()
    batch = set(rows)
    groups = [near - batch for near in matches.partners(rows).values()]
    copies = matches.partners(sorted(set().union(*groups), key=str), distance=0) if groups else {}
    groups = [group.union(*(copies.get(m, set()) for m in group)) - batch for group in groups]
    groups = [group for group in groups if len(group) > 1]
    around = sorted(set().union(*groups), key=str)
    return {(a, b) for a, b in matches.pairs_among(around)
            if any(a in group and b in group for group in groups)}


def _unlink(index: Incremental, matches: Matches, linked: set[tuple], found: dict[tuple, Any]) -> None:
    """Forget the pairs of `linked` that this batch did not find again and that are pairs
    no more: compared neither for a key they share nor for a third row paired with both by
    a key and evidence, or with no evidence of their own and no such row to corroborate
    them (in the matches as this batch leaves them), each row as the index holds it."""
    doubtful = {_ordered(pair) for pair in linked} - {_ordered(pair) for pair in found}
    if not doubtful:
        return
    now: dict[Any, Any] = {}
    keys: dict[Any, set] = {}
    near = _stored_partners(index, matches, {r for pair in doubtful for r in pair}, now, keys)
    common = {(a, b): (near.get(a, set()) & near.get(b, set())) - {a, b} for a, b in doubtful}
    relate = index.scheme.relate
    edges, weak, kept = {}, [], set()
    for a, b in doubtful:
        if a not in now or b not in now:
            continue
        for row, other in product((a, b), common[a, b] & now.keys()):
            if (row, other) not in edges and keys[row] & keys[other]:
                edges[row, other] = relate(now[row], now[other])[1]
        third = any(edges.get((a, c)) and edges.get((b, c)) for c in common[a, b])
        distance, evidence = relate(now[a], now[b])
        if evidence and (keys[a] & keys[b] or third):
            kept.add((a, b))
        elif distance is not None and not evidence:
            weak.append((a, b))
    kept.update(corroborated({pair: e for pair, e in edges.items() if e}, weak))
    matches.forget_pairs(doubtful - kept)


def _ordered(pair: tuple) -> tuple:
    return tuple(sorted(pair, key=str))


def _first(rows: set) -> Any:
    """The first of rows in id order, as the batch reads them: the one copies link to."""
    return min(rows)
