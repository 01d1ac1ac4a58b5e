"""A second labelled petition table, made otherwise than testing/labelled.py, for measuring
the review queue on data the rule was not tuned on (issue 50, finding 10).

Where labelled.py edits runs of consecutive news lines one labelled edit at a time, this
table writes each matter as a letter: an opener, a sentence of particulars (a date, an
amount, a house number, a company or a place), news sentences drawn one by one from the
whole corpus, and sometimes a signature with the petitioner's name and phone. A matter is
filed 2 to 4 times; each filing after the first is its petitioner's re-submission or
another person's copy (a new name, phone and address, and their own signature), made from
the first or the last filing by edits drawn independently, several at once:

- a prefix saying it is filed again or added to (第三次反映：, 补充反映：, 再次反映, 紧急！, ...);
- retyped: half-width punctuation (with or without a space after it), or digits of the
  other width;
- numbers changed: the date, the amount, the house number, a count;
- a sentence dropped or added, a closing added, a character mistyped.

Hard negatives: the same person filing another matter (same name, phone and address, their
address also in the text); form letters, one letter filled in for other places, companies,
dates and amounts by other people (each letter its own matter); another matter under the
same title. The truth is the matters, by construction: news sentences are drawn without
replacement, so no two matters share a sentence. Everything follows from the seed.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import cache

from . import corpus
from . import make_sample as ms
from collections import Counter

from .labelled import Dataset, Row, address, hard_pairs, review_texts

MATTER_SHARE = 0.12  # matters filed more than once, per row of the table
HARD_SHARE = 0.15  # hard negatives per row
SHORT_SHARE = 0.2  # rows whose content is a short complaint (a review)
FILINGS = {2: 0.6, 3: 0.28, 4: 0.12}
CHAIN_RATE = 0.3  # a filing made from the last filing, not the first
OTHER_PERSON = 0.55  # filings by another person (a copy), not the petitioner
EXACT_COPY = 0.1  # another person's copies filed unedited
EDIT_RATES = {"prefix": 0.35, "width": 0.3, "numbers": 0.3, "dropped": 0.15, "added": 0.2,
              "closing": 0.15, "typo": 0.1}
START, LAST = datetime(2025, 2, 1), datetime(2026, 10, 31)

PREFIXES = ["第三次反映：", "补充反映：", "再次反映", "紧急！", "第2次反映：", "【补充】", "补充材料：",
            "重复反映：", "再次恳请：", "第四次反映！", "追加反映：", "紧急求助！", "第二次投诉：",
            "关于此前反映问题的补充：", "（再次反映）", "又一次反映："]
OPENERS = ["各位领导好：", "尊敬的信访局领导：", "市长您好，", "尊敬的有关部门：", "", "", ""]
CLOSINGS = ["特此反映。", "恳请领导过问。", "盼早日答复。", "望有关部门予以重视。"]
ADDED = ["前几天又去问了一次，工作人员说还在研究。", "我们已经向街道和区里都反映过，没有结果。",
         "家里老人身体不好，实在拖不起了。", "相关票据和合同复印件我都保留着。",
         "周围很多住户都是同样的情况。", "希望这次能有个明确的处理意见。",
         "之前的回复只是说会协调，没有任何实际行动。", "我们愿意配合有关部门调查取证。"]
PARTICULARS = [
    "本人{name}，家住{addr}。{date}起，{firm}拖欠我工资{amount}元，多次讨要未果。",
    "{date}，{place}{house}号门前的{thing}出了问题，影响周边{count}户居民。",
    "我于{date}在{firm}购买了{thing}，花费{amount}元，至今问题没有解决。",
    "{place}{house}号楼从{date}开始{thing}，物业收了{amount}元维修费却不处理。",
    "{date}，我家（{addr}）被{firm}施工损坏，损失约{amount}元。",
]
THINGS = ["路灯", "下水道", "电梯", "燃气管道", "围墙", "热水器", "电动车", "空调", "供暖设施", "防盗门"]
SIGNATURE = "反映人：{name}，联系电话：{phone}。"
FORM_LETTERS = [
    "尊敬的领导：我们是{place}的业主，{firm}自{date}起以各种理由拒不交房，合同约定的违约金每户{amount}元"
    "也迟迟不付。我们多次找开发商协商，对方态度恶劣，推诿扯皮。恳请政府有关部门介入调查，督促{firm}"
    "尽快交房并依约赔付，维护我们的合法权益。",
    "关于{place}供暖不达标的反映：入冬以来，{place}室内温度长期只有十几度，{firm}收取供暖费每户{amount}元，"
    "却不按标准供热。{date}我们集体向{firm}反映，答复是管网老化，无法解决。请求主管部门责令整改，"
    "并按规定退还部分供暖费。",
    "各位领导：{firm}在{place}附近违规建设搅拌站，自{date}起昼夜施工，噪声和粉尘严重影响居民生活，"
    "附近有{count}户人家受到影响。我们多次拨打热线投诉，至今没有人来处理。请环保和城管部门依法查处。",
]
HALF = str.maketrans("，。：；！？（）“”、", ",.:;!?()\"\",")
FULL_DIGITS = str.maketrans("0123456789", "０１２３４５６７８９")
HALF_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")
SENTENCE = re.compile(r"[^。！？!?]+[。！？!?]*")
NUMBER = re.compile(r"[0-9０-９]+(?![0-9０-９]*年)")  # a year stays: a copy corrects a day, not a year


@cache
def news_sentences() -> tuple[str, ...]:
    """Distinct news sentences of 15-80 characters, each one sentence."""
    seen, out = set(), []
    for line in corpus.news_sentences():
        for s in SENTENCE.findall(line):
            if 15 <= len(s) <= 80 and s.endswith(("。", "！", "？")) and s not in seen:
                seen.add(s)
                out.append(s)
    return tuple(out)


class Pools:
    """Sentences and short complaints drawn without replacement, in a seeded order."""

    def __init__(self, rng: random.Random):
        self.news, self.reviews = list(news_sentences()), list(review_texts())
        rng.shuffle(self.news)
        rng.shuffle(self.reviews)

    def sentences(self, n: int) -> list[str]:
        return [self.news.pop() for _ in range(n)]

    def short(self) -> str:
        return self.reviews.pop()


def when(rng: random.Random) -> datetime:
    return START + timedelta(seconds=rng.randint(0, int((LAST - START).total_seconds())))


def date_text(rng: random.Random, at: datetime) -> str:
    day = at - timedelta(days=rng.randint(3, 90))
    return f"{day.year}年{day.month}月{day.day}日"


def slots(rng: random.Random, at: datetime, name: str, addr: str) -> dict:
    """The particulars of one matter."""
    return {"name": name, "addr": addr, "date": date_text(rng, at), "amount": rng.randint(3, 900) * 100,
            "house": rng.randint(1, 300), "count": rng.randint(5, 120), "thing": rng.choice(THINGS),
            "place": rng.choice(ms.COMMUNITIES + ms.VILLAGES + ms.STREETS),
            "firm": ms.firm(rng, rng.choice(["物业公司", "建筑公司", "电器商行", "置业有限公司", "劳务公司"]))}


def letter(rng: random.Random, pools: Pools, at: datetime, name: str, phone: str, addr: str) -> str:
    """A long petition: opener, particulars, news sentences, sometimes a signature."""
    text = rng.choice(OPENERS) + rng.choice(PARTICULARS).format(**slots(rng, at, name, addr))
    text += "".join(pools.sentences(rng.randint(1, 5)))
    if rng.random() < 0.25:
        text += SIGNATURE.format(name=name, phone=phone)
    return text


def short_complaint(rng: random.Random, pools: Pools, at: datetime) -> str:
    """A short complaint: a review, sometimes with the day it happened."""
    text = pools.short()
    return text + f"（{date_text(rng, at)}购买）" if rng.random() < 0.4 else text


def title_of(rng: random.Random, content: str) -> str:
    clause = re.split(r"[，。：！？；（）]", content)
    parts = [c for c in clause if 4 <= len(c) <= 14]
    return rng.choice(["关于{}的反映", "{}", "反映{}"]).format(rng.choice(parts)) if parts else "群众来信"


def fresh(rng: random.Random, pools: Pools, group: int, label: str, short: bool | None = None) -> Row:
    """A new matter from a new person."""
    at, name, phone, addr = when(rng), ms.person_name(rng), ms.phone(rng), address(rng)
    short = rng.random() < SHORT_SHARE if short is None else short
    content = short_complaint(rng, pools, at) if short else letter(rng, pools, at, name, phone, addr)
    return Row(title_of(rng, content), name, phone, addr, rng.choice(list(ms.CATEGORY_TITLES)), at,
               content, group, label)


# ------------------------------------------------------------------ edits


def add_prefix(rng: random.Random, r: Row) -> None:
    r.content = rng.choice(PREFIXES) + r.content


def retype(rng: random.Random, r: Row) -> None:
    """Half-width punctuation (a space after it or not), or the other width of digits."""
    if rng.random() < 0.6:
        text = r.content.translate(HALF)
        r.content = re.sub(r"([,.;:!?])(?=\S)", r"\1 ", text) if rng.random() < 0.5 else text
    else:
        half = r.content.translate(HALF_DIGITS)
        r.content = half if half != r.content else r.content.translate(FULL_DIGITS)


def change_numbers(rng: random.Random, r: Row) -> None:
    """One to three numbers changed (a day, an amount, a house number), in their own width."""
    spans = list(NUMBER.finditer(r.content))
    for m in sorted(rng.sample(spans, min(len(spans), rng.randint(1, 3))), key=lambda m: -m.start()):
        old = m.group()
        value = int(old.translate(HALF_DIGITS))
        new = str(max(1, value + rng.choice([-2, -1, 1, 2, 5]) * 10 ** max(0, len(old) - 2)))
        new = new if new != str(value) else str(value + 1)
        new = new.translate(FULL_DIGITS) if old != old.translate(HALF_DIGITS) else new
        r.content = r.content[:m.start()] + new + r.content[m.end():]


def drop_sentence(rng: random.Random, r: Row) -> None:
    parts = SENTENCE.findall(r.content)
    if len(parts) >= 3 and "".join(parts) == r.content:
        del parts[rng.randint(1, len(parts) - 1)]
        r.content = "".join(parts)


def add_sentence(rng: random.Random, r: Row) -> None:
    parts = SENTENCE.findall(r.content)
    if "".join(parts) != r.content:
        parts = [r.content]
    parts.insert(rng.randint(1, len(parts)), rng.choice(ADDED))
    r.content = "".join(parts)


def add_closing(rng: random.Random, r: Row) -> None:
    r.content = r.content.rstrip() + rng.choice(CLOSINGS)


def mistype(rng: random.Random, r: Row) -> None:
    chars = list(r.content)
    cjk = [i for i, c in enumerate(chars) if "\u4e00" <= c <= "\u9fff"]
    if len(cjk) >= 10:
        i = rng.choice(cjk)
        chars[i] = ms.TYPOS.get(chars[i]) or chars[rng.choice(cjk)]
        r.content = "".join(chars)


EDITS = {"dropped": drop_sentence, "added": add_sentence, "numbers": change_numbers, "closing": add_closing,
         "typo": mistype, "prefix": add_prefix, "width": retype}  # applied in this order


def filing(rng: random.Random, source: Row, first: Row, position: int) -> Row:
    """Another filing of `source`'s matter: its petitioner's or another person's, edited."""
    other = rng.random() < OTHER_PERSON
    r = replace(source, source=position, created_at=source.created_at + timedelta(seconds=rng.randint(3600, 25 * 86400)),
                label="copy" if other else "resubmission", keep_fields=False)
    if other:
        r.name, r.phone, r.address = ms.person_name(rng), ms.phone(rng), address(rng)
        r.content = r.content.replace(SIGNATURE.format(name=first.name, phone=first.phone),
                                      SIGNATURE.format(name=r.name, phone=r.phone))
        if rng.random() < EXACT_COPY:
            return r
    chosen = [e for e, rate in EDIT_RATES.items() if rng.random() < rate] or [rng.choice(list(EDIT_RATES))]
    for edit in EDITS:
        if edit in chosen:
            EDITS[edit](rng, r)
    r.label += ":" + "+".join(e for e in EDITS if e in chosen)
    if rng.random() < 0.3:
        r.title = rng.choice(["补充：", "再次反映：", ""]) + r.title
    return r


