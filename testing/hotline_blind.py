"""A fifth labelled 12345-hotline table, written blind: used only to judge the matters method.

The city is 朔川市 (made up; northern, inland): 供暖, 老旧小区改造, 棚改, 物业, 拖欠工资 at companies,
工地 and 饭馆, 学区, 公交, 菜市场, 占道经营, 噪音. How it is made:

- Objects are drawn from one pool of unique two-character name cores (so no surface form names
  two objects), except the deliberate hard negatives: compounds (小区/家属院) and their buildings,
  companies (full name, short name, "XX路那边的XX公司", the boss's name), 工地, 饭馆, shops, markets,
  schools, bus lines, 棚改 areas, intersections (both orders, 甲乙路口) and stretches of road
  ("甲路从乙路到丙路那段") on a grid of east-west and north-south roads.
- A matter is an object + a problem + an episode (a window of days, in the problem's season).
  One registry of (object, problem) -> spans keeps every other row about that object and problem
  at least 120 days away, so a singleton or one person's issue never silently belongs to a matter.
- Hard negatives are made first, in pairs of matters (``Hotline.hard``): sibling buildings with
  the same problem the same week; similar company names (one character apart, or one core in two
  trades); one name in two districts (every row of those says its district); adjacent
  intersections; two stretches of one road; one object with another problem at the same time;
  one object and problem in another episode (>= 120 days later).
- Each writer composes their own text from many phrase lists in one of five styles (operator
  工单 "来电人反映…诉求…", web message, letter, terse, dialect), then noise: typos outside names,
  half-width punctuation, full-width digits. Building-level rows sometimes name the building only
  in the address field (the content says "我们楼"). Re-submissions keep the person (name, phone);
  form letters are one text submitted by several people of a matter.
- Rows outside matters: singletons (one person, one object + problem), one person's issue with
  re-submissions, and policy questions with no object (医保, 落户, 公积金, ...), however many ask.

make(8000, 7): 8,000 rows over 2025-01-01..2026-06-30; 690 matters, 260 with >= 5 distinct
people (25 with 20-60); hard pairs: 20 sibling_building, 14 similar_company, 12
same_name_other_district, 12 adjacent_intersection, 10 other_stretch, 24 other_problem,
24 other_episode. Roles (row id -> role): matter, form (a signer of a form letter), repeat (a
re-submission, in a matter or not), single (a singleton or the first row of one person's issue),
policy: 3,853 matter, 125 form, 972 repeat, 2,450 single, 600 policy; 4,450 rows in matters.
``Hotline.about`` (row id -> (object key, problem)) is the generator's own record, for its tests.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

CITY = "朔川市"
START = datetime(2025, 1, 1)
LAST_DAY = 545  # 2026-06-30
GAP_DAYS = 120
HARD_SPAN = 60.0  # days reserved for each matter of a hard pair
DISTRICTS = ["城关区", "河西区", "铁东区", "新华区", "北郊区", "高新区"]
EW_ROADS = ["建设路", "解放路", "人民路", "胜利街", "和平路", "新华路", "长江路", "黄河路", "朝阳路", "文化路"]
NS_ROADS = ["团结路", "光明路", "民主路", "工人街", "育才路", "体育路", "站前街", "友谊路", "迎宾路", "红旗街"]
CN = "零一二三四五六七八九"
HARD_KINDS = {
    "sibling_building": 20, "similar_company": 14, "same_name_other_district": 12,
    "adjacent_intersection": 12, "other_stretch": 10, "other_problem": 24, "other_episode": 24,
}
SEASONS = {
    "all": [(0, LAST_DAY)],
    "heat": [(0, 70), (318, 436)],
    "warm": [(80, 310), (440, LAST_DAY)],
    "rain": [(151, 258), (515, LAST_DAY)],
}


@dataclass
class Hotline:
    """The table's rows and its truth: each row's matter (None outside one), person and role."""

    rows: list[dict]
    matter: dict[int, str | None]
    person: dict[int, str]
    hard: list[tuple[str, str, str]] = field(default_factory=list)
    role: dict[int, str] = field(default_factory=dict)
    about: dict[int, tuple[str, str]] = field(default_factory=dict)  # row id -> (object key, problem)


def cn_num(n: int) -> str:
    """Chinese numeral for 1..99 (3 -> 三, 12 -> 十二, 20 -> 二十)."""
    if n < 10:
        return CN[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else CN[tens]) + "十" + (CN[ones] if ones else "")


# ---------------------------------------------------------------- objects

@dataclass
class Obj:
    """A concrete object a writer names: its kind, a unique key and what naming it needs."""

    key: str
    kind: str
    district: str
    data: dict
    strict: bool = False  # a twin with one name in another district: always say the district


def compound_forms(c: Obj) -> list[str]:
    """Surface forms of a compound (小区 / 家属院) name."""
    d, name, road = c.district, c.data["name"], c.data["road"]
    if c.strict:
        return [d + name, f"{name}（{d}）", f"{d}的{name}", f"{d}{road}{name}"]
    if c.data["yard"]:
        unit = c.data["unit"]
        return [name, unit + "家属楼", unit + "宿舍", "老" + name, d + name, f"{road}{name}"]
    forms = [name, d + name, f"{name}（{d}）", f"{road}{name}", f"{road}{c.data['num']}号{name}"]
    if not name.endswith(("小区", "新村")):
        forms += [name + "小区", d + name + "小区"]
    return forms


def building_forms(n: int, unit: int | None) -> list[str]:
    """Surface forms of building n: 3号楼 / 三号楼 / 3栋 / 3#楼 / 3幢 / 3号楼2单元."""
    forms = [f"{n}号楼", f"{cn_num(n)}号楼", f"{n}栋", f"{n}#楼", f"{n}幢", f"{cn_num(n)}栋", f"{n}号楼"]
    if unit:
        forms.append(f"{n}号楼{unit}单元")
    return forms


def mention(rng: random.Random, o: Obj) -> str:
    """One writer's name for the object."""
    d, k = o.data, o.kind
    if k == "building":
        c = d["compound"]
        return rng.choice(compound_forms(c)) + rng.choice(["", "", " "]) + rng.choice(
            building_forms(d["n"], d.get("unit")))
    if k == "compound":
        return rng.choice(compound_forms(o))
    if k == "company":
        core, ind, boss, road = d["core"], d["ind"], d["boss"], d["road"]
        forms = [f"{CITY}{core}{ind}有限公司", f"{core}{ind}有限公司", f"{core}{ind}", f"{core}{ind}公司",
                 f"{road}上的{core}{ind}", f"{core}{ind}（老板{boss}）", f"老板叫{boss}的那个{core}{ind}"]
        if not d["need_trade"]:
            forms += [f"{core}公司", f"{road}那边的{core}公司", f"{core}公司（老板是{boss}）"]
        return rng.choice(forms)
    if k == "site":
        p, road, dev = d["proj"], d["road"], d["dev"]
        return rng.choice([f"{p}项目工地", f"{p}工地", f"{p}项目", f"{road}{p}工地", f"{road}上{p}那个工地",
                           f"{dev}承建的{p}项目", f"{p}施工现场"])
    if k in ("restaurant", "shop"):
        name, road = d["name"], d["road"]
        if o.strict:
            short = o.district[:2]
            return rng.choice([f"{name}（{short}店）", f"{o.district}{road}的{name}", f"{name}{short}分店",
                               f"{o.district}那家{name}"])
        return rng.choice([name, name, f"{name}（{road}店）", f"{road}上的{name}", f"{road}那家{name}"])
    if k == "market":
        core, kind, road = d["core"], d["type"], d["road"]
        return rng.choice([core + kind, core + "市场", f"{road}的{core}{kind}", core + kind])
    if k == "school":
        return rng.choice(d["forms"])
    if k == "busline":
        n = d["n"]
        return rng.choice([f"{n}路公交", f"{n}路公交车", f"{n}路车", f"公交{n}路", f"{cn_num(n)}路公交"])
    if k == "shanty":
        a = d["area"]
        return rng.choice([f"{a}片区棚改", f"{a}棚户区改造项目", f"{a}片区棚户区改造", f"{a}棚改项目",
                           f"{a}片区回迁楼"])
    if k == "intersection":
        a, b = d["a"], d["b"]
        return rng.choice([f"{a}与{b}交叉口", f"{b}与{a}交叉口", f"{a}和{b}交口", f"{a}{b}路口",
                           f"{b}{a}路口", f"{a[:-1]}{b}路口" if a.endswith("路") else f"{a}{b}口",
                           f"{a}/{b}十字路口", f"{b}、{a}交汇处"])
    if k == "stretch":
        a, b, c = d["a"], d["b"], d["c"]
        if rng.random() < 0.5:
            b, c = c, b
        return rng.choice([f"{a}从{b}到{c}那段", f"{a}（{b}至{c}段）", f"{a}{b}到{c}之间",
                           f"{b}和{c}中间那段{a}", f"{a}{b}至{c}路段"])
    raise ValueError(k)


