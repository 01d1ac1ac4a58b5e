"""Reports from the last batch's stored results: exports of pairs and groups, and the admin
HTML page (report.py renders it; this gathers its data from MongoDB and the source). Both
show the pairs and groups as reviewers decided them, decisions made since the batch too
(`obeyed`)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..config import Config
from .render import PairDecision, ReportData, Review, groups_table, render_html, write_csv, write_jsonl
from ..core.decision import AUTO, CONFIRMED, Verdict, id_order, obey
from ..core.pairs import groups_of
from ..sql import decisions
from ..sql.queue import audit, open_items
from ..sql.source import SqlSource
from ..errors import StoreError
from ..pipeline import Using, config_of, sourced, stored


def _load(using: Using) -> tuple[dict[str, Any], list[tuple], list[list]]:
    """The live run's pointer, pairs and groups, all of one generation."""
    with stored(using) as store:
        run = store.current_run()
        if run is None:
            raise StoreError("no batch results yet: run `dedup-pipeline batch` first")
        pairs = sorted(store.read_matches(run["run"]), key=_pair_order)
        members = store.read_groups(run["run"])
    return run, pairs, members


def _pair_order(pair: tuple) -> tuple:
    """Pairs by their ids, whatever their types (an untyped id column mixes them)."""
    a, b, distance = pair
    return id_order(a), id_order(b), distance


class Obeyed(NamedTuple):
    """The stored pairs as reviewers decided them (decision.obey), in pair order, those a
    reviewer confirmed, every decision (oldest first; None: no dedup_decision, `migrate`
    not run since it came) and the verdict standing of each pair decided."""

    pairs: list[tuple]
    confirmed: set[tuple[Any, Any]]
    decided: list[decisions.Decision] | None
    verdicts: dict[tuple[Any, Any], Verdict]


def obeyed(source: SqlSource, pairs: list[tuple]) -> Obeyed:
    """The pairs (a, b, distance) as the decisions standing now have them: what both the
    export and the HTML report show, so that a decision made since the batch shows at once."""
    decided = decisions.every(source) if decisions.exists(source) else None
    verdicts = decisions.standing(source, decided or [])
    kept, confirmed = obey({(a, b): d for a, b, d in pairs}, verdicts)
    return Obeyed(sorted(((a, b, d) for (a, b), d in kept.items()), key=_pair_order), confirmed, decided, verdicts)


def regrouped(groups: list[list], pairs: list[tuple], found: Obeyed) -> list[list]:
    """The groups of the obeyed pairs, as a batch groups them (core.pairs.groups_of); the stored
    groups when no decision changed a pair."""
    if found.pairs == pairs:
        return groups
    ids = sorted({r for a, b, _ in found.pairs for r in (a, b)}, key=id_order)
    at = {row: n for n, row in enumerate(ids)}
    i, j = (np.array([at[p[k]] for p in found.pairs], np.int64) for k in (0, 1))
    return groups_of(ids, (i, j, np.array([p[2] for p in found.pairs], float)))


def _review(config: Config, source: SqlSource, found: Obeyed, run: str, pairs: list[tuple]) -> Review | None:
    """What reviewers decided, for the report's review section and its marks on pairs (the
    rule's precision from the audit of the batch `run` of these `pairs`, as the console
    gives it); None without dedup_decision."""
    if found.decided is None:
        return None
    last = {d.pair: d for d in found.decided}
    checked = audit(run, pairs, found.decided, found.verdicts, config.review.audit_pairs)
    return Review(decisions=len(found.decided),
                  precision=decisions.precision(found.decided, checked.audited, len(checked.sample)),
                  open_items=len(open_items(source)),
                  last={pair: PairDecision(last[pair].reviewer, last[pair].note, v.same, v.stale)
                        for pair, v in found.verdicts.items()})


def _data(using: Using, run: dict[str, Any], pairs: list[tuple], groups: list[list],
          with_rows: bool = True, review: bool = False) -> ReportData:
    """What a report shows: the pairs and groups as reviewers decided them, the rows in
    them (`with_rows`), and what the reviewers decided and the matters (`review`: the HTML report)."""
    from ..sql.matters import matters

    rows: dict[Any, dict] = {}
    config = config_of(using)
    with sourced(using) as source:
        found = obeyed(source, pairs)
        groups = regrouped(groups, pairs, found)
        seen = _review(config, source, found, run["run"], pairs) if review else None
        shown = matters(source)[:MATTERS_SHOWN] if review else []
        if with_rows:
            wanted = [rid for g in groups for rid in g] + [rid for m in shown for rid in m.rows]
            for row in source.rows_by_id(wanted):
                rows[row[config.source.id_column]] = row
    fields = config.fields
    return ReportData(
        rows=rows, pairs=found.pairs, groups=groups, computed_at=run["finished_at"], settings=run["settings"],
        rows_scanned=run["summary"]["rows"], date_column=config.report.date_column or None,
        category_column=config.report.category_column or None,
        text_column=next((f.name for f in fields if f.role == "long"), None),
        short_columns=[f.name for f in fields if f.role == "short"], review=seen, matters=shown)


MATTERS_SHOWN = 200  # matters the HTML report is given, the largest first (it shows the largest and fastest-growing)


def export(using: Using, path: str, fmt: str, want_groups: bool, possible: bool = False) -> int:
    """Write the pairs ({a, b, distance, status}: as reviewers decided them, `obeyed`),
    the groups (one line per row, likewise) or the queue's open items (`possible`: {item,
    kind, rows, distance}, never pairs) as jsonl or csv."""
    write = write_csv if fmt == "csv" else write_jsonl
    if possible:
        with sourced(using) as source:
            items = open_items(source)
        return write(path, (["item", "kind", "rows", "distance"],
                            [(i.rows[0], i.kind, " ".join(map(str, i.rows)) if fmt == "csv" else i.rows, i.distance)
                             for i in items]))
    run, pairs, groups = _load(using)
    if not want_groups:
        with sourced(using) as source:
            found = obeyed(source, pairs)
        return write(path, (["a", "b", "distance", "status"],
                            [(a, b, d, CONFIRMED if (a, b) in found.confirmed else AUTO) for a, b, d in found.pairs]))
    data = _data(using, run, pairs, groups, with_rows=fmt == "csv")
    return write(path, groups_table(data, [f.name for f in config_of(using).fields] if fmt == "csv" else []))


def export_matters(using: Using, path: str, fmt: str) -> int:
    """Write the matters (sql.matters.matters: the largest first), one line each: {matter,
    rows, object, problem, people, first, last} as jsonl or csv (rows space-separated)."""
    from ..sql.matters import matters

    write = write_csv if fmt == "csv" else write_jsonl
    with sourced(using) as source:
        found = matters(source)
    return write(path, (["matter", "rows", "object", "problem", "people", "first", "last"],
                        [(m.matter, " ".join(map(str, m.rows)) if fmt == "csv" else m.rows, m.object, m.problem,
                          m.people, m.first.isoformat(), m.last.isoformat()) for m in found]))


def write_html_report(using: Using, path: str, lang: str) -> None:
    """The admin report of the live run, as reviewers decided it, in `lang` (zh, en)."""
    run, pairs, groups = _load(using)
    with open(path, "w", encoding="utf-8") as f:
        f.write(render_html(_data(using, run, pairs, groups, review=True), lang=lang))
