"""What the embedded store's server (SecantusDB) costs on its own: the floor under the batch,
the re-run and the worker, measured with pymongo and nothing of the pipeline but
`EmbeddedMongo` (a minimal reproduction, to show upstream or to check a new version by).

    python benchmarks/embedded_store.py [--docs 50000] [--changed 1600] [--keys 22]

1. Inserts: `--docs` documents shaped as the store's rows (22 int64 keys, a 300-byte sketch),
   5,000 a `insert_many`, into a collection with no index besides `_id`, with the sparse
   `fresh` index the store keeps (which none of these documents is in), and with a second
   sparse index.
2. Index entries: `--changed` of those documents replaced in one `bulk_write`, without
   `fresh`, with `--keys` values under `fresh`, and with twice that many.
3. Start: the server stopped and started again on its folder, with SecantusDB's own search
   for the largest record id (a walk over every document) and with `max_record_id` (a seek
   per collection), each timed alone on the open store.
4. Finds by `{"_id": {"$in": ids}}` of 1, 20, 100 and 500 random ids, with SecantusDB's own
   comparison of each document found with every id, and with `_patch_in`'s set.
5. Finds of fresh rows (`--docs` documents listing their keys under the indexed `fresh`) by
   `{"fresh": {"$in": keys}}` of 100 keys no document has (a worker's usual key) and of 100
   keys of 100 documents, with SecantusDB's own walk of the index entries under a key and
   with `_patch_index_probes`'.

Last line: insert_us_no_index= insert_us_fresh= insert_us_two= insert_us_packed= replace_us= replace_us_keys=
replace_us_twice= entry_us= walk_ms= seek_ms= find_ms= in_us_own= in_us_set= probe_us_own= probe_us=
probe_hit_us_own= probe_hit_us= (µs per document; entry_us: the cost of one index entry, from the
replace with twice the keys against the one with none; find_ms: a find of one id; in_us_own,
in_us_set: µs per id of a find of 500; probe_us*: µs per key of a find of 100 keys, none filed
or each a document's)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pymongo
from bson import Binary
from pymongo import ReplaceOne

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from secantus import query  # noqa: E402
from secantus.storage import Storage  # noqa: E402

WALK = Storage._scan_max_nat_seq  # SecantusDB's own, before EmbeddedMongo.start puts max_record_id there

from dedup_pipeline.store.embedded import EmbeddedMongo  # noqa: E402
from dedup_pipeline.store.secantus_patches import max_record_id  # noqa: E402

CHUNK = 5_000


def rows(n: int, keys: int, seed: int = 1) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [{"_id": f"petition:{i}", "table": "petition", "row": i, "fingerprint": int(rng.integers(-2**62, 2**62)),
             "content": "0123456789abcdef", "keys": rng.integers(0, 2**62, keys).tolist(),
             "sketch": Binary(rng.bytes(300))} for i in range(n)]


def insert_us(docs: list[dict], indexes: list[str]) -> float:
    """µs per document inserted into a new store with these sparse indexes."""
    with tempfile.TemporaryDirectory() as folder, EmbeddedMongo().start(folder) as mongo:
        with pymongo.MongoClient(mongo.uri) as client:
            for name in indexes:
                client.d.rows.create_index(name, sparse=True)
            start = time.perf_counter()
            for n in range(0, len(docs), CHUNK):
                client.d.rows.insert_many(docs[n:n + CHUNK], ordered=False)
            return (time.perf_counter() - start) / len(docs) * 1e6


def replaced_us(folder: str, docs: list[dict], changed: int, fresh: int) -> float:
    """µs per document replaced, each with `fresh` keys listed under the indexed `fresh`."""
    picked = docs[:changed]
    with EmbeddedMongo().start(folder) as mongo, pymongo.MongoClient(mongo.uri) as client:
        ops = [ReplaceOne({"_id": d["_id"]}, {**d, **({"fresh": [k + s for s in range(fresh // len(d["keys"]))
                                                                 for k in d["keys"]]} if fresh else {})})
               for d in picked]
        start = time.perf_counter()
        client.d.rows.bulk_write(ops, ordered=True)
        elapsed = time.perf_counter() - start
        client.d.rows.bulk_write([ReplaceOne({"_id": d["_id"]}, d) for d in picked])  # as it was
        return elapsed / changed * 1e6


def start_ms(folder: str) -> tuple[float, float]:
    """The walk's and the seek's milliseconds for the largest record id of the store in `folder`."""
    with EmbeddedMongo().start(folder) as mongo:
        storage = mongo._server.storage
        start = time.perf_counter()
        walked = WALK(storage)
        walked_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        sought = max_record_id(storage)
        sought_ms = (time.perf_counter() - start) * 1000
    if walked != sought:
        raise SystemExit(f"the seek found record id {sought}, the walk {walked}")
    return walked_ms, sought_ms


def find_us(folder: str, docs: list[dict], ids: int) -> tuple[float, float]:
    """µs per id of finds of `ids` random ids: SecantusDB's own comparison, and by set."""
    rng = np.random.default_rng(2)
    with EmbeddedMongo().start(folder) as mongo, pymongo.MongoClient(mongo.uri) as client:
        by_set, spent = query._op_matches, []
        for matcher in (by_set.own, by_set):
            query._op_matches = matcher
            finds = max(5, 2_000 // ids)
            start = time.perf_counter()
            for _ in range(finds):
                wanted = [docs[n]["_id"] for n in rng.choice(len(docs), ids, replace=False).tolist()]
                if len(list(client.d.rows.find({"_id": {"$in": wanted}}, {"_id": 1}))) != ids:
                    raise SystemExit(f"a find of {ids} ids did not find them all")
            spent.append((time.perf_counter() - start) / finds / ids * 1e6)
        query._op_matches = by_set
    return spent[0], spent[1]


def probe_us(docs: list[dict]) -> dict[str, float]:
    """µs per key of finds of fresh rows by 100 keys, none filed or each a document's:
    SecantusDB's own walk of an index key's entries, and `_patch_index_probes`'."""
    rng = np.random.default_rng(3)
    with tempfile.TemporaryDirectory() as folder, EmbeddedMongo().start(folder) as mongo:
        with pymongo.MongoClient(mongo.uri) as client:
            client.d.rows.create_index("fresh", sparse=True)
            for n in range(0, len(docs), CHUNK):
                client.d.rows.insert_many([{**d, "fresh": ["fresh", *d["keys"]]} for d in docs[n:n + CHUNK]])
            probed, spent = Storage._scan_index_for_id_keys, {}
            for way, walk in (("_own", probed.own), ("", probed)):
                Storage._scan_index_for_id_keys = walk
                for hit in (False, True):
                    start = time.perf_counter()
                    for _ in range(50):
                        keys = ([docs[n]["keys"][0] for n in rng.choice(len(docs), 100, replace=False).tolist()] if hit
                                else rng.integers(-2**62, -1, 100).tolist())  # rows' keys are positive here
                        if (len(list(client.d.rows.find({"fresh": {"$in": keys}}))) >= 100) != hit:
                            raise SystemExit("a find of fresh rows did not find what it should")
                    spent[("probe_hit_us" if hit else "probe_us") + way] = (time.perf_counter() - start) / 50 / 100 * 1e6
            Storage._scan_index_for_id_keys = probed
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=50_000)
    parser.add_argument("--changed", type=int, default=1_600)
    parser.add_argument("--keys", type=int, default=22)
    args = parser.parse_args()
    docs = rows(args.docs, args.keys)

    inserts = {name: insert_us(docs, indexes) for name, indexes in
               [("no_index", []), ("fresh", ["fresh"]), ("two", ["fresh", "was"])]}
    packed = [{**d, "keys": np.array(d["keys"], np.int64).tobytes()} for d in docs]
    inserts["packed"] = insert_us(packed, ["fresh"])
    print(f"{args.docs:,} row documents inserted, µs each: no index {inserts['no_index']:.0f}, "
          f"sparse fresh {inserts['fresh']:.0f}, two sparse {inserts['two']:.0f}, sparse fresh and the keys packed "
          f"{inserts['packed']:.0f}", flush=True)

    with tempfile.TemporaryDirectory() as folder:
        with EmbeddedMongo().start(folder) as mongo, pymongo.MongoClient(mongo.uri) as client:
            client.d.rows.create_index("fresh", sparse=True)
            for n in range(0, len(docs), CHUNK):
                client.d.rows.insert_many(docs[n:n + CHUNK], ordered=False)
        replaced = {fresh: replaced_us(folder, docs, args.changed, fresh) for fresh in (0, args.keys, 2 * args.keys)}
        entry = (replaced[2 * args.keys] - replaced[0]) / (2 * args.keys)
        print(f"{args.changed:,} documents replaced, µs each: without fresh {replaced[0]:.0f}, with {args.keys} "
              f"keys under fresh {replaced[args.keys]:.0f}, with {2 * args.keys} {replaced[2 * args.keys]:.0f} "
              f"({entry:.0f} µs an index entry)", flush=True)
        walked, sought = start_ms(folder)
        finds = {ids: find_us(folder, docs, ids) for ids in (1, 20, 100, 500)}
    for ids, (own, by_set) in finds.items():
        print(f"a find of {ids} ids, µs an id: SecantusDB's own comparison {own:.0f}, by set {by_set:.0f}")
    probes = probe_us(docs)
    print(f"a find of fresh rows by 100 keys, µs a key: none filed {probes['probe_us_own']:.1f} by SecantusDB's own "
          f"walk, {probes['probe_us']:.1f} by the key's bytes; each a document's {probes['probe_hit_us_own']:.1f} "
          f"and {probes['probe_hit_us']:.1f}")
    print(f"the largest record id of {args.docs:,} documents: SecantusDB's walk {walked:.0f} ms, "
          f"max_record_id's seek {sought:.1f} ms")
    print(f"insert_us_no_index={inserts['no_index']:.0f} insert_us_fresh={inserts['fresh']:.0f} "
          f"insert_us_two={inserts['two']:.0f} insert_us_packed={inserts['packed']:.0f} "
          f"replace_us={replaced[0]:.0f} replace_us_keys={replaced[args.keys]:.0f} "
          f"replace_us_twice={replaced[2 * args.keys]:.0f} entry_us={entry:.1f} walk_ms={walked:.1f} seek_ms={sought:.2f} "
          f"find_ms={finds[1][1] / 1000:.2f} in_us_own={finds[500][0]:.0f} in_us_set={finds[500][1]:.0f} "
          + " ".join(f"{key}={value:.1f}" for key, value in probes.items()))


if __name__ == "__main__":
    main()
