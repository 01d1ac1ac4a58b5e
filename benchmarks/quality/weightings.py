"""The seeds' weightings of long text, measured on the SimHash scheme (issue 22).

Each is the paper's scheme (`[scheme] name = "simhash"`, 4 blocks of 16 bits, k = 3) with the
words of the content weighed otherwise (dedup_pipeline/weighting.py, [fingerprint] in
config/example.toml), beside the paper's plain term frequency: on every configured field,
and on the content alone (the other fields ignored), which separates the weighting of the
words from the balance between the words and the short fields (each weighs 2, against a
word's term frequency, or its TF-IDF of about 10 per occurrence). The default stays the
paper's term frequency (the SimHash scheme is the paper's); the best on the dev set is an
option.
"""

from __future__ import annotations

from testing.labelled import Dataset
from .methods import make_config, library_pairs
from .sample import sample_scores
from .score import score

PAPER = {"name": "simhash", "blocks": 4, "key_blocks": 1}
TF = {"weighting": "tf", "length": "none"}
CONTENT_ONLY = {f: "ignore" for f in ("title", "name", "phone", "address", "category")}
SEED_004 = {"weighting": "tfidf", "length": "minmax", "noun_weight": 2.0, "verb_weight": 2.0,
            "marker_weight": 5.0, "title_weight": 5.0}

# (label, [fingerprint] overrides); each is run on all fields and on the content alone
WEIGHTINGS: list[tuple[str, dict]] = [
    ("TF, the paper's (seed 003)", TF),
    ("TF-IDF (seed 002 §2.2 eq. 2-3)", {"weighting": "tfidf", "length": "none"}),
    ("TF-IDF × (1 + term length) (seed 002 §2.2 eq. 6)", {"weighting": "tfidf", "length": "normal"}),
    ("TF-IDF × (1 + word length) (seed 004 §3.2.1)", {"weighting": "tfidf", "length": "minmax"}),
    ("TF-IDF × part of speech: nouns 2, verbs 2 (seed 004 §3.2.1)",
     {"weighting": "tfidf", "length": "none", "noun_weight": 2.0, "verb_weight": 2.0}),
    ("TF-IDF × part of speech: nouns 1.5, verbs 1.2 (seed 004 §3.2.1)",
     {"weighting": "tfidf", "length": "none", "noun_weight": 1.5, "verb_weight": 1.2}),
    ("TF-IDF × marker words 5 (seed 004 §3.2.2)", {"weighting": "tfidf", "length": "none", "marker_weight": 5.0}),
    ("TF-IDF × title words 5 (seed 004 §3.2.3)", {"weighting": "tfidf", "length": "none", "title_weight": 5.0}),
    ("TF-IDF × word length × part of speech 2/2 × marker 5 × title 5 (seed 004 §3.2, all)", SEED_004),
    ("TF × (1 + term length) (seed 002's length factor alone)", {"weighting": "tf", "length": "normal"}),
]
SCOPES = (("all fields", {}), ("content only", {"fields": CONTENT_ONLY}))


def config_of(fingerprint: dict, scope: dict, k: int = 3):
    """The paper's SimHash scheme with these [fingerprint] options, on this scope of fields."""
    return make_config({"scheme": PAPER, "fingerprint": {"k": k, **fingerprint}, **scope})


def table(dev: Dataset, test: Dataset, sample_rows: list[dict], sample_groups: list[list[int]]) -> list[str]:
    """Each weighting on each scope: precision, recall and F1 on dev, test and the template sample."""
    lines = ["| weighting | fields | dev P | dev R | dev F1 | test P | test R | test F1 | sample P | sample R "
             "| sample F1 |", "|---" * 11 + "|"]
    for scope, fields in SCOPES:
        for label, fingerprint in WEIGHTINGS:
            config = config_of(fingerprint, fields)
            d, t = score(dev, library_pairs(config, dev.rows)), score(test, library_pairs(config, test.rows))
            s = sample_scores(library_pairs(config, sample_rows), sample_groups)
            lines.append(f"| {label} | {scope} | {d.precision:.4f} | {d.recall:.4f} | {d.f1:.4f} | "
                         f"{t.precision:.4f} | {t.recall:.4f} | {t.f1:.4f} | {s['precision']:.4f} | "
                         f"{s['recall']:.4f} | {s['f1']:.4f} |")
    return lines
