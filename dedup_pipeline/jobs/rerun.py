"""集中处理 again over a table that barely changed: a re-run that costs what changed. It reads
the table's content hashes in one pass, sketches only the rows added or changed since the
last batch read it (sketches.py keeps what that batch read), decides again only the pairs
that may differ, and writes the rows, pairs and groups they change. The buckets stay the
live ones: the rows changed since are filed `fresh` beside them (store/index.py), listed
first in the run's manifest, so that a run killed before going live leaves them to the next.

Which pairs may differ: a pair's decision depends only on its two rows, the rows sharing a
key with either, and what those share a key with (decision.py: the rows a third row links;
the copies of a text, which share its keys). So every pair that a change can alter has a row
sharing a key with a changed row, as it was or as it is. Those rows are the focus, decided
again over the rows around them as the whole table would (`decision.decide`, read until its
centre holds no row not read, as `Incremental.decide` reads the store); every other pair
stands. The result equals a clean batch's (tests/test_rerun_changes.py).
"""

from __future__ import annotations

import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

import numpy as np

from .. import killpoints
from ..config import Config
from ..core.pairs import Pairs, originals
from ..core.schemes import Scheme, scheme_of
from ..core.shingles import SketchTable
from ..core.decision import id_order
from ..sql.source import LeftOut, SqlSource
from ..store.index import MANIFEST_ROWS, Held, Store, batched
from ..store.protocol import CHANGED
from ..store.results import Behind
from ..core.features import FeatureError, column_hashes
from . import matters
from .parallel import chunks_mapped, cores
from .sketches import Kept, SketchLog, forget_others, new_token
from .stages import (NONE, BatchResult, Chunk, Found, Live, groups_of, replay, sketch, sketcher, summary,
                     switch_live, write_results)

MARK_BITS = 25  # a key's low bits address a bit of this many: marked keys are found in one pass
SCAN_PART = 1 << 20  # keys of the log scanned at once (8 MB), a part a thread
SPAN_ROWS = 50_000  # rows of the table a core reads and hashes at once
FILING_DEPTH = 16  # chunks of rows changed waiting to be filed at most (32,000 rows: a night's, and 50 MB)


class Table(NamedTuple):
    """The table as this run read it (id order): each row's content hash and slot in the
    log, and its position among the last batch's rows (-1: new)."""

    ids: list
    hashes: np.ndarray
    at: np.ndarray
    was: np.ndarray
    changed: np.ndarray  # positions of the rows new or changed since the last batch read them
    sketched: int  # rows sketched and filed again (changed, or differing from what the store holds)
    left_out: Sequence[LeftOut] = ()  # rows that cannot be read as text, not among `ids`: as if the table had them not
    marks: Mapping[Any, Any] = {}  # {row: its mark, None for none} of the rows sketched, for the matters stage

    def gone(self, kept: Kept) -> np.ndarray:
        """Positions, among the last batch's rows, of those the table no longer has."""
        here = np.zeros(len(kept.ids), bool)
        here[self.was[self.was >= 0]] = True
        return np.flatnonzero(~here)


