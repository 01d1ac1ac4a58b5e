"""Matters (热点事项, issue 52): rows of different people about one concrete object, problem
and episode, found by `core.matters` and scored against labelled hotline tables.

    python benchmarks/matters.py                  # 8,000 rows of each development set
    python benchmarks/matters.py --rows 1500 --no-baselines
    python benchmarks/matters.py --final          # the six development sets
    python benchmarks/matters.py --judge          # the verdict set alone (the judgement only)

The sets, each written by another hand from issue 52's rules: testing/hotline.py,
testing/hotline_heldback.py, testing/hotline_fresh.py, testing/hotline_unseen.py,
testing/hotline_blind.py and testing/hotline_judge.py, all six DEVELOPMENT sets now (the first
two always scored, the others with --final; each was unseen once, and scored so, before the
rules were tuned on it); testing/hotline_verdict.py, written by a seventh hand who never read
the method nor the other sets (another city, in the north-east), is scored only with --judge,
never during development.
For each: B-cubed
precision / recall / F1 over all rows (a row in no matter is a cluster of its own), pairwise F1
over pairs of rows of different people, hot-matter recall (matters of >= 5 people that one found
matter covers >= 80% of at precision >= 0.9); beside the method, unless --no-baselines, the
baselines: word TF-IDF cosine (jieba words) with single link and character 2-3-gram TF-IDF
likewise, each threshold tuned on testing/hotline.py, and every row a singleton. (The project's
duplicate rule is not run: it needs a batch through the store.) The method's CPU time per row:
marks (reading each row) and the partition.
Last line, of the last set scored (hotline_verdict with --judge, hotline_judge with --final,
else the held-back set):
bcubed_p=.. bcubed_r=.. bcubed_f1=.. hot_recall=..
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from dedup_pipeline.core.matters import WINDOW_DAYS, mark_of, matters_of, person_of
from testing import hotline

THRESHOLDS = [round(0.30 + 0.05 * i, 2) for i in range(14)] + [0.97, 0.99]


def module(name: str):
    """testing.<name> when it exists, else None."""
    if importlib.util.find_spec(f"testing.{name}") is None:
        return None
    return importlib.import_module(f"testing.{name}")


def scores(found: dict[int, object], table) -> dict[str, float]:
    """B-cubed P/R/F1, pairwise F1 over different people's rows, hot-matter recall of a
    clustering (row -> cluster; rows missing are singletons) against the table's truth."""
    ids = [row["id"] for row in table.rows]
    truth = {i: table.matter[i] if table.matter[i] is not None else ("solo", i) for i in ids}
    guess = {i: found[i] if found.get(i) is not None else ("solo", i) for i in ids}
    cells = Counter((guess[i], truth[i]) for i in ids)
    g_size, t_size = Counter(guess.values()), Counter(truth.values())
    p = sum(n * n / g_size[g] for (g, _), n in cells.items()) / len(ids)
    r = sum(n * n / t_size[t] for (_, t), n in cells.items()) / len(ids)
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"bcubed_p": p, "bcubed_r": r, "bcubed_f1": f1, "pair_f1": _pair_f1(guess, truth, table, ids),
            "hot_recall": _hot_recall(guess, table, ids, cells, g_size)}


def _pairs(groups: dict[object, list[int]], person: dict[int, str]) -> int:
    """Pairs of rows of different people within each group."""
    total = 0
    for rows in groups.values():
        n = len(rows)
        total += n * (n - 1) // 2 - sum(k * (k - 1) // 2 for k in Counter(person[i] for i in rows).values())
    return total


def _pair_f1(guess, truth, table, ids) -> float:
    by = lambda labels: {k: v for k, v in _grouped(labels, ids).items() if len(v) > 1}
    both = by({i: (guess[i], truth[i]) for i in ids})
    tp, found, true = (_pairs(g, table.person) for g in (both, by(guess), by(truth)))
    return 2 * tp / (found + true) if found + true else 1.0


def _grouped(labels: dict[int, object], ids) -> dict[object, list[int]]:
    groups: dict[object, list[int]] = defaultdict(list)
    for i in ids:
        groups[labels[i]].append(i)
    return groups


def _hot_recall(guess, table, ids, cells, g_size) -> float:
    people: dict[str, set[str]] = defaultdict(set)
    size: Counter = Counter()
    for i in ids:
        if table.matter[i] is not None:
            people[table.matter[i]].add(table.person[i])
            size[table.matter[i]] += 1
    hot = [m for m, who in people.items() if len(who) >= 5]
    best = defaultdict(bool)
    for (g, t), n in cells.items():
        if t in size and n >= 0.8 * size[t] and n >= 0.9 * g_size[g]:
            best[t] = True
    return sum(best[m] for m in hot) / len(hot) if hot else 1.0


def method(table, window: int) -> tuple[dict[int, int], float, float]:
    """The method's matters, and its CPU microseconds per row (the machine is shared): reading
    marks (after a warm-up on the first 100 rows: patterns compiled, the vocabulary read), partitioning."""
    for row in table.rows[:100]:
        mark_of(row, person_of(row))
    start = time.process_time()
    marks = {row["id"]: mark_of(row, person_of(row)) for row in table.rows}
    read = time.process_time() - start
    start = time.process_time()
    found = matters_of(marks, window)
    part = time.process_time() - start
    n = len(table.rows) / 1e6
    return found, read / n, part / n


