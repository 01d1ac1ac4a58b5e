"""The methods compared: ours (variants of the pipeline's Config) and three peers, behind one
small interface, with the tuning helper that picks settings on a separate (dev) dataset.

A Method has a `name`, a `settings` text and `pairs(rows) -> set of (a, b)` ids with a < b.
The peers see only the content (they are text tools); ours sees every configured field.

To add a variant of ours, append to OURS: (label, overrides) where overrides is TOML-shaped
data merged over the built-in default configuration (e.g. {"fingerprint": {"k": 4}}), or
(label, callable(rows) -> pairs) for anything the Config cannot express yet.
"""

from __future__ import annotations

import logging
import time
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from dedup_pipeline.core.pairs import single_pass_pairs

from testing import jaccard
from testing.labelled import Dataset
from .score import Score, normalized, score

Pair = tuple[int, int]
Rows = Sequence[dict]


@dataclass
class Method:
    """One way to find duplicate pairs, with the settings it runs with."""

    name: str
    settings: str
    find: Callable[[Rows], set[Pair]]
    tuned_on: str = ""  # which dataset chose the settings, if any

    def pairs(self, rows: Rows) -> set[Pair]:
        """Every reported pair of row ids, (a, b) with a < b."""
        return normalized(self.find(rows))


# ------------------------------------------------------------------ ours


def deep_merge(base: dict, overrides: dict) -> dict:
    """`base` with `overrides` merged in, tables merged key by key."""
    out = dict(base)
    for key, value in overrides.items():
        out[key] = deep_merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def make_config(overrides: dict | None = None, url: str = "sqlite:///:memory:"):
    """The built-in default Config (fields as in data/default.toml) with `overrides` merged in."""
    from dedup_pipeline.config import default_config_text, parse_config

    data = tomllib.loads(default_config_text())
    data["source"] = {"url": url, "table": "petition", "id_column": "id"}
    return parse_config(deep_merge(data, overrides or {}), env={})


def library_pairs(config, rows: Rows) -> set[Pair]:
    """The pipeline's library path, as the batch runs it: the configured scheme's probes, then its pairs."""
    from dedup_pipeline.core.schemes import scheme_of

    scheme = scheme_of(config)
    i, j, _ = scheme.pairs(scheme.probes(rows))
    ids = np.array([r["id"] for r in rows])
    return set(zip(ids[i].tolist(), ids[j].tolist()))


PAPER_TF = {"weighting": "tf", "length": "none"}  # the paper's plain term frequency (seed 003), the default
TFIDF_LENGTH = {"weighting": "tfidf", "length": "minmax"}  # the seeds' best measured (weightings.py)