# ------------------------------------------------------------------ the table


def matters(rng: random.Random, pools: Pools, rows: list[Row], count: int) -> None:
    """`count` matters filed 2-4 times."""
    for _ in range(count):
        first = fresh(rng, pools, len(rows) + 10**6, "original")
        members = [len(rows)]
        rows.append(first)
        for _ in range(rng.choices(list(FILINGS), weights=list(FILINGS.values()))[0] - 1):
            position = members[-1] if rng.random() < CHAIN_RATE else members[0]
            members.append(len(rows))
            rows.append(filing(rng, rows[position], first, position))


def same_person(rng: random.Random, pools: Pools, rows: list[Row], count: int) -> None:
    """A person of an earlier row files another matter, their address in it."""
    for _ in range(count):
        pos = rng.randrange(len(rows))
        other = rows[pos]
        r = fresh(rng, pools, len(rows) + 10**6, "same_person", short=False)
        r.name, r.phone, r.address, r.source, r.keep_fields = other.name, other.phone, other.address, pos, True
        r.content = letter(rng, pools, r.created_at, r.name, r.phone, r.address)
        other.keep_fields = True
        rows.append(r)


def same_title(rng: random.Random, pools: Pools, rows: list[Row], count: int) -> None:
    """Another matter under an earlier row's title and category."""
    for _ in range(count):
        pos = rng.randrange(len(rows))
        r = fresh(rng, pools, len(rows) + 10**6, "same_title")
        r.title, r.category, r.source, r.keep_fields = rows[pos].title, rows[pos].category, pos, True
        rows[pos].keep_fields = True
        rows.append(r)