def tfidf(docs: list[list[str]]):
    """Row-normalised TF-IDF vectors (scipy CSR) of token lists."""
    from scipy.sparse import csr_matrix
    vocab: dict[str, int] = {}
    rows, cols, vals = [], [], []
    for r, doc in enumerate(docs):
        for term, count in Counter(doc).items():
            rows.append(r)
            cols.append(vocab.setdefault(term, len(vocab)))
            vals.append(count)
    x = csr_matrix((np.array(vals, float), (rows, cols)), shape=(len(docs), len(vocab)))
    df = np.bincount(x.indices, minlength=len(vocab))
    x = x.multiply(np.log((1 + len(docs)) / (1 + df)) + 1).tocsr()
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    norms[norms == 0] = 1
    return csr_matrix(x.multiply(1 / norms[:, None]))


def single_link(x, threshold: float) -> dict[int, int]:
    """Components of the rows whose cosine >= threshold (row positions -> component)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    n, edges_r, edges_c = x.shape[0], [], []
    for s in range(0, n, 1000):
        block = (x[s:s + 1000] @ x.T).toarray()
        r, c = np.nonzero(block >= threshold)
        edges_r.append(r + s)
        edges_c.append(c)
    r, c = np.concatenate(edges_r), np.concatenate(edges_c)
    graph = coo_matrix((np.ones(len(r)), (r, c)), shape=(n, n))
    return dict(enumerate(connected_components(graph, directed=False)[1]))


def text_of(row: dict) -> str:
    return f"{row['title']} {row['content']}"


def words(table) -> list[list[str]]:
    import jieba
    jieba.setLogLevel(60)
    return [[w for w in jieba.lcut(text_of(r)) if w.strip() and not all(c in "，。！？、：；（）" for c in w)]
            for r in table.rows]


def grams(table) -> list[list[str]]:
    out = []
    for r in table.rows:
        t = "".join(text_of(r).split())
        out.append([t[i:i + n] for n in (2, 3) for i in range(len(t) - n + 1)])
    return out


def baseline(x, table, threshold: float) -> dict[int, int]:
    comp = single_link(x, threshold)
    return {row["id"]: comp[i] for i, row in enumerate(table.rows)}


def tuned(x, table) -> float:
    """The threshold of the best B-cubed F1 on this (the tuning) table."""
    return max(THRESHOLDS, key=lambda t: scores(baseline(x, table, t), table)["bcubed_f1"])


def line(name: str, s: dict[str, float]) -> str:
    return (f"  {name:<34} B3 P {s['bcubed_p']:.3f}  R {s['bcubed_r']:.3f}  F1 {s['bcubed_f1']:.3f}   "
            f"pair F1 {s['pair_f1']:.3f}   hot recall {s['hot_recall']:.3f}")


def describe(table) -> str:
    people: dict[str, set[str]] = defaultdict(set)
    for i, m in table.matter.items():
        if m is not None:
            people[m].add(table.person[i])
    return (f"{len(table.rows)} rows, {len(people)} matters, {sum(len(p) >= 5 for p in people.values())} "
            f"with >= 5 people")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--window", type=int, default=WINDOW_DAYS)
    parser.add_argument("--no-baselines", action="store_true",
                        help="score the method alone (the baselines take minutes)")
    parser.add_argument("--final", action="store_true", help="score all six development sets")
    parser.add_argument("--judge", action="store_true", help="score the verdict set alone (the judgement only)")
    args = parser.parse_args()
    tuning = hotline.make(args.rows, args.seed)
    names = ["hotline_heldback"] + (["hotline_fresh", "hotline_unseen", "hotline_blind", "hotline_judge"] if args.final else [])
    sets = [] if args.judge else [("development (testing/hotline.py)", tuning)] + [
        (f"development (testing/{n}.py)", m.make(args.rows, args.seed)) for n in names if (m := module(n)) is not None]
    if args.judge:
        sets = [("verdict, never tuned on (testing/hotline_verdict.py)",
                 module("hotline_verdict").make(args.rows, args.seed))]
    if not args.no_baselines:
        xw, xc = tfidf(words(tuning)), tfidf(grams(tuning))
        tw, tc = tuned(xw, tuning), tuned(xc, tuning)
    last = None
    for name, table in sets:
        print(f"{name}: {describe(table)}")
        found, read_s, part_s = method(table, args.window)
        last = scores(found, table)
        print(line(f"matters (object+problem, {args.window} d)", last))
        if not args.no_baselines:
            if table is not tuning:
                xw, xc = tfidf(words(table)), tfidf(grams(table))
            print(line(f"word TF-IDF single link (t={tw})", scores(baseline(xw, table, tw), table)))
            print(line(f"char 2-3-gram TF-IDF single link (t={tc})", scores(baseline(xc, table, tc), table)))
            print(line("every row a singleton", scores({}, table)))
        print(f"  method CPU time per row: marks {read_s:.1f} us, partition {part_s:.2f} us "
              f"({read_s:.0f} s of marks per million rows, one process)")
    print(" ".join(f"{k}={last[k]:.4f}" for k in ("bcubed_p", "bcubed_r", "bcubed_f1", "hot_recall")))


if __name__ == "__main__":
    main()