OURS: list[tuple[str, dict | Callable[[Rows], Iterable[Pair]]]] = [
    ("default", {}),
    ("paper: SimHash k=3 4x16", {"scheme": {"name": "simhash", "blocks": 4, "key_blocks": 1},
                                 "fingerprint": {"k": 3, **PAPER_TF}}),
    ("SimHash k=6 8x8", {"scheme": {"name": "simhash", "blocks": 8, "key_blocks": 1},
                         "fingerprint": {"k": 6, **PAPER_TF}}),
    ("SimHash content only k=3", {"scheme": {"name": "simhash", "blocks": 4, "key_blocks": 1},
                                  "fingerprint": PAPER_TF,
                                  "fields": {f: "ignore" for f in ("title", "name", "phone", "address", "category")}}),
    # the seeds' weightings measured best (TF-IDF x word length; benchmarks/quality/weightings.py)
    ("SimHash k=3 4x16, TF-IDF x word length", {"scheme": {"name": "simhash", "blocks": 4, "key_blocks": 1},
                                                "fingerprint": {"k": 3, **TFIDF_LENGTH}}),
    ("SimHash k=6 8x8, TF-IDF x word length", {"scheme": {"name": "simhash", "blocks": 8, "key_blocks": 1},
                                               "fingerprint": {"k": 6, **TFIDF_LENGTH}}),
    # the options of the shingles scheme, one change from the default each
    ("shingles of 3 characters", {"scheme": {"size": 3}}),
    ("no containment test", {"scheme": {"containment": 1.0}}),
    ("Jaccard threshold 0.5", {"scheme": {"threshold": 0.5}}),
    # another submitter's text: a copy up to `slips` characters replaced in place, aligned,
    # numbers kept, filed within `days` (issue 22)
    ("before issue 22: verbatim 0.92, no alignment", {"scheme": {"verbatim": 0.92, "slips": 0, "numbers": 0,
                                                                 "filed": ""}}),
    ("numbers kept (numbers 0)", {"scheme": {"numbers": 0}}),
    ("numbers 1", {"scheme": {"numbers": 1}}),
    ("numbers 3", {"scheme": {"numbers": 3}}),
    ("slips 0 (text added or removed whole only)", {"scheme": {"slips": 0}}),
    ("slips 1", {"scheme": {"slips": 1}}),
    ("slips 5", {"scheme": {"slips": 5}}),
    ("filing days not compared", {"scheme": {"filed": ""}}),
    ("filing days not compared, numbers kept", {"scheme": {"filed": "", "numbers": 0}}),
    ("filed within 7 days", {"scheme": {"days": 7}}),
    ("filed within 90 days", {"scheme": {"days": 90}}),
    ("verbatim containment 1.0 (whole text inside)", {"scheme": {"verbatim_containment": 1.0}}),
    ("verbatim containment 0.97", {"scheme": {"verbatim_containment": 0.97}}),
    ("MinHash bands 6 x 8", {"scheme": {"bands": 6, "rows_per_band": 8}}),
    ("MinHash bands 6 x 4", {"scheme": {"bands": 6}}),
    ("MinHash bands 6 x 3", {"scheme": {"bands": 6, "rows_per_band": 3}}),
    ("MinHash bands 4 x 3", {"scheme": {"bands": 4, "rows_per_band": 3}}),
    ("MinHash bands 8 x 3", {"scheme": {"bands": 8, "rows_per_band": 3}}),
    ("MinHash bands 8 x 4", {"scheme": {"bands": 8}}),
    ("MinHash bands 10 x 4 (before this change)", {"scheme": {"bands": 10}}),
    ("MinHash bands 12 x 4", {"scheme": {"bands": 12}}),
    ("MinHash bands 16 x 4", {"scheme": {"bands": 16}}),
    ("3 keys per submitter value", {"scheme": {"keys": 3}}),
    ("6 keys per submitter value", {"scheme": {"keys": 6}}),
    ("8 keys per submitter value", {"scheme": {"keys": 8}}),
    ("submitter: phone only", {"scheme": {"submitter": ["phone"]}}),
    ("submitter: name too", {"scheme": {"submitter": ["name", "phone", "address"]}}),
    ("no submitter evidence", {"scheme": {"submitter": []}}),
    ("no links through a third row (neither compared nor corroborated)", {"scheme": {"corroborate": False}}),
    ("no links, MinHash bands 6 x 4", {"scheme": {"corroborate": False, "bands": 6}}),
]


WEIGHT_KEYS = ("noun_weight", "verb_weight", "marker_weight", "title_weight")


def describe(config) -> str:
    """The settings that decide what ours reports: scheme, its parameters, the fields and roles."""
    sc = config.scheme
    if sc.name == "simhash":
        fp = config.fingerprint
        scheme = (f"simhash: k={fp.k}, {sc.blocks} blocks (keys of {sc.key_blocks}), "
                  f"weighting={fp.weighting}, length={fp.length}"
                  + "".join(f", {key}={getattr(fp, key):g}" for key in WEIGHT_KEYS if getattr(fp, key) != 1.0))
    else:
        params = {k: v for k, v in asdict(sc).items() if k not in ("name", "blocks", "key_blocks")}
        scheme = f"{sc.name}: " + ", ".join(f"{k}={','.join(v) if isinstance(v, (list, tuple)) else v}"
                                           for k, v in params.items())
    roles = ", ".join(f"{f.name}={f.role}" + (f"×{f.weight:g}" if f.weight is not None else "")
                      for f in config.fields if f.role != "ignore")
    return f"{scheme}; {roles}"


def ours(label: str, spec: dict | Callable[[Rows], Iterable[Pair]]) -> Method:
    """A variant of ours: overrides of the default Config, or a callable."""
    if callable(spec):
        return Method(f"ours: {label}", getattr(spec, "__doc__", "") or label, spec)
    config = make_config(spec)
    return Method(f"ours: {label}", describe(config), lambda rows: library_pairs(config, rows))


# ------------------------------------------------------------------ peers