SURNAMES = list("王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶阎余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段雷钱汤尹黎易常武乔贺赖龚文")
GIVEN = list("建国军华平明丽秀英红芳燕玲敏静伟强磊洋勇杰涛超鹏辉刚斌志新春海霞娟桂兰凤云玉梅淑珍荣瑞德福贵宝成亮晓东雪飞宇")
CORE_A = list("金锦华翠春阳丰瑞康泰盛嘉和福安宏鑫隆兴祥富润欣惠景明德顺馨怡永恒天博正广万众信荣汇联亿宝昌凯美佳新东益厚升立俊光卓")
CORE_B = list("华苑城景园泉秀林湖河山阳庭宁悦轩都达远通源发利成业丰祥茂川光辉盛诚鸿旺海峰泽润森翔晖瀚")
SIMILAR = {"兴": "鑫", "华": "骅", "达": "大", "宏": "鸿", "盛": "晟", "泰": "太", "远": "源", "利": "力",
           "成": "诚", "丰": "峰", "祥": "翔", "明": "铭", "德": "得", "源": "元", "安": "岸", "通": "同"}
COMPOUND_SUFFIX = ["花园", "家园", "小区", "苑", "新村", "名苑", "雅居", "嘉园", "公寓", "里"]
YARD_UNITS = ["纺织厂", "机床厂", "钢厂", "电业局", "铁路局", "粮食局", "化肥厂", "水泥厂", "糖厂", "热电厂",
              "面粉厂", "棉纺厂", "农机厂", "汽修厂", "煤建公司", "二建公司", "医药公司", "针织厂", "玻璃厂", "轴承厂"]
TRADES = ["建筑工程", "劳务", "物流", "商贸", "装饰工程", "保安服务", "家政服务", "电子科技", "食品", "汽车销售",
          "网络科技", "餐饮管理", "机械制造", "广告传媒", "教育咨询", "印务"]
PROJECT_SUFFIX = ["府", "公馆", "壹号院", "天悦", "华府", "广场", "学府", "尚城", "中心", "御府", "国际"]
FOOD = ["火锅", "烧烤", "羊肉馆", "饺子馆", "大酒店", "饭店", "拉面馆", "串店", "酸菜鱼", "烤肉", "铁锅炖"]
SHOPS = ["健身", "美容美发", "教育培训", "游泳馆", "洗车行", "瑜伽馆", "口腔诊所", "母婴生活馆"]
MARKETS = ["菜市场", "农贸市场", "早市"]
SHANTY = ["西关", "北关", "东关", "南关", "马家沟", "王家营", "铁路南", "二道街", "砖厂", "河沿", "老城西", "窑坡",
          "杨树湾", "三道沟", "果园村", "北坡"]


class World:
    """Makes objects with unique names, and remembers them for re-use."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        cores = sorted({a + b for a in CORE_A for b in CORE_B if a != b})
        rng.shuffle(cores)
        self.cores = cores
        self.used_cores: set[str] = set()
        self.objs: dict[str, list[Obj]] = {}
        self.count = 0
        self.bosses: set[str] = set()
        self.yards = list(YARD_UNITS)
        rng.shuffle(self.yards)
        self.shanty = list(SHANTY)
        rng.shuffle(self.shanty)
        self.schools = self._school_names()
        self.buslines = list(range(1, 90))
        rng.shuffle(self.buslines)
        self.roads_used: dict[str, set[str]] = {}

    def _school_names(self) -> list[list[str]]:
        """Form lists for the city's schools (第N中学, 第N小学, 路名小学)."""
        out = []
        for n in range(1, 40):
            out.append([f"{CITY}第{cn_num(n)}中学", f"第{cn_num(n)}中学", f"{cn_num(n)}中", f"市{n}中",
                        f"{n}中", f"{CITY[:2]}{cn_num(n)}中"])
        for n in range(1, 30):
            out.append([f"第{cn_num(n)}小学", f"{CITY}第{cn_num(n)}小学", f"{cn_num(n)}小", f"市第{n}小学"])
        for road in EW_ROADS + NS_ROADS:
            out.append([f"{road}小学", f"{road}小学校", f"{CITY}{road}小学"])
        self.rng.shuffle(out)
        return out

    def core(self) -> str:
        """A fresh two-character name core, never used for another object."""
        while True:
            if not self.cores:  # a large table: three-character cores (北锦华)
                more = [p + c for p in "东西南北中新" for c in self.used_cores if len(c) == 2]
                self.cores = sorted(set(more) - self.used_cores)
                self.rng.shuffle(self.cores)
            c = self.cores.pop()
            if c not in self.used_cores:
                self.used_cores.add(c)
                return c

    def similar_core(self) -> tuple[str, str]:
        """Two unused cores one character apart (永兴 / 永鑫)."""
        for i in range(len(self.cores) - 1, -1, -1):
            c = self.cores[i]
            for j, ch in enumerate(c):
                if ch in SIMILAR:
                    twin = c[:j] + SIMILAR[ch] + c[j + 1:]
                    if c not in self.used_cores and twin not in self.used_cores:
                        self.used_cores.update((c, twin))
                        return c, twin
        raise RuntimeError("no similar cores left")

    def boss(self) -> str:
        """A unique boss's full name."""
        while True:
            b = self.rng.choice(SURNAMES) + "".join(self.rng.sample(GIVEN, self.rng.choice([1, 2])))
            if b not in self.bosses:
                self.bosses.add(b)
                return b

    def add(self, kind: str, district: str, data: dict, strict: bool = False) -> Obj:
        """Register a new object."""
        self.count += 1
        o = Obj(f"{kind}:{self.count}", kind, district, data, strict)
        self.objs.setdefault(kind, []).append(o)
        return o

    def new(self, kind: str) -> Obj:
        """A new object of a kind, with fresh names."""
        rng = self.rng
        d = rng.choice(DISTRICTS)
        road = rng.choice(EW_ROADS + NS_ROADS)
        if kind == "compound":
            if self.yards and rng.random() < 0.15:
                unit = self.yards.pop()
                return self.add(kind, d, {"name": unit + "家属院", "unit": unit, "yard": True, "road": road,
                                          "num": rng.randint(1, 300), "size": rng.randint(3, 8)})
            name = self.core() + rng.choice(COMPOUND_SUFFIX)
            return self.add(kind, d, {"name": name, "yard": False, "road": road, "num": rng.randint(1, 300),
                                      "size": rng.randint(4, 24)})
        if kind == "company":
            return self.add(kind, d, {"core": self.core(), "ind": rng.choice(TRADES), "boss": self.boss(),
                                      "road": road, "need_trade": False})
        if kind == "site":
            return self.add(kind, d, {"proj": self.core() + rng.choice(PROJECT_SUFFIX), "road": road,
                                      "dev": self.core() + rng.choice(["建设", "建工", "集团", "置业"])})
        if kind == "restaurant":
            name = (rng.choice([self.core(), "老" + rng.choice(SURNAMES) + "家"]) + rng.choice(FOOD))
            while any(o.data["name"] == name for o in self.objs.get(kind, [])):
                name = self.core() + rng.choice(FOOD)
            return self.add(kind, d, {"name": name, "road": road})
        if kind == "shop":
            return self.add(kind, d, {"name": self.core() + rng.choice(SHOPS), "road": road})
        if kind == "market":
            return self.add(kind, d, {"core": self.core(), "type": rng.choice(MARKETS), "road": road})
        if kind == "school" and self.schools:
            return self.add(kind, d, {"forms": self.schools.pop()})
        if kind == "busline" and self.buslines:
            return self.add(kind, d, {"n": self.buslines.pop()})
        if kind == "shanty" and self.shanty:
            return self.add(kind, d, {"area": self.shanty.pop()})
        if kind == "intersection":
            i, j = rng.randrange(len(EW_ROADS)), rng.randrange(len(NS_ROADS))
            return self.intersection(i, j)
        if kind == "stretch":
            on_ew = rng.random() < 0.6
            roads, cross = (EW_ROADS, NS_ROADS) if on_ew else (NS_ROADS, EW_ROADS)
            return self.stretch(roads[rng.randrange(len(roads))], cross, rng.randrange(len(cross) - 1))
        return self.new(rng.choice(["compound", "company", "restaurant", "shop"]))

    def intersection(self, i: int, j: int) -> Obj:
        """The intersection of east-west road i and north-south road j (one object each)."""
        key = f"intersection:{i}:{j}"
        for o in self.objs.get("intersection", []):
            if o.key == key:
                return o
        o = Obj(key, "intersection", DISTRICTS[(i + j) % 4], {"a": EW_ROADS[i], "b": NS_ROADS[j]})
        self.objs.setdefault("intersection", []).append(o)
        return o

    def stretch(self, road: str, cross: list[str], j: int) -> Obj:
        """The stretch of road between cross streets j and j+1."""
        key = f"stretch:{road}:{j}"
        for o in self.objs.get("stretch", []):
            if o.key == key:
                return o
        o = Obj(key, "stretch", DISTRICTS[j % 4], {"a": road, "b": cross[j], "c": cross[j + 1]})
        self.objs.setdefault("stretch", []).append(o)
        return o

    def building(self, compound: Obj, n: int) -> Obj:
        """Building n of a compound (one object each)."""
        key = f"{compound.key}#{n}"
        for o in self.objs.get("building", []):
            if o.key == key:
                return o
        unit = self.rng.choice([None, None, 1, 2, 3, 4])
        o = Obj(key, "building", compound.district, {"compound": compound, "n": n, "unit": unit},
                compound.strict)
        self.objs.setdefault("building", []).append(o)
        return o

    def any_building(self, reuse: float = 0.5) -> Obj:
        """A building of an existing or new compound."""
        c = self.pick("compound", reuse)
        return self.building(c, self.rng.randint(1, c.data["size"]))

    def pick(self, kind: str, reuse: float = 0.5) -> Obj:
        """An existing object of a kind (sometimes) or a new one."""
        have = self.objs.get(kind, [])
        if have and self.rng.random() < reuse:
            return self.rng.choice(have)
        return self.new(kind)


