"""The review as a library: what reviewers decide, see and manage (the queue, the audit, the
pairs found, decisions and their history, the rule's precision, search, reviewers and the
console's access log), one function each, taking the process's Pipeline (or a Config, for one opened for the call). The CLI (cli.py) and
the review console (console/desk.py) both call these; commands.py names them too, as before.
Each function imports what it uses when called."""

from __future__ import annotations

import dataclasses
import datetime as dt
import sys
from typing import TYPE_CHECKING, Any, Iterable, NamedTuple

from .calls import check_writable as _check_writable, source_id as _source_id, writing as _writing
from .errors import InputError, UsageError
from .pipeline import Using, sourced, stored

if TYPE_CHECKING:
    from .sql.decisions import Precision
    from .sql.queue import Item


# -- what reviewers decide (sql/decisions.py; obeyed through core.decision.obey)

def decide(using: Using, first: Any, second: Any, *, same: bool, by: str, note: str | None = None,
           seen: int | None = None) -> list:
    """Record that rows `first` and `second` are the same petition (or not), by reviewer
    `by`; dedup_match follows at once, the store's pairs and groups at the next batch.
    `seen`: the id of the pair's latest decision the reviewer was shown (0: none); another
    made since refuses this one (decisions.Conflict)."""
    return decide_group(using, [first, second], same=same, by=by, note=note, seen=seen)


def decide_group(using: Using, rows: list, *, same: bool, by: str, note: str | None = None,
                 row: Any = None, seen: int | None = None) -> list:
    """Record a group's decision: `rows` are one (collective) petition (same), or `row` is
    not a duplicate of any of `rows` (not same; without `row`, no two of them are). `seen`:
    the id of the latest decision about the group's pairs the reviewer was shown (0: none)."""
    from .sql import decisions

    with sourced(using) as source:
        ids = [_source_id(source, r) for r in rows]
        alone = _source_id(source, row) if row is not None else None
        named = {*ids, alone} - {None}
        if len(named) < 2:
            raise InputError(f"a decision is about two different rows, not row {', '.join(map(str, named))} "
                             f"with itself: nothing was decided")
        if alone is not None:
            pairs = [(alone, other) for other in ids]
        elif same:
            pairs = [(ids[0], other) for other in ids[1:]]  # one petition: a star joins them all
        else:
            pairs = [(a, b) for n, a in enumerate(ids) for b in ids[n + 1:]]
        made = decisions.record(source, pairs, decisions.SAME if same else decisions.DIFFERENT, by, note,
                                seen=seen, among=named)
        _follow(source, made)
    return made


def undo(using: Using, by: str, act: str | None = None) -> list:
    """Undo reviewer `by`'s most recent act (only if it is `act`, when given): each of its
    pairs back to the decision before it, or to none (sql.decisions.undo); dedup_match
    follows at once (a pair with no decision standing back as the rule had it)."""
    from .sql import decisions

    with sourced(using) as source:
        made = decisions.undo(source, by, act)
        stale = decisions.changed(source, made)
        _follow(source, [d for d, s in zip(made, stale) if not s])
        _to_the_rule(source, [d for d, s in zip(made, stale) if s])
    return made


def _to_the_rule(source: Any, made: list) -> None:
    """dedup_match with these pairs as the rule had them when they were decided: there
    (auto, at the distance held, else NOT_MEASURED until the next batch) when it paired
    them, else gone."""
    from .core.decision import NOT_MEASURED
    from .sql import matchtable

    with source.errors("write the undone pairs to dedup_match for"), source.engine.begin() as conn:
        table = matchtable.reflect(conn)
        if table is None or not made:
            return
        matches = matchtable.SqlMatches(conn, table, matchtable.BATCH, source.config.source.table)
        held = matches.distances([d.row_id for d in made])
        matches.forget_pairs([d.pair for d in made])
        matches.write([(d.row_id, d.other_id, held.get(d.pair, NOT_MEASURED)) for d in made if d.proposed == "auto"])