def contents(rows: Rows) -> list[str]:
    """The content column, blank for NULL."""
    return [r.get("content") or "" for r in rows]


def simhash_fingerprints(rows: Rows) -> list:
    """1e0ng simhash objects of each content, with the package's default features (char 4-grams)."""
    from simhash import Simhash

    return [Simhash(text) for text in contents(rows)]


def simhash_index_pairs(rows: Rows, k: int) -> set[Pair]:
    """1e0ng `SimhashIndex` at distance k: build the index, ask it for each row's near-duplicates."""
    from simhash import SimhashIndex

    quiet = logging.getLogger("quality.simhash")
    quiet.setLevel(logging.ERROR)
    hashes = simhash_fingerprints(rows)
    keys = [str(r["id"]) for r in rows]
    index = SimhashIndex(list(zip(keys, hashes)), k=k, log=quiet)
    out = set()
    for key, h in zip(keys, hashes):
        out.update((int(key), int(other)) for other in index.get_near_dups(h) if other != key)
    return out


INDEX_MAX_K = 6  # beyond this SimhashIndex's buckets grow too large to run in minutes here


def simhash_numpy_pairs(rows: Rows, k: int) -> set[Pair]:
    """The package's fingerprints, all pairs within k found exactly: SimhashIndex's answer."""
    values = np.array([h.value for h in simhash_fingerprints(rows)], dtype=np.uint64)
    i, j, _ = single_pass_pairs(values, k)  # every pair within k, exactly
    ids = np.array([r["id"] for r in rows])
    return set(zip(ids[i].tolist(), ids[j].tolist()))


def simhash_peer(k: int, tuned_on: str = "") -> Method:
    """The 1e0ng simhash package at distance k (its SimhashIndex up to INDEX_MAX_K)."""
    features = "f=64, default features (lower-cased word characters, 4-grams) of content"
    if k <= INDEX_MAX_K:
        return Method(f"simhash (1e0ng) k={k}", f"SimhashIndex k={k}, {features}",
                      lambda rows: simhash_index_pairs(rows, k), tuned_on)
    return Method(f"simhash (1e0ng) k={k}", f"Simhash values, {features}; pairs within k={k} by exact "
                  "numpy all-pairs (what SimhashIndex returns; the index itself is too slow at this k)",
                  lambda rows: simhash_numpy_pairs(rows, k), tuned_on)


def minhashes(rows: Rows, size: int, num_perm: int = 128) -> dict:
    """datasketch MinHash of each row's content shingles, by row id (rows with no text left out)."""
    from datasketch import MinHash

    sets = [[s.encode("utf-8") for s in jaccard.shingle_set(t, size)] for t in contents(rows)]
    return {r["id"]: m for r, m, s in zip(rows, MinHash.bulk(sets, num_perm=num_perm), sets) if s}


def lsh_pairs(hashes: dict, threshold: float, num_perm: int = 128, verify: bool = False) -> set[Pair]:
    """datasketch MinHashLSH: insert every row, query every row; optionally keep only candidates
    whose estimated Jaccard reaches the threshold."""
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    with lsh.insertion_session() as session:
        for key, m in hashes.items():
            session.insert(key, m)
    out = set()
    for key, m in hashes.items():
        out.update((key, other) for other in lsh.query(m)
                   if other != key and (not verify or m.jaccard(hashes[other]) >= threshold))
    return out


def minhash_lsh_pairs(rows: Rows, threshold: float, size: int, num_perm: int = 128,
                      verify: bool = False) -> set[Pair]:
    """datasketch MinHashLSH over content shingles, from the rows."""
    return lsh_pairs(minhashes(rows, size, num_perm), threshold, num_perm, verify)


def minhash_peer(threshold: float, size: int, verify: bool, tuned_on: str = "") -> Method:
    """datasketch MinHashLSH with num_perm 128."""
    return Method("datasketch MinHashLSH", f"num_perm=128, threshold={threshold:g}, char {size}-grams of "
                  f"cleaned content, {'candidates checked by estimated Jaccard' if verify else 'LSH candidates as reported'}",
                  lambda rows: minhash_lsh_pairs(rows, threshold, size, verify=verify), tuned_on)


def jaccard_pairs(rows: Rows, t: float, size: int) -> set[Pair]:
    """Every pair whose content shingle Jaccard is >= t, computed exactly."""
    i, j, _ = jaccard.similar_pairs([jaccard.shingle_set(x, size) for x in contents(rows)], t)
    ids = np.array([r["id"] for r in rows])
    return set(zip(ids[i].tolist(), ids[j].tolist()))