def form_letters(rng: random.Random, pools: Pools, rows: list[Row], count: int) -> None:
    """Campaigns of 3-6 letters: one letter filled in for another place, company, date and
    amount by each of its senders; each letter is its own matter."""
    campaign = 0
    while count > 0:
        text, title = rng.choice(FORM_LETTERS), rng.choice(["联名信", "业主集体反映", "居民联名反映"])
        places = rng.sample(ms.COMMUNITIES + ms.VILLAGES, 6)
        for n in range(min(count, rng.randint(3, 6))):
            r = fresh(rng, pools, len(rows) + 10**6, "form_letter", short=False)
            filled = slots(rng, r.created_at, r.name, r.address)
            r.content = text.format(**{**filled, "place": places[n]})
            r.title, r.campaign, r.keep_fields = title, campaign, True
            rows.append(r)
            count -= 1
        campaign += 1


def blank_cells(rng: random.Random, rows: list[Row]) -> None:
    for r in rows:
        if not r.keep_fields:
            for column, rate in {"title": 0.03, "address": 0.05, "phone": 0.05}.items():
                if rng.random() < rate:
                    setattr(r, column, "")


def generate(rows: int = 6_000, seed: int = 50) -> Dataset:
    """The table of about `rows` rows; the same seed gives the same table."""
    rng = random.Random(seed)
    pools = Pools(rng)
    n_hard = max(3, round(rows * HARD_SHARE))
    table: list[Row] = []
    matters(rng, pools, table, max(1, round(rows * MATTER_SHARE)))
    for _ in range(max(0, rows - len(table) - n_hard)):
        table.append(fresh(rng, pools, len(table) + 10**6, "unrelated"))
    same_person(rng, pools, table, n_hard // 3)
    same_title(rng, pools, table, n_hard // 3)
    form_letters(rng, pools, table, n_hard - 2 * (n_hard // 3))
    blank_cells(rng, table)
    return numbered(seed, table)


def numbered(seed: int, table: list[Row]) -> Dataset:
    """The rows numbered by filing time, with the matters as the truth (no guard: the
    negatives are as close as they were made)."""
    for p, r in enumerate(table):
        r.id = p
    table = sorted(table, key=lambda r: (r.created_at, r.id))
    new_id = {r.id: n for n, r in enumerate(table, start=1)}
    for r in table:
        r.source = new_id[r.source] if r.source >= 0 else -1
        r.id = new_id[r.id]
    members: dict[int, list[int]] = {}
    for r in table:
        members.setdefault(r.group, []).append(r.id)
    groups = sorted(g for g in members.values() if len(g) > 1)
    edit_pairs = sorted((min(r.id, r.source), max(r.id, r.source), r.label)
                        for r in table if r.label.startswith(("copy", "resubmission")))
    return Dataset(seed, [r.values() for r in table], {r.id: r for r in table}, groups, edit_pairs,
                   hard_pairs(table), Counter())
