"""A fourth labelled 12345-hotline table, written apart from the other three and never used to
develop the matters method: the UNSEEN set (shape of /tmp/h/hotline_spec.md, issue 52).

The city is 南澄市, a made-up city in the Pearl River Delta: 城中村 with 握手楼, 工业园 full of
电子厂 and 五金厂, new compounds with 一期/二期 and T3栋/B座 buildings, a metro under construction,
回南天 every spring and typhoons every summer. Rows are what a 12345 operator types (工单编号,
来电人/诉求人, 要求…), letters people write, and WeChat-style messages, some with Cantonese words.

A matter is one concrete object (a building of a compound, a compound, a company, a site, a
stretch of road, an intersection, a village, a garbage station, a night market, a school, a
hospital, a bus stop, a shop), one problem (29 kinds) and one episode (a window of days); it has
two or more people. Objects are named in many surface forms (翠湖花园二期3栋 / 翠湖2期三号楼 / 3#楼;
鑫达电子 / 新圩工业园做手机充电器的那个厂 / 陈老板开的电子厂), and a form shared by two objects is
never used (so every row names its object unambiguously, in the text or, for residents and
workers, in the address field). Each row is written from phrase pools in the writer's own style,
so rows of one matter share little beyond the object's name and the problem's words.

Hard negatives, by construction (counts for make(8000, 7), the pairs are in `hard`):
- sibling buildings, same problem, same week (3栋/5栋, 一期A座/二期A座, T3/T5): 51 pairs;
- similar company names, same problem, overlapping weeks (鑫达电子/鑫达精密, 鑫达电子/新达电子): 25;
- one name in two districts (宏发电子 in 湾口区 and 新圩区: 14; 实验小学 of two districts: 6): 20;
- adjacent intersections of one road, same problem, same weeks: 18;
- two adjacent stretches of one road, same problem (积水 or 倒树 after one typhoon, 坑洼), same weeks: 18;
- same object, another problem, overlapping weeks (wages/社保, noise/dust, queue/parking): 45;
- same object and problem in another episode (at least 120 days apart): 40.
Besides: singletons next to matters (a sibling building, the same object's other problem),
one-person issues re-submitted, policy questions asked by many (no object, never a matter),
form letters signed by several people, people who write about two matters, typos, full-width
digits, half-width punctuation. For make(8000, 7): 690 matters, 260 with five people or more
(31 with 20 to 60), 4,623 matter rows, 1,839 singletons, 1,098 rows of one-person issues,
440 policy questions, 2025-03 to 2026-08. `role` says which of these a row is. Everything
follows from the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise

START, END = datetime(2025, 3, 1), datetime(2026, 8, 31, 22, 0)
CITY = "南澄市"
BIG_SHARE = 0.12  # hot matters with 20 to 60 people
MATTERS, HOT, POLICY_SHARE, REPEATER_SHARE = 690, 260, 0.055, 0.04
HARD_PAIRS = {"sibling": 45, "similar_name": 25, "two_districts": 20, "adjacent_crossing": 18,
              "road_stretch": 18, "other_problem": 45, "other_episode": 40}
EPISODE_GAP = timedelta(days=120)  # the same object and problem this far apart is another episode

# ------------------------------------------------------------------ the city

DISTRICTS = {"滨江区": ["沙头街道", "江畔街道", "水围街道"], "湾口区": ["福港街道", "海湾街道", "塘尾街道"],
             "石岭区": ["石岭街道", "横沥街道", "岭南街道"], "凤岗区": ["凤岗街道", "田心街道", "雁田街道"],
             "新圩区": ["新圩街道", "坑梓街道", "龙溪街道"]}
ESTATE_HEADS = ["翠湖", "金沙", "锦绣", "碧海", "海逸", "榕树", "东湖", "丽景", "紫荆", "君悦", "星汇",
                "万象", "蓝湾", "嘉园", "宝安", "怡景", "桃源", "华府", "天悦", "名都", "龙珠", "泰和",
                "雅宝", "新华", "银湖", "半岛", "枫丹", "鸿福", "盈翠", "尚城", "御景", "南山", "凯旋",
                "莲塘", "瑞峰", "逸翠", "荔园", "富康", "和畅", "清水", "锦城", "融创", "珠光", "骏景",
                "祥和", "惠民", "凤凰", "碧水", "阳光", "金域", "中海", "保利", "恒福", "美林", "壹号",
                "悦澜", "海韵", "云顶", "翰林", "书香"]
ESTATE_TAILS = ["花园", "华庭", "名苑", "雅居", "豪庭", "新城", "山庄", "公馆", "家园", "御府", "春天", "湾"]
TOWERS = ["星河中心", "卓越大厦", "海岸城", "创智天地", "汇港广场", "金融中心", "天安数码城", "宏发大厦"]
BRANDS = ["宏利", "华晟", "永兴", "金辉", "恒达", "鑫达", "力信", "东升", "富源", "嘉泰", "捷高", "联胜",
          "旭日", "美达", "科润", "瑞丰", "信诚", "佳讯", "顺昌", "天禾", "益成", "隆鑫", "兴旺", "国泰",
          "通力", "海丰", "盛世", "昌盛", "创维", "立讯", "鸿运", "致远", "精诚", "长荣", "万和", "德林",
          "汇丰", "粤美", "中宝", "新锐"]
HOMOPHONES = {"鑫达": "新达", "宏利": "弘利", "永兴": "永鑫", "华晟": "华盛", "金辉": "锦辉", "恒达": "衡达",
              "力信": "立信", "富源": "福源", "嘉泰": "佳泰", "瑞丰": "瑞峰", "顺昌": "顺畅", "益成": "亿成",
              "兴旺": "星旺", "通力": "同力", "海丰": "海峰", "昌盛": "长盛", "鸿运": "宏运", "致远": "志远",
              "精诚": "晶诚", "德林": "得林", "新锐": "欣锐", "信诚": "信成", "天禾": "天和", "国泰": "国太"}
TWIN_BRANDS = ["宏发", "金龙", "裕华", "广达", "联兴", "百盛", "安达", "华丰", "众志", "荣昌", "利民", "新亚",
               "和信", "宝鼎", "天成", "振华", "同福", "朗科", "凯达", "南粤", "光辉", "润通"]
TRADES = {"电子": "做手机充电器", "五金": "做五金配件", "塑胶": "做塑料外壳", "精密": "做精密零件", "电池": "做电池",
          "模具": "做模具", "包装": "做纸箱", "服装": "做衣服", "家具": "做沙发", "光电": "做LED灯",
          "印刷": "搞印刷", "线材": "做数据线"}
BOSSES = ["陈", "李", "黄", "张", "林", "刘", "吴", "梁", "何", "郑", "罗", "谢", "蔡", "邓", "曾", "叶"]
MAIN_ROADS = ["沙河路", "宝华路", "东江大道", "环城西路", "滨海大道", "金鹏路", "兴业路", "长堤路", "凤凰大道",
              "民生路", "湖景路", "龙溪大道"]
CROSS_ROADS = ["建设路", "新塘路", "横岗路", "工业大道", "友谊路", "松山路", "南环路", "桂花路", "创业路",
               "前进路", "学府路", "康乐路", "荔枝路", "朝阳路", "文化路", "海景路", "振兴路", "育才路",
               "福民路", "石龙路", "光明路", "和平路", "青年路", "东风路"]
VILLAGES = ["岗头村", "塘尾村", "沙头村", "田心村", "水围村", "上屋村", "下沙村", "白石村", "黄贝村", "坑尾村",
            "大浪村", "石厦村", "渔农村", "新围村", "埔心村", "禾坪村", "松岗村", "山厦村", "牛湖村", "鹤围村",
            "官田村", "凤岭村", "樟坑村", "榄核村", "西乡村", "蚝岗村"]
STATIONS = ["沙头", "江畔", "福港", "海湾", "石岭", "横沥", "凤岗", "雁田", "新圩", "坑梓", "龙溪", "会展中心",
            "市民广场", "科技园", "大学城", "高铁南"]
SCHOOLS = ["实验小学", "第二小学", "外国语学校", "育才小学", "红树林小学", "明德小学", "第一中学", "荔湾学校",
           "百花小学", "书城小学"]
HOSPITALS = [("南澄市第一人民医院", ["市一院", "市第一人民医院", "第一人民医院"]),
             ("南澄市第三人民医院", ["市三院", "第三人民医院", "三医院"]),
             ("南澄市中医院", ["市中医院", "中医院"]),
             ("南澄市妇幼保健院", ["妇幼保健院", "市妇幼", "妇幼"]),
             ("滨江区人民医院", ["滨江区医院", "滨江人民医院", "区人民医院"]),
             ("湾口区人民医院", ["湾口区医院", "湾口人民医院", "区人民医院"]),
             ("石岭区人民医院", ["石岭区医院", "石岭人民医院", "区人民医院"]),
             ("新圩区人民医院", ["新圩区医院", "新圩人民医院", "区人民医院"])]
SHOP_BRANDS = ["力健健身", "悦动健身", "超燃健身", "启明星英语", "小画家美术", "乐博编程", "优游泳", "美颜皮肤管理",
               "童趣乐园", "好身材瑜伽"]
CN = "零一二三四五六七八九十"


def cn_number(n: int) -> str:
    """3 -> 三, 12 -> 十二, 21 -> 二十一: how people write a building number in characters."""
    if n <= 10:
        return CN[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else CN[tens]) + "十" + (CN[ones] if ones else "")


def full_width(text: str) -> str:
    return text.translate(str.maketrans("0123456789ABCDEFT", "０１２３４５６７８９ＡＢＣＤＥＦＴ"))


@dataclass
class Thing:
    """An object people complain about; `forms` are its names, all unique across the city."""
    key: str
    type: str
    district: str
    street: str
    place: str  # where it is, as an address
    forms: list[str]
    about: dict = field(default_factory=dict)  # type-specific facts (a building's compound, a road's cross roads)


@dataclass
class Building:
    """One building of a compound (a phase, a label: 3 / B / T3)."""
    key: str
    compound: Thing
    phase: int  # 0 when the compound has no phases
    label: str
    type: str = "building"

    @property
    def district(self) -> str:
        return self.compound.district


class City:
    """Every object of the city, seeded; forms that two objects share are dropped from both."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.compounds: list[Thing] = []
        self.buildings: list[Building] = []
        self.towers: list[Building] = []
        self.by_type: dict[str, list] = {}
        self.twin_companies: list[tuple[Thing, Thing, str]] = []  # (a, b, "similar_name" | "two_districts")
        self.twin_schools: list[tuple[Thing, Thing]] = []
        self.stretch_pairs: list[tuple[Thing, Thing]] = []
        self.crossing_pairs: list[tuple[Thing, Thing]] = []
        things = (self._compounds() + self._companies() + self._sites() + self._roads() + self._villages()
                  + self._schools() + self._hospitals() + self._stops() + self._shops())
        self._unique_forms(things)
        for t in things:
            self.by_type.setdefault(t.type, []).append(t)
        self.by_type["building"] = self.buildings
        self.by_type["tower_building"] = self.towers

    def where(self) -> tuple[str, str]:
        district = self.rng.choice(list(DISTRICTS))
        return district, self.rng.choice(DISTRICTS[district])

    def _compounds(self) -> list[Thing]:
        rng, out = self.rng, []
        tails = ESTATE_TAILS * 6
        rng.shuffle(tails)
        for i, head in enumerate(ESTATE_HEADS):
            district, street = self.where()
            name = head + (tails[i] if not head.endswith(tails[i]) else "花园")
            phases = 2 if rng.random() < 0.3 else 0
            forms = [name, name + "小区", district + name, district[:-1] + name, street + name]
            comp = Thing(f"C{i}", "compound", district, street, district + street + name, forms,
                         {"name": name, "head": head, "phases": phases})
            style = rng.choice(["num", "num", "num", "letter", "tower"])
            count = rng.randint(4, 14) if style == "num" else rng.randint(3, 6)
            for phase in ([1, 2] if phases else [0]):
                for n in range(1, count + 1):
                    label = str(n) if style == "num" else "ABCDEF"[n - 1] if style == "letter" else f"T{n}"
                    self.buildings.append(Building(f"C{i}-{phase}-{label}", comp, phase, label))
            out.append(comp)
            self.compounds.append(comp)
        for j, tower in enumerate(TOWERS):
            district, street = self.where()
            comp = Thing(f"W{j}", "tower", district, street, district + street + tower,
                         [tower, district + tower, street + tower], {"name": tower, "head": tower, "phases": 0})
            for label in "ABC"[:rng.randint(2, 3)]:
                self.towers.append(Building(f"W{j}-0-{label}", comp, 0, label))
            out.append(comp)
        return out

    def _company(self, key: str, brand: str, trade: str, district: str, street: str) -> Thing:
        rng = self.rng
        park = street[:-2] + rng.choice(["工业园", "工业区", "科技园"])
        zone, no, boss = rng.choice("ABCDE"), rng.randint(1, 60), rng.choice(BOSSES)
        tail = rng.choice(["", "科技", "实业", "制品"])
        full = f"{CITY}{brand}{trade}{tail}有限公司"
        forms = [full, full[3:], f"{brand}{trade}", f"{brand}{trade}厂", f"{brand}公司", f"{brand}厂",
                 f"{park}的{brand}", f"{park}{brand}{trade}", f"{district}{brand}{trade}厂",
                 f"{park}{TRADES[trade]}的那个厂", f"{park}{zone}区{boss}老板开的{trade}厂",
                 f"{district[:-1]}那边的{brand}{trade}"]
        return Thing(key, "company", district, street, f"{district}{street}{park}{zone}区{no}号", forms,
                     {"brand": brand, "trade": trade, "park": park})

    def _companies(self) -> list[Thing]:
        rng, out = self.rng, []
        brands = BRANDS[:]
        rng.shuffle(brands)
        for i, brand in enumerate(brands):
            trades = rng.sample(list(TRADES), 3)
            for k, trade in enumerate(trades[:rng.randint(1, 3)]):
                out.append(self._company(f"F{i}.{k}", brand, trade, *self.where()))
        for i in range(HARD_PAIRS["similar_name"] + 4):
            brand = brands[i % len(brands)]
            a = next(c for c in out if c.about["brand"] == brand)
            if i % 2 and brand in HOMOPHONES:
                b = self._company(f"S{i}", HOMOPHONES[brand], a.about["trade"], *self.where())
            else:
                trade = rng.choice([t for t in TRADES if all(c.about["trade"] != t for c in out
                                                             if c.about["brand"] == brand)])
                b = self._company(f"S{i}", brand, trade, *self.where())
            out.append(b)
            self.twin_companies.append((a, b, "similar_name"))
        for i in range(HARD_PAIRS["two_districts"]):
            brand, trade = TWIN_BRANDS[i % len(TWIN_BRANDS)], rng.choice(list(TRADES))
            d1, d2 = rng.sample(list(DISTRICTS), 2)
            a = self._company(f"D{i}a", brand, trade, d1, rng.choice(DISTRICTS[d1]))
            b = self._company(f"D{i}b", brand, trade, d2, rng.choice(DISTRICTS[d2]))
            out += [a, b]
            self.twin_companies.append((a, b, "two_districts"))
        return out

    def _sites(self) -> list[Thing]:
        rng, out = self.rng, []
        for i, station in enumerate(STATIONS):
            line, exit_ = f"地铁{rng.choice([12, 14, 16, 18])}号线", rng.choice("ABCD")
            district, street = self.where()
            forms = [f"{line}{station}站施工工地", f"{station}站地铁工地", f"{station}地铁站{exit_}出口旁边那个工地",
                     f"{line}{station}站项目", f"{station}站那个地铁工地", f"{line}{station}站的工地"]
            out.append(Thing(f"M{i}", "site", district, street, f"{district}{station}站{exit_}出口", forms,
                             {"station": station, "exit": exit_}))
        for i in range(30):
            name = rng.choice(ESTATE_HEADS) + rng.choice(["府", "湾", "壹号院", "天著", "云邸", "广场"])
            builder = rng.choice(["中建三局", "中铁四局", "华润置地", "万科", "碧桂园", "保利发展", "城建集团"])
            district, street = self.where()
            road = rng.choice(MAIN_ROADS)
            forms = [f"{builder}{name}项目工地", f"{name}工地", f"{name}项目", f"{road}{name}楼盘工地",
                     f"{road}那个{name}工地", f"{district}{name}项目工地"]
            out.append(Thing(f"B{i}", "site", district, street, f"{district}{road}{name}项目", forms, {}))
        return out

    def _roads(self) -> list[Thing]:
        rng, out = self.rng, []
        for i, road in enumerate(MAIN_ROADS):
            district, street = self.where()
            crosses = rng.sample(CROSS_ROADS, 4)
            marks = rng.sample(self.compounds, 3)
            stretches, crossings = [], []
            for k in range(3):
                a, b, mark = crosses[k], crosses[k + 1], marks[k].about["name"]
                forms = [f"{road}{a}至{b}段", f"{road}从{a}到{b}那一段", f"{road}（{a}—{b}段）",
                         f"{road}{mark}门口那段", f"{mark}门口的{road}", f"{road}{a}到{b}之间"]
                stretches.append(Thing(f"R{i}.{k}", "stretch", district, street, f"{district}{road}{a}至{b}段",
                                       forms, {}))
            for k, c in enumerate(crosses):
                forms = [f"{road}与{c}交叉口", f"{c}与{road}交叉口", f"{road}{c}路口", f"{c}{road}路口",
                         f"{road}和{c}交界的路口", f"{road}{c}十字路口"]
                crossings.append(Thing(f"X{i}.{k}", "crossing", district, street, f"{district}{road}与{c}交叉口",
                                       forms, {}))
            self.stretch_pairs += list(pairwise(stretches))
            self.crossing_pairs += list(pairwise(crossings))
            out += stretches + crossings
        return out

    def _villages(self) -> list[Thing]:
        rng, out = self.rng, []
        for i, v in enumerate(VILLAGES):
            district, street = self.where()
            station, exit_ = rng.choice(STATIONS), rng.choice("ABCD")
            out.append(Thing(f"V{i}", "village", district, street, district + street + v,
                             [v, street + v, v[:-1] + "社区", f"{v}城中村", f"{v}那片握手楼", f"{district}{v}"], {}))
            out.append(Thing(f"G{i}", "garbage", district, street, f"{district}{street}{v}垃圾站",
                             [f"{v}垃圾站", f"{v}垃圾转运站", f"{v}村口那个垃圾站", f"{v}牌坊旁边的垃圾收集点",
                              f"{street}{v}垃圾中转站"], {}))
            if i % 2 == 0:
                out.append(Thing(f"N{i}", "market", district, street, f"{district}{street}{v}夜市",
                                 [f"{v}夜市", f"{v}美食街", f"{v}那条夜市街", f"{station}地铁站{exit_}出口那个夜市",
                                  f"{street}{v}夜市"], {}))
        return out

    def _schools(self) -> list[Thing]:
        rng, out = self.rng, []
        for i, name in enumerate(SCHOOLS):
            districts = rng.sample(list(DISTRICTS), 2 if i < 6 else 1)
            made = []
            for district in districts:
                street = rng.choice(DISTRICTS[district])
                made.append(Thing(f"E{i}{district}", "school", district, street, district + street + name,
                                  [district + name, district[:-1] + name, name, f"{street}的{name}",
                                   f"{district[:-1]}区{name}"], {}))
            if len(made) == 2:
                self.twin_schools.append((made[0], made[1]))
            out += made
        return out

    def _hospitals(self) -> list[Thing]:
        out = []
        for i, (name, forms) in enumerate(HOSPITALS):
            district, street = self.where()
            out.append(Thing(f"H{i}", "hospital", district, street, district + street + name, [name] + forms, {}))
        return out

    def _stops(self) -> list[Thing]:
        rng, out = self.rng, []
        names = [c.about["head"] + "东门" for c in self.compounds[:20]] + [v[:-1] + "市场" for v in VILLAGES[:14]]
        for i, n in enumerate(names):
            district, street = self.where()
            route = rng.randint(2, 399)
            out.append(Thing(f"P{i}", "stop", district, street, f"{district}{n}公交站",
                             [f"{n}公交站", f"{n}站公交", f"{n}那个公交站", f"{n}站（{route}路）", f"{n}公交车站"], {}))
        return out

    def _shops(self) -> list[Thing]:
        rng, out = self.rng, []
        for i, brand in enumerate(SHOP_BRANDS):
            for k, place in enumerate(rng.sample(TOWERS + [c.about["name"] for c in self.compounds[20:40]], 3)):
                district, street = self.where()
                out.append(Thing(f"S{i}.{k}", "shop", district, street, f"{district}{place}{brand}",
                                 [f"{brand}（{place}店）", f"{brand}{place}店", f"{place}那家{brand}",
                                  f"{place}的{brand}", brand, f"{brand}门店"], {}))
        return out

    @staticmethod
    def _unique_forms(things: list[Thing]) -> None:
        """Drop each form two objects share, so no row names an object a reader cannot tell."""
        owners: dict[str, set[str]] = {}
        for t in things:
            for f in set(t.forms):
                owners.setdefault(f, set()).add(t.key)
        for t in things:
            t.forms = [f for f in dict.fromkeys(t.forms) if len(owners[f]) == 1]
            assert t.forms, t.key