# ---------------------------------------------------------------- problems

P = {}


def problem(key, kinds, season, categories, titles, says, details, asks):
    """Declare a problem: on which kinds of object, when, and the words writers use for it."""
    P[key] = {"kinds": kinds, "season": season, "cat": categories, "titles": titles, "says": says,
              "details": details, "asks": asks}


problem("heat", ["building"], "heat", ["城乡建设", "供暖", "住房保障"],
        ["暖气不热", "供暖不达标", "供暖问题", "暖气温度低", "取暖"],
        ["{o}暖气不热", "{o}的暖气一直不热", "{o}供暖温度不达标，屋里只有{t}度", "住在{o}，家里暖气片是凉的",
         "{o}暖气温乎乎的根本不热", "{o}供热不达标", "{o}暖气烧得跟没烧一样", "{o}室温才{t}度，暖气不热",
         "{o}家里冷得得穿棉袄，暖气就是不热", "{o}今年冬天暖气就没热过"],
        ["家里有老人和孩子，已经冻感冒了", "给热力公司打了好几次电话，说派人来一直没来", "取暖费一分没少交",
         "楼上楼下都这样", "拿温度计量了就{t}度", "放了气也不管用", "晚上睡觉都冻醒", "邻居家也一样不热",
         "已经{d}天了", "前几年都挺好的，今年突然不行了"],
        ["尽快派人检修", "要求热力公司上门排查", "要求退还部分取暖费", "希望有关部门督促供热单位整改",
         "请尽快解决", "给个说法"])
problem("lift", ["building"], "all", ["城乡建设", "住房保障", "市场监管"],
        ["电梯故障", "电梯经常坏", "电梯停运", "电梯问题"],
        ["{o}电梯坏了", "{o}的电梯三天两头出故障", "{o}电梯停运{d}天了没人修", "{o}电梯又困人了",
         "{o}电梯运行时异响抖得厉害", "{o}电梯坏了好久"],
        ["家里老人腿脚不便，只能爬楼", "物业说在等配件", "上周还困了人", "住在{f}楼，每天爬上爬下",
         "维保单位来看了一眼就走了", "孩子上学下楼都得走楼梯"],
        ["尽快修好电梯", "要求物业和维保单位给个修复时间", "请市场监管部门检查电梯安全", "马上处理"])
problem("leak", ["building"], "rain", ["城乡建设", "住房保障"],
        ["楼顶漏水", "房屋漏水", "屋顶渗水", "外墙渗水"],
        ["{o}楼顶漏水", "{o}顶层一下雨就漏", "{o}屋顶防水坏了往下渗水", "{o}外墙渗水，墙皮都掉了",
         "{o}楼道和顶楼漏雨"],
        ["家里墙都发霉了", "接了好几个盆", "找物业说维修基金用不了", "下雨天屋里跟水帘洞一样",
         "电线都泡了怕出事"],
        ["尽快修缮屋面防水", "要求动用维修基金修", "请住建部门督促维修", "赶紧修"])
problem("sewer", ["building"], "all", ["城乡建设", "城市管理"],
        ["下水道堵塞", "污水外溢", "下水返味"],
        ["{o}下水道堵了", "{o}一楼下水往上返污水", "{o}化粪池满了污水漫出来", "{o}下水管道堵塞臭气熏天"],
        ["一楼住户家里都淹了", "味道特别大", "已经{d}天没人管", "物业说管道老化他们弄不了"],
        ["尽快疏通", "要求彻底更换管道", "请派人处理"])
problem("prop_service", ["compound"], "all", ["城乡建设", "物业管理"],
        ["物业不作为", "物业服务差", "物业管理问题"],
        ["{o}物业不作为", "{o}的物业什么都不管", "{o}物业服务太差", "{o}物业收了钱不干活",
         "{o}物业公司管理混乱"],
        ["楼道灯坏了没人修", "门禁坏了好几个月", "保安经常不在岗", "绿化没人打理", "业主反映了多次都没用"],
        ["要求更换物业", "请住建部门监管物业", "督促物业履行职责", "希望街道出面协调"])
problem("prop_fee", ["compound"], "all", ["城乡建设", "物业管理", "市场监管"],
        ["物业乱收费", "物业费上涨", "物业收费问题"],
        ["{o}物业乱收费", "{o}物业费突然涨价", "{o}物业强制收取停车管理费", "{o}物业不交物业费就不给办门卡",
         "{o}物业费从每平{p}毛涨到{q}毛"],
        ["没开业主大会就涨价", "收费也没有公示", "服务一点没变好", "不交就停水停电威胁业主"],
        ["要求物业公开收费依据", "请价格监管部门查处", "要求退还多收的费用", "制止乱收费"])
