"""The stages of 集中处理 that do not depend on the engine: batch.py runs them on one
machine, spark.py in its executors and at its driver. A chunk of rows is sketched
(`sketch`), its rows new or changed since the store held them are filed with the run's
manifest (`file_chunk`), the pairs found are grouped (`core.pairs.groups_of`), the results are made
live (`go_live`), and the rows that incremental writers changed meanwhile are decided
again (`replay`). What an engine does itself is how it spreads these over its machines,
and how it finds the pairs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import numpy as np

from .. import killpoints
from ..config import Config
from ..errors import DedupError
from ..core import decision
from ..core.decision import Verdict, id_order, pair_key
from ..core.pairs import Pairs, groups, groups_of  # noqa: F401  (stages.groups_of: the engines import it here)
from ..core.schemes import Scheme, scheme_of
from ..core.shingles import Sets, SketchTable
from ..sql import decisions, matchtable, queue
from ..sql.source import LeftOut, SqlSource
from ..store.index import Held, Record, Store
from ..core.features import content_hashes
from . import matters
from .incremental import Incremental
from .worker import WatchSettings, Worker, tables


class Chunk(NamedTuple):
    """What the batch needs of a chunk of rows."""

    ids: list
    hashes: list[str]
    fingerprints: np.ndarray
    keys: Sets
    sketches: list  # what the store keeps of each row's sketch (None for fingerprints)
    table: SketchTable | None  # what the scheme compares, for shingles (its keys are `keys`)
    marks: list = []  # each row's mark for the matters stage (jobs/matters.py; [] when it is off)

    def record(self, n: int, table: str) -> Record:
        """What the store holds of row n."""
        keys = tuple(self.keys.values[self.keys.starts[n]:self.keys.starts[n + 1]].tolist())
        return Record(table, self.ids[n], int(self.fingerprints[n]), self.hashes[n], keys, self.sketches[n])


def sketcher(config: Config) -> tuple[Config, Scheme]:
    """What `sketch` needs, made once per process (a scheme's tokenizer does not cross processes)."""
    return config, scheme_of(config)


def sketch(rows: list[dict], state: tuple[Config, Scheme]) -> Chunk:
    """What the batch needs of a chunk of rows (`sketcher(config)` its state)."""
    config, scheme = state
    probes = scheme.probes(rows)
    table = SketchTable.of(probes) if scheme.sketch_stored else None
    return Chunk([row[config.source.id_column] for row in rows],
                 content_hashes(rows, config.fields, scheme.settings),
                 np.array([scheme.fingerprint(p) for p in probes], np.uint64),
                 table.keys if table else Sets.of([np.array(scheme.keys(p), np.uint64) for p in probes]),
                 [scheme.sketch(p) for p in probes], table, matters.marks_of(rows, config))


class Filed(NamedTuple):
    """What filing a chunk wrote: row documents of rows new to the store and of rows
    changed, and the manifest documents."""

    added: int
    changed: int
    documents: int


def file_chunk(store: Store, run: str, table: str, chunk: Chunk, held: Mapping[Any, str],
               first: int) -> Filed:
    """Write the chunk's part of the run's manifest (its documents numbered from `first`),
    then file its rows new or changed since the store held them (`held`: {row: content
    hash}): the manifest first, so that a kill in between leaves a list of what was filed."""
    before = [held.get(row) for row in chunk.ids]
    new = [n for n, (old, content) in enumerate(zip(before, chunk.hashes)) if old is None]
    changed = [n for n, (old, content) in enumerate(zip(before, chunk.hashes)) if old is not None and old != content]
    documents = store.write_manifest(run, chunk.ids, chunk.hashes, first=first)
    # A new row needs no `fresh`: the buckets about to go live hold it. A changed one
    # does, until they do: the live buckets hold what it was.
    filing = store.filing()
    filing.new(chunk.record(n, table) for n in new)
    filing.changed(chunk.record(n, table) for n in changed)
    killpoints.reached("batch.filed")
    return Filed(len(new), len(changed), documents)


@dataclass
class BatchResult:
    ids: list
    fingerprints: np.ndarray
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray]  # each copy linked to its original (pairs.Similar)
    groups: list[list]
    seconds: dict[str, float] = field(default_factory=dict)
    run: str = ""
    added: int = 0  # row documents written: rows new to the store
    changed: int = 0  # rows whose content changed since the store held them
    removed: int = 0  # rows the store held that the table no longer has
    replayed: int = 0  # rows changed by incremental writers while the batch ran
    dedup_match: int | None = None  # rows written to dedup_match (None: the table is not there)
    copies: int = 0  # rows with the text of an earlier row, linked to it rather than to each other
    read: int = 0  # rows read from the table
    sketched: int = 0  # rows sketched: every row, or for a re-run those changed
    decided: int = 0  # rows whose pairs were decided: every row, or for a re-run those around a change
    rerun: bool = False  # whether only the rows changed since the last batch were sketched (rerun.py)
    queue: int | None = None  # items left for a reviewer in dedup_possible (None: the table is not there)
    left_out: list[LeftOut] = field(default_factory=list)  # rows read that cannot be read as text, in id order
    matters: Any = None  # what the matters stage did (jobs.matters.Found; None: not run)

    @property
    def rows(self) -> int:
        return len(self.ids)

    def obey(self, live: Live) -> None:
        """Take what going live wrote: the pairs and groups as reviewers decided them."""
        self.dedup_match, self.removed, self.queue, self.matters = live.dedup_match, live.removed, live.queue, live.matters
        self.pairs, self.groups = live.found.pairs, live.found.groups

    @property
    def rows_with_similar(self) -> int:
        return sum(len(g) for g in self.groups)


