"""Character shingles (Broder 1997; the Shingle/DSC method, seed 002 §2.1): a row's text as
the set of its 2-character substrings, filed under its smallest shingle hashes and confirmed
by exact set similarity, with the submitter fields as evidence.

Finding candidates, one kind of key for each way a pair can be confirmed (below):
- rows of one submitter: order all shingles by hash. The smallest shingle of A ∪ B lies in
  A ∩ B with probability J(A, B), and then it is among the smallest of both. With `keys`
  keys each, a pair is missed only if none of the first `keys` of the union is shared:
  about (1 − J)^keys (the bottom-k sketch, i.e. prefix filtering in a hash order). Keys
  come from 3-character shingles, which common phrases share less often than 2-character
  ones, and each is combined with a submitter value, so that a thousand form letters from
  a thousand people do not make a million candidates.
- any two rows, as written: MinHash bands (`bands` × `rows_per_band`), wide enough for
  another person's copies (a sentence added or removed and a slip or two: Jaccard
  0.6–0.9): a pair shares a band with probability 1.0 at Jaccard 0.92, 1.0 at 0.85,
  0.99 at 0.72, 0.86 at 0.6, 0.6 at 0.5, 0.11 at 0.3.
- short texts, where a sentence added or dropped is a large share of the text, so that its
  copies lie at Jaccard 0.4–0.7 though one text lies inside the other: a set of fewer than
  `short` shingles gets `short_bands` more bands (those a scheme of more bands makes next:
  0.98 at 0.6); and a text of fewer than `tiny` 3-character shingles (about 65 characters,
  a sentence or two) is filed under its `tiny_keys` smallest, each combined with its
  opening (`opening` characters, numbers folded, after a prefix saying it is filed again,
  `REFILED`); not those inside the opening or the prefix, which say the opening again (on a
  hotline, whose texts open with a formula, they made keys of hundreds of rows). A short
  text filed again with a sentence added lies inside the new one and keeps its opening,
  and the smallest shingle of the longer lies in the shorter with probability |A| / |B| =
  J: a pair is missed about (1 − J)^tiny_keys of the time (0.03 at J 0.36). The opening
  keeps short texts that only share common shingles apart (without it, 83% more
  candidates on testing/heldback.py; an opening of 4 characters, 5 times the candidates of
  benchmarks/scale.py's table).
- two rows that share no key but are both paired with a third row, each by a key and
  evidence of its own (`corroborate`): two re-submissions of one petition, each like it,
  may be less like each other than either is like it (a sentence added to one and removed
  from the other), yet they raise the same issue. Comparing them costs no key; only the
  pairs found (`through_a_third`).
Candidates are confirmed exactly, so keys decide only what is looked at. Each key costs an
entry in the store's buckets and a candidate to confirm, so there are few: 4 per submitter
value and 14 bands of 4, 20 for a short text and 8 opening keys for the shortest
(benchmarks/quality: fewer bands miss copies the confirmation accepts; bands of 3 rows let
text that recurs across a million rows make 8 times the candidates, benchmarks/scale.py;
benchmarks/review_queue.py for the short texts' keys).

Confirming (`decision.confirm`, measured in benchmarks/quality): numbers are folded to one digit, so a changed
date or amount does not count; a pair is similar when Jaccard ≥ `threshold`, or the smaller
text lies `containment` inside the larger (a sentence added or removed). A form letter
filled in for another place or amount is just as similar, so unless the rows share a
submitter (the same value in one of the `submitter` fields, such as phone or address:
evidence, never enough alone), their texts must also be the same as written up to a copy's
edits. Where two texts differ tells a copy from a form letter. A copy keeps the
particulars: aligned with its source, it adds or removes text whole (a prefix, a suffix, a
sentence), slips a character here and there (a typo: at most `slips` single characters
replaced) and may correct a number or two (`numbers`). A form letter filled in anew
replaces its particulars: a name, a place, a company (a word of two or more characters
replaced together, which no copy does), and its amounts and dates. And a copy is filed
near its source in time: when the table has a filing date (`filed`), the two are at most
`days` apart, however exact the copy; only the very same text is a copy whenever filed (a
collective petition's signers, pairs.Similar). Texts the same as written (Jaccard ≥
`verbatim`, or the smaller `verbatim_containment` inside the larger) need no alignment.
`min_shingles` bounds the smaller text here too. A pair with similar text and neither kind
of evidence is kept when a third row links it (`corroborate`). decision.py decides by these
settings: the rule is written there.

Pure: no I/O. Shingle hashes are a numpy splitmix64 mix of the code points, not CityHash,
so that a million rows hash in seconds; 32 bits of it, and pairs of sets compared all at
once (`overlap_pairs`), so that a million rows' sets fit a temporary file and compare in
seconds. A chunk of rows is sketched as flat arrays (`Sets`): texts as code points, each
text's hashes sorted as a row of a matrix, keys made for every row at once.
"""

from __future__ import annotations

import re
import struct
import sys
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Sequence

import numpy as np
from cityhash import CityHash64
from rapidfuzz.distance import Indel

