"""增量处理: check modes, add/update/remove, never a row against itself; check == a brute-force
scan; two processes adding near-identical rows at once; a process killed while adding."""

import csv
import multiprocessing
import random
import signal
import subprocess
import sys
import time
import tomllib
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.jobs.incremental import Incremental, Match
from dedup_pipeline.pipeline import Pipeline
from dedup_pipeline.core.schemes import featurizer
from dedup_pipeline.core.simhash import fingerprint_many
from dedup_pipeline.store.index import MongoStore, Record, ensure_indexes, memory_store

FP = 0xFFFF_0003_0002_0001

K = 3


def sample_config(scheme="simhash", **store):
    """The built-in configuration (the bundled sample's fields) with this scheme and these
    [store] keys."""
    data = tomllib.loads(default_config_text())
    data["store"] = store
    data["scheme"] = {**data.get("scheme", {}), "name": scheme}
    return parse_config(data, env={})


CONFIG = sample_config()


def sample_rows():
    with resources.files("dedup_pipeline").joinpath("data/sample_petitions.csv").open(encoding="utf-8") as f:
        return [{k: v or None for k, v in row.items()} | {"id": int(row["id"])} for row in csv.DictReader(f)]


def near_pairs(count):
    """Pairs of distinct sample rows 1..k bits apart, no row in two pairs."""
    rows = sample_rows()
    fps = fingerprint_many(rows, featurizer(CONFIG)).tolist()
    pairs, used = [], set()
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            if 1 <= (fps[i] ^ fps[j]).bit_count() <= K and not {i, j} & used:
                pairs.append((rows[i], rows[j]))
                used |= {i, j}
    assert len(pairs) >= count
    return pairs[:count]


@pytest.fixture
def index():
    with memory_store() as store:
        yield Incremental(store, CONFIG)


def file_fingerprint(index, row, fingerprint, table="petition"):
    """File a row by its fingerprint alone, as the SimHash scheme would file it."""
    index.store.file([Record(table, row, fingerprint, "", tuple(index.scheme.keys(fingerprint)))])


def brute_force(stored, fingerprint):
    distances = {row: (fp ^ fingerprint).bit_count() for row, fp in stored.items()}
    return {row: d for row, d in distances.items() if d <= K}


# -- modes, self, changes


def test_all_mode_lists_every_row_within_k_nearest_first(index):
    for row, bits in [(1, 0b1), (2, 0), (3, 0b111), (4, 0b1111), (5, 1 << 63 | 1 << 40)]:
        file_fingerprint(index, row, FP ^ bits)
    assert index.similar(FP) == [Match(2, 0), Match(1, 1), Match(5, 2), Match(3, 3)]


def test_exists_mode_gives_the_first_similar_row_or_nothing(index):
    file_fingerprint(index, 1, FP ^ 0b111)
    file_fingerprint(index, 2, FP ^ 0b1)
    [hit] = index.similar(FP, "exists")
    assert hit in (Match(1, 3), Match(2, 1))
    assert index.similar(FP ^ 0xFFFF_FFFF, "exists") == []


def test_a_row_is_never_similar_to_itself(index):
    row = {"title": "物业乱收费", "content": "小区物业乱收费，业主多次反映无果"}
    assert index.add_and_check(1, row) == []
    index.add(1, row)
    assert index.check(row, exclude=1) == []
    assert index.check(row) == [Match(1, 0)]


def test_add_and_check_finds_the_rows_added_before(index):
    row = {"title": "物业乱收费", "content": "小区物业乱收费，业主多次反映无果"}
    index.add(1, row)
    assert index.add_and_check(2, row) == [Match(1, 0)]
    assert index.add_and_check(3, row, "exists") in ([Match(1, 0)], [Match(2, 0)])


def test_a_text_is_checked_as_the_first_long_field(index):
    text = "小区物业乱收费，业主多次反映无果"
    index.add(1, {"content": text})
    assert index.check(text) == [Match(1, 0)]
    assert index.fingerprint(text) == index.fingerprint({"content": text})