# ------------------------------------------------------------------ naming an object in a row

def building_label(rng: random.Random, label: str) -> str:
    """3 -> 3栋 / 三号楼 / 3#楼 / ３幢; B -> B座 / b栋; T3 -> T3栋 / T3座."""
    if label.isdigit():
        n = int(label)
        return rng.choice([f"{n}栋", f"{cn_number(n)}栋", f"{n}号楼", f"{cn_number(n)}号楼", f"{n}#楼",
                           f"{n}幢", full_width(f"{n}栋"), f"{n}座", f"第{cn_number(n)}栋"])
    if label.startswith("T"):
        return rng.choice([f"{label}栋", label, f"{label.lower()}栋", f"{label}座", f"{label}号楼"])
    return rng.choice([f"{label}栋", f"{label}座", f"{label.lower()}栋", full_width(label) + "座", f"{label}幢"])


def phase_label(rng: random.Random, phase: int) -> str:
    return "" if not phase else rng.choice([f"{CN[phase]}期", f"{phase}期", f"{CN[phase]}期的", f"{phase}期"])


def building_name(rng: random.Random, b: Building, bare: bool) -> str:
    """The building in text; `bare` names only the compound (the address then says which building)."""
    comp = b.compound
    forms = comp.forms + ([comp.about["head"]] if b.type == "building" and rng.random() < 0.3 else [])
    name = rng.choice(forms)
    if bare:
        return name + rng.choice(["我们这栋楼", "我住的这栋", "我们楼", "我家这栋", ""])
    sep = rng.choice(["", "", "的", " "])
    return name + phase_label(rng, b.phase) + sep + building_label(rng, b.label)