def _follow(source: Any, made: list) -> None:
    """dedup_match as these decisions have it: a pair decided different gone, one decided
    the same there, confirmed (the configured table's pairs alone)."""
    from .core.decision import NOT_MEASURED
    from .sql import matchtable

    with source.errors("write the decided pairs to dedup_match for"), source.engine.begin() as conn:
        table = matchtable.reflect(conn)
        if table is None:
            return
        matches = matchtable.SqlMatches(conn, table, matchtable.BATCH, source.config.source.table)
        matches.forget_pairs([d.pair for d in made if d.verdict == "different"])
        held = matches.distances([d.row_id for d in made])
        same = [(d.row_id, d.other_id, held.get(d.pair, NOT_MEASURED)) for d in made if d.verdict == "same"]
        matches.write(same, frozenset((a, b) for a, b, _ in same))


# -- what reviewers decide of matters (热点事项; sql/matters.py, obeyed by jobs.matters.entries_of)

def matter_decide(using: Using, verdict: str, row: Any, other: Any = None, *, by: str) -> Any:
    """Record a reviewer's decision on matters and obey it at once: "apart" (row is in no
    matter, whatever it names), "back" (undo that), "together" (the matters of row and other
    are one), "separate" (undo that). Returns the row's matter now (None: none)."""
    from .jobs import matters
    from .sql import matters as stored

    with sourced(using) as source:
        config = source.config
        first, second = _source_id(source, row), None if other is None else _source_id(source, other)
        with source.errors("decide the matters of"), source.engine.begin() as conn:
            tables = matters.tables_of(config, conn)
            if tables is None:
                raise UsageError("matters are not kept here: set [matters] find = true, run `dedup-pipeline "
                                 "migrate`, then `dedup-pipeline batch`")
            stored.serialised(conn, tables)  # what is read here stands until the decision is written
            held = stored.of_rows(conn, tables, config.source.table, [r for r in (first, second) if r is not None])
            decided = stored.decided(conn, tables, config.source.table, [first])
            looking = _matter_decision_refused(verdict, first, second, held, decided)
            matters.decide(conn, tables, config, verdict, first, second, looking, by)
            now = stored.of_rows(conn, tables, config.source.table, [first]).get(first)
    return now.matter if now else None


def _matter_decision_refused(verdict: str, row: Any, other: Any, held: dict, decided: Any) -> Any:
    """The matter a decision is made looking at, or InputError saying why it cannot be made."""
    from .sql import matters as stored

    if verdict not in (stored.APART, stored.BACK, stored.TOGETHER, stored.SEPARATE):
        raise InputError(f"unknown decision {verdict!r}: apart, back, together or separate")
    matter = held[row].matter if row in held else None
    if verdict in (stored.TOGETHER, stored.SEPARATE) and other is None:
        raise InputError(f"{verdict} is about two matters: name a row of each")
    if verdict == stored.APART and matter is None:
        raise InputError(f"row {row} is in no matter: nothing to take it out of")
    if verdict == stored.BACK and row not in decided.apart:
        raise InputError(f"row {row} was not taken out of a matter: nothing to put back")
    if verdict == stored.TOGETHER:
        there = held[other].matter if other in held else None
        if matter is None or there is None or matter == there:
            raise InputError(f"rows {row} and {other} are not in two matters: nothing to put together")
    if verdict == stored.SEPARATE and stored.about(row, other) not in decided.together:
        raise InputError(f"the matters of rows {row} and {other} were not put together by a reviewer")
    return matter if matter is not None else row


def history(using: Using, first: Any, second: Any) -> list:
    """Every decision about the pair, oldest first."""
    from .sql import decisions

    with sourced(using) as source:
        a, b = (_source_id(source, r) for r in (first, second))
        return decisions.history(source, a, b)


def group_history(using: Using, rows: list) -> list:
    """Every decision about a pair of these rows (a group's), oldest first."""
    from .sql import decisions

    with sourced(using) as source:
        return decisions.among(source, [_source_id(source, r) for r in rows])