from .features import Field, value_text
from .pairs import mapped
from .text import normalize, normalize_many

_DIGITS = re.compile(r"\d+")
_DIGIT = re.compile(r"\d")
_M = np.uint64(0x9E3779B97F4A7C15)
_EMPTY = np.zeros(0, np.uint64)
_NONE = np.uint64(2**64 - 1)  # no key: keys are 62 bits
_WIDTHS = 1 << np.arange(63, dtype=np.int64)  # a run of values is sorted in a row of the next power of 2
_NARROWEST = 4  # 16 values
OVERLAP_CHUNK = 4_000_000  # set elements compared at once (32 MB)
CANDIDATE_ENTRIES = 4_000_000  # keys' entries sorted at once, to list the rows sharing one (about 320 MB)
ALIGNED_CHARS = 50_000  # longer texts are not aligned (50,000 characters: 0.15 s a pair)


class Sketch(NamedTuple):
    """What a row is filed and compared by (hashes sorted and distinct)."""

    shingles: np.ndarray  # uint32 hashes of the text with numbers folded
    verbatim: np.ndarray  # uint32 hashes of the text as written
    people: np.ndarray  # a hash of each submitter field's value, 0 when blank
    keys: np.ndarray = _EMPTY  # its block keys
    text: str = ""  # the compared text (`long_text`): the rest is computed from it
    filed: int = 0  # the day it was filed (`date.toordinal`), 0 when unknown

    @property
    def fingerprint(self) -> int:
        """One 64-bit number for the whole sketch: equal sketches, equal fingerprints."""
        return CityHash64(self.to_bytes())

    @property
    def identity(self) -> int:
        """A 64-bit hash of the compared text, never 0, or 0 when it is blank: rows of one
        identity are similar to each other, whoever filed them (Jaccard 1 as written), and
        to any other row alike apart from their submitters."""
        return CityHash64(self.text) | 1 if len(self.shingles) and len(self.keys) else 0

    def to_bytes(self) -> bytes:
        """What the store keeps of a sketch: the submitter hashes, the filing day and the
        text (UTF-16, two bytes a Chinese character where UTF-8 takes three);
        `ShingleScheme.restore` computes the rest again."""
        people = np.asarray(self.people, np.uint64).tolist()
        return _packer(len(people))(len(people), *people, self.filed) + self.text.encode("utf-16-le")


@cache
def _packer(people: int) -> Callable[..., bytes]:
    """Packs a sketch's count of submitter hashes, the hashes and its filing day (native order)."""
    return struct.Struct(f"=Q{people}Qq").pack


def _unpacked(data: bytes) -> tuple[str, np.ndarray, int]:
    """(text, submitter hashes, filing day) of what the store keeps of a sketch."""
    count = int(np.frombuffer(data[:8], np.uint64)[0]) if data else 0
    people = np.frombuffer(data[8:8 + 8 * count], np.uint64)
    filed = int(np.frombuffer(data[8 + 8 * count:16 + 8 * count], np.int64)[0]) if data else 0
    return data[16 + 8 * count:].decode("utf-16-le"), people, filed