def building_address(rng: random.Random, b: Building) -> str:
    """A resident's or tenant's address in that building, written one of several ways."""
    comp, room = b.compound, f"{rng.randint(1, 33)}{rng.randint(1, 8):02d}"
    phase = f"{CN[b.phase]}期" if b.phase else ""
    unit = f"{b.label}栋" if b.label.isdigit() or b.label.startswith("T") else f"{b.label}座"
    head = rng.choice([comp.district + comp.street, comp.district, ""])
    if b.label.isdigit() and rng.random() < 0.3:
        return f"{head}{comp.about['name']}{phase}{b.label}-{room}"
    return f"{head}{comp.about['name']}{phase}{unit}{room}{rng.choice(['', '房', '室'])}"


# ------------------------------------------------------------------ problems

@dataclass
class Kind:
    """One kind of problem: which objects it applies to, its season, and its words."""
    key: str
    types: tuple[str, ...]
    category: str
    says: list[str]  # the problem, right after the object's name
    details: list[str]
    demands: list[str]
    titles: list[str]
    months: tuple[int, ...] = ()
    family: str = ""  # kinds of one family are one problem (a leak is a leak)
    who: str = "resident"  # resident | worker | nearby | parent | patient | customer | rider


KINDS = [
    Kind("rain_damp", ("building",), "城乡建设",
         ["回南天墙面大面积渗水", "一到回南天墙壁就冒水珠、发霉", "外墙渗水，回南天屋里像下雨", "墙体返潮严重，墙皮一块块掉",
          "回南天楼道和家里墙面全是水", "外墙防水失效，回南天室内渗水"],
         ["家里的木地板都泡起来了", "衣柜里的衣服全部发霉", "小孩长了湿疹，医生说跟家里潮湿有关", "除湿机开了一整天也没用",
          "墙角的霉斑越来越大", "物业说是天气原因不归他们管", "开发商说过了保修期", "已经拍了视频发给物业"],
         ["督促物业或开发商维修外墙防水", "启用维修基金修外墙", "尽快派人查看渗水原因", "给个说法"],
         ["回南天渗水", "外墙渗水问题", "墙面返潮发霉", "渗水求助"], (2, 3, 4), "water"),
    Kind("roof_leak", ("building",), "城乡建设",
         ["顶楼漏水", "暴雨后天花板漏水", "楼顶防水层破了，一下雨就漏", "楼道天花往下滴水"],
         ["用了好几个桶接水", "电线被水泡了怕漏电", "顶层几户都遭殃", "找物业三次了都说排期"],
         ["尽快修复楼顶防水", "督促物业处理漏水", "派人来看一下"],
         ["楼顶漏水", "下雨漏水问题"], (5, 6, 7, 8, 9), "water"),
    Kind("lift", ("building",), "城乡建设",
         ["电梯停运", "电梯坏了一直没修", "电梯停了好多天", "电梯故障不能用", "两部电梯都停了", "电梯又困人了，现在停着"],
         ["楼里有不少老人，上下楼只能爬楼梯", "我家住{floor}楼，每天提着菜爬上去", "孕妇和小孩出入很不方便",
          "物业说在等配件，已经等了{d}天", "物业说维修费要业主分摊", "外卖和快递都不肯送上楼", "上周还困过人"],
         ["尽快修好电梯", "督促物业维修电梯", "市场监管部门检查电梯安全", "给个修复时间"],
         ["电梯停运", "电梯故障", "电梯长时间未修复"]),
    Kind("metro_crack", ("building",), "城乡建设",
         ["地铁施工以后楼体出现裂缝", "墙体开裂，怀疑是旁边地铁施工引起的", "地铁盾构经过后房子裂了", "楼里多处墙面开裂、地面下沉"],
         ["裂缝有一指宽", "门窗都关不严了", "晚上能感觉到震动", "住户担心房子会塌", "地铁公司来拍过照就没下文了"],
         ["请第三方做房屋安全鉴定", "地铁公司停工排查", "给出沉降监测数据", "赔偿损失"],
         ["地铁施工导致房屋开裂", "房屋开裂", "楼房裂缝"]),
    Kind("rider_parking", ("tower_building", "building"), "城市管理",
         ["楼下外卖电动车乱停，堵住消防通道", "外卖骑手的电动车把大堂门口全堵了", "骑手电动车停满门口，行人过不去",
          "中午外卖车把入口围死了"],
         ["中午饭点最严重", "有人被电动车刮伤", "保安说管不了", "骑手说没有地方停，物业又不让进"],
         ["划定外卖车停放区", "城管来规范停放", "物业设置临时取餐点"],
         ["外卖电动车乱停放", "电动车堵通道"], who="mixed"),
    Kind("fund", ("compound",), "住房保障",
         ["物业擅自动用维修基金", "物业没开业主大会就申请用维修基金", "维修基金被物业挪用", "物业拿维修基金去刷外墙"],
         ["业主根本没有签字", "公示的金额有{n}多万", "业委会说不知情", "账目一直不公开", "工程质量很差"],
         ["住建部门冻结维修基金", "公开维修基金账目", "查处物业违规行为"],
         ["维修基金被挪用", "物业违规使用维修基金"]),
    Kind("parking_fee", ("compound", "hospital"), "市场监管",
         ["停车场收费上涨", "停车费从每月{a}元涨到{b}元", "停车费突然涨价", "临停收费涨了一倍"],
         ["没有任何公示", "发改部门有没有备案", "不交就不给进", "周边停车场都没这么贵"],
         ["核查停车收费是否合规", "恢复原来的收费标准", "公开收费依据"],
         ["停车费上涨", "停车场乱收费"], family="parking"),
    Kind("charger", ("compound",), "市场监管",
         ["充电桩收费太高", "充电桩服务费一度电收{c}毛", "地下车库充电桩乱收费", "充电桩被物业承包后涨价"],
         ["比外面贵一倍", "还要另外交管理费", "物业不给业主自己装充电桩", "电费单据不给看"],
         ["规范充电桩收费", "允许业主自行安装充电桩", "查处乱收费"],
         ["充电桩收费问题", "小区充电桩"]),
    Kind("gas_price", ("compound",), "城乡建设",
         ["燃气价格比市管道气贵", "燃气费每立方{p}元，比别的小区贵", "燃气公司单方面涨燃气价", "管道燃气一直没移交，价格偏高"],
         ["我们小区是自管燃气", "问过燃气公司说是历史遗留", "每个月燃气费多了一百多", "老人舍不得开热水器"],
         ["按政府定价收燃气费", "尽快移交市燃气集团管理", "退还多收的燃气费"],
         ["燃气价格偏高", "燃气费问题"]),
    Kind("fire_risk", ("village",), "应急管理",
         ["握手楼消防隐患严重", "楼挨楼，消防车根本进不去", "出租屋电线乱拉，消防通道被堵", "握手楼一楼堆满杂物，还有人在楼道充电"],
         ["上个月隔壁巷子就着过一次火", "很多出租屋没有灭火器", "巷子只有一米宽", "电动车都推进楼道充电"],
         ["消防部门上门排查", "清理消防通道", "统一安装充电设施"],
         ["城中村消防隐患", "握手楼安全隐患"]),
    Kind("garbage_smell", ("garbage",), "城市管理",
         ["臭气熏天", "垃圾站臭味很大", "垃圾站每天晚上很臭，污水流到路上", "垃圾堆满没人清运，臭得不行"],
         ["夏天窗户都不敢开", "蚊子苍蝇特别多", "旁边就是幼儿园", "清运车半夜才来，还很吵"],
         ["加密清运和消杀", "搬迁垃圾站", "整治臭味"],
         ["垃圾站臭味扰民", "垃圾站异味"]),
    Kind("wages", ("company",), "劳动保障",
         ["拖欠工资", "老板拖欠{m}个月工资", "欠薪不还，老板找不到人", "工资一直拖着不发", "上个月工资到现在没发"],
         ["我们{n}多个工人", "说好月底发，现在又说等货款", "我被欠了{amt}元", "房租都交不起了", "去问主管，主管说他也没发",
          "厂里的机器正在往外搬"],
         ["人社部门介入追讨工资", "劳动监察帮我们讨薪", "尽快支付拖欠工资", "查封设备保障工资"],
         ["拖欠工资", "讨薪求助", "欠薪投诉"], family="wages", who="worker"),
    Kind("year_end_wages", ("company",), "劳动保障",
         ["年底不发工资", "快过年了还拖着工资不发", "年底结工资老板跑了", "过年前工资一分没结"],
         ["说好过年前发，现在又说等年后", "年底了要回老家，车票都买不起", "我被欠了{amt}元", "我们{n}多个工人等着回家",
          "年终奖不要了，工资总要给", "老板电话关机了"],
         ["春节前帮我们把工资要回来", "劳动监察帮我们讨薪", "尽快结清工资"],
         ["年底欠薪", "讨薪求助", "春节前欠薪"], (12, 1, 2), "wages", "worker"),
    Kind("social_ins", ("company",), "劳动保障",
         ["不给员工买社保", "一直没交社保", "社保断缴了{m}个月", "工资里扣了社保却没交"],
         ["查社保记录才发现", "入职时说转正就买", "生病住院报不了", "签合同时写了要交"],
         ["补缴社保", "社保部门核查", "按规定参保"],
         ["未缴纳社保", "社保断缴"], who="worker"),
    Kind("night_noise", ("company",), "生态环境",
         ["夜班机器噪音很大", "晚上开夜班，机器声吵得睡不着", "凌晨还在开冲压机", "厂房风机24小时响"],
         ["{t}还在响", "隔着马路都能听到", "我们住在厂对面的出租屋", "老人小孩都睡不好"],
         ["环保部门夜间执法", "限制夜间生产", "加装隔音设施"],
         ["工厂噪音扰民", "夜间生产噪音"], who="nearby"),
    Kind("fumes", ("company",), "生态环境",
         ["排放刺鼻气味", "废气很难闻", "烟囱晚上偷排", "喷漆味道很大"],
         ["闻了头晕", "晚上味道最大", "衣服晾出去都是味", "附近很多人咳嗽"],
         ["环保部门检测废气", "查处偷排", "安装废气处理设备"],
         ["工厂废气", "异味扰民"], who="nearby"),
    Kind("site_noise", ("site",), "城乡建设",
         ["夜间施工噪音扰民", "半夜还在打桩", "晚上施工，噪声很大", "连续几晚通宵施工"],
         ["{t}还在施工", "有没有夜间施工许可证", "孩子要中考了", "上夜班的人白天也睡不了"],
         ["停止夜间施工", "核查夜间施工许可", "城管执法"],
         ["工地夜间施工扰民", "施工噪音"], who="nearby"),
    Kind("site_dust", ("site",), "生态环境",
         ["扬尘严重", "灰尘很大，土方车不盖布", "泥头车带泥上路，到处是灰", "工地没有洒水降尘"],
         ["阳台一天就一层灰", "路面全是泥", "不敢开窗", "车子一天洗一次"],
         ["落实降尘措施", "查处泥头车", "工地按时洒水"],
         ["工地扬尘", "泥头车扬尘"], who="nearby"),
    Kind("flood", ("stretch",), "城市管理",
         ["台风过后严重积水", "暴雨后水浸到膝盖", "一下大雨就水浸街", "台风天积水排不出去"],
         ["车子泡坏了好几台", "水退了以后全是淤泥", "下水道口被垃圾堵住了", "附近商铺都进水了"],
         ["疏通排水管网", "彻底整治内涝点", "及时抽水"],
         ["道路积水", "内涝"], (6, 7, 8, 9, 10), "typhoon", "nearby"),
    Kind("fallen_tree", ("stretch",), "城市管理",
         ["台风吹倒的大树还没清走", "倒树压着路边", "台风后好几棵树倒在人行道上", "断枝挂在电线上"],
         ["已经{d}天了", "行人只能走机动车道", "晚上看不见很危险", "压坏了一辆车"],
         ["尽快清理倒树", "园林部门来处理", "排查剩下的危树"],
         ["台风倒树未清理", "倒伏树木"], (7, 8, 9, 10), "typhoon", "nearby"),
    Kind("potholes", ("stretch",), "交通运输",
         ["路面坑坑洼洼", "路面塌陷一个大坑", "路面破损严重"],
         ["电动车摔了好几次", "下雨看不到坑", "修了又坏"],
         ["修复路面", "设置警示标志"],
         ["路面破损", "道路坑洼"], who="nearby"),
    Kind("signal", ("crossing",), "交通运输",
         ["红绿灯坏了", "红绿灯时间太短", "信号灯不亮", "红绿灯一直闪黄灯"],
         ["老人走到一半就变灯了", "早高峰堵得一塌糊涂", "差点撞到人", "交警也不在"],
         ["修复信号灯", "调整红绿灯配时", "交警来疏导"],
         ["红绿灯故障", "信号灯配时不合理"], who="nearby"),
    Kind("night_market_smoke", ("market",), "生态环境",
         ["烧烤油烟很大", "夜市油烟熏得睡不着", "夜市摊档的油烟直冲楼上", "烧烤摊烟太大"],
         ["窗户关着都有味", "一直搞到凌晨两三点", "油烟把墙都熏黑了", "城管来了就收，走了又摆"],
         ["整治夜市油烟", "城管规范摊档", "加装油烟净化"],
         ["夜市油烟扰民", "烧烤油烟"], who="nearby"),
    Kind("market_noise", ("market",), "城市管理",
         ["深夜喧哗", "凌晨还有人喝酒划拳", "音响很吵", "半夜还很嘈"],
         ["吵到{t}", "楼下放音乐唱歌", "报警了也没用", "第二天还要上班"],
         ["控制夜市营业时间", "管管噪音"],
         ["夜市噪音", "深夜扰民"], who="nearby"),
    Kind("school_place", ("school",), "教育",
         ["学位不够，片区孩子被派到很远的学校", "今年学位分配不公平", "我们在学区内却没分到学位", "学位派位结果有问题"],
         ["我们有房有户口", "派到的学校要坐一个小时车", "积分比别人高还没派上", "去年同样条件都能上"],
         ["公开学位分配规则", "重新核查派位", "增加学位"],
         ["学位分配问题", "入学派位投诉"], (6, 7, 8), who="parent"),
    Kind("school_traffic", ("school",), "交通运输",
         ["门口接送拥堵", "放学时家长车堵满路", "校门口乱停车"],
         ["每天下午四点堵半小时", "孩子过马路很危险", "没有交警"],
         ["增派交警", "设置接送区"],
         ["学校门口拥堵"], who="parent"),
    Kind("hospital_queue", ("hospital",), "卫生健康",
         ["挂号排队太久", "看病要排几个小时", "号根本挂不上", "抽血排队排到中午"],
         ["早上六点就去排队", "老人站不住", "网上号一放出来就没了", "黄牛在门口卖号"],
         ["增加号源", "优化就诊流程", "打击号贩子"],
         ["看病排队难", "挂号难"], who="patient"),
    Kind("bus_stop", ("stop",), "交通运输",
         ["公交站被撤了", "公交改线后站点取消", "公交班次少，等车要四十分钟", "站台被撤，老人要走很远"],
         ["附近几个小区都靠这条线", "早上上班根本赶不上", "没有提前公示"],
         ["恢复站点", "增加班次"],
         ["公交站撤销", "公交班次少"], who="nearby"),
    Kind("prepaid", ("shop",), "市场监管",
         ["突然关门，预付卡退不了", "老板跑路了，卡里还有钱", "门店停业不退费", "预付的课程上不了"],
         ["我卡里还有{amt}元", "群里有好几百人", "前两周还在推销办卡", "电话打不通"],
         ["追回预付款", "市场监管部门立案", "查封财产"],
         ["预付卡退费", "商家跑路"], who="customer"),
]
KIND = {k.key: k for k in KINDS}
OTHER_PROBLEM = {"company": [("wages", "social_ins"), ("year_end_wages", "social_ins"), ("night_noise", "fumes"),
                             ("wages", "night_noise")],
                 "site": [("site_noise", "site_dust")], "hospital": [("hospital_queue", "parking_fee")],
                 "market": [("night_market_smoke", "market_noise")], "compound": [("parking_fee", "charger"),
                 ("fund", "gas_price")], "building": [("lift", "rain_damp"), ("lift", "metro_crack")],
                 "school": [("school_place", "school_traffic")], "stretch": [("flood", "potholes")]}
