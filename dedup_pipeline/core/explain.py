"""Why two rows are (or are not) reported as similar: the score the scheme gives them, the
fields that agree, and the text or features that agree and differ, with their weights; and
what the configured scheme files of one row (`filed`, for `dedup-pipeline fingerprint`).
Pure: it takes the rows; the CLI reads them."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from .decision import SUBMITTER, WRITTEN, copied
from .features import value_text
from .schemes import block_scheme, featurizer, scheme_of, shingle_scheme
from .shingles import ALIGNED_CHARS, changes, differences, long_text, overlap, same_submitter, unsigned
from .simhash import to_hex

if TYPE_CHECKING:
    from ..config import Config

Row = Mapping[str, Any]
SHOWN = 20  # features or text pieces listed per side
DIFF_CHARS = 5_000  # characters of each text diffed for display
PRINTED_CHARS = 200  # characters of a value or a differing piece printed as text


def explain_pair(config: Config, a: Row, b: Row, around: Mapping[Any, Any] | None = None,
                 reviewed: Any = None) -> dict[str, Any]:
    """Everything that decides the pair, as plain data (for text or JSON output): the verdict
    and reasons of the decision (decision.py) over the two rows and the stored rows `around`
    them ({row id: probe}, as `Incremental.decide` reads them), what it measured, and the
    reviewer's last decision of the pair (`reviewed`: a sql.decisions.Decision), which has
    the last word while both rows are as decided (decision.obey)."""
    scheme = scheme_of(config)
    pa, pb = scheme.probes([a, b])
    ids = [a.get(config.source.id_column, "a"), b.get(config.source.id_column, "b")]
    ids += [row for row in (around or {}) if row not in ids]
    decided = scheme.decide([pa, pb, *(around[row] for row in ids[2:])], np.arange(len(ids)) < 2)
    at = decided.of(0, 1)
    copies = bool(decided.original[0] == decided.original[1])
    shared_keys = set(scheme.keys(pa)) & set(scheme.keys(pb))
    distance, evidence = scheme.relate(pa, pb)
    out = {"scheme": config.scheme.name, "similar": at is not None or copies, "copies": copies,
           "distance": float(decided.pairs[2][at]) if at is not None else distance if copies else None,
           "evidence": _evidence(int(decided.evidence[at]) if at is not None else evidence),
           # the third row that links a pair without evidence of its own
           "linked_by": ids[int(decided.via[at])] if at is not None and decided.via[at] >= 0 else None,
           "shares_a_key": bool(shared_keys), "rows_around": len(ids) - 2, "fields": _fields(config, a, b),
           # similar text without evidence of its own: a pair only if a third row links it
           "needs_a_link": distance is not None and not evidence and scheme.links,
           # no key shared: compared only when a third row is paired with both
           "needs_a_third": distance is not None and not shared_keys and scheme.links}
    out |= _decided(out["similar"], reviewed)
    return out | (_shingles(config, a, b, pa, pb) if config.shingles else _fingerprints(config, a, b, pa, pb))


def _decided(rule: bool, decided: Any) -> dict[str, Any]:
    """`similar` as reviewers decided it, the rule's own answer (`rule_similar`), and the
    decision (same, by, at, stale: a row changed since, so the rule decides again)."""
    if decided is None:
        return {"rule_similar": rule, "decided": None}
    same = decided.verdict == "same"
    return {"similar": rule if decided.stale else same, "rule_similar": rule,
            "decided": {"same": same, "by": decided.reviewer, "at": decided.decided_at, "note": decided.note,
                        "stale": decided.stale}}


def _evidence(bits: int) -> list[str]:
    return [name for bit, name in ((SUBMITTER, "the same submitter"), (WRITTEN, "the same as written")) if bits & bit]


def _fields(config: Config, a: Row, b: Row) -> list[dict[str, Any]]:
    """Each configured field: its role and weight, and whether both rows agree on it."""
    out = []
    for f in config.fields:
        va, vb = value_text(a.get(f.name), f), value_text(b.get(f.name), f)
        out.append({"field": f.name, "role": f.role, "weight": f.effective_weight,
                    "same": bool(va) and va == vb, "a": va, "b": vb})
    return out


def _shingles(config: Config, a: Row, b: Row, pa: Any, pb: Any) -> dict[str, Any]:
    s = shingle_scheme(config)
    jaccard, contained = overlap(pa.shingles, pb.shingles)
    ta, tb = long_text(a, config.fields), long_text(b, config.fields)
    written_jaccard, written_contained = overlap(pa.verbatim, pb.verbatim)
    aligned = max(len(ta), len(tb)) <= ALIGNED_CHARS
    return {"jaccard": round(jaccard, 4), "containment": round(contained, 4),
            "verbatim_jaccard": round(written_jaccard, 4), "verbatim_containment": round(written_contained, 4),
            # aligned: where the texts differ, what a copy may change (None: too long to align)
            "aligned": differences(*unsigned(ta, tb, pa.people, pb.people))._asdict() if aligned else None,
            "copied": copied(s, ta, tb, pa.filed, pb.filed, pa.people, pb.people),
            "filed": {"a": _day(pa.filed), "b": _day(pb.filed), "field": s.filed or None},
            "same_submitter": same_submitter(pa.people, pb.people), "submitter_fields": list(s.submitter),
            "thresholds": {"jaccard": s.threshold, "containment": s.containment, "verbatim": s.verbatim,
                           "verbatim_containment": s.verbatim_containment, "slips": s.slips, "numbers": s.numbers,
                           "days": s.days if s.filed else None, "min_shingles": s.min_shingles},
            "text": {"a": ta, "b": tb}, "differences": _differences(ta, tb),
            "differences_within": DIFF_CHARS if max(len(ta), len(tb)) > DIFF_CHARS else None}


def _day(day: int) -> str | None:
    return date.fromordinal(day).isoformat() if day else None


def _differences(ta: str, tb: str) -> list[dict[str, str]]:
    """The pieces of the compared texts that differ, aligned as the scheme aligns them,
    within the first DIFF_CHARS characters of each (the display of 10 MB texts is cut)."""
    wa, wb = ta[:DIFF_CHARS], tb[:DIFF_CHARS]
    found = changes(wa, wb)
    cut_a, cut_b = len(ta) > DIFF_CHARS, len(tb) > DIFF_CHARS
    if found and (cut_a and found[-1][1] == DIFF_CHARS or cut_b and found[-1][3] == DIFF_CHARS):
        found.pop()  # the end of a cut window differs only because of the cut
    kinds = {(True, True): "replace", (True, False): "delete", (False, True): "insert"}
    return [{"op": kinds[e > s, u > t], "a": wa[s:e], "b": wb[t:u]} for s, e, t, u in found][:SHOWN]


def _fingerprints(config: Config, a: Row, b: Row, pa: int, pb: int) -> dict[str, Any]:
    features = featurizer(config)
    fa = {(f, feat): w for f, feat, w in features.explain(a)}
    fb = {(f, feat): w for f, feat, w in features.explain(b)}

    def listed(keys: set, weights: dict) -> list[dict[str, Any]]:
        heaviest = sorted(keys, key=lambda k: -weights[k])[:SHOWN]
        return [{"field": f, "feature": feat, "weight": weights[f, feat]} for f, feat in heaviest]

    return {"k": config.fingerprint.k, "fingerprints": {"a": to_hex(pa), "b": to_hex(pb)},
            "hamming": (pa ^ pb).bit_count(),
            "features": {"common": listed(fa.keys() & fb.keys(), fa), "only_a": listed(fa.keys() - fb.keys(), fa),
                         "only_b": listed(fb.keys() - fa.keys(), fb)}}


def render(explained: dict[str, Any], ids: tuple[Any, Any]) -> str:
    """The explanation as lines of text for a terminal."""
    a, b = ids
    e = explained
    reviewed = e["decided"] is not None and not e["decided"]["stale"]
    verdict = ("similar" if e["similar"] else "similar when a third row links them"
               if (e["needs_a_third"] or e["needs_a_link"]) and not reviewed else "not similar")
    lines = [f"rows {a} and {b}: {verdict} (scheme {e['scheme']}, distance {e['distance']})" + _by_reviewer(e),
             f"  decided over them and {e['rows_around']:,} stored row(s) around them: "
             + ("copies, the same text" if e["copies"] else ", ".join(e["evidence"]) or "no evidence of their own")
             + (f"; linked by row {e['linked_by']}, which matches one by submitter and the other as written"
                if e["linked_by"] is not None else "")
             + ("; compared because a third row is paired with both" if e["similar"] and not e["shares_a_key"]
                and not e["copies"] else "")]
    if e["scheme"] == "shingles":
        t = e["thresholds"]
        lines.append(f"  jaccard {e['jaccard']} (numbers folded; similar from {t['jaccard']}), containment "
                     f"{e['containment']} (from {t['containment']})")
        who = "the same" if e["same_submitter"] else "no shared"
        lines.append(f"  {who} submitter ({', '.join(e['submitter_fields']) or 'no submitter fields'}); "
                     f"as written, jaccard {e['verbatim_jaccard']}, containment {e['verbatim_containment']}")
        aligned = e["aligned"]
        filed = e["filed"]
        lines.append("  aligned: " + (f"{aligned['slips']} single character(s) replaced, {aligned['numbers']} "
                                      f"number(s) changed, {aligned['words']} word(s) replaced"
                                      if aligned is not None else "texts too long to align")
                     + (f"; filed {filed['a'] or 'unknown'} and {filed['b'] or 'unknown'} ({filed['field']})"
                        if filed["field"] else "")
                     + (": a copy" if e["copied"] else ": not a copy"))
        lines.append(f"  without a shared submitter, a copy when at most {t['slips']} single character(s) are "
                     f"replaced, at most {t['numbers']} number(s) changed, no word of 2+ characters replaced, the "
                     f"rest added or removed whole"
                     + (f", filed within {t['days']} days" if t["days"] is not None else "")
                     + f"; or the same as written: containment >= {t['verbatim_containment']} or jaccard >= "
                     f"{t['verbatim']}")
        if e["needs_a_link"]:
            lines.append("  similar text without evidence of its own: reported only if a third row matches "
                         "one by submitter and the other as written (corroborate)")
    else:
        lines.append(f"  fingerprints {e['fingerprints']['a']} and {e['fingerprints']['b']}: "
                     f"{e['hamming']} bits apart (<= {e['k']} is similar)")
    if e["needs_a_third"]:
        lines.append("  they share no block key: the batch and watch compare them only when a third row is "
                     "paired with each by a key and evidence of its own (corroborate)")
    elif not e["shares_a_key"]:
        lines.append("  they share no block key, so neither the batch nor a check compares them")
    lines.append("  fields:")
    for f in e["fields"]:
        mark = "=" if f["same"] else "≠"
        lines.append(f"    {mark} {f['field']} ({f['role']}, weight {f['weight']:g}): "
                     f"{_clip(f['a'])} / {_clip(f['b'])}")
    if e["scheme"] == "shingles":
        if e["differences_within"]:
            lines.append(f"  texts longer than {e['differences_within']:,} characters: differences shown for "
                         f"the first {e['differences_within']:,}")
        lines.append("  where the compared texts differ:" if e["differences"] else "  the compared texts are equal")
        lines += [f"    {d['op']}: {_clip(d['a'])} → {_clip(d['b'])}" for d in e["differences"]]
    else:
        for part, title in (("common", "features in both"), ("only_a", f"only in {a}"), ("only_b", f"only in {b}")):
            shown = ", ".join(f"{x['feature']}×{x['weight']:g}" for x in e["features"][part])
            lines.append(f"  {title}: {shown or '-'}")
    return "\n".join(lines)


def filed(config: Config, rows: Sequence[Row], details: bool = False) -> list[dict[str, Any]]:
    """What the configured scheme files of each row, as plain data: its 64-bit fingerprint
    and block keys, and for shingles its sketch (shingle counts, submitter hashes). `details`
    adds the SimHash features and weights, or the compared text and where each key comes from."""
    scheme = scheme_of(config)
    describe = _filed_sketch if config.shingles else _filed_fingerprint
    return [{"scheme": config.scheme.name, "fingerprint": to_hex(scheme.fingerprint(probe)),
             **describe(config, row, probe, scheme.keys(probe), details)}
            for row, probe in zip(rows, scheme.probes(rows))]


def _filed_fingerprint(config: Config, row: Row, probe: int, keys: list[int], details: bool) -> dict[str, Any]:
    """A SimHash row's keys: each table's number and its blocks' bits (schemes.Fingerprints)."""
    blocks = block_scheme(config)
    out: dict[str, Any] = {"keys": [{"table": key >> 56, "key": f"{key & (1 << 56) - 1:0{_digits(blocks, key >> 56)}x}"}
                                    for key in keys]}
    if details:
        out["features"] = [{"field": f, "feature": feat, "weight": w} for f, feat, w in featurizer(config).explain(row)]
    return out


