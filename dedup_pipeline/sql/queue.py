"""The queue of what the rule cannot settle, in `dedup_possible` (revision 0003): rows whose
texts are similar but that nothing else links, for a reviewer. Each item is a pair, or
the rows of one form letter as one item (a form letter sent by a thousand people is one
item, not half a million pairs). Written whole by each batch, beside dedup_match.

After them come the audit's pairs (抽检, `audit`): a random sample of the rule's own pairs
of the live batch, drawn anew by each batch, for the rule's precision to be estimated from.
"""

from __future__ import annotations

import hashlib
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

import numpy as np
import sqlalchemy as sa

from ..config import Config
from ..core.decision import Verdict, id_order, pair_key
from ..core.pairs import Pairs, groups
from .matchtable import CHUNK
from .scoped import mine, tagged
from .source import SqlSource
from .possible import POSSIBLE_TABLE, reflect  # noqa: F401  (queue.reflect: dedup_possible)



class Item(NamedTuple):
    """One thing for a reviewer: its rows in id order (two: a pair) and the nearest
    distance between two of them."""

    rows: list
    distance: float
    audit: bool = False  # one of the rule's own pairs drawn for the audit (抽检), not one it could not settle

    @property
    def kind(self) -> str:
        return "pair" if len(self.rows) == 2 else "group"

    @property
    def newest(self) -> Any:
        """Its last row in id order."""
        return self.rows[-1]


def items_of(ids: Sequence, possible: Pairs) -> list[Item]:
    """The items of these possible pairs (positions in `ids`): the rows they connect, each
    set of connected rows one item."""
    i, j, d = possible
    if not len(i):
        return []
    label = groups(len(ids), i, j)
    nearest: dict[int, float] = {}
    for a, distance in zip(label[i].tolist(), d.tolist()):
        nearest[a] = min(distance, nearest.get(a, distance))
    members: dict[int, list] = {}
    for position in np.union1d(i, j).tolist():
        members.setdefault(int(label[position]), []).append(ids[position])
    return [Item(sorted(rows, key=id_order), nearest[key]) for key, rows in members.items()]


def write(config: Config, found: list[Item]) -> int | None:
    """Make dedup_possible hold exactly these items of the configured table, in one
    transaction; None when the table is not there (`migrate` not run since it came)."""
    with SqlSource(config) as source, source.errors("write the queue of possible pairs of"), \
            source.engine.begin() as conn:
        table = reflect(conn)
        if table is None:
            return None
        conn.execute(table.delete().where(mine(table, config.source.table)))
        rows = [{"item": item.rows[0], "row_id": row, "distance": float(item.distance),
                 **tagged(table, config.source.table)} for item in found for row in item.rows]
        for start in range(0, len(rows), CHUNK):
            conn.execute(table.insert(), rows[start:start + CHUNK])
        return len(found)


def read(source: SqlSource) -> list[Item]:
    """The items of the configured table's queue as its last batch left them (none before `migrate`)."""
    with source.errors("read the queue of possible pairs of"), source.engine.connect() as conn:
        table = reflect(conn)
        if table is None:
            return []
        members: dict[Any, list] = {}
        nearest: dict[Any, float] = {}
        query = sa.select(table.c.item, table.c.row_id, table.c.distance).where(mine(table, source.config.source.table))
        for item, row, distance in conn.execute(query):
            members.setdefault(item, []).append(row)
            nearest[item] = distance
    return [Item(sorted(rows, key=id_order), nearest[item]) for item, rows in members.items()]


def open_items(source: SqlSource) -> list[Item]:
    """The queue's items still open, most in need of a person first: the nearest to being
    a pair, then the largest, then the newest. Decisions made since the batch are taken
    as the next batch will take them (`_left`)."""
    from .decisions import verdicts

    found = read(source)
    decided = verdicts(source, {r for i in found for r in i.rows}) if found else {}
    standing = {pair: v.same for pair, v in decided.items() if not v.stale}
    left = [Item(rows, i.distance) for i in found for rows in [_left(i.rows, standing)] if rows]
    return sorted(left, key=lambda i: (i.distance, -len(i.rows), _newest_first(i.rows[-1])))


def _left(rows: list, same: dict[tuple, bool]) -> list:
    """The rows of an item still to decide, given the standing verdicts (`same`: {pair:
    whether the same}): without a row decided different from each other row; none when
    those left are one petition by the verdicts the same (a pair decided either way, a
    group decided as one)."""
    rows = [r for r in rows if not all(same.get(pair_key(r, o)) is False for o in rows if o != r)]
    if len(rows) < 2:
        return []
    at = {row: n for n, row in enumerate(rows)}
    joined = np.array([(at[a], at[b]) for (a, b), yes in same.items() if yes and a in at and b in at],
                      np.int64).reshape(-1, 2)
    return [] if len(np.unique(groups(len(rows), joined[:, 0], joined[:, 1]))) == 1 else rows


def _newest_first(row: Any) -> tuple:
    return (0, -row) if isinstance(row, (int, float)) else (1, str(row))


class Audit(NamedTuple):
    """The audit of a batch: the rule's pairs drawn (a, b, distance), those of them a
    standing decision settles (their verdicts are the sample's), and those still to decide."""

    sample: list[tuple]
    audited: set[tuple]
    open: list[Item]


def audit(run: str, pairs: Iterable[tuple], decided: Sequence[Any], verdicts: Mapping[tuple, Verdict],
          size: int) -> Audit:
    """The `size` pairs of the batch `run` whose hash with the run's id is least, among the
    rule's own (`rule_pairs`): the same on every call until another batch goes live, when
    they are drawn anew. `decided`: every decision, oldest first; `verdicts`: those standing."""
    own = rule_pairs(pairs, decided, verdicts)
    sample = sorted(own, key=lambda pair: _draw(run, pair))[:size]
    audited = {pair for pair in sample if pair in verdicts and not verdicts[pair].stale}
    return Audit([(a, b, own[a, b]) for a, b in sample], audited,
                 [Item([a, b], own[a, b], audit=True) for a, b in sample if (a, b) not in audited])


def rule_pairs(pairs: Iterable[tuple], decided: Sequence[Any], verdicts: Mapping[tuple, Verdict]) -> dict[tuple, float]:
    """{pair: distance} of the pairs the rule made itself: the batch's pairs but those a
    reviewer made (first decided from the queue, not as the rule's), and those of its
    pairs a reviewer has since decided different (gone from the batch, still the rule's:
    without them, an audit drawn again would see only the rule's pairs found right).
    A pair of those has no distance kept (nan)."""
    first: dict[tuple, Any] = {}
    for d in decided:
        first.setdefault(d.pair, d)
    ours = {None, "auto"}  # None: a decision from before `proposed` was recorded
    own = {key: float(distance) for a, b, distance in pairs for key in [pair_key(a, b)]
           if key not in first or first[key].proposed in ours}
    for pair, verdict in verdicts.items():
        if pair not in own and not verdict.same and not verdict.stale and first[pair].proposed == "auto":
            own[pair] = float("nan")
    return own


def _draw(run: str, pair: tuple) -> bytes:
    """Where a pair falls in the run's draw: a hash of the run's id and the pair."""
    return hashlib.blake2b(f"{run}\x1f{pair[0]}\x1f{pair[1]}".encode(), digest_size=8).digest()