def test_update_moves_a_row_to_its_new_neighbours(index):
    index.add(1, {"content": "小区物业乱收费，业主多次反映无果"})
    index.add(2, {"content": "工地夜间施工噪音扰民，严重影响休息"})
    index.update(1, {"content": "工地夜间施工噪音扰民，严重影响休息"})
    assert index.check("小区物业乱收费，业主多次反映无果") == []
    assert index.check("工地夜间施工噪音扰民，严重影响休息", exclude=2) == [Match(1, 0)]


def test_a_removed_row_is_no_longer_found(index):
    index.add(1, {"content": "小区物业乱收费"})
    assert index.remove(1) is True
    assert index.check("小区物业乱收费") == []
    assert index.remove(1) is False


def test_rows_of_other_tables_are_not_reported(index):
    file_fingerprint(index, 1, FP, "letter")
    assert index.similar(FP) == []


def test_an_unknown_mode_is_refused(index):
    with pytest.raises(ValueError, match="exists, all"):
        index.similar(FP, "some")


def test_rows_filed_together_find_each_other_and_earlier_rows(index):
    rows = sample_rows()
    index.add_many((row["id"], row) for row in rows[:600])
    batch = {row["id"]: row for row in rows[600:]}
    probes = {i: index.probe(row) for i, row in batch.items()}
    assert index.file_many((i, batch[i], p) for i, p in probes.items()) == len(batch)
    found = index.similar_many(probes)
    partners = {m.row for matches in found.values() for m in matches}
    assert partners & set(batch) and partners - set(batch)  # pairs within the batch and with earlier rows


def test_add_many_files_rows_as_add_does(index):
    rows = sample_rows()[:200]
    assert index.add_many((row["id"], row) for row in rows) == 200
    assert index.add_many((row["id"], row) for row in rows) == 0
    for row in rows[:20]:
        assert index.store.records("petition", [row["id"]])[row["id"]].fingerprint == index.fingerprint(row)


POOL = [FP ^ bits for bits in (0, 1, 0b11, 0b111, 0b1111, 1 << 20 | 1, 1 << 40 | 1 << 20 | 1, 1 << 63 | 0xF0)]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5), st.sampled_from(POOL)), max_size=20))
def test_after_any_changes_check_agrees_with_a_scan(changes):
    with memory_store() as store:
        index = Incremental(store, CONFIG)
        stored = {}
        for add, row, fingerprint in changes:
            if add:
                file_fingerprint(index, row, fingerprint)
                stored[row] = fingerprint
            else:
                assert index.remove(row) is (stored.pop(row, None) is not None)
        for fingerprint in POOL:
            assert dict(index.similar(fingerprint)) == brute_force(stored, fingerprint)


# -- against SecantusDB


def planted(rng, bases):
    """Fingerprints whose blocks take few values (crowded buckets), each base
    with neighbours at distances 0..k+1, the flipped bits spread over as many blocks as
    possible: at distance k a single block is left to find the pair."""
    values = [[rng.getrandbits(16) for _ in range(40)] for _ in range(4)]  # crowded keys
    out = []
    for _ in range(bases):
        base = sum(rng.choice(values[b]) << 16 * b for b in range(4))
        out.append(base)
        for distance in range(K + 2):
            blocks = rng.sample(range(4), 4)
            out.append(base ^ sum(1 << 16 * blocks[i] + rng.randrange(16) for i in range(distance)))
        out.append(base ^ 0b111 << rng.randrange(13))  # three bits in one block
    return out


def build_buckets(store, records):
    """What a batch leaves: these rows in the live buckets, not fresh."""
    from tests.test_store import build
    build(store, records)