def _digits(blocks: Any, table: int) -> int:
    return min((blocks.key_bits(table) + 3) // 4, 14)


def _filed_sketch(config: Config, row: Row, probe: Any, keys: list[int], details: bool) -> dict[str, Any]:
    """A shingled row's sketch: its shingles, keys and submitter hashes (shingles.Sketch)."""
    s = shingle_scheme(config)
    submitters = [f for f in config.fields if f.name in s.submitter]
    out: dict[str, Any] = {
        "shingles": len(probe.shingles), "verbatim": len(probe.verbatim), "size": s.size,
        "keys": [f"{key:016x}" for key in keys],
        "submitters": [{"field": f.name, "hash": f"{int(h):016x}" if h else None}
                       for f, h in zip(submitters, probe.people.tolist())],
        "filed": {"field": s.filed, "day": _day(probe.filed)} if s.filed else None}
    if details:
        bands = set(s.sketch_texts([probe.text], [np.zeros(0, np.uint64)])[0].keys.tolist())
        out["keys_from"] = {"bands": sum(k in bands for k in keys), "submitter": sum(k not in bands for k in keys)}
        out["text"] = probe.text
        for entry, f in zip(out["submitters"], submitters):
            entry["value"] = value_text(row.get(f.name), f)
    return out


def _by_reviewer(e: dict[str, Any]) -> str:
    """What a reviewer decided of the pair, on the verdict's line."""
    d = e["decided"]
    if d is None:
        return ""
    said = f"{'the same' if d['same'] else 'different'} by {d['by']}" + (f" on {d['at']:%Y-%m-%d}" if d["at"] else "")
    if d["stale"]:
        return f"; a reviewer decided {said}, but a row changed since: the rule decides"
    return f": a reviewer decided {said} (the rule alone: {'similar' if e['rule_similar'] else 'not similar'})"


def render_filed(entry: dict[str, Any], label: Any = None) -> str:
    """`filed`'s entry as lines for a terminal: the fingerprint first (after the label, a tab
    between), then what it is filed under, indented."""
    lines = [entry["fingerprint"] if label is None else f"{label}\t{entry['fingerprint']}"]
    if entry["scheme"] == "shingles":
        lines += _sketch_lines(entry)
    else:
        lines.append("  keys (table:key): " + " ".join(f"{k['table']}:{k['key']}" for k in entry["keys"]))
        lines += [f"  {f['weight']:>8g}  {f['field']}  {f['feature']}" for f in entry.get("features", ())]
    return "\n".join(lines)


def _sketch_lines(entry: dict[str, Any]) -> list[str]:
    lines = [f"  shingles: {entry['shingles']:,} of {entry['size']} characters (numbers folded), "
             f"{entry['verbatim']:,} as written",
             f"  keys ({len(entry['keys'])}): " + " ".join(entry["keys"]),
             "  submitters: " + (", ".join(f"{p['field']} {p['hash'] or '(blank)'}" + (f" {_clip(p['value'])}" if p.get("value") else "")
                                          for p in entry["submitters"]) or "none configured ([scheme] submitter)")]
    if entry.get("filed"):
        lines.append(f"  filed: {entry['filed']['day'] or 'unknown (not a date)'} ({entry['filed']['field']})")
    if "keys_from" in entry:
        lines.append(f"  keys from the text alone (its MinHash bands; a short text's opening too): "
                     f"{entry['keys_from']['bands']}; from its smallest shingles with each submitter's value: "
                     f"{entry['keys_from']['submitter']}")
        lines.append(f"  text compared: {_clip(entry['text'])}")
    return lines


def _clip(text: str | None) -> str:
    """A value quoted, cut to PRINTED_CHARS characters: a terminal cannot show 10 MB rows."""
    if text is None or len(text) <= PRINTED_CHARS:
        return repr(text)
    return f"{text[:PRINTED_CHARS]!r}… ({len(text) - PRINTED_CHARS:,} more characters)"