problem("reno", ["compound"], "warm", ["城乡建设", "住房保障"],
        ["老旧小区改造", "改造施工问题", "小区改造扰民"],
        ["{o}老旧小区改造工程拖了好几个月没完工", "{o}改造施工把路全挖开了没人管", "{o}旧改项目施工质量差",
         "{o}老旧小区改造一直停工", "{o}改造工程半拉子扔那了"],
        ["老人出门都不方便", "外墙保温刚做完就开裂", "施工队说没拿到钱不干了", "到处是土坑晚上很危险",
         "说好{m}月份完工"],
        ["尽快复工完工", "要求住建部门督促施工单位", "请公开改造工程进度", "保证施工质量"])
problem("water", ["compound"], "all", ["城乡建设", "供水"],
        ["停水", "没水", "供水问题", "水压低"],
        ["{o}停水了", "{o}突然停水也没通知", "{o}已经停水{d}天了", "{o}水压特别低楼上没水",
         "{o}自来水发黄有异味"],
        ["做饭洗漱都成问题", "打自来水公司电话没人接", "没贴任何停水通知", "家里有病人"],
        ["尽快恢复供水", "请供水公司说明原因", "要求提前通知", "马上处理"])
problem("garbage", ["compound"], "warm", ["城市管理", "环境保护"],
        ["垃圾清运", "垃圾堆放", "卫生问题"],
        ["{o}垃圾好几天没人清运", "{o}门口垃圾堆成山", "{o}垃圾站臭气熏天"],
        ["天热招苍蝇蚊子", "味道飘到家里", "环卫说不归他们管"],
        ["及时清运垃圾", "请城管部门处理", "改善环境卫生"])
problem("deed", ["compound"], "all", ["住房保障", "自然资源"],
        ["办不了房产证", "不动产证办理", "房本问题"],
        ["{o}交房{y}年了还办不了不动产证", "{o}房产证一直办不下来", "{o}业主的房本迟迟不给办"],
        ["开发商说手续不全", "孩子上学要用房本", "问了不动产登记中心说开发商没交材料"],
        ["尽快给业主办证", "要求查明原因", "请有关部门督促开发商"])
problem("wage", ["company", "restaurant"], "all", ["劳动保障", "人力资源"],
        ["拖欠工资", "欠薪", "讨要工资", "工资问题"],
        ["我在{o}上班，被拖欠工资{m}个月", "{o}欠我{m}个月工资共{money}元", "{o}拖欠员工工资",
         "在{o}干了{m}个月，老板一直拖着工资不给", "{o}已经{m}个月没发工资了", "{o}欠薪不还",
         "离职后{o}一直不结算工资"],
        ["找老板说再等等，一拖再拖", "好几个同事都没拿到钱", "家里等着用钱过日子", "老板电话也不接了",
         "去公司找人都找不着", "一共{n}个人被欠"],
        ["要求尽快支付拖欠的工资", "请劳动监察部门介入", "帮我们把工资要回来", "要求依法处理"])
problem("insure", ["company"], "all", ["劳动保障", "社会保险"],
        ["未缴社保", "社保断缴", "不交社保"],
        ["{o}不给员工交社保", "{o}扣了社保的钱却没交", "{o}给员工的社保断缴{m}个月了",
         "我在{o}工作，入职{y}年公司一直没给上社保"],
        ["去社保局查了才发现", "工资条上每月都扣了社保", "看病报不了", "公司说效益不好先不交"],
        ["要求依法补缴社保", "请社保部门核查", "给个说法"])
problem("noise", ["site"], "warm", ["环境保护", "城乡建设"],
        ["夜间施工噪音", "施工扰民", "噪音扰民"],
        ["{o}晚上施工噪音太大", "{o}半夜还在打桩", "{o}夜间施工扰民", "{o}凌晨{h}点还在浇混凝土",
         "{o}每天干到后半夜吵得睡不着"],
        ["孩子第二天还要上学", "打110也不管用", "问了说没有夜间施工许可", "老人心脏不好受不了"],
        ["禁止夜间施工", "请环保部门查处", "要求按规定时间施工", "还居民一个安静"])
problem("dust", ["site"], "warm", ["环境保护", "城市管理"],
        ["施工扬尘", "工地扬尘", "渣土车撒漏"],
        ["{o}扬尘特别严重", "{o}土方不苫盖刮风满天灰", "{o}渣土车进出一路撒土", "{o}工地不洒水尘土飞扬"],
        ["窗户都不敢开", "车上落满了灰", "空气质量差", "路面全是泥"],
        ["要求工地落实降尘措施", "请城管和环保部门查处", "覆盖裸土"])
problem("site_wage", ["site"], "all", ["劳动保障"],
        ["农民工工资", "拖欠农民工工资", "讨薪"],
        ["我们在{o}干活，包工头拖欠工资", "{o}拖欠农民工工资{money}元", "{o}干完活工钱一直不给结",
         "{o}欠我们{n}个工人的工钱"],
        ["包工头说开发商没给钱", "快过年了等着回家", "干了{m}个月一分没拿到", "总包和分包互相推"],
        ["要求结清工资", "请劳动监察大队介入", "帮农民工讨薪"])
problem("fumes", ["restaurant"], "all", ["环境保护", "城市管理"],
        ["油烟扰民", "饭店油烟", "餐馆噪音扰民"],
        ["{o}油烟直排扰民", "{o}的排烟管冲着居民楼", "{o}油烟味太大窗户都不敢开", "{o}营业到半夜吵闹扰民"],
        ["没装油烟净化器", "家里墙上都是油", "跟老板说了不理", "晚上客人喝酒划拳"],
        ["要求整改油烟", "请环保部门检查", "限制营业时间"])
problem("signal", ["intersection"], "all", ["交通运输", "公安交管"],
        ["红绿灯故障", "信号灯问题", "红绿灯时长"],
        ["{o}红绿灯坏了", "{o}信号灯不亮", "{o}红绿灯时间太短行人过不去", "{o}红绿灯一直黄闪",
         "{o}左转灯设置不合理总堵车"],
        ["早晚高峰特别乱", "差点出事故", "老人过马路很危险", "好几天了"],
        ["尽快修复", "请交警部门调整配时", "派人疏导交通"])
problem("flood", ["intersection"], "rain", ["城市管理", "城乡建设"],
        ["路口积水", "道路积水", "排水不畅"],
        ["{o}一下雨就积水", "{o}积水半米深", "{o}排水不畅路口全是水", "{o}下水口堵了积水严重"],
        ["车都熄火了", "行人没法走", "每年都这样", "电动车过不去"],
        ["疏通排水", "改造排水设施", "尽快处理"])
problem("crossing", ["intersection"], "all", ["交通运输", "公安交管"],
        ["没有人行横道", "过马路不安全", "斑马线"],
        ["{o}没有斑马线", "{o}人行横道线磨没了", "{o}行人过马路太危险"],
        ["附近有学校", "车速很快", "已经出过事故"],
        ["施划人行横道", "加装信号灯", "设置减速带"])
problem("pothole", ["stretch"], "all", ["城乡建设", "城市管理"],
        ["路面坑洼", "道路破损", "路面塌陷"],
        ["{o}路面坑坑洼洼", "{o}路面塌了个大坑", "{o}道路破损严重", "{o}全是坑"],
        ["晚上骑车摔了好几个人", "下雨积水看不见坑", "车底盘都刮了"],
        ["尽快修补路面", "设置警示标志", "请市政部门处理"])
problem("lamp", ["stretch"], "all", ["城市管理", "城乡建设"],
        ["路灯不亮", "路灯故障"],
        ["{o}路灯不亮", "{o}路灯坏了好些天", "{o}晚上黑灯瞎火", "{o}一排路灯都灭了"],
        ["晚上走路害怕", "女孩子下夜班不安全", "有人摔倒了"],
        ["尽快修路灯", "请路灯管理所处理"])
