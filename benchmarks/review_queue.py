"""The queue's coverage and size: on labelled tables of two makings (testing/labelled.py,
seeds the default was not tuned on; testing/heldback.py, letters filed again by their
petitioners and copied by others, seed 50 looked into and seed 77 never) and on the bundled
template sample, the share of true pairs that the pairs plus the queue cover, the queue's
items per row, and the precision of the rule's own pairs.

A true pair is covered when its rows end in one group once a reviewer has decided the queue
rightly: the groups are the rule's pairs plus, within each queue item, the pairs of its rows
that are true (the reviewer says 同一事项 of those and 不是 of the others), joined through
any rows. That is what a reviewer sees and does: a queue item shows its rows, each in the
group the rule put it in, and confirming one links the two groups whole (groups are the
connected parts of the pairs, pairs.groups), so a true pair whose rows are one rule pair
and one confirmed item apart ends in one group. Counting only pairs whose two rows share a
group or an item (the measure before issue 50's third round) left such pairs out.

    python benchmarks/review_queue.py [--rows 6000] [--seeds 11,12] [--heldback-seeds 50,77]

Targets (issues 31 and 50): coverage >= 99.5%, items <= 2% of rows. Last line:
coverage=<min over labelled sets> queue_share=<max items/rows> pairs_covered=<n> true_pairs=<n>
precision=<min over labelled sets>
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tomllib
from importlib import resources

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dedup_pipeline.config import default_config_text, parse_config  # noqa: E402
from dedup_pipeline.core.pairs import groups  # noqa: E402
from dedup_pipeline.core.schemes import scheme_of  # noqa: E402
from dedup_pipeline.sql.queue import items_of  # noqa: E402
from testing import heldback, labelled  # noqa: E402


def measure(rows: list[dict], truth: set[tuple[int, int]] | None
            ) -> tuple[float | None, int, int, int, int, float | None]:
    """(coverage, queue items, pairs, covered, true pairs, precision of the pairs) of the
    default scheme on rows."""
    config = parse_config(tomllib.loads(default_config_text()), env={})
    scheme = scheme_of(config)
    ids = [row["id"] for row in rows]
    decided = scheme.decide(scheme.probes(rows))
    i, j, _ = decided.similar.linked()
    label = groups(len(ids), i, j)
    pi, pj, pd = decided.possible
    open_ = label[pi] != label[pj]
    items = items_of(ids, (pi[open_], pj[open_], pd[open_]))
    if truth is None:
        return None, len(items), len(i), 0, 0, None
    covered = len(truth) - len(missed(ids, (i, j), items, truth))
    made = {(min(ids[a], ids[b]), max(ids[a], ids[b])) for a, b in zip(i.tolist(), j.tolist())}
    precision = len(made & truth) / max(len(made), 1)
    return covered / max(len(truth), 1), len(items), len(i), covered, len(truth), precision


def missed(ids: list, pairs: tuple[np.ndarray, np.ndarray], items: list, truth: set[tuple[int, int]]
           ) -> list[tuple[int, int]]:
    """The true pairs (ids) whose rows are in two groups once a reviewer has decided every
    queue item rightly: groups of the rule's `pairs` (positions) and of the true pairs among
    each item's rows."""
    position = {row: n for n, row in enumerate(ids)}
    confirmed = [(position[a], position[b]) for item in items for n, a in enumerate(item.rows)
                 for b in item.rows[n + 1:] if (min(a, b), max(a, b)) in truth]
    extra_i, extra_j = (np.array(x, np.int64) for x in zip(*confirmed)) if confirmed else (np.zeros(0, np.int64),) * 2
    label = groups(len(ids), np.concatenate([pairs[0], extra_i]), np.concatenate([pairs[1], extra_j]))
    return [(a, b) for a, b in truth if label[position[a]] != label[position[b]]]


def sample_rows() -> list[dict]:
    """The bundled template sample, as `batch` reads it from the demo database."""
    with resources.files("dedup_pipeline").joinpath("data/sample_petitions.csv").open(encoding="utf-8") as f:
        return [{**{k: (None if v == "" else v) for k, v in row.items()}, "id": int(row["id"])}
                for row in csv.DictReader(f)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=6000)
    parser.add_argument("--seeds", default="11,12", help="seeds of testing/labelled.py's tables")
    parser.add_argument("--heldback-seeds", default="50,77", help="seeds of testing/heldback.py's tables")
    args = parser.parse_args()
    worst, share, covered_all, truth_all, precise = 1.0, 0.0, 0, 0, 1.0
    sets = [("labelled", labelled.generate, s) for s in args.seeds.split(",") if s] + \
           [("heldback", heldback.generate, s) for s in args.heldback_seeds.split(",") if s]
    for making, generate, seed in sets:
        ds = generate(args.rows, seed=int(seed))
        coverage, items, pairs, covered, truth, precision = measure(ds.rows, ds.true_pairs)
        print(f"{making} seed {seed}: {len(ds.rows):,} rows, {truth:,} true pairs; pairs plus queue cover "
              f"{covered:,} ({coverage:.2%}); queue {items:,} items ({items / len(ds.rows):.2%} of rows); "
              f"{pairs:,} pairs, precision {precision:.4f}")
        worst, share = min(worst, coverage), max(share, items / len(ds.rows))
        covered_all, truth_all, precise = covered_all + covered, truth_all + truth, min(precise, precision)
    sample = sample_rows()
    _, items, pairs, _, _, _ = measure(sample, None)
    print(f"template sample: {len(sample):,} rows, {pairs:,} pairs; queue {items:,} items "
          f"({items / len(sample):.2%} of rows)")
    share = max(share, items / len(sample))
    print(f"coverage={worst:.4f} queue_share={share:.4f} pairs_covered={covered_all} true_pairs={truth_all} "
          f"precision={precise:.4f}")


if __name__ == "__main__":
    main()
