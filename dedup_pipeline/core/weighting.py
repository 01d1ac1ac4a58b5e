"""How much each word of a long text weighs: the paper's term frequency, or the seeds' options.

Seed 003 (the paper) weighs a word by its term frequency. Seeds 002 and 004 multiply that
by factors of the word; each factor is an option here, off by default, and measured in
benchmarks/quality/RESULTS.md. A word's weight is

    field weight × idf(word) × length(word) × pos(word) × marker(word) × title(word)

per occurrence (so a word's total is its term frequency times that), each factor 1 when its
option is off. The seeds' own formulas are images missing from their text (shared/seeds);
what each factor follows from the text is said at the factor. Every table is shipped data
(jieba's), never the rows': a row's weights, hence its fingerprint, are the same in a batch
and in an incremental check, whatever else the table holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Iterable

WEIGHTINGS = ("tf", "tfidf")
LENGTHS = ("none", "normal", "minmax")
MAX_FACTOR = 10.0  # bounds the product, so the fast path's int64 sums cannot overflow

# Seed 002 §2.2, eq. 4: the lengths of 10,000 CSSCI terms fitted by a normal distribution.
TERM_LENGTH_MEAN = 4.51
TERM_LENGTH_SD = 2.207


@dataclass(frozen=True)
class Weighting:
    """The options of [fingerprint] that weigh the words of long fields (README, config).
    Weighting() is the paper's; the configuration's default, TF-IDF × word length, was
    chosen on the quality benchmark's dev set."""

    kind: str = "tf"  # "tf": term frequency (seed 003); "tfidf": × idf (seed 002 §2.2)
    length: str = "none"  # "normal": seed 002 §2.2 eq. 5-6; "minmax": seed 004 §3.2.1
    noun: float = 1.0  # seed 004 §3.2.1: part of speech, nouns
    verb: float = 1.0  # ... and verbs
    marker: float = 1.0  # seed 004 §3.2.2: a word holding a marker word (5 in the seed)
    title: float = 1.0  # seed 004 §3.2.3: a word that appears in the title (5 in the seed)
    title_field: str = "title"

    @property
    def plain(self) -> bool:
        """Term frequency alone: the paper's weighting, and the fast path's simplest case."""
        return not self.by_row and self.kind == "tf" and self.length == "none" \
            and self.noun == self.verb == self.marker == 1.0

    @property
    def by_row(self) -> bool:
        """Whether a word's weight depends on the rest of its row (its text's word lengths, the title)."""
        return self.length == "minmax" or self.title != 1.0

    def word_factor(self, word: str) -> float:
        """The factors that depend on the word alone (cached: words repeat)."""
        return _word_factor(self, word)

    def weight(self, word: str, field_weight: float, row: RowContext) -> float:
        """The weight of one occurrence of `word`; both fingerprint paths call this, so they
        multiply the same floats in the same order."""
        w = field_weight * self.word_factor(word)
        if self.length == "minmax":
            w *= 1.0 + minmax_length(len(word), row.shortest, row.longest)
        if self.title != 1.0 and word in row.title:
            w *= self.title
        return w

    def context(self, words: Iterable[str], title: str) -> RowContext:
        """What a word's weight reads of its row: the shortest and longest word (minmax) and
        the normalized title."""
        lengths = [len(w) for w in words] if self.length == "minmax" else []
        return RowContext(min(lengths, default=0), max(lengths, default=0), title if self.title != 1.0 else "")


@dataclass(frozen=True)
class RowContext:
    shortest: int = 0
    longest: int = 0
    title: str = ""


NO_CONTEXT = RowContext()


@lru_cache(maxsize=1 << 20)
def _word_factor(weighting: Weighting, word: str) -> float:
    w = 1.0
    if weighting.kind == "tfidf":
        w *= idf(word)
    if weighting.length == "normal":
        w *= 1.0 + term_length_relevance(len(word))
    if weighting.noun != 1.0 or weighting.verb != 1.0:
        tag = pos_tag(word)
        w *= weighting.noun if tag == "n" else weighting.verb if tag == "v" else 1.0
    if weighting.marker != 1.0 and any(m in word for m in marker_words()):
        w *= weighting.marker
    return w