problem("stalls", ["stretch"], "warm", ["城市管理"],
        ["占道经营", "马路市场", "夜市扰民"],
        ["{o}占道经营", "{o}摆摊的把路都堵了", "{o}夜市烧烤摊占道到半夜", "{o}流动摊贩占用人行道"],
        ["车过不去", "垃圾满地", "吵得睡不着", "城管来了就跑走了又回来"],
        ["请城管取缔占道经营", "规范管理", "加强巡查"])
problem("infrequent", ["busline"], "all", ["交通运输"],
        ["公交班次少", "等车时间长", "公交问题"],
        ["{o}班次太少", "{o}等一趟要四五十分钟", "{o}末班车提前了", "{o}发车间隔太长"],
        ["上班老迟到", "冬天站着等冻透了", "以前十分钟一趟"],
        ["增加班次", "恢复原来的发车时间", "请公交公司调整"])
problem("reroute", ["busline"], "all", ["交通运输"],
        ["公交改线", "站点取消", "公交线路调整"],
        ["{o}改线后不经过我们这了", "{o}取消了好几个站", "{o}线路调整了附近居民坐车不方便"],
        ["老人去医院得走很远", "改线也没征求意见", "附近就这一条公交"],
        ["恢复原线路", "恢复站点", "请交通部门考虑居民出行"])
problem("zone", ["school"], "all", ["教育"],
        ["学区划分", "入学问题", "划片问题"],
        ["{o}今年学区划分不合理", "我家离{o}就几百米却划不进学区", "{o}今年划片把我们小区划出去了",
         "{o}入学审核卡房产证"],
        ["孩子只能去很远的学校", "往年都能上", "户口房子都在这"],
        ["重新划分学区", "请教育局给个说法", "让孩子就近入学"])
problem("fees", ["school"], "all", ["教育"],
        ["学校乱收费", "收费问题", "补课收费"],
        ["{o}乱收费", "{o}强制收资料费", "{o}组织有偿补课", "{o}收取校服费太贵还必须买"],
        ["一学期好几百", "不交老师就给孩子脸色看", "没有任何收据"],
        ["查处乱收费", "退还费用", "请教育局调查"])
problem("gate", ["school"], "all", ["交通运输", "教育"],
        ["校门口拥堵", "接送交通", "学校门口"],
        ["{o}门口放学时堵得水泄不通", "{o}门口家长乱停车", "{o}门口上下学时段交通混乱"],
        ["孩子过马路很危险", "公交车都过不去", "没有交警疏导"],
        ["派交警疏导", "规划接送停车区", "加强管理"])
problem("m_road", ["market"], "all", ["城市管理"],
        ["市场占道", "菜市场外摆", "占道"],
        ["{o}商户把摊摆到马路上", "{o}门口占道卖菜", "{o}周边占道经营严重"],
        ["早上根本过不去车", "垃圾烂菜叶满地", "喇叭吆喝吵人"],
        ["整治占道", "规范市场经营", "请城管处理"])
problem("m_dirty", ["market"], "warm", ["市场监管", "城市管理"],
        ["市场卫生差", "菜市场卫生", "异味"],
        ["{o}卫生太差", "{o}污水横流臭气熏天", "{o}死鱼烂菜没人收拾"],
        ["苍蝇到处飞", "地面滑摔倒过人", "下水道堵了"],
        ["加强卫生管理", "请市场监管部门检查"])
problem("m_close", ["market"], "all", ["市场监管", "城乡建设"],
        ["市场关闭", "摊位被清退", "市场拆迁"],
        ["{o}突然要关闭，让商户限期搬走", "{o}要拆，摊位费交了一年不退", "{o}清退摊主没有任何补偿"],
        ["我们一家就靠这个摊生活", "合同还没到期", "没有提前通知"],
        ["给个合理补偿", "退还摊位费", "延缓关闭时间"])
problem("prepaid", ["shop"], "all", ["市场监管", "消费维权"],
        ["预付卡退费", "跑路", "办卡退费"],
        ["{o}突然关门跑路了，卡里还有{money}元", "在{o}办的卡现在不给退", "{o}倒闭了会员卡里的钱退不了",
         "{o}老板联系不上了，预付费打了水漂"],
        ["办卡的时候说随时可以退", "好多会员都找过去了", "门上贴了个停业通知就没人了"],
        ["帮忙追回预付款", "请市场监管部门查处", "要求退费"])
problem("delay", ["shanty"], "all", ["住房保障", "城乡建设"],
        ["回迁延期", "棚改回迁", "回迁房"],
        ["{o}说好的回迁一拖再拖", "{o}回迁房{y}年了还没交", "{o}到现在没法回迁", "{o}的回迁楼停工了"],
        ["在外面租房好几年了", "老人等不起了", "开发商资金链断了"],
        ["尽快交房回迁", "公开工程进度", "请政府督办"])
problem("transfee", ["shanty"], "all", ["住房保障"],
        ["过渡费", "临时安置费", "拆迁补偿"],
        ["{o}的过渡费{m}个月没发了", "{o}临时安置费一直拖欠", "{o}补偿款到现在没到位"],
        ["房租都快交不起了", "找指挥部没人管", "签协议时说按月发"],
        ["尽快发放过渡费", "补发拖欠的安置费", "给被拆迁户一个说法"])

KIND_PROBLEMS: dict[str, list[str]] = {}
for _k, _p in P.items():
    for _kind in _p["kinds"]:
        KIND_PROBLEMS.setdefault(_kind, []).append(_k)
KIND_WEIGHTS = {"building": 26, "compound": 14, "company": 13, "site": 8, "restaurant": 5, "intersection": 6,
                "stretch": 6, "busline": 3, "school": 4, "market": 3, "shop": 5, "shanty": 2}

POLICY = {
    "医保报销": ["请问职工医保住院报销比例是多少", "想问一下门诊统筹能报多少", "异地就医医保怎么报销",
             "居民医保今年报销比例有变化吗", "慢性病门诊报销怎么申请"],
    "落户": ["咨询一下外地户口怎么落户到{c}", "大学生落户需要什么材料", "买了房能不能落户",
           "投靠子女落户有什么条件", "集体户口怎么迁出"],
    "公积金": ["公积金怎么提取", "离职了公积金能全部取出来吗", "公积金贷款额度怎么算", "租房提取公积金需要什么手续"],
    "生育津贴": ["生育津贴怎么申领", "生育津贴发放标准是什么", "男方能不能领生育津贴", "生育保险报销需要哪些材料"],
    "养老保险": ["灵活就业人员养老保险怎么交", "养老保险断缴了能补缴吗", "退休年龄怎么算", "养老金每年调整多少"],
    "居住证": ["居住证怎么办理", "居住证需要住满多久", "居住证到期了怎么续签"],
    "供暖补贴": ["低保户取暖费补贴怎么申请", "退休职工取暖补贴标准是多少", "取暖费补贴什么时候发"],
    "契税": ["首套房契税税率是多少", "二手房交易契税怎么算", "契税补贴政策还有吗"],
    "新生儿": ["新生儿医保怎么办", "新生儿上户口需要什么", "出生医学证明丢了怎么补办"],
    "驾驶证": ["驾照到期换证在哪办", "驾驶证异地换证需要什么材料", "驾照扣分怎么处理"],
    "失业金": ["失业保险金怎么领", "失业金能领几个月", "灵活就业还能领失业金吗"],
    "义务教育入学": ["小学入学需要什么材料", "随迁子女入学政策是什么", "幼升小报名时间是哪天"],
}
POLICY_CATS = {"医保报销": "医疗保障", "落户": "公安户籍", "公积金": "住房保障", "生育津贴": "社会保险",
               "养老保险": "社会保险", "居住证": "公安户籍", "供暖补贴": "民政", "契税": "税务",
               "新生儿": "医疗保障", "驾驶证": "公安交管", "失业金": "人力资源", "义务教育入学": "教育"}
