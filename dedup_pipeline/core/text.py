"""Text normalization: the same complaint typed on another keyboard reads the same.

NFKC folds full-width letters, digits, punctuation and spaces to their half-width forms;
Latin text is lower-cased; every run of whitespace (and control characters) becomes one
space. Punctuation is replaced by a space (default), removed, or kept.
"""

from __future__ import annotations

import sys
import unicodedata
from functools import cache

import numpy as np

PUNCTUATION_MODES = ("space", "remove", "keep")


_SCANNED = 0x20000


@cache
def _marks() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Code points of punctuation (P*) and of control characters (Cc), all of Unicode."""
    # Planes 2 and up hold no punctuation, control characters or canonical compositions (a
    # test checks it), so the scans stop at 0x20000 and cost a tenth of a full one.
    categories = [(code, unicodedata.category(chr(code))) for code in range(_SCANNED)]
    return (tuple(c for c, cat in categories if cat[0] == "P"),
            tuple(c for c, cat in categories if cat == "Cc"))


@cache
def _translation(punctuation: str) -> dict[int, str | None]:
    """A str.translate table: control characters to a space, punctuation as the mode says."""
    punct, controls = _marks()
    table: dict[int, str | None] = dict.fromkeys(controls, " ")
    if punctuation != "keep":
        table.update(dict.fromkeys(punct, " " if punctuation == "space" else None))
    return table


def normalize(text: str, punctuation: str = "space", join: str = " ") -> str:
    """Fold width and case, handle punctuation, collapse whitespace to `join` (one space, or
    "": none); '' for blank text."""
    text = unicodedata.normalize("NFKC", _valid_unicode(text)).lower()
    return join.join(text.translate(_translation(punctuation)).split())


def _valid_unicode(text: str) -> str:
    # A str can hold lone surrogates (from surrogateescape decoding) that UTF-8 cannot
    # encode; they become U+FFFD so that hashing never fails on them.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 else c for c in text)
    return text


def normalize_many(texts: list[str], punctuation: str = "space", join: str = " ") -> list[str]:
    """normalize() of each text, equal to it character for character, at numpy speed.

    Most characters normalize on their own, to one character (or to punctuation alone, as
    … to ..., which is removed or becomes spaces): those go through a lookup table over the
    whole batch at once. A text holding any character that does not (combining marks,
    ligatures, astral code points, final sigma...) takes normalize().
    """
    table, unsafe = _lookup(punctuation)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    codes = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype="<u4")
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    row_bad = np.diff(np.concatenate(([0], np.cumsum(unsafe[codes])))[bounds]) > 0
    mapped = table[codes].astype("<u4", copy=False).tobytes().decode("utf-32-le")
    ends = bounds.tolist()
    # str.split and join per text: faster than collapsing whitespace with numpy (measured)
    return [normalize(text, punctuation, join) if slow else join.join(mapped[start:end].replace(_DELETED, "").split())
            for text, slow, start, end in zip(texts, row_bad.tolist(), ends, ends[1:])]


_DELETED = "\x00"  # marks a removed punctuation mark; a NUL in the input became a space


@cache
def _lookup(punctuation: str) -> tuple[np.ndarray, np.ndarray]:
    """For each code point: its normalized character, and whether it is unsafe alone.
    Only the BMP is worked out; astral code points (emoji, rare CJK) count as unsafe."""
    table = np.full(sys.maxunicode + 1, 0xFFFD, dtype=np.uint32)
    unsafe = np.ones(sys.maxunicode + 1, dtype=bool)
    translate = _translation(punctuation)
    composing = _composition_seconds()
    for code in range(0x10000):
        char = chr(code)
        folded = unicodedata.normalize("NFKC", char).lower() if not 0xD800 <= code < 0xE000 else ""
        mapped = folded.translate(translate)
        marks = len(folded) > 1 and not mapped.strip()  # … is ... : punctuation alone, as one mark
        if (not (len(folded) == 1 or marks) or code == 0x03A3 or code in composing or unicodedata.combining(char)
                or any(ord(c) in composing or unicodedata.combining(c) for c in folded)):
            continue
        unsafe[code] = False
        table[code] = ord(mapped[0] if mapped else _DELETED)
    return table, unsafe


def _composition_seconds() -> frozenset[int]:
    # Characters that canonical composition can merge into the character before them
    # (NFC_Quick_Check=Maybe), plus Hangul jamo: after one of these, per-character
    # normalization is not the normalization of the string. U+03A3 is excluded above
    # because lower() turns it into a final sigma depending on what follows.
    seconds = set(range(0x1100, 0x1200)) | set(range(0xA960, 0xA980)) | set(range(0xD7B0, 0xD800))
    for code in range(_SCANNED):
        parts = unicodedata.decomposition(chr(code)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            seconds.add(int(parts[1], 16))
    return frozenset(seconds)