def test_check_finds_exactly_the_rows_a_brute_force_scan_finds(mongo_db):
    rng = random.Random(3)
    fingerprints = planted(rng, 500)
    ensure_indexes(mongo_db)
    index = Incremental(MongoStore(mongo_db), CONFIG)
    first = [Record("petition", row, fp, "", tuple(index.scheme.keys(fp))) for row, fp in enumerate(fingerprints[:-100])]
    build_buckets(index.store, first)
    for row, fp in enumerate(fingerprints[-100:], len(fingerprints) - 100):  # filed since: fresh
        file_fingerprint(index, row, fp)
    stored = np.array(fingerprints, dtype=np.uint64)
    for row in list(range(0, len(fingerprints), 21)) + rng.sample(range(len(fingerprints)), 150):
        fp = fingerprints[row]
        distances = np.bitwise_count(stored ^ np.uint64(fp))
        expected = {int(r): int(distances[r]) for r in np.flatnonzero(distances <= K) if r != row}
        found = index.similar(fp, exclude=row)
        assert dict(found) == expected
        assert [m.distance for m in found] == sorted(m.distance for m in found)
        if row % 2:
            assert bool(index.similar(fp, "exists", exclude=row)) == bool(expected)
    assert len(fingerprints) == 3500


def _add_at_the_same_moment(uri, database, rows, barrier, results):
    """One process: for each round, wait for the other, then add its row and look."""
    with Pipeline(sample_config(mongo_uri=uri, database=database)) as pipe:
        index = pipe.incremental(decided=False)
        for row in rows:
            barrier.wait()
            results.put((row["id"], [m.row for m in index.add_and_check(row["id"], row)]))


def test_two_processes_adding_near_identical_rows_at_once_never_miss_the_pair(mongo_uri, mongo_db):
    pairs = near_pairs(12)
    spawn = multiprocessing.get_context("spawn")
    barrier, results = spawn.Barrier(2), spawn.Queue()
    workers = [spawn.Process(target=_add_at_the_same_moment,
                             args=(mongo_uri, mongo_db.name, [p[side] for p in pairs], barrier, results))
               for side in (0, 1)]
    for worker in workers:
        worker.start()
    seen = dict(results.get(timeout=60) for _ in range(2 * len(pairs)))
    for worker in workers:
        worker.join(timeout=30)
        assert worker.exitcode == 0
    for a, b in pairs:
        assert b["id"] in seen[a["id"]] or a["id"] in seen[b["id"]]  # filed before looking
    with Pipeline(sample_config(mongo_uri=mongo_uri, database=mongo_db.name)) as pipe:
        index = pipe.incremental(decided=False)
        for a, b in pairs:
            assert b["id"] in dict(index.check(a, exclude=a["id"]))
            assert a["id"] in dict(index.check(b, exclude=b["id"]))


KEEP_CHANGING = """
import random, sys
from dedup_pipeline.store.index import MongoStore, Record, connect
with connect(sys.argv[1]) as client:
    store = MongoStore(client[sys.argv[2]])
    rng = random.Random()
    for change in range(10**9):
        row = rng.randrange(40)
        if rng.random() < 0.2:
            store.remove("petition", [row])
        else:
            keys = tuple(rng.sample(range(100), 14))
            store.file([Record("petition", row, rng.getrandbits(64), str(keys), keys)])
        if change == 20:
            print("changing", flush=True)
"""


def settled(store):
    """The rows once the server has applied the write a killed client had sent (it does,
    after the client is gone): the same twice in a row."""
    before, held = None, store.records("petition", list(range(40)))
    while held != before:
        time.sleep(0.2)
        before, held = held, store.records("petition", list(range(40)))
    return held


def test_a_writer_killed_at_any_moment_leaves_every_row_whole(mongo_uri, mongo_db):
    ensure_indexes(mongo_db)
    store = MongoStore(mongo_db)
    for attempt in range(5):
        child = subprocess.Popen([sys.executable, "-c", KEEP_CHANGING, mongo_uri, mongo_db.name],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline() == "changing\n"  # 20 changes made: it is in its stride
        time.sleep(random.uniform(0.05, 0.3))
        child.send_signal(signal.SIGKILL)
        child.wait()
        held = settled(store)
        for row, record in held.items():  # found under each of its keys, under nothing else
            assert record.content == str(record.keys)
            assert all(row in store.lookup("petition", {None: [key]}) for key in record.keys)
        unused = set(range(100)) - {k for r in held.values() for k in r.keys}
        assert not store.lookup("petition", {None: unused})