DEICTIC = ["我们楼", "我家这栋楼", "我住的楼", "本楼", "我们这栋", "我家楼"]
TYPOS = {"已经": "以经", "反映": "反应", "解决": "解绝", "处理": "处里", "投诉": "投述", "现在": "现再",
         "一直": "一值", "没有": "没又", "希望": "希忘", "严重": "严种", "暖气": "暖器", "电梯": "电体",
         "拖欠": "托欠", "噪音": "燥音", "工资": "工姿", "尽快": "进快", "部门": "布门", "要求": "要球"}
DIALECT = [("我", "俺"), ("什么", "啥"), ("怎么", "咋"), ("很", "贼"), ("非常", "老"), ("没有", "没")]


# ---------------------------------------------------------------- writing

def fill(rng: random.Random, s: str) -> str:
    """Fill a phrase's number slots with this writer's own figures."""
    return s.format(t=rng.randint(10, 16), d=rng.randint(2, 15), f=rng.randint(5, 28), m=rng.randint(2, 7),
                    money=rng.choice([3600, 4800, 8500, 12000, 16800, 2300, 6400, 9700, 21000]),
                    n=rng.randint(6, 40), h=rng.randint(1, 4), p=rng.randint(4, 9), q=rng.randint(10, 18),
                    y=rng.randint(2, 8), c=CITY, o="{o}")


def compose(rng: random.Random, prob: str, style: str, ment: str, district: str) -> tuple[str, str]:
    """One writer's title and content about a problem at a named object (``ment``)."""
    p = P[prob]
    say = fill(rng, rng.choice(p["says"])).replace("{o}", "\x01")
    details = [fill(rng, x) for x in rng.sample(p["details"], rng.randint(0, min(3, len(p["details"]))))]
    ask = rng.choice(p["asks"])
    tword = rng.choice(p["titles"])
    issue = tword if tword.endswith("问题") else tword + "问题"
    if style == "op":
        head = rng.choice(["来电人反映：", "市民来电反映：", "来电人称，", "来电反映，", "来电人表示："])
        body = head + say + "。" + "".join(d + "。" for d in details)
        lead = rng.choice(["来电人诉求：", "诉求：", "来电人要求", "市民希望"])
        body += lead + (ask[2:] if lead.endswith("要求") and ask.startswith("要求") else ask) + "。"
        title = rng.choice([f"关于\x01{tword}的问题", f"反映\x01{tword}", issue, f"{district}{tword}"])
    elif style == "web":
        head = rng.choice(["网友留言：", "【网络问政】", "", "领导您好，"])
        body = head + say + "，" + "，".join(details) + ("，" if details else "") + ask + "！"
        title = rng.choice([f"\x01{tword}", f"{tword}谁来管", "求助", f"{tword}！！", "投诉"])
    elif style == "letter":
        who = rng.choice(["我是一名普通市民", "我是一名受害者", "我们是附近的居民"]
                         + ([f"我是{district}的居民"] if district else []))
        body = f"尊敬的领导：\n    您好！{who}，现向您反映一个问题：{say}。" + "".join(d + "。" for d in details)
        body += f"恳请领导重视，{ask}。\n此致\n敬礼！"
        title = rng.choice([f"关于\x01{issue}的来信", f"恳请解决{issue}", f"{tword}的反映信"])
    elif style == "terse":
        body = say + rng.choice([" ", "，", "！"]) + rng.choice([ask, "赶紧处理", "有没有人管", "急！", "速回复"])
        title = rng.choice([tword, "", "投诉", f"\x01{tword}"])
    else:  # dialect
        body = "，".join([say] + details) + rng.choice(["，这咋整啊", "，真是没招了", "，嘎哈呢这是", "，可愁死人了"])
        body += "，" + ask + "吧"
        for a, b in DIALECT:
            if rng.random() < 0.7:
                body = body.replace(a, b)
        title = rng.choice([tword, f"{tword}咋没人管", "反映个事"])
    return title, body


def noise(rng: random.Random, text: str) -> str:
    """A writer's slips: typos, half-width punctuation, spaces."""
    if rng.random() < 0.25:
        for a, b in rng.sample(list(TYPOS.items()), 4):
            text = text.replace(a, b)
    if rng.random() < 0.25:
        for a, b in zip("，。：！？（）", ",.:!?()"):
            text = text.replace(a, b)
    if rng.random() < 0.1:
        text = text.replace("，", " ")
    return text


def widen(rng: random.Random, text: str) -> str:
    """Sometimes full-width digits (３号楼)."""
    if rng.random() < 0.18:
        return text.translate({ord(c): 0xFF10 + i for i, c in enumerate("0123456789")})
    return text


# ---------------------------------------------------------------- people and rows

class Table:
    """Collects rows with their truth, and the people who write them."""

    def __init__(self, rng: random.Random, world: World):
        self.rng, self.world = rng, world
        self.rows: list[dict] = []
        self.phones: set[str] = set()
        self.addresses: dict[tuple[str, str], str] = {}  # (person, object) -> the address they give
        self.npeople = 0

    def person(self) -> dict:
        """A new writer: key, name as they give it, phone, home address."""
        rng = self.rng
        self.npeople += 1
        sur = rng.choice(SURNAMES)
        full = sur + "".join(rng.sample(GIVEN, rng.choice([1, 2, 2])))
        name = rng.choice([full, full, sur + rng.choice(["先生", "女士"]), full, "匿名", ""])
        while True:
            phone = rng.choice(["13", "15", "18", "17"]) + "".join(rng.choices("0123456789", k=9))
            if phone not in self.phones:
                self.phones.add(phone)
                break
        if rng.random() < 0.08:
            phone = phone[:3] + "****" + phone[7:]
        b = self.world.any_building(reuse=0.97) if rng.random() < 0.5 else None
        home = home_address(rng, b) if b else (rng.choice(DISTRICTS) + rng.choice(EW_ROADS + NS_ROADS)
                                               + f"{rng.randint(1, 400)}号")
        return {"key": f"P{self.npeople:05d}", "name": name, "phone": phone, "home": home,
                "style": rng.choice(["op", "op", "op", "web", "web", "letter", "terse", "dialect"])}

    def add(self, who: dict, day: float, title: str, content: str, address: str, category: str,
            matter: str | None, role: str, about: tuple[str, str]) -> None:
        """One row, at day (days after START, fractional = time of day)."""
        rng = self.rng
        at = START + timedelta(days=int(min(day, LAST_DAY)), seconds=rng.randint(7 * 3600, 23 * 3600))
        name = who["name"]
        if role == "repeat" and name and rng.random() < 0.2:
            name = name[0] + rng.choice(["先生", "女士"]) if len(name) > 1 else name
        self.rows.append({"title": title, "name": name, "phone": who["phone"], "address": address,
                          "category": category, "content": content,
                          "created_at": at.strftime("%Y-%m-%d %H:%M:%S"), "_truth": (matter, who["key"], role, about)})


def home_address(rng: random.Random, b: Obj) -> str:
    """An address in building b (3号楼2单元501, 3-2-501, ...), always naming the district of a twin."""
    c = b.data["compound"]
    n, unit = b.data["n"], b.data.get("unit") or rng.randint(1, 4)
    room = f"{rng.randint(1, 18)}0{rng.randint(1, 4)}"
    name = c.data["name"]
    d = c.district if (c.strict or rng.random() < 0.6) else ""
    return rng.choice([f"{d}{c.data['road']}{c.data['num']}号{name}{n}号楼{unit}单元{room}",
                       f"{d}{name}{n}-{unit}-{room}", f"{d}{name}{rng.choice(building_forms(n, None))}{room}室",
                       f"{d}{name}{n}号楼{room}"])


def object_address(rng: random.Random, o: Obj, home: str) -> str:
    """The address field: a home in the building or compound for those, else the object's place or home."""
    if o.kind == "building":
        return home_address(rng, o)
    if o.kind == "compound":
        inside = Obj(o.key, "building", o.district, {"compound": o, "n": rng.randint(1, o.data["size"])})
        return home_address(rng, inside)
    if o.kind in ("restaurant", "shop", "market") and rng.random() < 0.4:
        return f"{o.district}{o.data['road']}{rng.randint(1, 300)}号"
    if o.kind in ("intersection", "stretch") and rng.random() < 0.3:
        return f"{o.district}{o.data['a']}"
    return home