MATTER_WEIGHTS = {"wages": 7, "year_end_wages": 6, "lift": 8, "rain_damp": 7, "site_noise": 6, "school_place": 4, "fund": 4,
                  "parking_fee": 4, "charger": 3, "gas_price": 3, "flood": 5, "fallen_tree": 3, "night_market_smoke": 3,
                  "fire_risk": 2, "garbage_smell": 4, "metro_crack": 3, "prepaid": 3, "social_ins": 4, "night_noise": 3,
                  "fumes": 2, "site_dust": 3, "signal": 3, "hospital_queue": 2, "bus_stop": 2, "rider_parking": 2,
                  "roof_leak": 3, "potholes": 2, "market_noise": 1, "school_traffic": 1}

POLICY = ["咨询积分入户需要满足什么条件，社保要交满几年？", "请问灵活就业人员在哪里参保，每个月大概交多少钱？",
          "父母是外地医保，来南澄看病怎么办异地就医备案？", "新生儿落户需要准备哪些材料，父母一方是外地户口可以吗？",
          "租房提取公积金一年能提几次，额度是多少？", "电动自行车上牌要带什么资料，旧国标的车还能不能上路？",
          "今年小一入学积分是怎么算的，租房的有几分？", "个体户营业执照注销要走什么流程？", "失业金怎么申领，离职多久以内要申请？",
          "高层次人才补贴今年什么时候开始申报？", "居住证到期了怎么续签，可以网上办吗？", "医保门诊报销比例是多少，社区医院和三甲医院一样吗？",
          "八十岁以上老人的高龄津贴怎么申请？", "台风天停工那几天的工资公司应该怎么算？", "回南天租的房子发霉，房东不修租客可以怎么办？",
          "公租房申请条件是什么，非户籍可以申请吗？", "新能源车充电有没有补贴政策？", "换工作以后社保怎么转移？",
          "老家的养老保险能不能转到南澄？", "港澳通行证续签在哪里办，要预约吗？"]
