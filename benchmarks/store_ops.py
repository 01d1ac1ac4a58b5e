"""What one document operation costs on the embedded SecantusDB: the unit cost behind
`watch` and `add` (see README, "What watch costs").

    python benchmarks/store_ops.py [--docs 50000] [--ops 2000]

A SecantusDB server runs in a process of its own (tests/mongo_process.py).
A `blocks` collection gets `--docs` one-entry block documents, shaped as the store files
them, inserted 10,000 per `insert_many`; then `--ops` times each, on random blocks:

- an entry added to an existing block, as the store adds it (`$addToSet` into a block
  with room, upsert), 1,000 statements per request;
- a plain `$set` of one field, the cheapest update there is;
- a read by `_id`, 50 ids per `$in` (the store's IN_IDS).

Last line: insert_ms_per_doc=<n> entry_update_ms=<n> set_update_ms=<n> read_ms_per_doc=<n>
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

import pymongo
from pymongo import UpdateOne

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from dedup_pipeline.store import IN_IDS, MongoStore, _block_fields, _entry, block_id, row_key  # noqa: E402
from tests.mongo_process import MongoProcess  # noqa: E402


def block(i: int) -> dict:
    """A block document holding one row's entry, as the store inserts a new block."""
    return {"_id": block_id(0, i), **_block_fields(block_id(0, i)), "info": [_entry("petition", i, i)]}


def entry_op(store: MongoStore, i: int, row: int) -> UpdateOne:
    """One row's entry added to block i, by the store's own op."""
    return store._entry_op(block_id(0, i), [(row_key("petition", row), _entry("petition", row, row))]).model()


def per_op_ms(run, count: int) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000 / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=50_000)
    parser.add_argument("--ops", type=int, default=2_000)
    args = parser.parse_args()
    rng = random.Random(3)
    with tempfile.TemporaryDirectory() as folder, MongoProcess(folder).start() as mongo:
        store = MongoStore(pymongo.MongoClient(mongo.uri).bench, scheme=None)
        blocks = store.blocks
        chunks = [[block(i) for i in range(s, min(s + 10_000, args.docs))] for s in range(0, args.docs, 10_000)]
        insert = per_op_ms(lambda: [blocks.insert_many(c) for c in chunks], args.docs)

        def updates(make) -> float:
            ops = [make(rng.randrange(args.docs), -n) for n in range(args.ops)]
            return per_op_ms(lambda: [blocks.bulk_write(ops[s:s + 1000]) for s in range(0, len(ops), 1000)],
                             args.ops)

        entry = updates(lambda i, row: entry_op(store, i, row))
        plain = updates(lambda i, row: UpdateOne({"_id": block_id(0, i)}, {"$set": {"seen": row}}))
        ids = [block_id(0, rng.randrange(args.docs)) for _ in range(args.ops)]
        read = per_op_ms(lambda: [list(blocks.find({"_id": {"$in": ids[s:s + IN_IDS]}}))
                                  for s in range(0, len(ids), IN_IDS)], args.ops)
    print(f"SecantusDB, {args.docs:,} block documents, {args.ops:,} operations each:")
    print(f"  insert (insert_many of 10,000)          {insert:6.3f} ms per document")
    print(f"  entry added to a block (as the store)   {entry:6.3f} ms per statement")
    print(f"  $set of one field                       {plain:6.3f} ms per statement")
    print(f"  read by _id ({IN_IDS} per $in)                {read:6.3f} ms per document")
    print(f"insert_ms_per_doc={insert:.3f} entry_update_ms={entry:.3f} set_update_ms={plain:.3f} "
          f"read_ms_per_doc={read:.3f}")


if __name__ == "__main__":
    main()