@dataclass(frozen=True)
class ShingleScheme:
    """Rows compared by shingles of `size` characters, filed under the `keys` smallest
    hashes of their `key_size`-character shingles; confirmed as the module says."""

    size: int = 2
    key_size: int = 3
    keys: int = 4
    threshold: float = 0.3
    containment: float = 0.7
    verbatim: float = 1.0
    verbatim_containment: float = 0.98
    slips: int = 3  # single characters another person's copy may have replaced in place, aligned
    numbers: int = 2  # numbers it may have changed (a corrected amount, a date)
    submitter: tuple[str, ...] = ()
    filed: str = ""  # the field holding the day a row was filed ("": none)
    days: int = 30  # another person's copy is filed at most this many days from its source
    min_shingles: int = 8  # containment needs this many shingles in the smaller text
    bands: int = 14
    rows_per_band: int = 4
    # Short texts (the module says why): `short_bands` more bands for a text of fewer than
    # `short` shingles; `tiny_keys` opening keys for one of fewer than `tiny` key shingles
    short: int = 128
    short_bands: int = 6
    tiny: int = 64
    tiny_keys: int = 8
    opening: int = 6  # characters of a text's opening, after a prefix saying it is filed again
    corroborate: bool = True  # rows linked by a third row: compared, and corroborated (decision.py)

    def sketch(self, row: Mapping[str, Any], fields: Sequence[Field]) -> Sketch:
        return self.sketch_many([row], fields)[0]

    def sketch_many(self, rows: Sequence[Mapping[str, Any]], fields: Sequence[Field]) -> list[Sketch]:
        """The sketches of many rows, hashed together (the same as one at a time, faster)."""
        return self.sketch_texts(long_texts(rows, fields), self._people(rows, fields),
                                 [filed_day(row.get(self.filed)) if self.filed else 0 for row in rows])

    def sketch_texts(self, written: Sequence[str], people: Sequence[np.ndarray],
                     filed: Sequence[int] | None = None) -> list[Sketch]:
        """Sketches of compared texts (`long_text`), their submitter hashes and filing days."""
        text = code_points(written)
        folded = fold_numbers(text)
        verbatim = shingle_sets(text, self.size)
        own = shingle_sets(folded, self.key_size)
        keys = self._keys(own, _matrix(people), self._bands(verbatim), self._openings(written, own))
        return [Sketch(shingles, exact, p, filed_under, t, day) for shingles, exact, p, filed_under, t, day in zip(
                    shingle_sets(folded, self.size).rows(), verbatim.rows(), people, keys.rows(), written,
                    filed or [0] * len(written))]

    def restore(self, data: bytes) -> Sketch:
        """A sketch from what the store keeps of it (`Sketch.to_bytes`)."""
        return self.restore_many([data])[0]

    def restore_many(self, stored: Sequence[bytes]) -> list[Sketch]:
        """Sketches from what the store keeps of them, sketched again together (the same as
        one at a time, faster)."""
        if not stored:
            return []
        texts, people, filed = zip(*map(_unpacked, stored))
        return self.sketch_texts(texts, people, filed)

    def _people(self, rows: Sequence[Mapping[str, Any]], fields: Sequence[Field]) -> np.ndarray:
        """Each row's submitter hashes (a row each), 0 for a blank value."""
        submitters = [f for f in fields if f.name in self.submitter]
        values = [[value_text(row.get(f.name), f) for f in submitters] for row in rows]
        people = np.zeros((len(rows), len(submitters)), np.uint64)
        for n, column in enumerate(zip(*values)):
            people[:, n] = [CityHash64(t) | 1 if v else 0  # never 0, which means blank
                            for v, t in zip(column, normalize_many([v or "" for v in column]))]
        return people

    def _keys(self, own: Sets, people: np.ndarray, bands: np.ndarray, openings: tuple[np.ndarray, Sets]) -> Sets:
        """Each row's keys, sorted and distinct: its `keys` smallest own shingles mixed with
        each submitter value it has, its bands (`_NONE`: a blank set's) and, for a text of
        fewer than `tiny` own shingles, its `tiny_keys` smallest not inside its opening mixed
        with the opening (`_openings`). A row of keys per sketch, sorted as a matrix."""
        picked, smallest = self._smallest(own, self.keys)
        mixed = [np.where(picked & (p[:, None] != 0), _mix(smallest ^ p[:, None]) >> np.uint64(2), _NONE)
                 for p in people.T]
        opening, inside = openings
        picked, smallest = self._smallest(_without(own, inside), self.tiny_keys)
        opened = np.where(picked & (opening != 0)[:, None], _mix(smallest ^ opening[:, None]) >> np.uint64(2), _NONE)
        keys = np.concatenate(mixed + [opened, bands], axis=1)
        keys.sort(axis=1)
        kept = keys != _NONE
        kept[:, 1:] &= keys[:, 1:] != keys[:, :-1]
        return Sets(keys[kept], np.concatenate(([0], np.cumsum(kept.sum(axis=1)))).astype(np.int64))

    @staticmethod
    def _smallest(own: Sets, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Each set's `count` smallest values as a row of a matrix, and where it has them."""
        picked = np.arange(count) < np.minimum(own.sizes(), count)[:, None]
        smallest = np.zeros(picked.shape, np.uint64)
        smallest[picked] = own.values[_ranges(own.starts[:-1], picked.sum(axis=1))]
        return picked, smallest

    def _openings(self, written: Sequence[str], own: Sets) -> tuple[np.ndarray, Sets]:
        """A hash of the opening of each text of fewer than `tiny` own shingles (`opening`
        characters, numbers folded, after a prefix saying it is filed again: `REFILED`),
        never 0; 0 for the others and for a blank one. And the own shingles inside each opening
        and its prefix (none for the others), which its keys leave out: mixed with the
        opening they say the opening again, so that every text opening alike ("我要反映问题…"
        on a hotline) would share a key, and a key would hold hundreds of rows."""
        out = np.zeros(len(written), np.uint64)
        inside = [""] * len(written)
        sizes = own.sizes()
        for n in np.flatnonzero((sizes > 0) & (sizes < self.tiny)).tolist():
            text = written[n]
            refiled = REFILED.match(text)
            start = refiled.end() if refiled else 0
            opening = _DIGITS.sub("0", text[start:])
            out[n] = CityHash64(opening[:self.opening]) | 1
            inside[n] = _DIGITS.sub("0", text[:start]) + opening[:self.opening]
        return out, shingle_sets(code_points(inside), self.key_size)

    def _bands(self, sets: Sets) -> np.ndarray:
        """`_bands_of` every set, then `short_bands` more bands (the bands a scheme of more
        bands would make next) for each set of fewer than `short` shingles, `_NONE` for the
        others."""
        out = self._bands_of(sets, 0, self.bands)
        small = np.flatnonzero(sets.sizes() < self.short)
        if not self.short_bands or not len(small):
            return out
        more = np.full((len(out), self.short_bands), _NONE)
        more[small] = self._bands_of(sets.take(small), self.bands, self.short_bands)
        return np.concatenate([out, more], axis=1)

    def _bands_of(self, sets: Sets, first: int, bands: int) -> np.ndarray:
        """One key per MinHash band of each set (a row of keys per set; `_NONE` for a blank
        one): the band's minima hashed together. One hash function at a time over every
        set: memory for the sets' values twice, whatever the number of bands."""
        n = bands * self.rows_per_band
        # shingle hashes are random already: a multiply-add per hash orders them anew
        # (multiply-shift hashing), three times faster than mixing each
        numbers = np.arange(first * self.rows_per_band + 1, first * self.rows_per_band + n + 1, dtype=np.uint64)
        times = _mix(numbers * _M) | np.uint64(1)
        plus = _mix(~numbers * _M)  # the first bands the same whatever their number
        out = np.full((len(sets.starts) - 1, bands), _NONE)
        filled = np.flatnonzero(sets.sizes())
        if not len(filled):
            return out
        values = sets.values.astype(np.uint64)
        hashed = np.empty_like(values)
        minima = np.empty((n, len(filled)), np.uint64)
        for k in range(n):  # the blank sets hold no values: each filled one runs to the next
            np.multiply(values, times[k], out=hashed)
            hashed += plus[k]
            minima[k] = np.minimum.reduceat(hashed, sets.starts[filled])
        minima = minima.reshape(bands, self.rows_per_band, len(filled))
        key = np.repeat((np.arange(first, first + bands, dtype=np.uint64) * _M)[:, None], len(filled), axis=1)
        for column in range(self.rows_per_band):
            key = _mix(key ^ minima[:, column])
        out[filled] = (key >> np.uint64(2)).T
        return out


def _matrix(people: Sequence[np.ndarray]) -> np.ndarray:
    """Submitter hashes as a row each, padded with 0 (blank)."""
    if isinstance(people, np.ndarray) and people.ndim == 2:
        return people
    if len({len(p) for p in people}) == 1:
        return np.array(people, np.uint64)
    matrix = np.zeros((len(people), max(map(len, people), default=0)), np.uint64)
    for n, p in enumerate(people):
        matrix[n, :len(p)] = p
    return matrix


def _without(sets: Sets, gone: Sets) -> Sets:
    """Each set without the values of its row of `gone` (sorted sets, a row each)."""
    if not len(gone.values):
        return sets
    row = np.repeat(np.arange(len(sets.starts) - 1, dtype=np.uint64), sets.sizes())
    kept = ~np.isin(row << np.uint64(32) | sets.values.astype(np.uint64),
                    np.repeat(np.arange(len(gone.starts) - 1, dtype=np.uint64), gone.sizes()) << np.uint64(32)
                    | gone.values.astype(np.uint64))
    return Sets(sets.values[kept], np.concatenate(([0], np.cumsum(kept))).astype(np.int64)[sets.starts])


class Sets(NamedTuple):
    """Many sorted sets in one array: set n is `values[starts[n]:starts[n + 1]]`."""

    values: np.ndarray
    starts: np.ndarray

    @classmethod
    def of(cls, sets: Sequence[np.ndarray], dtype: Any = np.uint64) -> Sets:
        starts = np.zeros(len(sets) + 1, np.int64)
        np.cumsum([len(s) for s in sets], out=starts[1:])
        return cls(np.concatenate(sets).astype(dtype) if len(sets) else np.zeros(0, dtype), starts)

    def sizes(self) -> np.ndarray:
        return np.diff(self.starts)

    def rows(self) -> list[np.ndarray]:
        """Each set, a view of `values`."""
        values = self.values
        return [values[a:b] for a, b in zip(self.starts[:-1].tolist(), self.starts[1:].tolist())]

    def take(self, rows: np.ndarray) -> Sets:
        """The sets at these positions, in that order, read in one gather."""
        sizes = self.sizes()[rows]
        ends = np.cumsum(sizes)
        positions = np.repeat(self.starts[rows] - ends + sizes, sizes) + np.arange(ends[-1] if len(ends) else 0)
        return Sets(self.values[positions], np.concatenate(([0], ends)).astype(np.int64))


class SketchTable(NamedTuple):
    """The sketches of many rows as flat arrays: what the batch holds per row."""

    shingles: Sets
    verbatim: Sets
    people: np.ndarray  # one row of submitter hashes per sketch
    keys: Sets
    identity: np.ndarray  # each sketch's `Sketch.identity`
    text: Sets  # each compared text, as code points
    filed: np.ndarray  # each sketch's filing day

    @classmethod
    def of(cls, sketches: Sequence[Sketch]) -> SketchTable:
        return cls(Sets.of([s.shingles for s in sketches], np.uint32), Sets.of([s.verbatim for s in sketches], np.uint32),
                   _matrix([s.people for s in sketches]), Sets.of([s.keys for s in sketches]),
                   np.array([s.identity for s in sketches], np.uint64), code_points([s.text for s in sketches]),
                   np.array([s.filed for s in sketches], np.int32))

    def texts_of(self, rows: np.ndarray) -> dict[int, str]:
        """{sketch: its compared text} of these sketches, read in one gather (a temporary
        file's pages are let go after it, batch._Released)."""
        rows = np.unique(rows)
        taken = self.text.take(rows)
        flat = np.ascontiguousarray(taken.values, np.uint32).tobytes()
        return {row: flat[4 * start:4 * end].decode("utf-32-le")
                for row, start, end in zip(rows.tolist(), taken.starts[:-1].tolist(), taken.starts[1:].tolist())}


def overlap(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(Jaccard, containment of the smaller in the larger) of two sorted hash sets."""
    if len(a) == 0 or len(b) == 0:
        return 0.0, 0.0
    common = len(np.intersect1d(a, b, assume_unique=True))
    return common / (len(a) + len(b) - common), common / min(len(a), len(b))


class Differences(NamedTuple):
    """Where two texts differ, aligned: what a copy may change, and what it keeps."""

    slips: int  # single characters replaced in place by one or two (a typo)
    numbers: int  # numbers changed: digits replaced, or a number lengthened or shortened
    words: int  # runs of two or more characters replaced together (a name, a place, a company)
    closing: int = 0  # of the words, those in the texts' closing (a signature, a last line)


def changes(a: str, b: str) -> list[tuple[int, int, int, int]]:
    """Each place two texts differ, aligned by their longest common subsequence (text kept
    whole wherever it can be): a[s:e] became b[t:u], either side possibly empty. Text added
    one character away from text removed is text replaced (a name, a place): the alignment
    split it around a character the two happen to share. The same either way round: an
    alignment's ties are broken by the order of the texts, so they are aligned in one order."""
    if b < a:
        return [(s, e, t, u) for t, u, s, e in changes(b, a)]
    found: list[tuple[int, int, int, int]] = []
    for op in Indel.opcodes(a, b):
        if op.tag == "equal":
            continue
        change = (op.src_start, op.src_end, op.dest_start, op.dest_end)
        if found and _one_change(found[-1], change):
            last = found.pop()
            change = (last[0], change[1], last[2], change[3])
        found.append(change)
    return found


def _one_change(x: tuple[int, int, int, int], y: tuple[int, int, int, int]) -> bool:
    """Whether change y, after x, is the same change: next to it, or one character away with
    one of them adding text and the other removing it."""
    gap_a, gap_b = y[0] - x[1], y[2] - x[3]
    add_then_remove = x[0] == x[1] and y[2] == y[3]
    remove_then_add = x[2] == x[3] and y[0] == y[1]
    return gap_a == gap_b == 0 or gap_a == gap_b == 1 and (add_then_remove or remove_then_add)


def differences(a: str, b: str) -> Differences:
    """The differences of two texts aligned, the same either way round. Text added or removed
    whole is none of them, unless it lengthens or shortens a number; a number is counted
    once however it changed."""
    a, b = sorted((a, b))  # numbers are placed in the first in order, either way round
    slips = words = closing = 0
    numbers: set = set()
    found = changes(a, b)
    last = _closing(found, a)
    for n, (s, e, t, u) in enumerate(found):
        if s == t == 0 and _refiled(a[:e]) and _refiled(b[:u]):
            continue  # one filing's "第三次反映" where another's says "补充反映": not content
        if _numeric(a, b, s, e, t, u):
            numbers |= {_number_start(a, k) for k in range(max(s - 1, 0), min(e + 1, len(a)))
                        if _DIGIT.match(a, k)} or {-1 - t}
        gone, came = (_DIGITS.sub("", x) for x in (a[s:e], b[t:u]))
        if gone and came and gone != came:  # replaced in place: one character, or a word
            slip = _one_character(gone, came)
            slips, words = slips + slip, words + (not slip)
            closing += not slip and n >= last
    return Differences(slips, len(numbers), words, closing)


# What two signatures share that says whose they are, not what the matter is: their labels
# (反映人：张三，联系电话：138…) and the digits two phone numbers happen to share; neither
# ends a closing.
SIGN_OFF = re.compile(r"(反映人|投诉人|举报人|来信人|联系人|署名|签名|姓名|联系电话|联系方式|电话|手机号?|\d)+")


# What a text filed again may open with: that it is filed again, added to or urgent (第三次
# 反映, 补充反映, 再次投诉, 紧急, 关于此前反映问题的补充), as compared (punctuation removed).
REFILED = re.compile(r"((第\d+|第[一二三四五六七八九十]+|再|又|再一|又一|多)次|重复|补充|追加|紧急|关于此前反映问题的补充"
                     r"|(反映|投诉|举报|来信|恳请|求助|材料|说明|情况)+)+")


# A signature as compared (punctuation removed, widths folded): who signs, then a phone
# (反映人：张三，联系电话：13812345678).
SIGNATURE = re.compile(r"(反映人|投诉人|举报人|来信人|联系人|署名|签名)\D{0,8}?(联系电话|联系方式|电话|手机号?)(\d{7,})")


def unsigned(a: str, b: str, people_a: np.ndarray, people_b: np.ndarray) -> tuple[str, str]:
    """Two compared texts with their signatures cut to their labels (反映人联系电话) when each
    signature in either gives its own row's submitter (a phone that is one of `people_*`,
    `Sketch.people`): a letter another person re-signs with their own name and phone is the
    same letter, who signed it is the row's, not the text's. Else, as they are: a signature
    naming anyone else is part of the letter."""
    cut = [_own_signatures(text, people) for text, people in ((a, people_a), (b, people_b))]
    return (cut[0], cut[1]) if None not in cut else (a, b)


def _own_signatures(text: str, people: np.ndarray) -> str | None:
    """The text with its signatures cut to their labels, or None when one of them gives a
    phone that is none of the row's submitter values."""
    if not SIGNATURE.search(text):
        return text
    own = set(np.asarray(people, np.uint64).tolist()) - {0}
    found = list(SIGNATURE.finditer(text))
    if any(CityHash64(normalize(m.group(3))) | 1 not in own for m in found):
        return None
    return SIGNATURE.sub(lambda m: m.group(1) + m.group(2), text)


def _refiled(text: str) -> bool:
    """Whether a text's opening only says that it is filed again (blank: nothing said)."""
    return not text or bool(REFILED.fullmatch(text))


def _closing(found: list[tuple[int, int, int, int]], text: str) -> int:
    """The first of the changes in the texts' closing, after the last text of two characters
    or more the two still share, other than a signature's labels (a signature, a last line
    rewritten); len(found) if none. `text`: the first text, where the changes' starts lie."""
    first = len(found)
    for n in range(len(found) - 1, -1, -1):
        shared = text[found[n][1]:found[n + 1][0] if n + 1 < len(found) else len(text)]
        if len(shared) >= 2 and not SIGN_OFF.fullmatch(shared):
            break
        first = n
    return first


def _one_character(gone: str, came: str) -> bool:
    """Whether text replaced is one character replaced (a typo): by one or two characters,
    or within a run of equal length that differs in that one place (the alignment joined it
    to a neighbour the two happen to share, as in 坐拢 → 拢拢)."""
    if len(gone) == len(came):
        return sum(x != y for x, y in zip(gone, came)) == 1
    return min(len(gone), len(came)) == 1 and max(len(gone), len(came)) <= 2


def _numeric(a: str, b: str, s: int, e: int, t: int, u: int) -> bool:
    """Whether a[s:e] becoming b[t:u] changes a number: digits replaced, or digits added to
    or removed from one."""
    gone, came = a[s:e], b[t:u]
    if gone and came:
        return bool(_DIGIT.search(gone) or _DIGIT.search(came))
    text, start, end = (a, s, e) if gone else (b, t, u)
    return _digits(text, start - 1, start) or _digits(text, end - 1, end)


def _number_start(text: str, k: int) -> int:
    """Where the number holding the digit at k starts."""
    while k and _DIGIT.match(text, k - 1):
        k -= 1
    return k


def _digits(text: str, left: int, right: int) -> bool:
    """Whether both characters at `left` and `right` are digits (both inside the text)."""
    return 0 <= left and right < len(text) and bool(_DIGIT.match(text, left) and _DIGIT.match(text, right))


def filed_day(value: Any) -> int:
    """The day a value names (`date.toordinal`): a date, a datetime, or text starting with an
    ISO date (2024-05-01, 2024/05/01); 0 when it names none (NULL, blank or not a date)."""
    if isinstance(value, (date, datetime)):
        return value.toordinal()
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip()[:10].replace("/", "-")).toordinal()
        except ValueError:
            return 0
    return 0


def same_submitter(a: np.ndarray, b: np.ndarray) -> Any:
    """Whether two rows agree on a submitter field that neither left blank (`Sketch.people`):
    a bool for two rows, an array of them row by row for two matrices of rows."""
    same = np.any((a == b) & (a != 0), axis=-1)
    return bool(same) if np.ndim(same) == 0 else same


def overlap_pairs(sets: Sets, i: np.ndarray, j: np.ndarray, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """`overlap` of each pair (set i[n], set j[n]) of 32-bit sets, all at once: each pair's
    two sets side by side under the pair's number, sorted; an element in both is a value
    met twice. OVERLAP_CHUNK elements at a time, shared by the threads."""
    sizes = sets.sizes()
    a, b = sizes[i], sizes[j]
    common = np.zeros(len(i), np.int64)

    def count(span: tuple[int, int]) -> None:
        lo, hi = span
        n = hi - lo
        firsts = np.column_stack([sets.starts[i[lo:hi]], sets.starts[j[lo:hi]]]).ravel()
        lengths = np.column_stack([a[lo:hi], b[lo:hi]]).ravel()
        owner = np.repeat(np.arange(n, dtype=np.uint64), a[lo:hi] + b[lo:hi])
        merged = owner << np.uint64(32) | sets.values[_ranges(firsts, lengths)].astype(np.uint64)
        merged.sort(kind="stable")  # sorted runs side by side: a merge
        twice = merged[1:][merged[1:] == merged[:-1]] >> np.uint64(32)
        common[lo:hi] = np.bincount(twice.astype(np.int64), minlength=n)

    mapped(threads, count, _spans(a + b, max(1, OVERLAP_CHUNK // threads)))
    filled = (a > 0) & (b > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        jaccard = np.where(filled, common / (a + b - common), 0.0)
        contained = np.where(filled, common / np.minimum(a, b), 0.0)
    return jaccard, contained


def candidates(keys: Sets, original: np.ndarray | None = None, part_entries: int = CANDIDATE_ENTRIES,
               threads: int = 1, among: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, j), i < j, of rows with a key in common, once; never two rows of one
    `original` (copies), so that n copies under a key cost n, not n²; given `among` (a row
    mask), only the pairs with a row of it, so that a key of many rows costs a focused
    decision what its rows there pair with, not its square. The entries are sorted a part at
    a time, every entry of a key in one part, a part a thread: the memory of about
    `part_entries` entries (80 bytes each), not of every key of the table at once."""
    n = len(keys.starts) - 1
    parts = max(threads, -(-len(keys.values) // max(1, part_entries // threads)))
    part = _parts(keys.values, parts)
    codes = mapped(threads, lambda p: _sharing(keys, original, n, np.flatnonzero(part == p) if parts > 1 else None,
                                               among), range(parts))
    i, j = np.divmod(np.unique(np.concatenate(codes)) if parts > 1 else codes[0], n)
    keep = i != j
    return i[keep], j[keep]


def _parts(values: np.ndarray, parts: int, chunk: int = 1 << 22) -> np.ndarray:
    """Each key's part (the key modulo `parts`), in the narrowest type, a chunk at a time."""
    if parts == 1:
        return np.zeros(0, np.uint8)
    out = np.empty(len(values), np.min_scalar_type(parts - 1))
    for lo in range(0, len(values), chunk):
        out[lo:lo + chunk] = values[lo:lo + chunk] % np.uint64(parts)
    return out


def _sharing(keys: Sets, original: np.ndarray | None, n: int, at: np.ndarray | None,
             among: np.ndarray | None = None) -> np.ndarray:
    """The pairs of rows sharing a key among the entries `at` (every entry when None), each
    as min * n + max, sorted and distinct (a row paired with itself included); given
    `among`, only those with a row of it."""
    flat = keys.values if at is None else keys.values[at]
    rows = np.repeat(np.arange(n), keys.sizes()) if at is None else np.searchsorted(keys.starts, at, "right") - 1
    owner = rows if original is None else original[rows]
    order = np.lexsort((rows, owner, flat))
    rows, owner, flat = rows[order], owner[order], flat[order]
    del order
    key_start = np.concatenate(([True], flat[1:] != flat[:-1]))
    del flat
    copies_start = np.flatnonzero(key_start | np.concatenate(([True], owner[1:] != owner[:-1])))
    del owner
    copies_end = _run_ends(copies_start, len(rows))
    key_end = _run_ends(np.flatnonzero(key_start), len(rows))
    if among is None:  # each entry pairs with the entries after its run of copies, up to the end of its key's run
        pick, firsts, counts = slice(None), copies_end, key_end - copies_end
    else:  # an entry of a row `among` pairs with the entries of its key's run before and after its copies
        pick = np.flatnonzero(among[rows])
        key_first = _run_starts(np.flatnonzero(key_start), len(rows))[pick]
        copies_first = _run_starts(copies_start, len(rows))[pick]
        firsts = np.column_stack([key_first, copies_end[pick]]).ravel()
        counts = np.column_stack([copies_first - key_first, key_end[pick] - copies_end[pick]]).ravel()
        pick = np.repeat(pick, 2)
    if not counts.sum():
        return np.zeros(0, np.int64)
    left = np.repeat(rows[pick], counts).astype(np.int64)
    right = rows[_ranges(firsts, counts)].astype(np.int64)
    return np.unique(np.minimum(left, right) * n + np.maximum(left, right))


def _run_ends(starts: np.ndarray, length: int) -> np.ndarray:
    """For each position, the end of the run it lies in (runs begin at `starts`)."""
    return np.repeat(np.append(starts[1:], length), np.diff(np.append(starts, length)))


def _run_starts(starts: np.ndarray, length: int) -> np.ndarray:
    """For each position, the start of the run it lies in (runs begin at `starts`)."""
    return np.repeat(starts, np.diff(np.append(starts, length)))


def _ranges(firsts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The positions firsts[n] .. firsts[n] + lengths[n] - 1 of every n, in one array."""
    ends = np.cumsum(lengths)
    return np.repeat(firsts - ends + lengths, lengths) + np.arange(ends[-1] if len(ends) else 0)


def _spans(weights: np.ndarray, budget: int) -> Iterator[tuple[int, int]]:
    """Consecutive index ranges whose weights add up to about `budget` (one item at least)."""
    total = np.cumsum(weights)
    cuts = np.searchsorted(total, np.arange(budget, total[-1] if len(total) else 0, budget), side="right")
    bounds = np.unique(np.concatenate([[0], cuts, [len(weights)]])).tolist()
    return zip(bounds, bounds[1:])


def shingle_hashes(text: str, size: int) -> np.ndarray:
    """Sorted, distinct 32-bit hashes of the text's `size`-character shingles (the whole
    text when it is shorter; none when blank). 32 bits: a collision among a pair's few
    hundred shingles is a chance in ten thousand, for half the memory of 64."""
    return shingle_hashes_many([text], size)[0]


def shingle_hashes_many(texts: Sequence[str], size: int) -> list[np.ndarray]:
    """`shingle_hashes` of each text, hashed in one pass over all of them."""
    return shingle_sets(code_points(texts), size).rows()


def code_points(texts: Sequence[str]) -> Sets:
    """The texts' code points, a set each (in text order, repeats kept)."""
    starts = np.zeros(len(texts) + 1, np.int64)
    np.cumsum([len(t) for t in texts], out=starts[1:])
    return Sets(np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32), starts)


def fold_numbers(text: Sets) -> Sets:
    """Each text (code points) with every run of digits (`\\d`: any decimal digit) folded to one 0."""
    digit = _decimal()[text.values]
    kept = np.ones(len(digit), dtype=bool)
    kept[1:] = ~(digit[1:] & digit[:-1])
    kept[text.starts[:-1][text.sizes() > 0]] = True  # a text's first digit follows no digit of its own
    folded = np.where(digit, np.uint32(ord("0")), text.values)[kept]
    starts = np.concatenate(([0], np.cumsum(kept)))[text.starts]
    return Sets(folded, starts)


@cache
def _decimal() -> np.ndarray:
    """For each code point: whether `\\d` matches it (Unicode decimal digits)."""
    return np.array([chr(c).isdecimal() for c in range(sys.maxunicode + 1)], dtype=bool)


def shingle_sets(text: Sets, size: int) -> Sets:
    """`shingle_hashes` of each text (code points): one hash per position, then each text's
    hashes sorted and made distinct."""
    lengths = text.sizes()
    codes = text.values.astype(np.uint64)
    widths = np.minimum(lengths, size)
    # A text shorter than `size` is one shingle of its own length: hashed at its start.
    short = bool(np.any((lengths > 0) & (widths < size)))
    width = widths[np.repeat(np.arange(len(lengths)), lengths)] if short else None
    h = width.astype(np.uint64) if short else np.full(len(codes), size, np.uint64)
    for i in range(size):  # character i of each shingle (past the end: 0, at positions no shingle starts)
        if short:
            shifted = np.zeros_like(codes)
            shifted[:max(len(codes) - i, 0)] = codes[i:]
            h = np.where(i < width, (h ^ shifted) * _M, h)
        else:
            h[:max(len(codes) - i, 0)] ^= codes[i:]
            h *= _M
    start = np.ones(len(codes), dtype=bool)
    for k in range(1, size):  # no shingle starts in the last width - 1 characters of a text
        start[text.starts[1:][widths > k] - k] = False
    counts = np.where(lengths > 0, lengths - widths + 1, 0)
    return _distinct((_mix(h[start]) >> np.uint64(32)).astype(np.uint32), counts)


def _distinct(values: np.ndarray, sizes: np.ndarray) -> Sets:
    """Each run of values (`sizes`, in order) sorted with its repeats dropped. Runs of about
    one length are sorted as the rows of a matrix, padded with the largest value: numpy
    sorts short rows many times faster than one long array."""
    firsts = np.cumsum(sizes) - sizes
    widths = np.maximum(np.searchsorted(_WIDTHS, sizes), _NARROWEST)
    counts = np.zeros(len(sizes), np.int64)
    parts = []
    for width in np.unique(widths).tolist():
        rows = np.flatnonzero(widths == width)
        inside = np.arange(1 << width) < sizes[rows, None]
        matrix = np.full(inside.shape, np.iinfo(np.uint32).max, np.uint32)
        matrix[inside] = values[_ranges(firsts[rows], sizes[rows])]
        matrix.sort(axis=1)  # the padding last: a value equal to it is itself
        inside[:, 1:] &= matrix[:, 1:] != matrix[:, :-1]
        counts[rows] = inside.sum(axis=1)
        parts.append((rows, matrix[inside]))
    starts = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    out = np.empty(starts[-1], np.uint32)
    for rows, kept in parts:
        out[_ranges(starts[rows], counts[rows])] = kept
    return Sets(out, starts)


def long_text(row: Mapping[str, Any], fields: Sequence[Field]) -> str:
    """The text a row's shingles are taken from: its long fields, normalized, without
    punctuation or spaces."""
    return normalize(_long_fields(row, fields), punctuation="remove", join="")


def long_texts(rows: Sequence[Mapping[str, Any]], fields: Sequence[Field]) -> list[str]:
    """long_text() of each row, normalized together (the same, at numpy speed)."""
    return normalize_many([_long_fields(row, fields) for row in rows], punctuation="remove", join="")


def _long_fields(row: Mapping[str, Any], fields: Sequence[Field]) -> str:
    return " ".join(p for p in (value_text(row.get(f.name), f) for f in fields if f.role == "long") if p)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: every input bit moves every output bit."""
    h = h ^ (h >> np.uint64(30))  # a new array: the rest works in it
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return h