NONE: Pairs = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))


class Found(NamedTuple):
    """What a batch found of the table's `rows` rows: its pairs (positions in `ids`, each
    copy linked to its original: pairs.Similar.linked), groups, and the possible pairs the
    rule cannot settle (decision.Decided.possible)."""

    rows: int
    ids: Sequence
    pairs: Pairs
    groups: list[list]
    possible: Pairs | None = NONE  # None: not looked for (Spark); the queue is left as it is


class Live(NamedTuple):
    """What making a run live wrote: rows of dedup_match (None: the table is not there),
    the rows forgotten, gone from the table, and what was found as reviewers decided it."""

    dedup_match: int | None
    removed: int
    found: Found
    queue: int | None = None  # items in the queue (None: dedup_possible is not there)
    matters: matters.Found | None = None  # what the matters stage did (None: no dedup_matter, or [matters] find off)


class Obeyed(NamedTuple):
    """The pairs found as reviewers decided them (`confirmed`: those a reviewer made the
    same), and the queue left for them."""

    found: Found
    confirmed: np.ndarray
    queue: list[queue.Item]


def obeyed(config: Config, found: Found) -> Obeyed:
    """What was found, as the reviewers' standing verdicts have it (decision.obey): a pair
    decided different dropped, one decided the same kept or made; the queue without the
    pairs decided or grouped anyway."""
    with SqlSource(config) as source:
        verdicts = decisions.verdicts(source)
    ids, pairs, confirmed = _obey(found.ids, found.pairs, verdicts)
    label = groups(len(ids), pairs[0], pairs[1])
    i, j, d = NONE if found.possible is None else found.possible
    open_ = label[i] != label[j]
    decided = {pair for pair, v in verdicts.items() if not v.stale}
    if decided:  # only a pair of two decided rows can be a decided pair
        rows = {r for pair in decided for r in pair}
        mine = np.array([row in rows for row in ids], bool)
        for n in np.flatnonzero(open_ & mine[i] & mine[j]).tolist():
            open_[n] = pair_key(ids[i[n]], ids[j[n]]) not in decided
    left = queue.items_of(ids, (i[open_], j[open_], d[open_]))
    if pairs is not found.pairs:
        found = found._replace(ids=ids, pairs=pairs, groups=groups_of(list(ids), pairs))
    return Obeyed(found, confirmed, left)


