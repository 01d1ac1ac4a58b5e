"""Synthetic results for a report at any size (tests/test_report.py, benchmarks/report.py):
petition-like rows, groups of realistic sizes — mostly pairs, a few large campaigns — and
the pairs inside them, each row a small edit of its group's first."""

from __future__ import annotations

import datetime as dt
import random

from dedup_pipeline.report.render import ReportData

CATEGORIES = ["物业管理", "噪音扰民", "拖欠工资", "环境污染", "违章建筑", "交通出行", "医疗纠纷",
              "拆迁补偿", "供水供电", "食品安全", "教育收费", "道路维修", "社会保障", "劳动争议"]
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗"
GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华"
PLACES = ["幸福家园", "金色港湾", "东方名苑", "滨江壹号", "阳光小区", "和平街", "朝阳路", "柳林镇"]
TEMPLATES = [
    "{place}小区{n}栋楼下每天晚上都有人跳广场舞，音响开得非常大，从晚上7点一直到10点多，"
    "老人和孩子都休息不好。多次向物业和社区反映没有结果，请有关部门协调处理。",
    "我在{place}附近的工地干活，{company}拖欠我们{n}个工人的工资共计{money}元，"
    "包工头一直推脱。请劳动监察部门帮我们讨回血汗钱。",
    "{place}路段的路面坑洼不平已经{n}个月了，下雨天积水很深，电动车经常摔倒。"
    "请交通和城管部门尽快安排维修。",
    "{company}在{place}的厂房每天夜里排放刺鼻气味的废气，周边居民{n}户都受到影响，"
    "很多人咳嗽、头痛。请环保部门调查处理，依法关停。",
]
PREFIXES = ["再次反映：", "第三次反映，", "", "", "紧急！"]
BASE_DAY = dt.datetime(2024, 1, 1)


def group_sizes(groups: int, rng: random.Random) -> list[int]:
    """Mostly pairs and triples, a few dozen-row campaigns, a handful of hundreds."""
    sizes = []
    for _ in range(groups):
        r = rng.random()
        sizes.append(2 if r < .7 else 3 if r < .85 else rng.randint(4, 5) if r < .93
                     else rng.randint(6, 20) if r < .985 else rng.randint(21, 300))
    return sizes


def synthetic(rows: int = 1_000_000, groups: int = 100_000, seed: int = 2015) -> ReportData:
    """A ReportData with `rows` rows scanned and `groups` groups of near-duplicate rows."""
    rng = random.Random(seed)
    sizes = group_sizes(groups, rng)
    if sum(sizes) > rows:
        raise ValueError(f"{groups} groups need {sum(sizes)} rows, more than {rows}")
    data_rows, group_ids, pairs = {}, [], []
    next_id = 1
    for size in sizes:
        base = _row(rng)
        ids = list(range(next_id, next_id + size))
        next_id += size
        for k, rid in enumerate(ids):
            data_rows[rid] = base if k == 0 else _variant(base, rng)
            if k:
                pairs.append((ids[rng.randrange(k)], rid, rng.choice((0, 1, 2, 3, 3))))
        group_ids.append(ids)
    filler = [_row(rng) for _ in range(1000)]
    for rid in range(next_id, rows + 1):  # rows with no similar row: scanned, never shown
        data_rows[rid] = filler[rid % len(filler)]
    return ReportData(
        rows=data_rows, pairs=pairs, groups=group_ids, computed_at=dt.datetime(2026, 1, 1, 2, 30),
        settings={"scheme": "simhash", "k": 3, "fields": {"title": "short, weight 2", "name": "short, weight 2",
                                                          "content": "long, weight 1"}},
        rows_scanned=rows, date_column="created_at", category_column="category", text_column="content",
        short_columns=["title", "name", "phone"], labels={"title": "标题", "name": "姓名", "phone": "电话"})


def _row(rng: random.Random) -> dict:
    text = rng.choice(TEMPLATES).format(place=rng.choice(PLACES), n=rng.randint(2, 40),
                                        company=f"{rng.choice(PLACES)}建筑公司", money=rng.randint(1, 90) * 1000)
    return {"title": text[:10], "name": rng.choice(SURNAMES) + rng.choice(GIVEN) + rng.choice(GIVEN),
            "phone": f"1{rng.randint(3, 9)}{rng.randint(0, 10**9 - 1):09d}",
            "category": rng.choice(CATEGORIES), "content": text,
            "created_at": BASE_DAY + dt.timedelta(minutes=rng.randint(0, 3 * 365 * 24 * 60))}


def _variant(base: dict, rng: random.Random) -> dict:
    """A re-submission: a prefix, maybe another number, a few days later."""
    content = rng.choice(PREFIXES) + base["content"]
    if rng.random() < .4:
        content = content.replace("个", f"{rng.randint(2, 9)}个", 1)
    return {**base, "content": content, "created_at": base["created_at"] + dt.timedelta(days=rng.randint(0, 60))}
