"""How many rows a new row shares a key with, by kind of key: what `check`, `add` and
`watch` read from the store for each row. On a labelled hotline table (testing/hotline.py:
short texts, many opening with a formula) or benchmarks/scale.py's petition table; the
scheme as benchmarks/watch.py configures it (phone and address as submitters).

    python benchmarks/key_blocks.py [--table hotline|petition] [--rows 20000] [--common 0.005]

For each kind (MinHash bands, a short text's extra bands, its opening keys, the smallest
shingles with each submitter): keys a row, the largest blocks, and the entries a row's keys
hold (p50, p90, mean). `--common`: the same for opening keys and bands that leave out the
shingles in more than this share of the rows (an estimate of such keys; the scheme has none).
Last line: rows= read_mean= opening_mean= bands_mean= opening_without_common_mean=
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dedup_pipeline.config import parse_config  # noqa: E402
from dedup_pipeline.core import shingles as s  # noqa: E402
from dedup_pipeline.core.schemes import scheme_of  # noqa: E402

COLUMNS = ["title", "name", "phone", "address", "category"]


def table_rows(table: str, rows: int) -> list[dict]:
    if table == "hotline":
        from testing import hotline
        return hotline.make(rows, seed=11).rows
    from benchmarks.scale_data import COLUMNS as NAMES, PetitionMaker
    return [dict(zip(NAMES, row)) for chunk in PetitionMaker(7).rows(rows) for row in chunk]


def read_a_row(keys: np.ndarray) -> tuple[np.ndarray, Counter]:
    """Entries under each row's keys (a row of keys per row, `_NONE` for none), and the blocks."""
    blocks = Counter(keys[keys != s._NONE].tolist())
    return np.array([sum(blocks[k] for k in set(row[row != s._NONE].tolist())) for row in keys]), blocks


def report(name: str, keys: np.ndarray) -> float:
    read, blocks = read_a_row(keys)
    largest = ", ".join(f"{n:,}" for n in sorted(blocks.values())[-3:][::-1])
    print(f"{name:<34} keys a row {np.mean((keys != s._NONE).sum(axis=1)):4.1f}   largest blocks {largest:<16}"
          f" entries a row p50 {np.median(read):5.0f}  p90 {np.percentile(read, 90):5.0f}  mean {read.mean():6.1f}")
    return float(read.mean())


def without(sets: s.Sets, common: np.ndarray) -> s.Sets:
    keep = ~np.isin(sets.values, common)
    return s.Sets(sets.values[keep], np.concatenate(([0], np.cumsum(keep))).astype(np.int64)[sets.starts])


def common_values(sets: s.Sets, share: float) -> np.ndarray:
    rows = np.repeat(np.arange(len(sets.starts) - 1), sets.sizes())
    values, counts = np.unique(np.unique(np.column_stack([rows, sets.values]), axis=0)[:, 1], return_counts=True)
    return values[counts > share * (len(sets.starts) - 1)].astype(np.uint32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", choices=["hotline", "petition"], default="hotline")
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--common", type=float, default=0.005)
    args = parser.parse_args()
    config = parse_config({"source": {"url": "sqlite://", "table": "petition"},
                           "fields": {**{c: "short" for c in COLUMNS}, "content": "long", "created_at": "ignore"},
                           "scheme": {"submitter": ["phone", "address"]}}, {})
    rule = scheme_of(config).shingles
    rows = table_rows(args.table, args.rows)
    written = s.long_texts(rows, config.fields)
    text = s.code_points(written)
    verbatim, own = s.shingle_sets(text, rule.size), s.shingle_sets(s.fold_numbers(text), rule.key_size)
    opening, inside = rule._openings(written, own)

    def opened(sets: s.Sets) -> np.ndarray:
        picked, smallest = rule._smallest(sets, rule.tiny_keys)
        return np.where(picked & (opening != 0)[:, None], s._mix(smallest ^ opening[:, None]) >> np.uint64(2), s._NONE)

    print(f"table: {args.table}, {len(rows):,} rows")
    bands = rule._bands(verbatim)
    mean = {"bands": report("MinHash bands", bands[:, :rule.bands]),
            "short": report("a short text's extra bands", bands[:, rule.bands:]),
            "opening": report("a short text's opening keys", opened(s._without(own, inside)))}
    picked, smallest = rule._smallest(own, rule.keys)
    for n, person in enumerate(rule._people(rows, config.fields).T):
        keys = np.where(picked & (person[:, None] != 0), s._mix(smallest ^ person[:, None]) >> np.uint64(2), s._NONE)
        mean[f"submitter {n}"] = report(f"smallest shingles with {rule.submitter[n]}", keys)
    common = common_values(own, args.common)
    print(f"without the {len(common):,} 3-character shingles in more than {args.common:.1%} of the rows (an estimate):")
    alone = report("  a short text's opening keys", opened(without(s._without(own, inside), common)))
    report("  MinHash bands", rule._bands(without(verbatim, common_values(verbatim, args.common)))[:, :rule.bands])
    print(f"rows={len(rows)} read_mean={sum(mean.values()):.1f} opening_mean={mean['opening']:.1f} "
          f"bands_mean={mean['bands']:.1f} opening_without_common_mean={alone:.1f}")


if __name__ == "__main__":
    main()