def _obey(ids: Sequence, pairs: Pairs, verdicts: dict[tuple, Verdict]) -> tuple[Sequence, Pairs, np.ndarray]:
    """decision.obey over pairs of positions in `ids` (only the pairs between decided rows
    are looked at); a decided row `ids` lacks (Spark lists the rows in pairs only) is
    added after them."""
    i, j, d = pairs
    wanted = {r for pair, v in verdicts.items() if not v.stale for r in pair}
    if not wanted:
        return ids, pairs, np.zeros(len(i), bool)
    at = {row: n for n, row in enumerate(ids) if row in wanted}
    if len(at) < len(wanted):
        ids = [*ids, *sorted(wanted - at.keys(), key=id_order)]
        at = {row: n for n, row in enumerate(ids) if row in wanted}
    mine = np.zeros(len(ids), bool)
    mine[list(at.values())] = True
    touch = mine[i] & mine[j]
    decided = {pair: v for pair, v in verdicts.items() if pair[0] in at and pair[1] in at}
    kept, confirmed = decision.obey({pair_key(ids[a], ids[b]): x for a, b, x in
                                     zip(i[touch].tolist(), j[touch].tolist(), d[touch].tolist())}, decided)
    ni = np.array([min(at[a], at[b]) for a, b in kept], np.int64)
    nj = np.array([max(at[a], at[b]) for a, b in kept], np.int64)
    i, j = np.concatenate([i[~touch], ni]), np.concatenate([j[~touch], nj])
    d = np.concatenate([d[~touch], np.array(list(kept.values()), float)])
    made = np.concatenate([np.zeros(int((~touch).sum()), bool), np.array([p in confirmed for p in kept], bool)])
    order = np.lexsort((j, i))
    return ids, (i[order], j[order], d[order]), made[order]


def go_live(config: Config, store: Store, run: str, found: Found, bits: int, gone: list, held: Held,
            filed: Callable[[set], Mapping[Any, str]], sketches: str = "", left_out: Sequence[LeftOut] = (),
            marks: Mapping[Any, Any] | None = None) -> Live:
    """Write the run's pairs and groups, forget the rows the table no longer has (`gone`;
    `held` as store.stored gave it: before the switch, so that a kill leaves them listed for
    the next batch), switch the run live with its buckets (`bits`), the state it read
    (`sketches`: its token, sketches.py) and the rows it left out, dedup_match with it
    (`switch_live`), then fold the fresh rows the buckets now hold as they are stored
    (`filed(rows)`: {row: content hash the run filed} of these rows), and find the matters
    from the `marks` of the rows read (None: read the table for them)."""
    table = config.source.table
    written = write_results(config, store, run, found)
    killpoints.reached("batch.results")
    removed = store.filing().gone(table, gone, held.rows)
    killpoints.reached("batch.removed")
    settled = settle_matters(config, marks)
    said = summary(written.found, sketches, left_out, matters.settings(config) if settled else "")
    dedup_match = switch_live(config, store, run, written, lambda: store.switch(run, said, bits))
    killpoints.reached("batch.switched")
    trim()
    fresh = store.fresh(table)
    store.fold(table, filed(fresh) if fresh else {})
    store.clear_removed(held.removed)
    store.reclaim()  # the generations the switch dropped
    return Live(dedup_match, removed, written.found, written.queue, settled)


def settle_matters(config: Config, marks: Mapping[Any, Any] | None) -> matters.Found | None:
    """The matters stage (jobs/matters.py) from the marks of every row the run read (None:
    the table read for them), before the switch and the replay: a row changed since the run
    read it is among those `replay` works out again."""
    if not config.matters.find:
        return None
    with SqlSource(config) as source:
        return matters.find(config, source) if marks is None else matters.settle_all(config, source, marks)


