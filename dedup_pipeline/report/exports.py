"""Reports from the last batch's stored results: exports of pairs and groups, and the admin
HTML page (report.py renders it; this gathers its data from MongoDB and the source)."""

from __future__ import annotations

from typing import Any

from ..config import Config
from .render import ReportData, groups_table, render_html, write_csv, write_jsonl
from ..core.decision import AUTO, CONFIRMED, obey
from ..sql import decisions
from ..sql.queue import open_items
from ..sql.source import SqlSource, id_order
from ..store.index import StoreError, open_store


def _load(config: Config) -> tuple[dict[str, Any], list[tuple], list[list]]:
    """The live run's pointer, pairs and groups, all of one generation."""
    with open_store(config) as store:
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


def _data(config: Config, run: dict[str, Any], pairs: list[tuple], groups: list[list],
          with_rows: bool = True) -> ReportData:
    rows: dict[Any, dict] = {}
    if with_rows:
        with SqlSource(config) as source:
            for row in source.rows_by_id(rid for g in groups for rid in g):
                rows[row[config.source.id_column]] = row
    fields = config.fields
    return ReportData(
        rows=rows, pairs=pairs, groups=groups, computed_at=run["finished_at"], settings=run["settings"],
        rows_scanned=run["summary"]["rows"], date_column=config.report.date_column or None,
        category_column=config.report.category_column or None,
        text_column=next((f.name for f in fields if f.role == "long"), None),
        short_columns=[f.name for f in fields if f.role == "short"])


def export(config: Config, path: str, fmt: str, want_groups: bool, possible: bool = False) -> int:
    """Write the pairs ({a, b, distance, status}: as reviewers decided them, decision.obey),
    the groups (one line per row) or the queue's open items (`possible`: {item, kind, rows,
    distance}, never pairs) as jsonl or csv."""
    write = write_csv if fmt == "csv" else write_jsonl
    if possible:
        with SqlSource(config) as source:
            items = open_items(source)
        return write(path, (["item", "kind", "rows", "distance"],
                            [(i.rows[0], i.kind, " ".join(map(str, i.rows)) if fmt == "csv" else i.rows, i.distance)
                             for i in items]))
    run, pairs, groups = _load(config)
    if not want_groups:
        with SqlSource(config) as source:
            verdicts = decisions.verdicts(source)
        kept, confirmed = obey({(a, b): d for a, b, d in pairs}, verdicts)
        return write(path, (["a", "b", "distance", "status"],
                            [(a, b, d, CONFIRMED if (a, b) in confirmed else AUTO)
                             for (a, b), d in sorted(kept.items(), key=lambda p: _pair_order((*p[0], p[1])))]))
    data = _data(config, run, pairs, groups, with_rows=fmt == "csv")
    return write(path, groups_table(data, [f.name for f in config.fields] if fmt == "csv" else []))


def write_html_report(config: Config, path: str, lang: str) -> None:
    run, pairs, groups = _load(config)
    with open(path, "w", encoding="utf-8") as f:
        f.write(render_html(_data(config, run, pairs, groups), lang=lang))