def rerun(config: Config, store: Store, run: str, folder: Path, kept: Kept, on_progress: Callable[[int], None],
          processes: int | None) -> BatchResult:
    """The batch of `run`, from the live state `kept`: its pairs and groups are a clean batch's."""
    seconds: dict[str, float] = {}
    scheme = scheme_of(config)
    log = SketchLog(folder / kept.log, kept.slots)
    start = time.perf_counter()
    # what the store holds otherwise than the last run's state: what others filed since
    held = store.since(config.source.table, batched=False)
    # the rows changed are filed, and those gone removed, while the pairs are found
    with Behind(FILING_DEPTH) as filing:
        with chunks_mapped(config, processes, sketcher, sketch) as sketched:
            table = _read(config, store, run, kept, log, held, sketched, on_progress, filing)
        gone = table.gone(kept)
        # what the store holds otherwise and the table has not, but for rows removed in an earlier night:
        # the log keeps them until a full batch, and removing them again each night cost more each night
        gone_ids = sorted({*(kept.ids[n] for n in gone.tolist()), *(held.rows.keys() - held.logged - set(table.ids))},
                          key=str)
        filing.then(store.filing().removed, config.source.table, gone_ids)  # logged: the buckets still file them
        seconds["read+fingerprint"] = time.perf_counter() - start

        start = time.perf_counter()
        near = _Near(log, table, cores(config, processes))
        was = table.was[table.changed]
        # the rows sharing a key with a changed row as it was (or a row gone) or as it is
        focus = np.union1d(table.changed, near.under(np.concatenate(
            [kept.at[gone], kept.at[was[was >= 0]], table.at[table.changed]])))
        pairs, possible = _pairs(scheme, log, near, kept, table, focus)
        seconds["pairs"] = time.perf_counter() - start

        start = time.perf_counter()
        found = Found(len(table.ids), table.ids, pairs, groups_of(table.ids, pairs), possible)
        seconds["groups"] = time.perf_counter() - start
        start = time.perf_counter()
    seconds["rest of filing"] = time.perf_counter() - start
    killpoints.reached("batch.filed")
    killpoints.reached("batch.removed")

    start = time.perf_counter()
    new = int(np.count_nonzero(table.was[table.changed] < 0))
    result = BatchResult(table.ids, log.values("fingerprints")[table.at], pairs, found.groups, seconds, run,
                         added=new, changed=table.sketched - new, copies=_copies(scheme, log, table),
                         read=len(table.ids), sketched=table.sketched, decided=len(focus), rerun=True,
                         left_out=list(table.left_out))
    state = Kept(new_token(), kept.log, log.slots, kept.base, table.ids, table.hashes, table.at, pairs, possible)
    removed = filing.results[-1]  # the last call made behind: the rows gone
    found_matters = _matters(config, store, table, gone_ids)
    seconds["matters"] = time.perf_counter() - start
    start = time.perf_counter()
    result.obey(_go_live(config, store, run, found, removed, state, folder, _as_read(held, table), table.left_out,
                         found_matters))
    seconds["store"] = time.perf_counter() - start
    result.replayed = replay(config, store, result.dedup_match is not None)
    return result