POLICY_OPEN = ["", "你好，", "您好，请问", "市民咨询：", "来电人咨询：", "想问一下，", "请问"]
POLICY_CLOSE = ["", "谢谢。", "谢谢！", "麻烦回复一下。", "急，谢谢", "（来电人要求回电解答）"]
SURNAMES = "陈李黄张林刘王吴梁何郑罗谢周杨许蔡邓曾叶钟赖郭冯彭潘卢苏朱胡邱江温余莫"
GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玲红志文斌辉建国海燕晓婷俊锋家宝嘉欣子轩梓涵浩宇诗琪"
CANTONESE = ["到现在都冇人理", "几时先搞掂啊", "成日都系咁", "真系好烦", "点算啊", "冇人管", "搞咗好耐都冇搞掂"]
TYPOS = {"已经": "以经", "反映": "反应", "维修": "维休", "噪音": "躁音", "现在": "现再", "的": "得", "电梯": "电悌",
         "处理": "处里", "投诉": "头诉", "工资": "公资", "渗水": "深水", "希望": "习望"}


# ------------------------------------------------------------------ people and rows

@dataclass
class Person:
    key: str
    name: str
    phone: str
    address: str


@dataclass
class Hotline:
    rows: list[dict]
    matter: dict[int, str | None]
    person: dict[int, str]
    hard: list[tuple[str, str, str]] = field(default_factory=list)  # (matter, matter, which hard negative)
    role: dict[int, str] = field(default_factory=dict)  # row id -> matter | single | repeat | policy