def idf(word: str) -> float:
    """Inverse document frequency (seed 002 §2.2 eq. 3, log |D| / |{d : word ∈ d}|), from the
    table jieba ships (jieba/analyse/idf.txt, computed by jieba's authors on their corpus);
    a word it lacks gets the table's median, as jieba.analyse does. The seed's TF (eq. 2)
    divides the count by the text's word count: that scales every word of a text alike, so
    a text's fingerprint is the same without it; it is left out so that field weights keep
    their meaning (a short field weighs 2 against each occurrence of a word)."""
    table, median = idf_table()
    return table.get(word, median)


@cache
def idf_table() -> tuple[dict[str, float], float]:
    """jieba's IDF table and its median (jieba.analyse.TFIDF's rule for unknown words)."""
    text = resources.files("jieba.analyse").joinpath("idf.txt").read_text("utf-8")
    table = {}
    for line in text.splitlines():
        word, _, value = line.strip().rpartition(" ")
        if word:
            table[word] = float(value)
    values = sorted(table.values())
    return table, values[len(values) // 2]


def term_length_relevance(length: int) -> float:
    """Seed 002 §2.2 eq. 5: the normal fit of term lengths (μ 4.51, σ 2.207) normalized to a
    peak of 1, so a word of 4 or 5 characters scores about 1 and one of 1 character 0.28;
    eq. 6 weighs a word by tf × idf × (1 + this). (The equation is an image missing from the
    seed's text; "normalized" is read as divided by the peak, which the text's "the closer to
    4.5, the higher" and eq. 6's 1 + len(x) fit.)"""
    return math.exp(-((length - TERM_LENGTH_MEAN) ** 2) / (2 * TERM_LENGTH_SD ** 2))


def minmax_length(length: int, shortest: int, longest: int) -> float:
    """Seed 004 §3.2.1: a word's length normalized between the shortest and the longest word
    of its text, (len − min) / (max − min), 0 when all are as long. The seed multiplies its
    factors into one weight (its marker and title words weigh "5 times an ordinary word"); a
    factor of 0 would drop the shortest words, so the weight is × (1 + this), from 1 for the
    shortest word to 2 for the longest, as seed 002's eq. 6 does for its length factor. (The
    seed's combined formula is an image missing from its text.)"""
    return (length - shortest) / (longest - shortest) if longest > shortest else 0.0


def pos_tag(word: str) -> str:
    """'n' for a noun, 'v' for a verb, '' otherwise: seed 004 §3.2.1 weighs nouns (subjects)
    and verbs (predicates) above other words. The tag is the word's in jieba's dictionary
    (jieba/dict.txt: n, nr, ns, nt, nz... are nouns; v, vd, vn... verbs); a word it lacks has
    none. jieba.posseg would tag in context, but it is 7 times slower than jieba.cut (92 times
    rjieba) and cuts differently (other words, not only other weights): measured in the README."""
    return pos_tags().get(word, "")


@cache
def pos_tags() -> dict[str, str]:
    """Word -> 'n' or 'v', for the nouns and verbs of jieba's dictionary."""
    text = resources.files("jieba").joinpath("dict.txt").read_text("utf-8")
    tags = {}
    for line in text.splitlines():
        parts = line.split(" ")
        if len(parts) == 3 and parts[2][:1] in ("n", "v"):
            tags[parts[0]] = parts[2][0]
    return tags


@cache
def marker_words() -> tuple[str, ...]:
    """Seed 004 §3.2.2's marker words (综上所述, 总之, 但是 and the like: words that flag a
    summary or a turn), from the shipped list. A word holding one weighs `marker` times more.
    Stop words are removed first, as in the seed (§3.3 step 1): 但是 and 总之 are stop words
    here, so they never count."""
    text = resources.files("dedup_pipeline").joinpath("data/marker-words-zh.txt").read_text("utf-8")
    return tuple(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))