def jaccard_peer(t: float, size: int, tuned_on: str = "") -> Method:
    """Exact shingle Jaccard (Shingle/DSC): all pairs at or above t."""
    return Method("exact shingle Jaccard", f"Jaccard >= {t:g} on char {size}-grams of cleaned content, "
                  "exact (prefix filter + sparse products)", lambda rows: jaccard_pairs(rows, t, size), tuned_on)


# ------------------------------------------------------------------ tuning


@dataclass
class Tuning:
    """The settings tried on the dev set, each with its score, and the best by F1."""

    name: str
    tried: list[tuple[str, Score]] = field(default_factory=list)
    best: Any = None
    best_f1: float = -1.0

    def add(self, setting: Any, label: str, s: Score) -> None:
        """Record one setting; keep it if its F1 is the best so far."""
        self.tried.append((label, s))
        if s.f1 > self.best_f1:
            self.best, self.best_f1 = setting, s.f1


def tune(name: str, candidates: Iterable[tuple[Any, str, Callable[[], set[Pair]]]], dev: Dataset) -> Tuning:
    """Score each (setting, label, pairs-thunk) on the dev set; the best F1 wins."""
    t = Tuning(name)
    for setting, label, run in candidates:
        t.add(setting, label, score(dev, run()))
    return t


def tune_methods(methods: Iterable[Method], dev: Dataset) -> Tuning:
    """Tune among whole methods (e.g. variants of ours) on the dev set."""
    return tune("ours", ((m, f"{m.name}: {m.settings}", lambda m=m: m.pairs(dev.rows)) for m in methods), dev)


def tune_simhash(dev: Dataset, ks: Iterable[int] = range(0, 17)) -> Tuning:
    """Best k for the simhash package: its fingerprints once, exact all pairs within the largest k."""
    ks = list(ks)
    values = np.array([h.value for h in simhash_fingerprints(dev.rows)], dtype=np.uint64)
    ids = np.array([r["id"] for r in dev.rows])
    i, j, d = single_pass_pairs(values, max(ks))
    cands = [(k, f"k={k}", lambda keep=d <= k: set(zip(ids[i[keep]].tolist(), ids[j[keep]].tolist())))
             for k in ks]
    return tune("simhash", cands, dev)


def tune_jaccard(dev: Dataset, sizes: Iterable[int] = (2, 3, 4),
                 ts: Iterable[float] = np.arange(0.3, 0.91, 0.05)) -> Tuning:
    """Best shingle size and threshold for exact Jaccard: all pairs at the lowest t once per size."""
    ts = [round(float(t), 2) for t in ts]
    ids = np.array([r["id"] for r in dev.rows])
    cands = []
    for size in sizes:
        i, j, sim = jaccard.similar_pairs([jaccard.shingle_set(x, size) for x in contents(dev.rows)], min(ts))
        for t in ts:
            keep = sim >= t - 1e-12
            cands.append(((t, size), f"{size}-grams, t={t:g}",
                          lambda i=i[keep], j=j[keep]: set(zip(ids[i].tolist(), ids[j].tolist()))))
    return tune("exact Jaccard", cands, dev)


def tune_minhash(dev: Dataset, sizes: Iterable[int] = (2, 3, 4),
                 thresholds: Iterable[float] = (0.3, 0.4, 0.5, 0.6, 0.7)) -> Tuning:
    """Best shingle size, LSH threshold and candidate check for datasketch MinHashLSH."""
    t = Tuning("datasketch")
    for size in sizes:
        hashes = minhashes(dev.rows, size)
        for th in thresholds:
            candidates = lsh_pairs(hashes, th)
            checked = {p for p in candidates if hashes[p[0]].jaccard(hashes[p[1]]) >= th}
            for verify, pairs in ((False, candidates), (True, checked)):
                t.add((th, size, verify), f"{size}-grams, threshold={th:g}, verify={verify}", score(dev, pairs))
    return t


def timed(method: Method, rows: Rows) -> tuple[set[Pair], float]:
    """The method's pairs and its wall time in seconds."""
    start = time.perf_counter()
    pairs = method.pairs(rows)
    return pairs, time.perf_counter() - start