def person_name(rng: random.Random) -> str:
    surname = rng.choice(SURNAMES)
    r = rng.random()
    if r < 0.2:
        return surname + rng.choice(["先生", "女士", "生", "小姐"])
    if r < 0.25:
        return rng.choice(["匿名", "市民", ""])
    return surname + "".join(rng.choice(GIVEN) for _ in range(rng.choice([1, 2, 2])))


def phone(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.04:
        return ""
    if r < 0.08:
        return f"0755-{rng.randint(2000000, 8999999)}"
    return f"1{rng.choice('35789')}{rng.randint(0, 999999999):09d}"


def somewhere(rng: random.Random, city: City) -> str:
    """An address that is just where a writer lives."""
    if rng.random() < 0.35:
        v = rng.choice(VILLAGES)
        return f"{rng.choice(list(DISTRICTS))}{v}{rng.randint(1, 12)}巷{rng.randint(1, 40)}号"
    return building_address(rng, rng.choice(city.buildings))


class People:
    """Writers, each with a key; each new one gets a fresh name, phone and address."""

    def __init__(self, rng: random.Random, city: City):
        self.rng, self.city, self.all = rng, city, []

    def new(self, address: str | None = None) -> Person:
        rng = self.rng
        p = Person(f"p{len(self.all) + 1}", person_name(rng), phone(rng), address or somewhere(rng, self.city))
        self.all.append(p)
        return p


def fill(rng: random.Random, text: str) -> str:
    """The numbers of one writer's account."""
    a = rng.choice([150, 200, 300, 350, 400])
    return text.format(d=rng.randint(3, 25), floor=rng.randint(8, 32), amt=rng.randint(3, 90) * 100,
                       n=rng.choice([20, 30, 50, 80, 100, 200]), m=rng.randint(2, 6), a=a,
                       b=a + rng.choice([100, 150, 200, 300]), c=rng.randint(8, 15), p=rng.choice(["4.2", "4.8", "5.3"]),
                       t=rng.choice(["凌晨一点", "凌晨两点多", "半夜十二点", "夜里三点", "晚上十一点"]))


def object_text(rng: random.Random, obj, writer: Person, writer_at_object: bool) -> str:
    """The object as this writer names it; residents and workers may leave it to their address."""
    if isinstance(obj, Building):
        return building_name(rng, obj, bare=writer_at_object and rng.random() < 0.3)
    if writer_at_object and rng.random() < 0.3:
        if obj.type == "compound":
            return rng.choice(["我们小区", "本小区", "我住的小区"])
        if obj.type == "company":
            return rng.choice(["我们厂", "我们公司", "我所在的工厂"])
    return rng.choice(obj.forms)


def address_for(rng: random.Random, obj, city: City, who: str) -> tuple[str, bool]:
    """A writer's address, and whether it is at the object (so the text may leave the object out)."""
    if isinstance(obj, Building):
        if who == "mixed" and rng.random() < 0.4:  # a rider writes from elsewhere
            return somewhere(rng, city), False
        return building_address(rng, obj), True
    if obj.type == "compound":
        own = [b for b in city.buildings if b.compound is obj]
        return building_address(rng, rng.choice(own)), True
    if obj.type == "company" and who == "worker" and rng.random() < 0.25:
        about = obj.about  # a dormitory named after the factory
        dorm = rng.choice(["员工宿舍", "宿舍楼", "宿舍"]) + f"{rng.randint(1, 6)}0{rng.randint(1, 9)}"
        return f"{obj.district}{obj.street}{about['park']}{about['brand']}{about['trade']}厂{dorm}", True
    return somewhere(rng, city), False


def intro(rng: random.Random, kind: Kind) -> str:
    who = {"worker": ["我是一名普通打工仔，", "我在厂里做了三年，", "我们是一线工人，", "我是外地来打工的，"],
           "parent": ["我是一名家长，", "我家孩子今年上一年级，", "作为家长，"],
           "patient": ["我带老人去看病，", "我是一名病人家属，"],
           "customer": ["我是会员，", "我在那里办了卡，"]}
    return rng.choice(who.get(kind.who, ["我是附近居民，", "本人是业主，", "我住在这里，", ""]))


def order_text(rng: random.Random, kind: Kind, name: str, at: datetime) -> str:
    """A work order as an operator types it."""
    head = rng.choice(["来电人反映：", "市民来电反映，", "诉求人来电称，", "来电人称：", "市民反映：",
                       "市民通过微信公众号反映：", "来电人表示，", "诉求人反映"])
    if rng.random() < 0.25:
        head = f"工单编号：NC{at:%Y%m%d}{rng.randint(10000, 99999)}。" + head
    elif rng.random() < 0.1:
        head = "【转办】" + head
    details = rng.sample(kind.details, 2 if rng.random() < 0.4 else 1)
    text = f"{head}{name}{fill(rng, rng.choice(kind.says))}，" + "。".join(fill(rng, d) for d in details) + "。"
    text += rng.choice(["诉求人要求", "来电人希望", "要求", "市民要求", "来电人诉求："]) + rng.choice(kind.demands) + "。"
    return text + rng.choice(["", "", "请相关部门核实处理。", "市民情绪激动。", "（已告知办理时限）", "请尽快处理。"])


def letter_text(rng: random.Random, kind: Kind, name: str, writer: Person, sign: bool = True) -> str:
    """A letter as a person writes it."""
    text = rng.choice(["尊敬的领导：", "市长您好！", "尊敬的12345热线：", "各位领导好，", "致区信访局：", "您好，"])
    text += intro(rng, kind) + f"{name}{fill(rng, rng.choice(kind.says))}。"
    details = rng.sample(kind.details, min(len(kind.details), rng.randint(1, 3)))
    text += "".join(fill(rng, d) + rng.choice(["。", "，", "！"]) for d in details)
    text += rng.choice(["多次找过相关单位都没有结果。", "打过几次电话都说会处理。", "", "真的没办法了。"])
    text += rng.choice(["恳请领导重视，", "希望政府能管一管，", "请求有关部门", "请"]) + rng.choice(kind.demands) + "！"
    if sign and rng.random() < 0.3:
        text += f"反映人：{writer.name or '匿名'}，电话{writer.phone or '略'}。"
    return text + rng.choice(["", "此致敬礼！", "谢谢！", "万分感谢。"])


def message_text(rng: random.Random, kind: Kind, name: str) -> str:
    """A short WeChat-style message."""
    text = f"{name}{fill(rng, rng.choice(kind.says))}"
    if rng.random() < 0.5:
        text += "，" + fill(rng, rng.choice(kind.details))
    if rng.random() < 0.12:
        text += "，" + rng.choice(CANTONESE)
    return text + rng.choice(["！！", "。", "，有没有人管？", "，麻烦处理下", "", "。谢谢"])


def scuff(rng: random.Random, text: str) -> str:
    """A typo, full-width digits or half-width punctuation, as rows come in."""
    if rng.random() < 0.1:
        typo = rng.choice([t for t in TYPOS if t in text] or ["的"])
        text = text.replace(typo, TYPOS[typo], 1)
    if rng.random() < 0.1:
        text = full_width(text)
    if rng.random() < 0.06:
        text = text.translate(str.maketrans("，。：！？（）", ",.:!?()"))
    return text


def title_for(rng: random.Random, kind: Kind, obj, resubmit: bool) -> str:
    short = obj.compound.about["name"] if isinstance(obj, Building) else rng.choice(obj.forms)
    title = rng.choice([f"{short}{rng.choice(kind.titles)}", f"关于{short}{rng.choice(kind.titles)}的投诉",
                        rng.choice(kind.titles), rng.choice(["投诉", "求助", "反映问题", "市民来电", kind.titles[0]])])
    return ("再次反映：" if resubmit and rng.random() < 0.5 else "") + title


# ------------------------------------------------------------------ the table

class Table:
    """Rows as they are written, with their matter, person and role; ids given at the end."""

    def __init__(self, rng: random.Random, city: City):
        self.rng, self.city, self.people = rng, city, People(rng, city)
        self.rows: list[tuple[datetime, dict, str | None, str, str]] = []
        self.taken: dict[tuple[str, str], list[tuple[datetime, datetime]]] = {}

    def free(self, obj, kind: Kind, start: datetime, end: datetime) -> bool:
        """No other account of this object and problem within an episode's gap."""
        spans = self.taken.get((obj.key, kind.family or kind.key), [])
        return all(start > e + EPISODE_GAP or end < s - EPISODE_GAP for s, e in spans)

    def take(self, obj, kind: Kind, start: datetime, end: datetime) -> None:
        self.taken.setdefault((obj.key, kind.family or kind.key), []).append((start, end))

    def write(self, kind: Kind, obj, writer: Person, at_object: bool, at: datetime, matter: str | None,
              role: str, resubmit: str = "") -> str:
        rng = self.rng
        name = object_text(rng, obj, writer, at_object)
        style = rng.random()
        if style < 0.45:
            content = order_text(rng, kind, name, at)
        elif style < 0.75:
            content = letter_text(rng, kind, name, writer)
        else:
            content = message_text(rng, kind, name)
        content = scuff(rng, resubmit + content)
        self.add(at, {"title": title_for(rng, kind, obj, bool(resubmit)), "name": writer.name, "phone": writer.phone,
                      "address": writer.address, "category": kind.category, "content": content}, matter, writer, role)
        return content

    def add(self, at: datetime, row: dict, matter: str | None, writer: Person, role: str) -> None:
        self.rows.append((min(at, END), row, matter, writer.key, role))

    def resubmit(self, kind: Kind, obj, writer: Person, at_object: bool, at: datetime, first: str,
                 matter: str | None, role: str) -> None:
        """The same writer again: a copy with a prefix, or a new account of the same thing."""
        rng = self.rng
        later = at + timedelta(days=rng.randint(2, 20), hours=rng.randint(0, 23))
        if later > END:
            return
        prefix = rng.choice(["再次反映：", "第二次反映，", "之前反映过，至今没人处理。", "补充：", "催办：",
                             f"此前工单NC{at:%Y%m%d}{rng.randint(10000, 99999)}未解决，", "又来反映！"])
        if rng.random() < 0.4:
            row = {"title": title_for(rng, kind, obj, True), "name": writer.name, "phone": writer.phone,
                   "address": writer.address, "category": kind.category, "content": scuff(rng, prefix + first)}
            self.add(later, row, matter, writer, role)
        else:
            self.write(kind, obj, writer, at_object, later, matter, role, prefix)

    def finish(self) -> Hotline:
        self.rows.sort(key=lambda r: r[0])
        rows, matter, person, role = [], {}, {}, {}
        for i, (at, row, m, p, r) in enumerate(self.rows, 1):
            rows.append({"id": i, **row, "created_at": at.strftime("%Y-%m-%d %H:%M:%S")})
            matter[i], person[i], role[i] = m, p, r
        return Hotline(rows, matter, person, role=role)


def season_start(rng: random.Random, kind: Kind, span: int) -> datetime:
    """A start day in the kind's season with room for the episode before the end."""
    for _ in range(500):
        at = START + timedelta(days=rng.randint(0, (END - START).days - span - 25), hours=rng.randint(7, 22),
                               minutes=rng.randint(0, 59))
        if not kind.months or at.month in kind.months:
            return at
    raise AssertionError(kind.key)


@dataclass
class Plan:
    """One matter to write: its object, problem, episode and number of people."""
    key: str
    kind: Kind
    obj: object
    start: datetime
    span: int
    people: int = 2


def objects_for(city: City, kind: Kind) -> list:
    return [o for t in kind.types for o in city.by_type.get(t, [])]


def plan_one(rng: random.Random, table: Table, key: str, kind: Kind, obj, start: datetime | None = None) -> Plan | None:
    """A matter on this object and problem, in the kind's season, clear of other accounts of them."""
    span = rng.randint(4, 30)
    for _ in range(60):
        at = start + timedelta(days=rng.randint(0, 4), hours=rng.randint(-5, 5)) if start else season_start(rng, kind, span)
        at = min(max(at, START), END - timedelta(days=span + 25))
        if table.free(obj, kind, at, at + timedelta(days=span)):
            table.take(obj, kind, at, at + timedelta(days=span))
            return Plan(key, kind, obj, at, span)
        if start:
            return None
    return None


def hard_plans(rng: random.Random, city: City, table: Table, scale: float) -> tuple[list[Plan], list]:
    """The matters that make hard negatives, in pairs."""
    plans, hard = [], []
    counter = iter(range(1, 10 ** 6))

    def pair(kind_a: Kind, a, kind_b: Kind, b, why: str, apart: bool = False) -> None:
        if kind_b.months and not kind_a.months:  # the seasonal problem sets the weeks
            kind_a, a, kind_b, b = kind_b, b, kind_a, a
        first = plan_one(rng, table, f"M{next(counter):04d}", kind_a, a)
        if first is None:
            return
        if apart:
            second = plan_one(rng, table, f"M{next(counter):04d}", kind_b, b)
        else:
            second = plan_one(rng, table, f"M{next(counter):04d}", kind_b, b, first.start)
        if second is None:
            return
        plans.extend([first, second])
        hard.append((first.key, second.key, why))

    def count(why: str) -> int:
        return max(1, round(HARD_PAIRS[why] * scale))

    building_kinds = [KIND[k] for k in ("rain_damp", "lift", "roof_leak", "metro_crack")]
    compounds = city.compounds[:]
    rng.shuffle(compounds)
    for comp in compounds[:count("sibling")]:
        own = [b for b in city.buildings if b.compound is comp]
        kind = rng.choice(building_kinds)
        twins = [b for b in own if b.phase == 2 and any(o.label == b.label and o.phase == 1 for o in own)]
        if twins and rng.random() < 0.5:
            b = rng.choice(twins)
            group = [next(o for o in own if o.label == b.label and o.phase == 1), b]
        else:
            group = rng.sample(own, 3 if rng.random() < 0.2 else 2)
        first = plan_one(rng, table, f"M{next(counter):04d}", kind, group[0])
        if first is None:
            continue
        plans.append(first)
        for b in group[1:]:
            other = plan_one(rng, table, f"M{next(counter):04d}", kind, b, first.start)
            if other:
                plans.append(other)
                hard.append((first.key, other.key, "sibling"))
    def made(why: str) -> int:
        return sum(h[2] == why for h in hard)

    def until(why: str, make_one) -> None:
        """Pairs of this hard negative until there are enough (a pair may not fit the calendar)."""
        for _ in range(20 * count(why)):
            if made(why) >= count(why):
                return
            make_one()

    company_kinds = [KIND[k] for k in ("wages", "year_end_wages", "social_ins", "night_noise", "fumes")]
    for a, b, why in city.twin_companies:
        if made(why) < count(why) - (len(city.twin_schools) if why == "two_districts" else 0):
            kind = rng.choice(company_kinds)
            pair(kind, a, kind, b, why)
    for a, b in city.twin_schools:
        if made("two_districts") < count("two_districts"):
            pair(KIND["school_place"], a, KIND["school_place"], b, "two_districts")
    def crossings() -> None:
        a, b = rng.choice(city.crossing_pairs)
        pair(KIND["signal"], a, KIND["signal"], b, "adjacent_crossing")

    def stretches() -> None:
        kind = KIND[rng.choice(["flood", "flood", "fallen_tree", "potholes"])]
        a, b = rng.choice(city.stretch_pairs)
        pair(kind, a, kind, b, "road_stretch")

    def other_problem() -> None:
        kind_type = rng.choice(["company", "company", "company", "site", "hospital", "market", "compound", "compound",
                                "building", "building", "school", "stretch"])
        ka, kb = rng.choice(OTHER_PROBLEM[kind_type])
        obj = rng.choice(city.by_type[kind_type])
        pair(KIND[ka], obj, KIND[kb], obj, "other_problem")

    def other_episode() -> None:
        kind = KIND[rng.choice(list(MATTER_WEIGHTS))]
        obj = rng.choice(objects_for(city, kind))
        pair(kind, obj, kind, obj, "other_episode", apart=True)

    until("adjacent_crossing", crossings)
    until("road_stretch", stretches)
    until("other_problem", other_problem)
    until("other_episode", other_episode)
    return plans, hard


def all_plans(rng: random.Random, city: City, table: Table, scale: float) -> tuple[list[Plan], list]:
    """Hard-negative matters, then others up to the number of matters; sizes drawn last."""
    plans, hard = hard_plans(rng, city, table, scale)
    kinds = list(MATTER_WEIGHTS)
    weights = [MATTER_WEIGHTS[k] for k in kinds]
    n = len(plans)
    while len(plans) < round(MATTERS * scale):
        kind = KIND[rng.choices(kinds, weights)[0]]
        plan = plan_one(rng, table, f"M{n + 1:04d}x", kind, rng.choice(objects_for(city, kind)))
        if plan:
            plans.append(plan)
            n += 1
    names = {plan.key: f"M{i + 1:04d}" for i, plan in enumerate(plans)}
    for plan in plans:
        plan.key = names[plan.key]
    hard = [(names[a], names[b], why) for a, b, why in hard]
    hot = rng.sample(range(len(plans)), round(HOT * scale))
    big = set(hot[:round(BIG_SHARE * len(hot))])
    for i, plan in enumerate(plans):
        if i in big:
            plan.people = min(60, 20 + int(rng.expovariate(1 / 10)))
        elif i in hot:
            plan.people = min(19, 5 + int(rng.expovariate(1 / 3.5)))
            plan.span = max(plan.span, min(40, plan.people))
        else:
            plan.people = rng.choice([2, 2, 2, 3, 3, 4])
    return plans, hard


def write_matter(rng: random.Random, table: Table, plan: Plan, regulars: list[Person]) -> None:
    """Every person's account of one matter, a form letter signed by some, and re-submissions;
    `regulars` are people who already wrote about another matter (each used once more)."""
    kind, obj = plan.kind, plan.obj
    form = None
    if plan.people >= 6 and rng.random() < 0.25:
        form = letter_text(rng, kind, object_text(rng, obj, Person("", "", "", ""), False), Person("", "", "", ""), False)
    for k in range(plan.people):
        at = plan.start + timedelta(days=plan.span * rng.random() ** 1.6, minutes=rng.randint(0, 600))
        address, at_object = address_for(rng, obj, table.city, kind.who)
        writer = regulars.pop() if regulars and not at_object and rng.random() < 0.08 else table.people.new(address)
        if form and k % 3 == 0:
            row = {"title": title_for(rng, kind, obj, False), "name": writer.name, "phone": writer.phone,
                   "address": writer.address, "category": kind.category,
                   "content": scuff(rng, form + f"联名人：{writer.name or '业主'}（{writer.address}）")}
            table.add(at, row, plan.key, writer, "matter")
            first = row["content"]
        else:
            first = table.write(kind, obj, writer, at_object, at, plan.key, "matter")
        for _ in range(rng.choices([0, 1, 2], [84, 12, 4])[0]):
            table.resubmit(kind, obj, writer, at_object, at, first, plan.key, "matter")


def write_singles(rng: random.Random, table: Table, plans: list[Plan], room: int) -> None:
    """One person's accounts of things nobody else writes about; some next to a matter."""
    kinds = list(MATTER_WEIGHTS)
    city = table.city
    while room > 0:
        kind = KIND[rng.choice(kinds)]
        near = rng.choice(plans) if rng.random() < 0.25 else None
        if near and isinstance(near.obj, Building):  # a sibling building, the same week
            kind, obj = near.kind, rng.choice([b for b in city.buildings + city.towers
                                                  if b.compound is near.obj.compound])
        elif near:  # the same object, any problem of its kind of object
            obj = near.obj
            kind = KIND[rng.choice([k for k in kinds if obj.type in KIND[k].types])]
        else:
            obj = rng.choice(objects_for(city, kind))
        at = season_start(rng, kind, 10) if not near else near.start + timedelta(days=rng.randint(0, 6))
        at = min(at, END - timedelta(days=30))
        repeats = rng.choices([0, 1, 2, 3], [80, 12, 6, 2])[0]
        if repeats + 1 > room or not table.free(obj, kind, at, at + timedelta(days=25)):
            continue
        table.take(obj, kind, at, at + timedelta(days=25))
        address, at_object = address_for(rng, obj, city, kind.who)
        writer = table.people.new(address)
        first = table.write(kind, obj, writer, at_object, at, None, "repeat" if repeats else "single")
        for _ in range(repeats):
            table.resubmit(kind, obj, writer, at_object, at, first, None, "repeat")
        room -= repeats + 1


def write_policy(rng: random.Random, table: Table, count: int) -> None:
    """Questions about policy, with no object: never a matter, however many ask the same."""
    while count > 0:
        writer = table.people.new()
        at = START + timedelta(seconds=rng.randint(0, int((END - START).total_seconds())))
        question = rng.choice(POLICY)
        for k in range(min(count, rng.choices([1, 2], [85, 15])[0])):
            text = scuff(rng, ("再问一下，" if k else "") + rng.choice(POLICY_OPEN) + question + rng.choice(POLICY_CLOSE))
            row = {"title": rng.choice(["政策咨询", "咨询", "问题咨询", question[:8]]), "name": writer.name,
                   "phone": writer.phone, "address": writer.address,
                   "category": rng.choice(["政策咨询", "人力资源", "社会保障", "公安户政"]), "content": text}
            table.add(at + timedelta(days=3 * k), row, None, writer, "policy")
            count -= 1


def make(rows: int = 8000, seed: int = 7) -> Hotline:
    """The unseen table: `rows` rows, deterministic from the seed."""
    rng = random.Random(seed)
    scale = rows / 8000
    city = City(rng)
    table = Table(rng, city)
    plans, hard = all_plans(rng, city, table, scale)
    regulars: list[Person] = []
    for plan in plans:
        before = len(table.people.all)
        write_matter(rng, table, plan, regulars)
        if len(table.people.all) > before and rng.random() < REPEATER_SHARE * 5:  # someone from this matter will write about another
            regulars.insert(0, table.people.all[rng.randint(before, len(table.people.all) - 1)])
    policy = round(POLICY_SHARE * rows)
    room = rows - len(table.rows) - policy
    assert room > 0, "too many matter rows for the table's size"
    write_singles(rng, table, plans, room)
    write_policy(rng, table, policy)
    out = table.finish()
    out.hard = hard
    return out