def write_row(t: Table, who: dict, o: Obj, prob: str, day: float, matter: str | None, role: str) -> None:
    """One person's row about an object's problem, in their style."""
    rng = t.rng
    address = t.addresses.setdefault((who["key"], o.key), object_address(rng, o, who["home"]))
    hidden = o.kind == "building" and rng.random() < 0.15
    ment = rng.choice(DEICTIC) if hidden else mention(rng, o)
    if o.kind == "compound" and rng.random() < 0.12:
        ment = rng.choice(["我们小区", "我们院", "本小区"])  # the compound only in the address field
    title, content = compose(rng, prob, who["style"], ment, o.district if o.strict else rng.choice(["", o.district]))
    if role == "repeat":
        content = rng.choice(["再次反映：", "之前反映过，一直没解决。", "第二次来电。", "还是上次那个事，",
                              "已经打过好几次电话了！"]) + content
    title_ment = "" if hidden else ment if rng.random() < 0.5 else mention(rng, o)
    title = noise(rng, title).replace("\x01", title_ment)
    content = noise(rng, content).replace("\x01", ment)
    cat = rng.choice(P[prob]["cat"]) if rng.random() < 0.9 else rng.choice(["其他", "综合", "咨询"])
    t.add(who, day, widen(rng, title), widen(rng, content), address, cat, matter, role, (o.key, prob))


# ---------------------------------------------------------------- episodes

class Registry:
    """(object, problem) -> spans of days already taken; a new span must keep GAP_DAYS away."""

    def __init__(self):
        self.spans: dict[tuple[str, str], list[tuple[float, float]]] = {}

    def free(self, o: Obj, prob: str, lo: float, hi: float) -> bool:
        """Whether [lo, hi] keeps GAP_DAYS from every span of (o, prob)."""
        return all(lo >= e + GAP_DAYS or hi <= s - GAP_DAYS for s, e in self.spans.get((o.key, prob), []))

    def take(self, o: Obj, prob: str, lo: float, hi: float) -> None:
        """Reserve [lo, hi] for (o, prob)."""
        self.spans.setdefault((o.key, prob), []).append((lo, hi))


def season_start(rng: random.Random, prob: str, length: float) -> float:
    """A start day in the problem's season with room for length days."""
    lo, hi = rng.choice(SEASONS[P[prob]["season"]])
    return rng.uniform(lo, max(lo, min(hi, LAST_DAY) - length))


@dataclass
class Spec:
    """A matter to write: object, problem, start day, people."""

    obj: Obj
    prob: str
    start: float
    people: int = 0
    name: str = ""
    span: float = 60.0  # days reserved in the registry: every row of the matter falls inside


def episode_length(rng: random.Random, people: int) -> float:
    """How many days a matter's first rows spread over."""
    return min(60.0, 2 + rng.uniform(0.5, 1.5) * people * 0.8)


def sizes(rng: random.Random, n_matters: int, n_hot: int, n_big: int) -> list[int]:
    """People per matter: n_big with 20-60, the other hot ones 5-15, the rest 2-4."""
    out = [rng.randint(20, 60) for _ in range(n_big)]
    out += [min(15, 5 + int(rng.expovariate(0.3))) for _ in range(n_hot - n_big)]
    out += [rng.choice([2, 2, 2, 3, 3, 4]) for _ in range(n_matters - n_hot)]
    rng.shuffle(out)
    return out


def hard_pairs(rng: random.Random, w: World, reg: Registry, counts: dict[str, int]) -> list[tuple[Spec, Spec, str]]:
    """The hard negatives, as pairs of matter specs."""
    out = []

    def ok(a: Spec, b: Spec, span: float = 30) -> bool:
        for s in (a, b):
            if not reg.free(s.obj, s.prob, s.start, s.start + span):
                return False
        for s in (a, b):
            reg.take(s.obj, s.prob, s.start, s.start + span)
            s.span = span
        return True

    def near(prob: str) -> tuple[float, float]:
        s = season_start(rng, prob, HARD_SPAN)
        return s, s + rng.uniform(0, 5)

    made = {k: 0 for k in counts}
    tries = 0
    while any(made[k] < counts[k] for k in counts) and tries < 20000:
        tries += 1
        kind = rng.choice([k for k in counts if made[k] < counts[k]])
        if kind == "sibling_building":
            c = w.new("compound")
            if c.data["size"] < 3:
                continue
            n1, n2 = rng.sample(range(1, c.data["size"] + 1), 2)
            prob = rng.choice(["heat", "heat", "lift", "leak"])
            s1, s2 = near(prob)
            a, b = Spec(w.building(c, n1), prob, s1), Spec(w.building(c, n2), prob, s2)
        elif kind == "similar_company":
            c1, c2 = w.similar_core() if rng.random() < 0.6 else (w.core(),) * 2
            ind1 = rng.choice(TRADES)
            ind2 = ind1 if c1 != c2 else rng.choice([t for t in TRADES if t != ind1])
            o1, o2 = (w.add("company", rng.choice(DISTRICTS), {"core": c, "ind": i, "boss": w.boss(),
                                                               "road": rng.choice(EW_ROADS + NS_ROADS),
                                                               "need_trade": c1 == c2})
                      for c, i in ((c1, ind1), (c2, ind2)))
            prob = rng.choice(["wage", "wage", "insure"])
            s1, s2 = near(prob)
            a, b = Spec(o1, prob, s1), Spec(o2, prob, s2)
        elif kind == "same_name_other_district":
            d1, d2 = rng.sample(DISTRICTS, 2)
            what = rng.choice(["compound", "building", "restaurant", "shop"])
            if what in ("compound", "building"):
                name = w.core() + rng.choice(COMPOUND_SUFFIX)
                size = rng.randint(6, 20)
                o1, o2 = (w.add("compound", d, {"name": name, "yard": False, "road": rng.choice(EW_ROADS + NS_ROADS),
                                                "num": rng.randint(1, 300), "size": size}, strict=True)
                          for d in (d1, d2))
                if what == "building":
                    n = rng.randint(1, size)
                    o1, o2 = w.building(o1, n), w.building(o2, n)
            else:
                name = w.core() + rng.choice(FOOD if what == "restaurant" else SHOPS)
                o1, o2 = (w.add(what, d, {"name": name, "road": rng.choice(EW_ROADS + NS_ROADS)}, strict=True)
                          for d in (d1, d2))
            prob = rng.choice(KIND_PROBLEMS[o1.kind])
            s1, s2 = near(prob)
            a, b = Spec(o1, prob, s1), Spec(o2, prob, s2)
        elif kind == "adjacent_intersection":
            i, j = rng.randrange(len(EW_ROADS)), rng.randrange(len(NS_ROADS) - 1)
            prob = rng.choice(KIND_PROBLEMS["intersection"])
            s1, s2 = near(prob)
            a, b = Spec(w.intersection(i, j), prob, s1), Spec(w.intersection(i, j + 1), prob, s2)
        elif kind == "other_stretch":
            on_ew = rng.random() < 0.5
            roads, cross = (EW_ROADS, NS_ROADS) if on_ew else (NS_ROADS, EW_ROADS)
            road, j = rng.choice(roads), rng.randrange(len(cross) - 2)
            prob = rng.choice(KIND_PROBLEMS["stretch"])
            s1, s2 = near(prob)
            a, b = Spec(w.stretch(road, cross, j), prob, s1), Spec(w.stretch(road, cross, j + 1), prob, s2)
        elif kind == "other_problem":
            k = rng.choice(["company", "site", "site", "restaurant", "compound", "building", "intersection"])
            o = w.any_building() if k == "building" else w.new(k)
            pa, pb = rng.sample(KIND_PROBLEMS[o.kind], 2)
            both = [x for x in SEASONS[P[pa]["season"]] if x in SEASONS[P[pb]["season"]]] or SEASONS["all"]
            lo, hi = rng.choice(both)
            s1 = rng.uniform(lo, max(lo, hi - HARD_SPAN))
            a, b = Spec(o, pa, s1), Spec(o, pb, s1 + rng.uniform(0, 10))
        else:  # other_episode
            k = rng.choice(["building", "building", "company", "site", "compound", "intersection", "stretch", "market"])
            o = w.any_building() if k == "building" else w.new(k)
            prob = rng.choice(KIND_PROBLEMS[o.kind])
            s1 = season_start(rng, prob, HARD_SPAN)
            later = [(lo, hi) for lo, hi in SEASONS[P[prob]["season"]] if hi - 20 > s1 + HARD_SPAN + GAP_DAYS]
            if not later:
                continue
            lo, hi = rng.choice(later)
            s2 = rng.uniform(max(lo, s1 + HARD_SPAN + GAP_DAYS), hi - 20)
            a, b = Spec(o, prob, s1), Spec(o, prob, s2)
            if not (reg.free(o, prob, s1, s1 + HARD_SPAN) and reg.free(o, prob, s2, s2 + HARD_SPAN)):
                continue
            reg.take(o, prob, s1, s1 + HARD_SPAN)
            reg.take(o, prob, s2, s2 + HARD_SPAN)
            out.append((a, b, kind))
            made[kind] += 1
            continue
        if ok(a, b, HARD_SPAN):
            out.append((a, b, kind))
            made[kind] += 1
    return out