class Written(NamedTuple):
    """The run's results as written to the store: what was found as reviewers decided it,
    the pairs a reviewer made the same, and the queue's items (None: no dedup_possible)."""

    found: Found
    confirmed: np.ndarray
    queue: int | None


def write_results(config: Config, store: Store, run: str, found: Found) -> Written:
    """Write the run's pairs and groups as reviewers decided them, and the queue."""
    found, confirmed, left = obeyed(config, found)
    store.write_matches(run, found.ids, *found.pairs)
    store.write_groups(run, found.groups)
    return Written(found, confirmed, None if found.possible is None else queue.write(config, left))


def switch_live(config: Config, store: Store, run: str, written: Written, switch: Callable[[], None]) -> int | None:
    """Make dedup_match hold the run's pairs in the transaction that `switch`es the run live,
    committed once the store's pointer names it: a failure before leaves dedup_match as the
    live generation's (report and dedup_match agree), and a row changed in between was
    logged for `replay` to decide again. Returns the rows of dedup_match (None: no table)."""
    failed: list[DedupError] = []

    def switched() -> None:
        try:
            switch()
        except DedupError as e:  # after the pointer (dropping the generations before), dedup_match is the run's
            if _live_run(store) != run:
                raise
            failed.append(e)

    rows = matchtable.write_batch(config, written.found.ids, *written.found.pairs, written.confirmed, then=switched)
    if failed:
        raise failed[0]
    return rows


def _live_run(store: Store) -> str | None:
    """The run the store's pointer names, None when it cannot be read."""
    try:
        return (store.current_run() or {}).get("run")
    except DedupError:
        return None


def summary(found: Found, sketches: str, left_out: Sequence[LeftOut] = (), matters_by: str = "") -> dict[str, Any]:
    """What the live pointer says of a run: its figures, the state it read (`sketches`), the
    rows it left out, if any, the first LEFT_OUT_NAMED of them named, and the settings its
    matters were found with (`matters_by`, jobs.matters.settings; none: not found)."""
    left = {"left_out": len(left_out), "left_out_first": [list(row) for row in left_out[:LEFT_OUT_NAMED]]}
    return {"rows": found.rows, "pairs": len(found.pairs[0]), "groups": len(found.groups),
            "rows_with_similar": sum(len(g) for g in found.groups), "sketches": sketches,
            **(left if left_out else {}), **({"matters": matters_by} if matters_by else {})}


LEFT_OUT_NAMED = 5  # rows left out that a batch names (in the live pointer, `status`, the summary)


def replay(config: Config, store: Store, matches: bool) -> int:
    """File (or remove) each row an incremental writer changed while the batch ran, as the
    table has it now, and write its matches to dedup_match (if there is one) as `watch`
    does: the batch's pairs of it were found in what the table was."""
    ids = store.changed(config.source.table)
    index = Incremental(store, config)
    with SqlSource(config) as source, source.errors("check again the rows changed during the batch of"):
        index.verdicts = decisions.reader(source)
        if matches and ids:
            worker = Worker(config, WatchSettings(), source, index, tables(source))
            with source.engine.connect() as conn, conn.begin():
                worker.process(conn, sorted(ids, key=str))
        else:
            present = {row[config.source.id_column]: row for row in source.rows_by_id(ids)}
            for row_id in ids:
                if row_id in present:
                    index.add(row_id, present[row_id])
                else:
                    index.remove(row_id)
    # Writers log only while a run builds, which the switch ended: this log is done.
    store.clear_changed()
    return len(ids)


def trim() -> None:
    """Give the memory freed by a stage back to the system: glibc keeps it otherwise, in
    the arenas of the threads that used it (the embedded server's among them), and a
    batch's peak RSS would be the sum of its stages' peaks rather than their maximum."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _libc()