def decisions_export(using: Using, out: str, fmt: str = "csv") -> int:
    """Write every decision to `out` (csv or jsonl); returns how many."""
    from .sql import decisions

    if out == "-":
        with sourced(using) as source:
            return decisions.export(decisions.every(source), sys.stdout, fmt)
    _check_writable(out, "--out")
    with sourced(using) as source, _writing(out, "the decisions"), open(out, "w", newline="", encoding="utf-8") as f:
        return decisions.export(decisions.every(source), f, fmt)


def decisions_import(using: Using, path: str) -> int:
    """Append the decisions of an export (csv or jsonl) to dedup_decision, as they were
    made (their reviewers, times and content hashes); returns how many."""
    from .sql import decisions
    from .sql.source import id_type

    try:
        with open(path, encoding="utf-8", newline="") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read {path}: {e}") from None
    with sourced(using) as source:
        typed = id_type(source)
        made = [dataclasses.replace(d, row_id=typed(d.row_id), other_id=typed(d.other_id))
                for d in decisions.parse(lines, path)]
        return len(decisions.write(source, made))


def queue(using: Using, limit: int | None = None) -> list[Item]:
    """What needs a person: what the rule cannot settle, most in need first
    (sql.queue.open_items), then the audit's pairs still to decide (sql.queue.audit)."""
    from .sql.queue import open_items

    with sourced(using) as source:
        return (open_items(source) + _audit(using, source).open)[:limit]


def audit(using: Using) -> Any:
    """The audit of the live batch (抽检, sql.queue.audit): `[review] audit_pairs` of the
    rule's own pairs drawn at random, those decided and those still to decide."""

    with sourced(using) as source:
        return _audit(using, source)


def _audit(using: Using, source: Any, decided: list | None = None, live: tuple | None = None) -> Any:
    """The audit over this source (`decided`: every decision, `live`: the live batch's id
    and pairs, when already read); none before a batch, or without dedup_decision (`migrate`
    not run: nobody could decide)."""
    from .sql import decisions
    from .sql.queue import Audit
    from .sql.queue import audit as drawn

    config = source.config
    if not config.review.audit_pairs or (decided is None and not decisions.exists(source)):
        return Audit([], set(), [])
    run, pairs = live or live_pairs(using)
    if run is None:
        return Audit([], set(), [])
    decided = decisions.every(source) if decided is None else decided
    return drawn(run, pairs, decided, decisions.standing(source, decided), config.review.audit_pairs)


def live_pairs(using: Using) -> tuple[str | None, list[tuple]]:
    """The live batch's id and its pairs (a, b, distance) as it stored them (None, []: no batch yet)."""

    with stored(using) as store:
        run = store.current_run()
        return (run["run"], store.read_matches(run["run"])) if run else (None, [])


class Found(NamedTuple):
    """What the live batch found, for browsing: its pairs (a, b, distance) in id order, its
    groups (rows in id order) with the nearest distance inside each, and the audit's pairs."""

    run: str | None
    pairs: list[tuple]
    groups: list[tuple[list, float]]
    audit: set[tuple]


def found(using: Using) -> Found:
    """The live batch's pairs and groups as it stored them (sql.queue.audit marks the audit's)."""
    from .core.decision import id_order, pair_key

    with stored(using) as store:
        run = store.current_run()
        if run is None:
            return Found(None, [], [], set())
        read = store.read_matches(run["run"])
        members = store.read_groups(run["run"])
    pairs = sorted(((*pair_key(a, b), d) for a, b, d in read), key=lambda p: (id_order(p[0]), id_order(p[1])))
    group_of = {row: n for n, rows in enumerate(members) for row in rows}
    nearest: dict[int, float] = {}
    for a, _, d in pairs:
        if a in group_of:
            nearest[group_of[a]] = min(d, nearest.get(group_of[a], d))
    groups = sorted(((sorted(rows, key=id_order), nearest.get(n, float("nan"))) for n, rows in enumerate(members)),
                    key=lambda g: id_order(g[0][0]))
    with sourced(using) as source:
        sample = _audit(using, source, live=(run["run"], read)).sample
    return Found(run["run"], pairs, groups, {(a, b) for a, b, _ in sample})