def _read(config: Config, store: Store, run: str, kept: Kept, log: SketchLog, held: Held, sketched: Any,
          on_progress: Callable[[int], None], filing: Behind) -> Table:
    """Read every row's content hash, a range of ids on each core (`hashed`), sketching the
    rows that differ from what the last batch read, or from what the store holds (`held`):
    into the log, and filed in the store (`filing`), listed in run's manifest first, while
    the rest is read."""
    spans = _spans(kept, held, _finder(kept.ids))
    ids: list = []
    hashes, was, differ, slots, left_out = [], [], [], [], []
    marks: dict = {}
    listed = 0  # manifest documents
    for span, got in zip(spans, sketched(spans, hashed)):
        if got.sketched is not None:
            differ += [len(ids) + n for n in got.differ]
            marks.update(zip(got.sketched.ids, got.sketched.marks))
            slots.append(log.append(got.sketched.fingerprints, got.sketched.keys, got.sketched.table))
            filing.then(store.write_manifest, run, got.sketched.ids, got.sketched.hashes, first=listed)
            listed += -(-len(got.sketched.ids) // MANIFEST_ROWS)
            # the rows the last batch read are replaced, the others inserted
            read_before = got.was[got.differ] >= 0
            for stored, write in ((True, store.filing().replaced), (False, store.filing().changed)):
                for part in batched(np.flatnonzero(read_before == stored).tolist(), config.batch.chunk_size):
                    filing.then(write, [got.sketched.record(n, config.source.table) for n in part])
        ids += got.ids
        hashes.append(got.hashes)
        was.append(np.where(got.was >= 0, got.was + span.first, -1))
        left_out += got.left_out
        on_progress(len(got.ids) + len(got.left_out))
    hashes_now, was_all = np.concatenate(hashes), np.concatenate(was)  # one span at least, if empty
    at = _where(kept.at, was_all, -1)
    if differ:
        at[differ] = np.concatenate(slots)
    changed = np.flatnonzero(_where(kept.hashes, was_all, b"") != hashes_now)
    return Table(ids, hashes_now, at, was_all, changed, len(differ), left_out, marks)


class Span(NamedTuple):
    """A range of the table's ids, (after, until] (None: open), with what the last batch read
    of its rows (`ids`, in id order, and their content `hashes`) and what the store holds of
    them otherwise (`held`, {row: content hash})."""

    after: Any
    until: Any
    first: int  # the position of its first row among the last batch's
    ids: list
    hashes: np.ndarray
    held: dict


class Hashed(NamedTuple):
    """The rows of a span: their ids, content hashes and positions among the span's rows of
    the last batch (-1: new) in id order, and the positions and sketches of those sketched
    again (None: none)."""

    ids: list
    hashes: np.ndarray  # S16
    was: np.ndarray
    differ: list[int]
    sketched: Chunk | None
    left_out: list[LeftOut]  # rows that cannot be read as text, not among `ids`


def _spans(kept: Kept, held: Held, find: Callable[[list], np.ndarray]) -> list[Span]:
    """The table in ranges of SPAN_ROWS of the last batch's rows, the first from its start
    and the last to its end, so that every row there now is in one."""
    n = len(kept.ids)
    firsts = list(range(0, n, SPAN_ROWS)) or [0]
    ends = firsts[1:] + [n]
    held_rows = list(held.rows)
    where = find(held_rows)
    span_of = np.searchsorted(np.array(firsts[1:], np.int64), where, side="right")
    by_span: list[dict] = [{} for _ in firsts]
    for row, position, span in zip(held_rows, where.tolist(), span_of.tolist()):
        if position >= 0:  # a row the last batch did not read is sketched whatever the store holds
            by_span[span][row] = held.rows[row]
    return [Span(kept.ids[lo - 1] if lo else None, kept.ids[hi - 1] if hi < n else None, lo, kept.ids[lo:hi],
                 kept.hashes[lo:hi], by_span[k]) for k, (lo, hi) in enumerate(zip(firsts, ends))]


def hashed(span: Span, state: tuple[Config, Scheme]) -> Hashed:
    """Read the rows of a span, hash their content, and sketch those that differ (a
    worker's part of `_read`); a row that cannot be read as text is left out."""
    config, scheme = state
    differs = _Differs(span)
    ids: list = []
    hashes, was, differ, left_out = [], [], [], []
    with SqlSource(config) as source:
        for read in source.tuples(after=span.after, until=span.until, encoded=True):
            chunk = differs.chunk(source, read, scheme.settings)
            differ += [(len(ids) + n, row) for n, row in zip(chunk.again, chunk.rows)]
            ids += chunk.ids
            hashes.append(chunk.hashes)
            was.append(chunk.was)
            left_out += chunk.left_out
    return Hashed(ids, np.concatenate(hashes) if hashes else np.zeros(0, "S16"),
                  np.concatenate(was) if was else np.zeros(0, np.int64), [n for n, _ in differ],
                  sketch([row for _, row in differ], state) if differ else None, left_out)


class _Chunk(NamedTuple):
    """A chunk of a span as `hashed` takes it: its rows' ids, content hashes and positions
    among the span's rows of the last batch, the rows that differ (`again`: their
    positions) as rows, and the rows left out (not among the others)."""

    ids: list
    hashes: np.ndarray
    was: np.ndarray
    again: list[int]
    rows: list[dict]
    left_out: list[LeftOut]


class _Differs:
    """Which rows of a span's chunks differ from what the last batch read of them, or from
    what the store holds of them otherwise."""

    def __init__(self, span: Span):
        self.span, self.find, self.held = span, _finder(span.ids), _finder(list(span.held))
        self.held_hashes = np.array(list(span.held.values()), "S16")

    def chunk(self, source: SqlSource, read: list, settings: str) -> _Chunk:
        """A chunk read (`tuples`, `encoded`), its rows that differ decoded. A text hashed as
        its bytes may not decode: the chunk is taken again without the rows it is in."""
        read, chunk_ids, contents, left_out = _ids_and_hashes(source, read, settings)
        packed, where = np.array(contents, "S16"), self.find(chunk_ids)
        differs = _where(self.span.hashes, where, b"") != packed
        if self.span.held:  # a row the store holds otherwise than the last batch read it
            stored = self.held(chunk_ids)
            differs |= (stored >= 0) & (_where(self.held_hashes, stored, b"") != packed)
        again = np.flatnonzero(differs).tolist()
        rows, unread = source.readable(source.decoded(read[n] for n in again))
        if unread:
            gone = {row.row for row in unread}
            done = self.chunk(source, [row for row in read if row[0] not in gone], settings)
            return done._replace(left_out=sorted([*left_out, *unread, *done.left_out], key=lambda r: id_order(r.row)))
        return _Chunk(chunk_ids, packed, where, again, rows, left_out)


def _ids_and_hashes(source: SqlSource, read: list, settings: str) -> tuple[list, list, list[str], list[LeftOut]]:
    """The rows read (`SqlSource.tuples`, `encoded`) whose content can be hashed, their ids
    and content hashes, a column at a time (rows as dicts cost a fifth of a night's
    reading), and the others left out, found one row at a time once the rows together fail."""
    try:
        return read, *_column_hashes(source, read, settings), []
    except FeatureError:
        pass
    kept, left_out = [], []
    for row in read:
        try:
            _column_hashes(source, [row], settings)
            kept.append(row)
        except FeatureError as e:
            left_out.append(LeftOut.of(row, e))
    return kept, *_column_hashes(source, kept, settings), left_out


def _column_hashes(source: SqlSource, read: list, settings: str) -> tuple[list, list[str]]:
    """The ids and content hashes of rows read (`SqlSource.tuples`, `encoded`)."""
    if not read:
        return [], []
    columns = dict(zip(source.columns, zip(*read)))
    return list(columns[source.columns[0]]), column_hashes(columns, len(read), source.config.fields, settings,
                                                           encoded=source.encodes)


def _where(values: np.ndarray, positions: np.ndarray, missing: Any) -> np.ndarray:
    """values[positions], `missing` where a position is -1."""
    out = np.full(len(positions), missing, values.dtype)
    found = positions >= 0
    out[found] = values[positions[found]]
    return out


def _finder(ids: list) -> Callable[[list], np.ndarray]:
    """Where each of some ids is in `ids` (-1: not there)."""
    if ids and set(map(type, ids)) == {int}:
        known = np.array(ids, np.int64)
        order = np.argsort(known, kind="stable")
        ordered = known[order]

        def find(wanted: list) -> np.ndarray:
            if not set(map(type, wanted)) <= {int}:
                return np.array([-1] * len(wanted), np.int64)
            w = np.array(wanted, np.int64)
            p = np.minimum(np.searchsorted(ordered, w), len(ordered) - 1)
            return np.where(ordered[p] == w, order[p], -1)
        return find
    position = {row: n for n, row in enumerate(ids)}
    return lambda wanted: np.array([position.get(row, -1) for row in wanted], np.int64)


class _Near:
    """The rows of the table sharing a key with some slots of the log."""

    def __init__(self, log: SketchLog, table: Table, threads: int = 1):
        self.log, self.keys, self.threads = log, log.sets("keys"), threads
        self.row = np.full(log.slots, -1, np.int64)  # each slot's row, -1 for a slot no row holds now
        self.row[table.at] = np.arange(len(table.ids))

    def under(self, slots: np.ndarray) -> np.ndarray:
        """Positions of the rows filed under a key of one of these slots (theirs included)."""
        marked = np.unique(self.keys.take(np.asarray(slots, np.int64)).values) if len(slots) else np.zeros(0, np.uint64)
        if not len(marked):
            return np.zeros(0, np.int64)
        mask = np.uint64((1 << MARK_BITS) - 1)
        bitmap = np.zeros(1 << MARK_BITS, bool)
        bitmap[(marked & mask).view(np.int64)] = True

        def hits(first: int, values: np.ndarray) -> np.ndarray:
            maybe = np.flatnonzero(bitmap[(values & mask).view(np.int64)])
            found = values[maybe]
            at = np.minimum(np.searchsorted(marked, found), len(marked) - 1)  # np.isin sorts both: 5x slower
            return maybe[marked[at] == found] + first

        # numpy lets go of the GIL for each step: the parts are scanned on as many cores
        with ThreadPoolExecutor(self.threads) as pool:
            entries = [f.result() for f in _ahead(pool, hits, self.log.scan("keys", SCAN_PART), self.threads)]
        slots_hit = np.searchsorted(self.keys.starts, np.concatenate(entries), side="right") - 1
        rows = self.row[slots_hit]
        return np.unique(rows[rows >= 0])


def _ahead(pool: ThreadPoolExecutor, call: Callable, parts: Iterable[tuple], depth: int) -> Iterator[Future]:
    """call(*part) of each part in the pool, in order, `depth` more submitted than taken."""
    pending: deque[Future] = deque()
    for part in parts:
        pending.append(pool.submit(call, *part))
        if len(pending) > depth:
            yield pending.popleft()
    yield from pending


def _pairs(scheme: Scheme, log: SketchLog, near: _Near, kept: Kept, table: Table, focus: np.ndarray
           ) -> tuple[Pairs, Pairs]:
    """The table's pairs as stored (pairs.Similar.linked) and its possible pairs: those of
    the focus rows decided again, the others as the last batch stored them."""
    now, possible = _decided(scheme, log, near, table, focus)
    moved = np.full(len(kept.ids), -1, np.int64)  # each of the last batch's rows, where it is now
    moved[table.was[table.was >= 0]] = np.flatnonzero(table.was >= 0)
    untouched = np.ones(len(table.ids), bool)
    untouched[focus] = False
    return _merged(now, kept.pairs, moved, untouched), _merged(possible, kept.possible, moved, untouched)


def _merged(now: Pairs, before: Pairs, moved: np.ndarray, untouched: np.ndarray) -> Pairs:
    """The pairs decided again (`now`) with those `before` between two untouched rows,
    `moved` to where their rows are now."""
    oi, oj = moved[before[0]], moved[before[1]]
    stand = (oi >= 0) & (oj >= 0) & untouched[np.maximum(oi, 0)] & untouched[np.maximum(oj, 0)]
    i, j = np.concatenate([now[0], oi[stand]]), np.concatenate([now[1], oj[stand]])
    d = np.concatenate([now[2], before[2][stand]])
    order = np.lexsort((j, i))
    return i[order].astype(np.int64), j[order].astype(np.int64), d[order]


def _decided(scheme: Scheme, log: SketchLog, near: _Near, table: Table, focus: np.ndarray) -> tuple[Pairs, Pairs]:
    """The pairs as stored, and the possible pairs, of the focus rows (positions in the
    table), decided over the rows sharing a key with the decision's centre, read until it
    holds no row not read; on as many threads as the scan of the log."""
    if not len(focus):
        return NONE, NONE
    compared = log.table() if scheme.sketch_stored else log.values("fingerprints")
    around, looked, known = np.union1d(focus, near.under(table.at[focus])), focus, None
    while True:
        in_focus = np.isin(around, focus)
        decided = scheme.decide(_take(compared, table.at[around]), in_focus, near.threads, around, known)
        known = decided.known  # a round confirms only the pairs the last did not
        new = np.setdiff1d(around[decided.centre], looked)
        if not len(new):
            break
        around, looked = np.union1d(around, near.under(table.at[new])), np.union1d(looked, new)
    i, j, d = decided.similar.linked()
    mine = in_focus[i] | in_focus[j]
    pi, pj, pd = decided.possible
    return (around[i[mine]], around[j[mine]], d[mine]), (around[pi], around[pj], pd)


def _take(compared: SketchTable | np.ndarray, slots: np.ndarray) -> SketchTable | np.ndarray:
    """What the scheme compares of these slots, in this order."""
    if not isinstance(compared, SketchTable):
        return compared[slots]
    t = compared
    return SketchTable(t.shingles.take(slots), t.verbatim.take(slots), t.people[slots], t.keys.take(slots),
                       t.identity[slots], t.text.take(slots), t.filed[slots])


def _copies(scheme: Scheme, log: SketchLog, table: Table) -> int:
    """Rows with the text of an earlier row (the batch's `copies`)."""
    if not scheme.sketch_stored:
        return len(table.ids) - len(np.unique(log.values("fingerprints")[table.at]))
    identity = log.values("identity")[table.at]
    return int(np.count_nonzero(originals(identity) != np.arange(len(identity))))


def _as_read(held: Held, table: Table) -> dict:
    """{row: content hash} of the rows other writers filed that the run read as they are
    stored: once it is live, its state holds them (store.adopt)."""
    fresh = {row: content for row, content in held.rows.items() if content != CHANGED}
    if not fresh:
        return {}
    where = _finder(table.ids)(list(fresh)).tolist()
    return {row: content for (row, content), n in zip(fresh.items(), where)
            if n >= 0 and table.hashes[n] == content.encode()}


def _matters(config: Config, store: Store, table: Table, gone: list) -> matters.Found | None:
    """The matters stage: only the parts of the rows read again and gone worked out again
    when the live batch's matters were found with these settings, else every row read for
    them (the first batch since `migrate` made dedup_matter, or new settings); before the
    switch and the replay, which works out again the rows changed since."""
    if not config.matters.find:
        return None
    live = (store.current_run() or {}).get("summary") or {}
    with SqlSource(config) as source:
        if live.get("matters") == matters.settings(config):
            return matters.settle_changed(config, source, table.marks, gone)
        return matters.find(config, source)


def _go_live(config: Config, store: Store, run: str, found: Found, removed: int, state: Kept, folder: Path,
             read: dict, left_out: Sequence[LeftOut], found_matters: matters.Found | None) -> Live:
    """Write the run's pairs and groups, switch the run live on the live buckets (`removed`:
    the rows gone it took out of the store) with the rows it left out and whether its
    matters were found, dedup_match with it (stages.switch_live), and then the rows other
    writers filed that it `read` as they are stored need not be read again."""
    written = write_results(config, store, run, found)
    killpoints.reached("batch.results")
    state.save(folder)  # before the switch that names it
    live = store.current_run() or {}
    said = summary(written.found, state.token, left_out, matters.settings(config) if found_matters else "")
    dedup_match = switch_live(config, store, run, written, lambda: store.switch(
        run, said, live.get("bucket_bits", 0), base=live.get("base") or live["run"]))
    killpoints.reached("batch.switched")
    store.adopt(config.source.table, read)
    forget_others(folder, state)
    store.reclaim()  # the generation the switch dropped, and the row documents written again
    return Live(dedup_match, removed, written.found, written.queue, found_matters)