def free_spec(rng: random.Random, w: World, reg: Registry, span: float) -> Spec:
    """An object + problem + start with nothing else about them within GAP_DAYS."""
    kinds = list(KIND_WEIGHTS)
    while True:
        kind = rng.choices(kinds, [KIND_WEIGHTS[k] for k in kinds])[0]
        o = w.any_building() if kind == "building" else w.pick(kind, reuse=0.55)
        prob = rng.choice(KIND_PROBLEMS[o.kind])
        start = season_start(rng, prob, span)
        if reg.free(o, prob, start, start + span):
            reg.take(o, prob, start, start + span)
            return Spec(o, prob, start, span=span)


def write_matter(rng: random.Random, t: Table, s: Spec, forms: bool) -> None:
    """The rows of one matter: its people (some re-submitting), maybe a form letter some of them sign."""
    length = max(3.0, min(episode_length(rng, s.people), s.span - 25))
    end = min(s.start + s.span, LAST_DAY + 0.99)
    signers = min(s.people - 2, rng.randint(3, 8)) if forms and s.people >= 5 else 0
    for i in range(s.people - signers):
        who = t.person()
        day = s.start if i == 0 else s.start + length * rng.random() ** 1.5
        write_row(t, who, s.obj, s.prob, day, s.name, "matter")
        for _ in range(rng.choice([1, 1, 2]) if rng.random() < 0.09 else 0):
            day += rng.uniform(1, 12)
            write_row(t, who, s.obj, s.prob, min(day, end), s.name, "repeat")
    if signers:
        who0 = t.person()
        title, content = compose(rng, s.prob, "letter", mention(rng, s.obj), s.obj.district)
        ment = mention(rng, s.obj)
        title, content = title.replace("\x01", ment), content.replace("\x01", ment)
        content = content.replace("我是一名", "我们是").replace("我是", "我们是")
        day = s.start + rng.uniform(1, length)
        for k in range(signers):
            who = who0 if k == 0 else t.person()
            signed = content + f"\n联名人：{who['name'] or '居民'}" if rng.random() < 0.5 else content
            addr = object_address(rng, s.obj, who["home"])
            cat = rng.choice(P[s.prob]["cat"])
            t.add(who, day + rng.uniform(0, 3), title, signed, addr, cat, s.name, "form", (s.obj.key, s.prob))


def write_issue(rng: random.Random, t: Table, w: World, reg: Registry, repeats: int) -> None:
    """One person's complaint (and its re-submissions): in no matter."""
    span = 5 + 8 * repeats
    s = free_spec(rng, w, reg, span)
    who = t.person()
    write_row(t, who, s.obj, s.prob, s.start, None, "single")
    day = s.start
    for _ in range(repeats):
        day += rng.uniform(1, 8)
        write_row(t, who, s.obj, s.prob, day, None, "repeat")


def write_policy(rng: random.Random, t: Table, topic: str, day: float) -> None:
    """A policy question, no object: in no matter however many ask."""
    who = t.person()
    q = rng.choice(POLICY[topic]).format(c=CITY)
    style = who["style"]
    if style == "op":
        content = rng.choice(["来电人咨询：", "市民来电咨询", "来电人想了解"]) + q + "。" + rng.choice(
            ["请相关部门给予答复。", "诉求：告知办理流程。", ""])
    elif style == "dialect":
        content = "俺想问问" + q + "，咋整啊"
    else:
        content = rng.choice(["你好，", "您好，请问", "", "咨询："]) + q + rng.choice(["？", "?", "，谢谢", ""])
    title = rng.choice([f"{topic}咨询", "政策咨询", "咨询", q[:10]])
    t.add(who, day, widen(rng, title), noise(rng, content), who["home"], POLICY_CATS[topic], None, "policy",
          ("policy:" + topic, "policy"))


# ---------------------------------------------------------------- the table

def make(rows: int = 8000, seed: int = 7) -> Hotline:
    """The labelled table, deterministic from the seed, with about ``rows`` rows (exactly, when rows >= 400)."""
    rng = random.Random(seed)
    scale = rows / 8000
    w, reg = World(rng), Registry()
    t = Table(rng, w)
    n_matters, n_hot, n_big = round(690 * scale), round(260 * scale), max(1, round(25 * scale))
    counts = {k: max(1, round(v * scale)) for k, v in HARD_KINDS.items()}
    pairs = hard_pairs(rng, w, reg, counts)
    specs = [s for a, b, _ in pairs for s in (a, b)]
    size_list = sizes(rng, max(n_matters, len(specs)), n_hot, n_big)
    while len(specs) < len(size_list):
        specs.append(None)
    for i, n in enumerate(size_list):
        if specs[i] is None:
            specs[i] = free_spec(rng, w, reg, episode_length(rng, n) + 25)
        specs[i].people, specs[i].name = n, f"M{i + 1:04d}"
    for s in specs:
        write_matter(rng, t, s, forms=rng.random() < 0.12)
    n_policy = round(0.075 * rows)
    topics = list(POLICY)
    weights = [rng.uniform(0.3, 3) for _ in topics]
    for _ in range(n_policy):
        write_policy(rng, t, rng.choices(topics, weights)[0], rng.uniform(0, LAST_DAY))
    for _ in range(round(300 * scale)):
        write_issue(rng, t, w, reg, rng.choice([1, 1, 1, 2, 2, 3]))
    while len(t.rows) < rows:
        write_issue(rng, t, w, reg, 0)
    return finish(t.rows, pairs)


def finish(rows: list[dict], pairs: list[tuple[Spec, Spec, str]]) -> Hotline:
    """Order rows by created_at, number them 1..n, name matters M0001.. by first row, split off the truth."""
    order = sorted(range(len(rows)), key=lambda i: (rows[i]["created_at"], i))
    out, matter, person, role, about, names = [], {}, {}, {}, {}, {}
    for new_id, i in enumerate(order, 1):
        r = dict(rows[i])
        m, p, ro, ab = r.pop("_truth")
        if m is not None and m not in names:
            names[m] = f"M{len(names) + 1:04d}"
        out.append({"id": new_id, **r})
        matter[new_id], person[new_id], role[new_id], about[new_id] = names.get(m), p, ro, ab
    hard = [(names[a.name], names[b.name], kind) for a, b, kind in pairs]
    return Hotline(out, matter, person, hard, role, about)