def search(using: Using, text: str, limit: int | None = None, unsearched: Iterable[str] = ()) -> Any:
    """The rows of the configured table that `text` finds (by id, or its words in the
    fields but those named `unsearched`), best first, with the rows each is paired with
    (sql.search.find)."""
    from .sql import search as searching

    with sourced(using) as source:
        return searching.find(source, text, limit or searching.LIMIT, tuple(unsearched))


def precision(using: Using) -> Precision:
    """The rule's precision estimated from the audit's pairs decided (sql.queue.audit), and
    the share of queue items that were duplicates (sql.decisions.precision)."""
    from .sql import decisions

    with sourced(using) as source:
        if not decisions.exists(source):
            return decisions.precision([])
        decided = decisions.every(source)
        checked = _audit(using, source, decided)
        return decisions.precision(decided, checked.audited, len(checked.sample))


# ---------------------------------------------------------------- the review console: serve, reviewer
# (the console's own block: console/ and sql/reviewers.py do the work)

def reviewer_add(using: Using, name: str, password: str, *, replace: bool = False,
                 sees_phones: bool = False) -> Any:
    """Let `name` decide in the review console with this password (stored as a scrypt
    hash in dedup_reviewer); `sees_phones`: shown phone numbers unmasked; `replace` gives an
    existing reviewer a new password and role, ending every session of theirs."""
    from .sql import reviewers

    with sourced(using) as source:
        return reviewers.add(source, name, password, replace=replace, sees_phones=sees_phones)


def reviewer_disable(using: Using, name: str, *, disabled: bool = True) -> Any:
    """Stop `name` signing in to the console, ending every session of theirs at once
    (`disabled=False`: let them again); their decisions stay. Returns the reviewer."""
    from .sql import reviewers

    with sourced(using) as source:
        return reviewers.set_disabled(source, name, disabled)


def access_log(using: Using, since: Any = None) -> list[Any]:
    """The console's access log of the configured table (sql.access.Access: when, reviewer,
    page, row id, address), oldest first, from `since` (a date or datetime) on."""
    from .sql import access

    with sourced(using) as source:
        return access.read(source, _moment(since))


def access_log_export(using: Using, out: str, since: Any = None) -> int:
    """Write the access log (`access_log`) to `out` as CSV (-: standard output); returns how many rows."""
    from .sql import access

    accesses = access_log(using, since)
    if out == "-":
        return access.export(accesses, sys.stdout)
    _check_writable(out, "--out")
    with _writing(out, "the access log"), open(out, "w", newline="", encoding="utf-8") as f:
        return access.export(accesses, f)


def _moment(since: Any) -> Any:
    """A date (its midnight) or datetime, as given, or None."""
    if since is None or isinstance(since, dt.datetime):
        return since
    if isinstance(since, dt.date):
        return dt.datetime.combine(since, dt.time())
    try:
        return dt.datetime.fromisoformat(str(since))
    except ValueError:
        raise UsageError(f"--since {since!r} is no date: write 2025-03-01 or 2025-03-01T08:00") from None


def reviewer_list(using: Using) -> list[Any]:
    """Every reviewer (name, created_at, sees_phones, disabled), by name."""
    from .sql import reviewers

    with sourced(using) as source:
        return reviewers.every(source)


def reviewer_remove(using: Using, name: str) -> Any:
    """Take `name` out of the reviewers: their console sessions end at their next request,
    their decisions stay; returns the reviewer removed (a UsageError: no such reviewer)."""
    from .sql import reviewers

    with sourced(using) as source:
        return reviewers.remove(source, name)
