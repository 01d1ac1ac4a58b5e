"""The concrete objects a hotline row names (issue 52), each normalised to one canonical key.

An object is a place or an organisation: a compound (小区) and its buildings, a company, a
construction site, an intersection, a stretch of road or a road, a bus stop, a school, a
market, a shop, a bus line. Writers name them in many surface forms (3号楼 = 三号楼 = 3栋 = 3#楼 =
3幢; a company's full and short names; the two orders of an intersection); the key is what
those forms share. Found by rules alone, from how Chinese names and addresses are built: a
name before its generic suffix (花园, 公司, 工地, …), or where it stands in an address-like
run ([city][district][subdistrict][road][number] NAME [phase][building]: 晋源区平阳路世茂大都会,
紫荆御府2期T3栋), a company as [place][trade name][trade][form] (山西鸿源汽车销售服务有限公司).
What places a name (a district, a subdistrict) is kept beside it, not in it. No model, no I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

CJK = "\u4e00-\u9fff"


def words_pattern(alternation: str, repeat: bool = False, then: str = "") -> re.Pattern:
    """A pattern of literal words `a|b|c` (one or more in a row with `repeat`; followed by the
    pattern `then`, such as $) behind a look-ahead for their first characters: re tries every
    word at every place otherwise, and most places fail at the look-ahead's one set test (five
    times faster on hotline text; it finds what the words alone find)."""
    return re.compile(f"(?=[{re.escape(firsts_of(alternation))}])(?:{alternation}){'+' if repeat else ''}{then}")


def firsts_of(alternation: str) -> str:
    """The characters the words of a literal alternation `a|b|c` start with."""
    return "".join(sorted({w[0] for w in alternation.split("|") if w}))


_NUMERALS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}
_DISTRICT_AT_END = re.compile(f"[{CJK}]{{1,3}}[区县]$")
_STREET = re.compile("街道|路|街|巷")
_STREET_OR_WAY = re.compile("路|街|道|巷")
_STOP_TAIL = words_pattern("公交车站|公交站台|公交站|站台|站牌|车站|站|公交车|公交", True, "$")
_CITY_OR_DISTRICT_HEAD = re.compile("^(?:市|区)")
_FOLD = str.maketrans({c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)})
_WIDE = re.compile("([\uff03\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]+)")    # ＃, digits, letters (kept by split)
# What every numeral run `clean` writes as digits holds: a numeral, then the first character of
# what must follow it (most texts have numerals, few before 号, 栋, …: one scan skips the run's).
_NUMERAL_BEFORE_UNIT = re.compile("[零一二两三四五六七八九十百][号栋幢座#中期单楼]")
_NUMERAL_RUN = re.compile(r"[零一二两三四五六七八九十百]+(?=号|栋|幢|座|#|中(?![心间午国])|期|单元|号线|楼栋)")

# Words that end the text before a name: what a name never contains (longest first).
_BOUNDARY_WORDS = sorted("""我们 我家 你们 他们 这几天 几天 今天 昨天 每天 最近 已经 一直 反映 投诉 关于 位于 附近 旁边 对面
门口 那边 这边 这个 那个 那家 这家 一下 问题 居民 住户 业主 家住 时间 以来 开始 还是 就是 可是 但是 现在 目前 多次
好几 好长 一整段 整段 这样 那样 星期 半个月 一个月 这段 这一段 整个 到现在 所在 楼下 楼上 路过 经过 附件 请问 麻烦 您好 你好 领导 要求 希望
还有 以及 一家 那里 这里 里面 上班 工作 打工 干活 在职 员工 工人 职工 单位 地址 晚上 夜间 夜里 半夜 深夜 凌晨
白天 中午 早上 违规 野蛮 连夜 正在 还在 孩子 小孩 儿子 女儿 有关部门 相关部门 部门 这阵子 这段时间 这两天 这些天
近来 近期 买房 购房 地下 延期 逾期 工地 查封 购买 更换 那条 这条 那片 这片 全体 所有 各位 周边 整治 控制 规范 取缔""".split(), key=len, reverse=True)
_BOUNDARY_RE = words_pattern("|".join(_BOUNDARY_WORDS))
_NOT_NAME_DIGITS = re.compile(f"[^{CJK}0-9A-Za-z#]")
_NOT_NAME = re.compile(f"[^{CJK}A-Za-z]")
_STRONG_BOUNDARY = set("的了是我们在说被把让给向找住就也又还很请")      # never in a name
_WEAK_BOUNDARY = set("和与跟到从于对个家里上即及或并将为去来至往得有都")   # some names hold one (和平路, 新都苑)
_STRONG_RE = re.compile("[" + "".join(sorted(_STRONG_BOUNDARY)) + "]")
_LAST_WEAK = re.compile(".*[" + "".join(sorted(_WEAK_BOUNDARY)) + "]", re.DOTALL)
# 雁田街道 is a subdistrict, not a road; a ring road is 二环, 中环 (南中环街 and 环城西路 are roads of their own).
# The look-ahead: a road's end (大, 正, 环, 路, 街, 巷) two to six characters on, tested before
# the ends' alternatives are tried at each length (a third faster; it finds what the rest finds).
_ROAD = re.compile(rf"(?=[{CJK}0-9]{{2,6}}?[大正环路街巷])"
                   rf"[{CJK}0-9]{{2,6}}?(?:大街|大道|正街|环路|路|街(?!道)|巷|(?<=[一二三四五六七八九内外中东西南北])环(?![路街城线岛]))")
_NOT_ROAD_WORDS = "叉|字|马|道|公|上|走|过|小|大|岔|段|得|的|绕|修|堵|满|挡|让|问|铁|水|电|线|思|出|去|来|进|带泥上|条|这|那"
_NOT_ROAD = re.compile(rf"(?=[{re.escape(firsts_of(_NOT_ROAD_WORDS))}一])"      # look-ahead: see `words_pattern`
                       rf"({_NOT_ROAD_WORDS}|(?:(?<!\w)|(?<=[这那了着过走跑开骑逛看说追吵颠堵们家]))一)(路|街)$")   # 一路上, not 五一路 nor 工业一路
_JUNCTION_WORD = re.compile(r"^(?:的|得)?(?:那个|这个|那|这)?(?:(?:交叉|交汇|相交|交界|交会)[的得]?(?:路口|口|处|地方)?|十字路口|十字|丁字路口|路口|交口|口)")
_ONE_END = re.compile(r"(?:口)?(?:路)?段")
_ROAD_SIDE = re.compile(r"(?:的)?([东西南北中])段")
_JOINER = re.compile(r"^(?:与|和|跟|同|及|、|/|／|&|＆)?$")
_AND = re.compile("和|与|跟|、")
_BETWEEN = re.compile("之间(?:的)?")
_STRETCH_MID = re.compile(r"^口?(?:至|到|—|-|－|~|～|往)$")

_COMPOUND = words_pattern("家属院|家属楼|小区|花园|家园|名苑|华庭|新村|公寓|嘉园|雅居|新城|佳苑|公馆|花苑|山庄|社区|大院|国际|大厦|宿舍|"
                       "苑|府|里|城|庭|湾|居|园|郡|邸|村")
_SUFFIX_WORDS = ("家属院|家属楼|小区|花园|家园|名苑|华庭|新村|公寓|嘉园|佳园|佳苑|雅居|华府|新城|公馆|花苑|山庄|社区|大院|宿舍|国际|"
                 "苑|府|里|城|庭|湾|居|园|郡|邸|村|院")
_COMPOUND_SUFFIX_END = words_pattern(_SUFFIX_WORDS, then="$")
_BARE_SUFFIX = re.compile(f"(?:{_SUFFIX_WORDS})+")
_NOT_A_NAME_START = tuple("其本该这那我你他她它此")            # 其小区, 本楼, 该小区: said, not named
_COMPANY = words_pattern("有限责任公司|股份有限公司|有限公司|分公司|集团|公司|工厂|厂")
_INDUSTRY_WORDS = ("印刷|家具|培训|英语|舞蹈|书法|美容|美发|瑜伽|游泳|洗车|干洗|美甲|配件|汽配|五金|电器|家电|化工|塑料|"
                   "钢铁|水泥|广告|木业|陶瓷|玻璃|石材|门窗|农业|养殖|生物|药业|光电|材料|新材料|"
                   "物流|建筑|劳务|派遣|餐饮|管理|科技|保洁|服务|电子|服装|建材|装饰|装修|工程|教育|咨询|健身|家政|汽车|"
                   "销售|食品|商贸|贸易|传媒|网络|信息|文化|置业|地产|房地产|实业|机械|制造|医药|培训|运输|快递|人力资源|"
                   "物业|安保|保安|环境|环保|能源|技术|发展|投资|设备|器材|印务|包装|纺织|酒店|旅游|汽贸|4S|纸箱|纸制品|制品|精密|"
                   "光电|模具|塑胶|电器|家私|五金制品|安装")
_THAT_ONE = re.compile("(?=[的得那这])(?:[的得]?(?:那家|这家|那个|这个)|的|得)$")      # look-ahead: see `words_pattern`
_INDUSTRY = words_pattern(_INDUSTRY_WORDS, True, "$")
_INDUSTRY_RUN = words_pattern(_INDUSTRY_WORDS, repeat=True)
_GENERIC_BRANDS = {"物业", "热力", "供热", "公交", "保险", "燃气", "自来水", "电力", "供电", "开发", "施工", "用人", "这",
                   "那", "该", "本", "新", "老", "总", "分", "物流", "快递", "外卖", "劳务", "保洁", "开发商"}
_SITE = words_pattern("项目工地|施工工地|建设工地|施工现场|项目部|工地|项目|工程|施工|楼盘")
_NOT_COMPOUND_PARKS = ("幼儿", "公", "乐", "产业", "工业", "科技", "动物", "植物", "陵", "校", "菜", "果", "游")
_LANDMARK = re.compile(r"[)）]?(?:的)?(?:旁边|附近|对面|斜对面|隔壁|楼下|后面|前面|边上|东侧|西侧|南侧|北侧|周边)")
_NOT_A_HOME_AFTER = re.compile(r"[\d一二三四五六七八九十]*(?:路|街|大道|大街)|[区县市镇]|"   # 枣园路, 新城区
                                r"[东西南北]?(?:公交|车站|站|小学|中学|幼儿园|学校|市场|菜场|工地|项目|公司|超市|饭店|酒店|店)")
_GENERIC_SITE = words_pattern("地铁|道路|改造|修路|施工|工程|建设|安置房|回迁房|安置|项目|工地|的")
_SITE_TAIL = words_pattern("项目工地|施工工地|建设工地|施工现场|项目部|工地|项目|工程|施工|建设|楼盘|的", True, "$")
_SITE_WORD = re.compile("项目|工地|施工现场|楼盘")
_ROAD_END = re.compile("大道|大街|路|街(?!道)|巷")
_WORKS_WORD = re.compile("地铁|改造|修路|改建|翻修|大修|安置|回迁|道路")
_BESIDE = re.compile(rf"([{CJK}0-9]{{2,12}}?)(?:[A-Z]?出口|[东西南北]?门)?(?:的)?(?:旁边|附近|对面|边上|隔壁|后面)?"
                     rf"(?:的|那个|这个)*$")
_MARKET_TAIL = words_pattern("农贸|肉菜|蔬菜|生鲜|菜|批发|综合|市场|菜场|集市|夜市街|夜市|美食街|小吃街", True, "$")
_STOP = words_pattern("公交车站|公交站台|公交站|站台|站牌|候车亭|车站|站")
_NOT_STOP = ("垃圾", "加油", "充电", "火车", "派出所", "服务", "收费", "中转", "换乘", "工作", "变电", "按", "过", "进", "到")
_SCHOOL = words_pattern("实验学校|中学|小学|幼儿园|学校|高中|初中|分校|附中|附小|学院")
_NUMBERED_SCHOOL = re.compile(r"第?(\d{1,3})中(?:学)?(?:分校)?(?![心间午国])")
_MARKET = words_pattern("农贸市场|肉菜市场|蔬菜市场|生鲜市场|菜市场|批发市场|综合市场|市场|菜场|集市|夜市街|夜市|美食街|小吃街")
_NIGHT_MARKET = ("夜市街", "夜市", "美食街", "小吃街")
_SHOP = words_pattern("烧烤店|烧烤|火锅店|火锅|大排档|茶餐厅|糖水铺|肠粉店|粥铺|砂锅粥|猪脚饭|烧腊|麻辣烫|米线|烤鱼|小龙虾|铁锅炖|炸鸡|快餐店|饭店|餐馆|餐厅|饭馆|超市|KTV|ktv|健身房|健身会所|理发店|面馆|洗车店|酒吧|棋牌室|"
                   "足疗店|足疗|按摩店|洗浴中心|网咖|台球厅|烤肉店|串串|冒菜|奶茶|咖啡馆|蛋糕店|水果店|汽修厂|修车铺|"
                   "美容院|美容店|便利店|药店|网吧|酒店|宾馆|足浴店|茶楼|小吃店|奶茶店|麻将馆|游泳馆|台球厅|早餐店|商店|店")
# A building by its number (T3栋, B座 with their letter), after its phase when said (2期7栋: the
# phases' buildings are numbered apart); a bare 3号 not after 12月 or 11.24, nor before 起, 开始, 又, …: a date.
_PHASE = r"(?:(?P<phase>\d{1,2})期(?:小区)?[的得]*)?"
_NUMBER = r"(?:(?<!门)第)?(?P<n>[A-Za-z]?\d{1,3}|[A-Za-z](?=[座栋幢号]))\s*"        # 书香门第20栋: 20
_BUILDING = re.compile(rf"(?=[第0-9A-Za-z])(?<![0-9月.]){_PHASE}{_NUMBER}"
                       r"(?:号楼|号院|栋|幢|座|#楼|#|号(?![起开以又晚早至到那当前后]))")
_BUILDING_STRICT = re.compile(rf"(?=[第0-9A-Za-z])(?<![0-9]){_PHASE}{_NUMBER}(?:号楼|号院|栋|幢|座|#楼|#)")  # not 3号: a date
_ADDRESS_BUILDING = re.compile(rf"{_PHASE}(?P<n>[A-Za-z]?\d{{1,3}}|[A-Za-z](?=[座栋幢]))\s*(?:号楼|栋|幢|座|#楼|#|号|-|－|—)")
_WORD_GOES_ON = {"居": "民住委然室", "城": "管市区", "村": "民委", "里": "面边头", "园": "区林艺丁", "苑": "区",
                 "庭": "院审", "湾": "区"}
_BETWEEN_NAME_AND_BUILDING = re.compile("(?:小区)?[的得]?")
_NOT_A_COMPOUND = {"小区", "社区", "本小区", "该小区", "我们小区", "这个小区", "楼", "这栋", "那栋", "单元", "大楼", "宿舍楼"}
_DISTRICT_END = "(?<![小社园景校厂业])[区县]"              # 雁塔区, not 小区 nor 工业区              # 雁塔区, not 小区
_DISTRICT_BEFORE = re.compile(rf"([{CJK}]{{2}}{_DISTRICT_END}|[{CJK}]{{2}}(?:街道|镇))(?:的|那边的|那边|这边的)?$")
_DISTRICT_AFTER = re.compile(rf"^[（(]([{CJK}]{{2,3}}{_DISTRICT_END})[）)]")
_DISTRICT_PREFIX = re.compile(rf"^(?:[{CJK}]{{1,6}}?{_DISTRICT_END})?(?:[{CJK}]{{2,3}}?(?:街道|镇|乡))?(?=[{CJK}]{{2}})")
_PLACE_PREFIX = re.compile(rf"^(?:[{CJK}]{{1,3}}?(?<![城超门])[省市](?=[{CJK}]{{2}})"
                           rf"|[{CJK}]{{1,2}}城市(?=[{CJK}]{{1,3}}?[区县]))?"              # 江城市东湖区…
                           rf"(?:[{CJK}]{{1,3}}?{_DISTRICT_END}(?=[{CJK}]{{2}}))?"
                           rf"(?:[{CJK}]{{2,3}}?(?:街道|镇|乡)(?=[{CJK}]{{2}}))?")                # 海湾街道锦城华庭


class Found(NamedTuple):
    """An object named in a text: its kind, its canonical key, and where the name starts (a
    named tuple: made for every candidate name, a frozen dataclass costs three times as much)."""
    kind: str
    key: str
    at: int
    end: int


def clean(text: str, places: bool = False) -> str:
    """Full-width digits, letters and ＃ folded (what NFKC does to ３号楼; wide punctuation,
    which the patterns accept in both widths, is kept), spaces removed, Chinese numerals before
    号/栋/幢/中... as digits; with `places` (a row's text, not its address field), the places
    said one way (`_said_plainly`). (A table on the wide runs only, not NFKC: a seventh of the cost.)"""
    text = "".join((text or "").split())
    parts = _WIDE.split(text)
    if len(parts) > 1:                  # the wide runs are the odd parts: one split, no callback per run
        parts[1::2] = [run.translate(_FOLD) for run in parts[1::2]]
        text = "".join(parts)
    if _NUMERAL_BEFORE_UNIT.search(text):
        text = _NUMERAL_RUN.sub(lambda m: str(chinese_number(m.group())), text)
    return _said_plainly(text) if places else text


# Ways of saying a place that the finders read in one form only: 中间那段 is 之间的 (a stretch
# between two roads), 朝阳民主路路口 is 朝阳民主路口 (two roads' junction said in one run).
_PLAINLY = (("中间那段", "之间的"), ("中间的", "之间的"), ("中间段", "之间的"), ("路路口", "路口"), ("街路口", "街口"))
_PLAINLY_FIRSTS = re.compile("中间|[路街]路口")
# A bus line said in Chinese numerals (三十四路公交, 坐五路车): its number as digits, as `lines`
# reads it; not 这一路车 (this one line), so a single numeral only after 公交, 坐 or 乘.
_LINE_NUMERALS = re.compile("(?:[一二三四五六七八九]?[十百][零一二三四五六七八九十]{0,2}|(?:(?<=公交)|(?<=[坐乘]))[一二三四五六七八九])"
                            "(?=路(?:公交|车(?!站)|线路|班车|末班|首班))")


def _said_plainly(text: str) -> str:
    """A cleaned text with the places said one way (`_PLAINLY`, numbered bus lines): most texts
    hold none, found in one scan."""
    if _PLAINLY_FIRSTS.search(text):
        for said_so, plain in _PLAINLY:
            text = text.replace(said_so, plain)
    if "路" in text and _LINE_NUMERALS.search(text):
        text = _LINE_NUMERALS.sub(lambda m: str(chinese_number(m.group())), text)
    return text


@lru_cache(maxsize=1 << 14)
def compound_stem(name: str) -> str:
    """A compound's name without its trailing 小区 and one generic suffix (龙苑名苑 -> 龙苑,
    阳光花园小区 -> 阳光, 锦城华庭 -> 锦城, not 锦), keeping at least two characters (东城 stays).
    Cached: a row's compound is stemmed several times, and one compound is named in many rows."""
    while name.endswith("小区") and len(name) > 3:
        name = name[:-2]
    m = _COMPOUND_SUFFIX_END.search(name)
    return name[:m.start()] if m and m.start() >= 2 else name


def chinese_number(run: str) -> int:
    """三 -> 3, 十六 -> 16, 二十六 -> 26, 一百零二 -> 102."""
    total, current = 0, 0
    for c in run:
        if c == "百":
            total, current = total + max(current, 1) * 100, 0
        elif c == "十":
            total, current = total + max(current, 1) * 10, 0
        else:
            current = current * 10 + _NUMERALS[c] if current and c == "零" else _NUMERALS[c]
    return total + current


@lru_cache(maxsize=1 << 14)
def trim(prefix: str, digits: bool = True, weak: bool = True) -> str:
    """The part of the characters before a suffix that can be a name: after the last boundary
    word, a leading district and the last strong boundary character (的, 了, 在, …); after a
    weak one (和, 到, 家, …) only when two characters remain and it does not begin the run;
    without `digits`, after the last digit too (…27号纺织苑 names 纺织苑)."""
    run = (_NOT_NAME_DIGITS if digits else _NOT_NAME).split(prefix)[-1]
    if not digits:
        run = run.lstrip("号栋楼#")                          # …27号纺织苑
    run = _BOUNDARY_RE.split(run)[-1]
    district = _DISTRICT_PREFIX.match(run)
    run = run[district.end():] if district else run        # 海湾街道锦城华庭: 锦城华庭        # 雁塔区和谐佳苑: 和谐佳苑
    run = _STRONG_RE.split(run)[-1]
    last_weak = _LAST_WEAK.match(run, 1, len(run) - 2) if weak and len(run) > 3 else None
    if last_weak:                                           # at 1 .. len - 3: two characters remain
        return run[last_weak.end():]
    return run[1:] if run[:1] == "得" and len(run) > 2 else run              # 得: a typed 的


def trade_split(name: str) -> tuple[str, str]:
    """A shop's or company's name as (trade name, trade): 力美英语培训店 -> (力美, 英语培训),
    好再来烧烤 -> (好再来烧烤, '') (a trade not in the list stays in the name)."""
    name = name[:-1] if name.endswith("店") and len(name) > 3 else name
    trade = _INDUSTRY.search(name)
    return (name[:trade.start()], trade.group()) if trade and trade.start() >= 2 else (name, "")


@lru_cache(maxsize=1 << 14)
def place_stripped(name: str) -> tuple[str, str]:
    """The name without a leading city or district, and the district ('' when none)."""
    m = _PLACE_PREFIX.match(name)
    head = m.group() if m else ""
    district = _DISTRICT_AT_END.search(head)
    return name[len(head):], district.group() if district else ""


def _named(text: str, suffixes: re.Pattern, longest: int = 8, digits: bool = True, of: bool = False, keep=None,
           unsplit: bool = False, bare: bool = False):
    """(start, end, name before the suffix, suffix) for each suffix in the text with a name;
    with `of`, the name may be followed by 的 or 那个 (科技大厦的工地, 电厂那个公交站); `keep(text, match)`, when
    given, a cheap test a suffix must pass before its name is looked for; with `unsplit`, a
    name not cut at a weak boundary inside a compound suffix (see `_unsplit_suffix`); with
    `bare`, a suffix with no name before it too (那个工地)."""
    out = []
    for m in suffixes.finditer(text):
        if keep is not None and not keep(text, m):
            continue
        that = _THAT_ONE.search(text, max(0, m.start() - 2), m.start()) if of else None
        before = that.start() if that else m.start()
        raw = text[max(0, before - longest - 4):before]
        name = trim(raw, digits)
        if unsplit and len(name) <= 3:                      # cut inside a suffix, or down to one
            name = _unsplit_suffix(name, trim(raw, digits, weak=False))
        name = name[-longest:]
        if name or bare:
            out.append((before - len(name), m.end(), name, m.group()))
    return out


def compounds(text: str) -> list[Found]:
    """Compounds by their name with its suffix (花园, 家园, 苑, 新村, …; a trailing 小区 dropped, and
    a 老旧 before it: 丰山新村老旧小区 is an old 丰山新村), and areas rebuilt as a whole (`_renewal_areas`)."""
    out: list[Found] = []
    for start, end, name, suffix in _named(text, _COMPOUND, digits=False, keep=_may_name_compound, unsplit=True):
        name = _STREET.split(name)[-1]                       # 人民路御景小区: 御景小区
        start = end - len(suffix) - len(name)
        if not name or "到" in name or "至" in name:
            continue
        if suffix == "园" and name.endswith(_NOT_COMPOUND_PARKS):
            continue                                        # 幼儿园, 公园, 产业园: not homes
        full = _VILLAGE_TAIL.sub("", _OLD_VILLAGE.sub("村", place_stripped(name + suffix)[0])) or "-"   # 水围村城中村: 水围村
        if len(full) - len(suffix) < 2 or full.startswith(_NOT_A_NAME_START):
            continue                                        # 邻居, 政府, 江城, 其小区: words, not names
        while full.endswith("小区") and len(full) > 3:
            full = full[:-2]
        if not _NOT_ROAD.search(full):
            out.append(Found("compound", full, start, end))
    named = [f for f in _longest(out) if not _NOT_A_HOME_AFTER.match(text, f.end)]
    found = _longest(named + [f for f in _before_buildings(text)
                              if not any(_BETWEEN_NAME_AND_BUILDING.fullmatch(text, n.end, f.end) for n in named)])
    return [f._replace(key=f.key[:-2]) if f.key.endswith("老旧") and len(f.key) > 4 else f
            for f in _with(_renewal_areas(text), found)]


# An area rebuilt as a whole (棚户区改造, 城中村改造): one works, whatever follows (项目, 片区, 的).
_RENEWAL_AREA = re.compile("(?:片区)?(?:棚户区改造|棚户区|棚改|城中村改造|旧村改造)")


def _renewal_areas(text: str) -> list[Found]:
    """Areas being rebuilt, by the name before the works (窑坡片区棚改 = 窑坡棚改项目 = 窑坡棚户区改造):
    the homes whose people are paid and rehoused as one, a compound."""
    if "改" not in text and "棚" not in text:
        return []
    out = []
    for m in _RENEWAL_AREA.finditer(text):
        name = trim(text[max(0, m.start() - 8):m.start()], digits=False)
        if len(name) >= 2:
            out.append(Found("compound", f"{name}改造", m.start() - len(name), m.end()))
    return out


def _with(more: list[Found], found: list[Found]) -> list[Found]:
    """Finds `more` added to a finder's, in place of those they overlap, in order of place."""
    return sorted(more + [f for f in found if not _overlaps(f, more)], key=lambda f: (f.at, -f.end))


def _overlaps(found: Found, others: list[Found]) -> bool:
    """Whether a find shares a character of the text with one of `others`."""
    return any(o.at < found.end and found.at < o.end for o in others)


# An old village said as its 旧村, 老村 or 城中村 (大涌旧村 = 大涌城中村 = 大涌村); not after a 村 (水围村城中村: `_VILLAGE_TAIL`).
_OLD_VILLAGE = re.compile(f"(?<=[{CJK}]{{2}})(?<!村)(?:城中村|旧村|老村)$")
_VILLAGE_TAIL = re.compile("(?=[那握城])(?:(?:那片)?(?:握手楼|城中村))+$")       # look-ahead: see `words_pattern`


def _may_name_compound(text: str, m: re.Match) -> bool:
    """Whether a compound suffix can end a name, by the characters beside it: not a word going
    on (居民, 城管, 村委, 里面), not after what never ends a name (家里, 屋里, 进城)."""
    suffix, before = m.group(), text[m.start() - 1:m.start()]
    if not before or before in _STRONG_BOUNDARY or not ("\u4e00" <= before <= "\u9fff") or before == suffix[-1]:
        return False                                        # 埔心村村委会: the first 村 ends the name
    after = text[m.end():m.end() + 1]
    if after and after in _WORD_GOES_ON.get(suffix, ""):
        return False
    if suffix == "里":
        return before not in "区楼家屋这那哪夜心店院城手眼话子园苑县市道梯内外室厂校元往向"      # 往里: a direction
    return suffix != "城" or before not in "进出县省全满京"


def _before_buildings(text: str) -> list[Found]:
    """Compounds named by what stands before a building number (金地湖城大境9号楼), whatever
    their name ends with."""
    out = []
    for m in _BUILDING_STRICT.finditer(text):
        before = m.start() - (1 if text[m.start() - 1:m.start()] in ("的", "得") else 0)
        raw = text[max(0, before - 12):before]
        name = _unsplit_suffix(trim(raw, digits=False), trim(raw, digits=False, weak=False))[-8:]
        full = place_stripped(name)[0]
        while full.endswith("小区") and len(full) > 3:
            full = full[:-2]
        if len(full) >= 2 and full not in _NOT_A_COMPOUND and not full.endswith(("区", "楼", "路", "街")) \
                and not full.startswith(_NOT_A_NAME_START):
            out.append(Found("compound", full, before - len(name), before))
    return out


_FRAME_END = re.compile(rf"(?:街道|[区县路街巷镇乡号])(?=[{CJK}]{{2}})")
_FRAME = re.compile(rf"(?:(?:[{CJK}]{{1,4}}?{_DISTRICT_END}|[{CJK}]{{2,3}}?(?:街道|镇|乡))"
                    rf"|[{CJK}0-9]{{1,6}}?(?:大街|大道|路|街(?!道)|巷)(?:\d+号)?)$")


def framed(text: str, cut: re.Pattern) -> list[Found]:
    """Compounds named without a generic suffix (世茂大都会, 富力长风壹号), by where they stand: right
    after a district or a road, as in an address (晋源区平阳路世茂大都会这几天停水), up to the first
    word no name holds (a boundary word, 的, or what `cut` finds: the problems' words)."""
    out: list[Found] = []
    for m in _FRAME_END.finditer(text):
        at = m.end()
        if (out and at < out[-1].end) or not _FRAME.search(text, max(0, at - 10), at):
            continue
        run = _NOT_NAME.split(text[at:at + 10], 1)[0]
        for stop in (_BOUNDARY_RE, _STRONG_RE, cut):
            end = stop.search(run)
            run = run[:end.start()] if end else run
        while run.endswith("小区"):
            run = run[:-2]
        if 2 <= len(run) <= 8 and run not in _NOT_A_COMPOUND and not run.startswith(_NOT_A_NAME_START) \
                and not run.endswith(("路", "街", "楼", "口", "段")) and not _OTHER_PLACE.search(run) \
                and not _FRAME_END.search(run[:-1]):
            out.append(Found("compound", run, at, at + len(run)))
    return out


def extended(text: str, found: Found, cut: re.Pattern) -> Found:
    """A compound named by a developer's brand ending like a suffix (阳光城, 碧桂园) and then the
    estate's own name (阳光城长风壹号, 碧桂园大都会): the whole run up to where a name ends (a
    boundary, 的, a building number, or what `cut` finds), else the compound as found."""
    if found.kind != "compound" or not found.key.endswith(("城", "园")) or compound_stem(found.key) != found.key[:-1]:
        return found                                        # 阳光花园: a suffix of two, no brand
    run = _NOT_NAME.split(text[found.end:found.end + 8], 1)[0]
    for stop in (_BOUNDARY_RE, _STRONG_RE, cut, _WEAK_START):
        end = stop.search(run)
        run = run[:end.start()] if end else run
    if not 2 <= len(run) <= 6 or _NOT_ESTATE.search(run):
        return found
    return Found("compound", found.key + run, found.at, found.end + len(run))


_NOT_ESTATE = words_pattern("公司|厂|店|中心|医院|学校|学院|委会|线路|路口|口|项目|工地|广场|市场|站|局|馆|所|部|区|路|街|楼|段", then="$")
_WEAK_START = re.compile("^[" + "".join(sorted(_WEAK_BOUNDARY)) + "]")


def _unsplit_suffix(name: str, whole: str) -> str:
    """The name cut at a weak boundary, unless the cut leaves only a generic suffix (祥和|花园)
    or falls inside one (纺织厂家|属院): then the whole run."""
    if name == whole:
        return name
    m = _COMPOUND_SUFFIX_END.search(whole)
    if m and (_BARE_SUFFIX.fullmatch(name) or len(whole) - len(name) > m.start()):
        return whole
    return name


def _longest(found: list[Found]) -> list[Found]:
    """Of names that overlap, the one that ends last (阳光花园小区 over 阳光花园, 蓝湾新城 over 蓝湾)."""
    out: list[Found] = []
    for f in sorted(found, key=lambda f: (f.at, -f.end)):
        if out and f.at < out[-1].end:
            if f.end > out[-1].end:
                out[-1] = f
            continue
        out.append(f)
    return out


def companies(text: str) -> list[Found]:
    """Companies by their trade name (字号), with the district when the text says it beside the name."""
    out: list[Found] = []
    spans = [(m.start(), m.end(), m.group()) for m in _COMPANY.finditer(text)]
    spans += [(m.start(), m.end(), "") for m in _INDUSTRY_RUN.finditer(text)
              if not _COMPANY.match(text, m.end())]
    for s, e, suffix in sorted(spans):
        before = _THAT_ONE.sub("", text[max(0, s - 16):s])  # 永兴那家公司: 永兴
        industry = _INDUSTRY.search(before)                 # 永兴家政服务: trimmed without 家政服务
        name = trim(before[:industry.start()] if industry else before, digits=False)
        start = s - len(name) - (len(before) - industry.start() if industry else 0)
        name += (before[industry.start():] if industry else "") + (text[s:e] if suffix == "" else "")   # 粤美家具: 粤美/家具
        name, district = place_stripped(name)
        brand = _INDUSTRY.sub("", name) if not _INDUSTRY.fullmatch(name) else ""
        park = _PARK.search(brand)                          # 海湾科技园新锐塑胶厂: 新锐 (where it is, then its name)
        if park:
            name, brand = name[park.end():], brand[park.end():]
        if (suffix == "" and (not brand or text[s - 1:s] in ("得", "的"))) or _STREET_OR_WAY.search(brand) \
                or text[e:e + 1] in ("路", "街", "大", "园"):      # 震得玻璃响: not a trade
            continue
        if brand.startswith(("做", "搞", "生产")) or text[max(0, start - 2):start] in ("开的", "开得") \
                or "做" in brand:
            continue                                        # 陈老板开的电池厂, 做电池的那个厂: what it makes, not its name
        if len(brand) < 2 or len(brand) > 6 or brand in _GENERIC_BRANDS or brand.startswith(_NOT_A_BRAND_START) \
                or any(out_.end > start for out_ in out):        # 这栋楼装修, 一户装修: said, not named
            continue
        out.append(Found("company", f"{brand}/{name[len(brand):]}@{district or _near_district(text, start, e)}",
                         start, e))
    return _districts_shared(out)


_NOT_A_BRAND_START = (*_NOT_A_NAME_START, "一", "每", "某", "安装", "加装", "没", "未", "不")     # 安装废气处理设备: a verb
_PARK = re.compile(rf"^[{CJK}]*?(?:工业园区|工业园|科技园|产业园|工业区|园区)(?:[A-Z]区)?")


def _districts_shared(found: list[Found]) -> list[Found]:
    """Each company keyed by its trade name, its trade (物流, 建材: 永兴物流 != 永兴建材) and
    its district, as said beside any mention of it in the row (the title's short name, the
    text's full name with its district): brand[/trade][@district]."""
    trade: dict[str, str] = {}
    district: dict[str, str] = {}
    for f in found:
        brand, rest = f.key.split("/")
        said_trade, said_district = rest.split("@")
        trade[brand], district[brand] = trade.get(brand) or said_trade, district.get(brand) or said_district
    out = []
    for f in found:
        brand = f.key.split("/")[0]
        key = brand + (f"/{trade[brand]}" if trade[brand] else "") + (f"@{district[brand]}" if district[brand] else "")
        out.append(Found(f.kind, key, f.at, f.end))
    return out


# (?=..[区县]): a district's name is two characters then 区 or 县; most places fail that one set test.
_DISTRICT_FRAMING = re.compile(rf"(?=..[区县])([{CJK}]{{2}}{_DISTRICT_END})(?:的|那边的|那边|这边的)?"
                               rf"(?:[{CJK}]{{2,3}}?(?:街道|镇|乡))?"
                               rf"(?:[{CJK}0-9]{{1,6}}?(?:大街|大道|路|街|巷)(?:\d+号)?)?(?:的)?$")
_FIRST_DISTRICT = re.compile(rf"[{CJK}]{{2}}{_DISTRICT_END}")


def district_of(text: str, found: Found, address: str = "") -> str:
    """The district of a compound found in a text: said before its name, perhaps with a road
    between (晋源区平阳路世茂大都会), else the address field's when it names the compound too or
    no compound at all (太原市晋源区); '' when neither (滨河新村 of 迎泽区 and of 晋源区 are two).
    Whole (`_whole_district`: 尖草坪区, not 草坪区)."""
    window = text[max(0, found.at - 12):found.end]
    at = window.rfind(compound_stem(found.key))
    said = _DISTRICT_FRAMING.search(window, 0, at) if at > 0 else None
    if said:
        return _whole_district(said.group(1), text)
    if address and (compound_stem(found.key) in address or not address_home(address)):
        first = _FIRST_DISTRICT.search(address)             # the address names it, or only a district or street
        return _whole_district(first.group(), text if first.group() in text else address) if first else ""
    return ""


_NOT_IN_DISTRICT = set("市省县的在是我们了和与到从于对个家里上及或并将为去来住就也又还很请说被把让给向找")


def _whole_district(district: str, text: str) -> str:
    """A district as said where a text first says it, whole: `district_of` reads two characters
    before 区, so a longer name (尖草坪区) loses its head, the character before when that stands
    after a city, a word no name holds or the start (太原市尖草坪区, 在尖草坪区; not 反映河西区)."""
    if len(district) != 3 or not district.endswith("区"):
        return district
    at = text.find(district)
    head, before = text[at - 1:at] if at > 0 else "", text[at - 2:at - 1] if at > 1 else ""
    if not head or not "\u4e00" <= head <= "\u9fff" or head in _NOT_IN_DISTRICT:
        return district
    return head + district if not before or not "\u4e00" <= before <= "\u9fff" or before in _NOT_IN_DISTRICT \
        else district


def _near_district(text: str, start: int, end: int) -> str:
    """A district said just before a name (高新区的…) or after it in brackets (…（高新区）)."""
    before = _DISTRICT_BEFORE.search(text[max(0, start - 8):start])
    after = _DISTRICT_AFTER.match(text[end:end + 8])
    return (before or after).group(1) if (before or after) else ""


def sites(text: str) -> list[Found]:
    """Construction sites by the name before 工地, 项目, 施工, … (万达广场二期项目工地: 万达广场2期)."""
    out = []
    for start, end, name, suffix in _named(text, _SITE, 14, of=True, bare=True):
        if _COMPANY.match(text, end) or (suffix in ("工程", "施工") and _INDUSTRY.search(name)):
            continue                                        # 中天装饰工程有限公司 is a company
        if _SITE_WORD.search(name) and out:
            continue                                        # 荔园云邸项目工地连续几晚通宵施工: found at 项目
        name = place_stripped(_SITE_TAIL.sub("", name))[0]
        road = _ROAD_END.split(name)[-1]                    # 凤凰大道尚城湾: 尚城湾
        name = road if len(road) >= 2 and not _WORKS_WORD.search(road) else name
        if len(_GENERIC_SITE.sub("", name)) >= 2 and not _PLACE.fullmatch(name):
            out.append(Found("site", site_key(name), start, end))
        elif (beside := _BESIDE.search(text, max(0, start - 18), start)) \
                and len(placed := trim(beside.group(1), False)) >= 2 \
                and not any(p.fullmatch(placed) for p in (_PLACE, _SCHOOL, _COMPOUND, _SHOP, _MARKET)):   # 学校对面: which?
            out.append(Found("site", site_key(placed + name), start, end))   # 海湾地铁站B出口旁边那个工地, 沙头站那个地铁工地
        elif (beside := _placed(text, start, end)) is not None:   # 地铁工地（金融路站）, 银杏大道（光明路段）道路改造工地
            out.append(Found("site", site_key(beside[0] + name + beside[1]), start, end))
    return _longest(out)


_BRACKETED_AFTER = re.compile(r"[（(]([^（()）]{2,10})[）)]")
_ROAD_BEFORE = re.compile(rf"([{CJK}]{{2,6}}(?:大道|大街|路|街))([（(][{CJK}]{{2,6}}段[）)])?$")


def _placed(text: str, start: int, end: int) -> tuple[str, str] | None:
    """What places a site said only by its kind of works (地铁工地, 道路改造工地), as (said
    before, said after): the road (and the stretch in brackets) just before it, or the place in
    brackets after it; None when neither (which one is not said)."""
    after = _BRACKETED_AFTER.match(text, end)
    if after:
        return "", after.group(1)
    before = _ROAD_BEFORE.search(text, max(0, start - 14), start)
    if before:
        road = trim(before.group(1), digits=False)
        return (road + (before.group(2)[1:-1] if before.group(2) else ""), "") if len(road) >= 3 else None
    return None


# The kinds of works a site's name ends with, each in the words writers use for it (a station
# of a metro line being built, a road being rebuilt, resettlement housing going up).
_WORKS = ((re.compile(r"^()(.{2,8}?)[修休建]地铁$|^(?:地铁)?(\d+号线)?(.{2,8}?)站?(?:地铁站|地铁|站)$"), "地铁站"),
          (re.compile(r"^(.{2,8}?(?:路|街|大道|桥)(?:.{2,6}?段)?)(?:道路)?(?:改造|修路|改建|翻修|大修)$"), "改造"),
          (re.compile(r"^(.{2,8}?)(?:安置房|回迁房|安置小区|回迁小区|安置区)$"), "安置房"))


def site_key(name: str) -> str:
    """A site's name with the words for its kind of works said one way (松山路地铁站 = 地铁3号线松山路站
    = 松山路修地铁, the line kept when said: 3号线松山路地铁站, one with 松山路地铁站 by `same_object`;
    光明路修路 = 光明路改造; 绿水安置房 = 绿水回迁房), else as written."""
    for pattern, works in _WORKS:
        m = pattern.match(name)
        if m:
            return "".join(g for g in m.groups() if g) + works
    return name


def roads(text: str) -> list[Found]:
    """Intersections (the two roads in either order: one key), stretches (a road between two
    others), and roads named alone."""
    found = []
    for m in _ROAD.finditer(text):
        name = trim(m.group()[:-1]) + m.group()[-1] if not m.group().endswith(("大街", "大道", "正街")) \
            else trim(m.group()[:-2]) + m.group()[-2:]
        if name[0] == "从" or (found and found[-1][1] == m.start() and name[0] in "和与跟及同、到至往"
                               and name == m.group() and len(name) >= 4):
            name = name[1:]                                 # 太白路和雁塔北路: 雁塔北路 (but 和平路)
        stripped = place_stripped(name)[0]
        name = stripped if len(stripped) >= 3 else name
        if len(name) >= 3 and (name.endswith(("大街", "大道", "正街")) or not _NOT_ROAD.search(name)):
            found.append((m.end() - len(name), m.end(), name))
    out, used = [], set()
    for i, (s, e, a) in enumerate(found):
        if i in used:
            continue
        nxt = found[i + 1] if i + 1 < len(found) else None
        third = found[i + 2] if i + 2 < len(found) else None
        if nxt and _JOINER.match(text[e:nxt[0]]) and _JUNCTION_WORD.match(text[nxt[1]:nxt[1] + 5]):
            if not (third and _STRETCH_MID.match(text[nxt[1]:third[0]])):
                out.append(Found("junction", "+".join(sorted((a, nxt[2]))), s, nxt[1]))
                used.add(i + 1)
                continue
        if nxt and third and re.fullmatch(r"(?:（|\(|从|的)?", text[e:nxt[0]]) \
                and _STRETCH_MID.match(text[nxt[1]:third[0]]):
            out.append(Found("stretch", f"{a}:{'-'.join(sorted((nxt[2], third[2])))}", s, third[1]))
            used.update((i + 1, i + 2))
            continue
        if nxt and third and _STRETCH_MID.match(text[e:nxt[0]]) and re.match(r"(?:之间|段)?[的得]?$",
                                                                               text[nxt[1]:third[0]]):
            out.append(Found("stretch", f"{third[2]}:{'-'.join(sorted((a, nxt[2])))}", s, third[1]))
            used.update((i + 1, i + 2))
            continue
        if nxt and third and _AND.fullmatch(text[e:nxt[0]]) and _BETWEEN.fullmatch(text[nxt[1]:third[0]]):
            out.append(Found("stretch", f"{third[2]}:{'-'.join(sorted((a, nxt[2])))}", s, third[1]))
            used.update((i + 1, i + 2))                     # 新华路和黄河路之间的青年路
            continue
        if nxt and nxt[0] == e and _ONE_END.match(text, nxt[1]):   # 人民路和平路段: near 和平路
            out.append(Found("stretch", f"{a}:{nxt[2]}", s, nxt[1]))
            used.add(i + 1)
            continue
        if text[e:e + 1] == "口" and len(a) >= 5 and len(a) - 2 >= 3 and a[-1] in "路街" and not a.endswith("大街"):
            out.append(Found("junction", "+".join(sorted((a[:2] + "路", a[2:]))), s, e + 1))
            continue                                        # 建设红旗路口: 建设路 and 红旗路
        side = _ROAD_SIDE.match(text, e)
        if side:                                            # 人民路北段: a stretch
            out.append(Found("stretch", f"{a}:{side.group(1)}段", s, side.end()))
            continue
        out.append(Found("road", a, s, e))
    return out


_STREET_FOOD = words_pattern("夜市街|夜市|美食街|小吃街", True, "(?:摊|摊档)?$")
_LINE_NAME = re.compile(r"\d+路")
_BARE_GATE = re.compile("(?:小区|学校|医院)?[东西南北正大后侧]?门(?:口)?")      # 东门站: which 东门?


# A verb or a time before 站 (恢复站点, 冬天站着等车), and what follows a 站 that is a verb (站着, 站起来).
_NOT_A_STOP = re.compile("^(?:恢复|取消|增加|增设|撤销|撤掉|设置|停靠|多个|几个|好几个|冬天|夏天|早上|晚上|每天)$")
_STOOD = "着起立在了"


def stops(text: str) -> list[Found]:
    """Bus stops by the name before 公交站, 站台, 站, … (体育馆站的站牌: 体育馆); not a verb or a time
    before 站 (`_NOT_A_STOP`), nor a 站 standing (站着, 站起来)."""
    out = []
    for start, end, name, _ in _named(text, _STOP, of=True):
        name = _STOP_TAIL.sub("", name)
        if len(name) >= 2 and not name.endswith(_NOT_STOP) and "公交" not in name and not _BARE_GATE.fullmatch(name) \
                and not _LINE_NAME.fullmatch(name) and not _NOT_A_STOP.match(name) \
                and (end == len(text) or text[end] not in _STOOD):  # 不按站停车: a verb; 54路: a line, not a stop
            out.append(Found("stop", name, start, end))
    return _longest(out)


def schools(text: str) -> list[Found]:
    """Schools: numbered ones as N中学 (第三中学 = 三中) and N小学 (二十二小学 = 22小学, and said short:
    十八小, 市第18小学, `_primary_schools`), named ones with their suffix."""
    out = [Found("school", _placed_in(f"{int(m.group(1))}中学", _near_district(text, m.start(), m.end())),
                 m.start(), m.end()) for m in _NUMBERED_SCHOOL.finditer(text)]
    for start, end, name, suffix in _named(text, _SCHOOL, digits=False):
        name, district = place_stripped(name)
        name = _CITY_OR_DISTRICT_HEAD.sub("", name)
        if len(name) >= 2 and not any(f.at <= start < f.end or start <= f.at < end for f in out):
            out.append(Found("school", _placed_in(re.sub(r"^第", "", name) + suffix,
                                                  district or _near_district(text, start, end)), start, end))
    return _short_middle(text, _primary_schools(text, out))


# A middle school said short, as its pupils' parents say it (蚝乡中门口 = 蚝乡中学门口): a name, then 中,
# then only what is said of a school's gate or pupils (not 过程中, 家中).
_SHORT_MIDDLE = re.compile(f"([{CJK}]{{2,4}})中(?=门口|校门|周边|附近|学生|放学|上学|接送|【|$)")


def _short_middle(text: str, found: list[Found]) -> list[Found]:
    """The schools found, with the middle schools said short (`_SHORT_MIDDLE`) as X中学."""
    if "中" not in text:
        return found
    short = []
    for m in _SHORT_MIDDLE.finditer(text):
        name = trim(m.group(1), digits=False)
        if len(name) >= 2 and not name.endswith(("高", "初", "程", "途", "间", "心", "空", "家", "集")) and not name.startswith(_NOT_A_NAME_START) \
                and not _overlaps(Found("school", name, m.start(), m.end()), found):
            short.append(Found("school", f"{name}中学", m.end(1) - len(name), m.end()))
    return _with(short, found) if short else found


# Numbered primary schools, as writers shorten them (十八小, 第18小学, 市第二十二小学): one key.
_NUMBERED_PRIMARY = re.compile(r"第?([一二三四五六七八九十百]{1,4}|\d{1,3})小(?:学)?(?![区组时姐孩朋伙卖吃店])")
_NUMERAL_SCHOOL = re.compile("第?([一二三四五六七八九十百]{1,4})小学(?=@|$)")
_BEFORE_A_NUMBERED_SCHOOL = set("市区县的得在离是到去上读和与，。、：:,.!！？?（( ")


def _primary_schools(text: str, found: list[Found]) -> list[Found]:
    """The schools found, a numbered primary school's number as digits (二十二小学 = 22小学), with
    those said short that the rules above do not read (十八小, 市第18小学): said after no name."""
    keyed = [f._replace(key=_NUMERAL_SCHOOL.sub(lambda m: f"{chinese_number(m.group(1))}小学", f.key, 1))
             for f in found]
    if "小" not in text:
        return keyed
    short = [Found("school", f"{int(n) if n.isdigit() else chinese_number(n)}小学", m.start(), m.end())
             for m in _NUMBERED_PRIMARY.finditer(text)
             if (n := m.group(1)) and (m.start() == 0 or text[m.start() - 1] in _BEFORE_A_NUMBERED_SCHOOL)]
    return _with([f for f in short if not _overlaps(f, found)], keyed)


def _placed_in(name: str, district: str) -> str:
    """A name with the district (or subdistrict) said beside it: 实验小学@湾口区 (one name in
    two districts is two objects)."""
    return f"{name}@{district}" if district else name


def markets(text: str) -> list[Found]:
    """Markets as name + 市场 (胡家庙菜市场 = 胡家庙农贸市场 = 胡家庙市场); not a 马路市场 (a
    street turned into a market: what stalls make, not a name)."""
    found = [Found("market", _MARKET_TAIL.sub("", place_stripped(name)[0]) + ("夜市" if kind in _NIGHT_MARKET else "市场"),
                   s, e)
             for s, e, name, kind in _named(text, _MARKET, digits=False) if len(name) >= 2 and not name.endswith("马路")]
    return _longest([f for f in found if len(f.key) > 3])


def shops(text: str) -> list[Found]:
    """Shops as name + kind (好再来烧烤店 = 好再来烧烤; `shop_name`), and named as a 馆 (`_halls`); not
    what a verb or a district before a kind makes a name of (`_NOT_A_SHOP`)."""
    out = []
    for start, end, name, kind in _named(text, _SHOP, 6, digits=False):
        kind = kind.lower() if kind.lower() == "ktv" else (kind[:-1] if kind.endswith("店") and len(kind) > 2 else kind)
        road = _ROAD_END.split(name)[-1]                    # 体育路重庆鸡公煲: 重庆鸡公煲
        name = road if len(road) >= 2 else name
        if _STREET_FOOD.search(name):
            continue                                        # 官田村夜市烧烤: the night market's stalls
        if len(name) >= 2 and name not in ("门", "这家", "那家"):
            out.append(Found("shop", shop_name(name + kind), end - len(name) - len(kind), end))
    return [f for f in _with(_halls(text, out), out) if not _NOT_A_SHOP.search(f.key)]


# A verb or a district before a shop's kind (恳请解决饭店油烟, 河西区饭店): no name.
_NOT_A_SHOP = re.compile("^(?:解决|解绝|处理|处里|反映|反应|投诉|举报|关于|要求)|[区县](?:饭店|餐馆|餐厅|饭馆|超市|店)?$")
_EATERY = ("饭店", "餐馆", "餐厅", "饭馆", "酒楼")
_HALL = re.compile("(?<![公宾书物育览念术化技仪使茶])馆(?![长员])")
_NOT_A_HALL_START = tuple("这那该本其我你他")


def shop_name(name: str) -> str:
    """A shop's name without a generic eatery word after its own kind (福园火锅饭店 = 福园火锅,
    万城拉面馆餐馆 = 万城拉面馆): writers add one or not."""
    for word in _EATERY:
        if name.endswith(word) and len(name) - len(word) >= 3 and name[-len(word) - 1] in "锅烤馆串菜面炖鱼虾肉":
            return name[:-len(word)]
    return name


def _halls(text: str, found: list[Found]) -> list[Found]:
    """Shops named as a 馆 (老田家羊肉馆, 宏城母婴生活馆) the rules above do not read, not a home (公馆)
    nor a public place (图书馆, 体育馆)."""
    if "馆" not in text:
        return []
    out = []
    for m in _HALL.finditer(text):
        name = trim(text[max(0, m.start() - 8):m.start()], digits=False, weak=False)    # 老田家羊肉馆
        if len(name) >= 2 and not any(f.at <= m.start() < f.end for f in found) and not name.startswith(_NOT_A_HALL_START):
            out.append(Found("shop", f"{name}馆", m.start() - len(name), m.end()))
    return out


# Places and organisations by the generic word their names end with, for a problem said of a
# kind the vocabulary did not foresee (a hospital's parking, a square's noise, a bank's queue).
_PLACE = words_pattern("卫生服务中心|卫生院|医院|保健院|诊所|广场|购物中心|中心|大厦|大楼|写字楼|公园|银行|商场|商城|体育馆|图书馆|"
                       "博物馆|影城|电影院|驾校|加油站|停车场|驿站|物流园|产业园|工业园|科技园|景区|办事处|营业厅|服务站|"
                       "养老院|敬老院|福利院|俱乐部")


def places(text: str) -> list[Found]:
    """Named places of any other kind, as name + generic word (人民医院, 万达广场, 创业大厦)."""
    out = []
    for start, end, name, suffix in _named(text, _PLACE, 8, digits=False):
        name, district = place_stripped(name)
        if text[end:end + 1] == "舞" or _PLACE.search(name):
            continue                                        # 广场舞: a dance; 南宫广场上广场, 人民医院停车场: found at the first
        if len(name) >= 2 and not name.startswith(_NOT_A_NAME_START):
            out.append(Found("place", _placed_in(name + suffix, district or _near_district(text, start, end)),
                             end - len(name) - len(suffix), end))
    return _hospitals(text, _longest(out)) if "院" in text or "人医" in text or "妇幼" in text else _longest(out)


# Hospitals as residents shorten them: a numbered one (市三院 = 三医院 = 第三人民医院), a district's
# (滨江区医院 = 滨江人民医院 = 金渡人医 = 滨江区人民医院), the maternity one (榕华妇幼 = 榕华区妇幼保健院, 市妇幼).
_AFTER_NO_NAME = r"(?:(?<=[市省的在到去是了和与])|(?<![\u4e00-\u9fff]))"
_NUMBERED_HOSPITAL = re.compile(rf"{_AFTER_NO_NAME}[市区]?第?([一二三四五六七八九十]{{1,2}}|\d{{1,2}})"
                                r"(?:人民医院|医院|院(?![长士子落]))")
_DISTRICT_HOSPITAL = re.compile(rf"{_AFTER_NO_NAME}([{CJK}]{{2}})(?:区)?(人医|人民医院|妇幼保健院|妇幼)|"
                                rf"{_AFTER_NO_NAME}([{CJK}]{{2}})区医院")
_CITY_HOSPITAL = re.compile(rf"{_AFTER_NO_NAME}([省市]?)(人医|妇幼)(?!保健)")


def _hospitals(text: str, found: list[Found]) -> list[Found]:
    """The places found, hospitals said short (`_NUMBERED_HOSPITAL`, …) keyed as their full names
    (第3人民医院, 人民医院@滨江区, 妇幼保健院@榕华区) in place of what overlaps them."""
    short = [Found("place", f"第{int(n) if n.isdigit() else chinese_number(n)}人民医院", m.start(), m.end())
             for m in _NUMBERED_HOSPITAL.finditer(text) if (n := m.group(1))]
    for m in _DISTRICT_HOSPITAL.finditer(text):
        head, kind = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), "人医")
        if not _STRONG_RE.search(head) and not head.endswith(("省", "市")) and not head.startswith(_NOT_A_NAME_START):
            short.append(Found("place", f"{'妇幼保健院' if kind.startswith('妇幼') else '人民医院'}@{head}区",
                               m.start(), m.end()))
    for m in _CITY_HOSPITAL.finditer(text):
        short.append(Found("place", f"{m.group(1)}人民医院" if m.group(2) == "人医" else "妇幼保健院", m.start(), m.end()))
    return _with(_longest(short), found) if short else found


_LINE = re.compile(r"(?<![0-9A-Za-z])(?:公交)?([0-9]{1,3}|[A-Z]\d{1,3})路(?=公交|车|线|司机|班|末班|首班|[，,。]|$)")


def lines(text: str) -> list[Found]:
    """Bus lines by their number (73路, 73路公交车, 公交73路: one key), what a writer about a
    line's service names; a road is never named by digits alone."""
    return [Found("line", m.group(1), m.start(), m.end()) for m in _LINE.finditer(text)]


FINDERS = {"line": lines, "compound": compounds, "company": companies, "site": sites, "road": roads, "stop": stops,
           "school": schools, "market": markets, "shop": shops, "place": places}


def _firsts(*patterns: str) -> re.Pattern:
    """A pattern finding any character the words of literal alternations (a|b|c, or a
    `words_pattern`) start with."""
    alternations = [p.split("])(?:")[-1].rstrip(")+") if p.startswith("(?=[") else p for p in patterns]
    return re.compile("[" + re.escape("".join(sorted({w[0] for p in alternations for w in p.split("|") if w}))) + "]")


# A finder runs only on a text holding one of the characters its names must contain: most
# texts have no suffix of most kinds, and one scan for a character class (in C) costs less than
# the finder's patterns and the Python around them.
TRIGGERS = {"line": re.compile("[0-9]路"),
            "compound": _firsts(_COMPOUND.pattern, "号|栋|幢|座|#|棚"), "company": _firsts(_COMPANY.pattern, _INDUSTRY_WORDS),
            "site": _firsts(_SITE.pattern), "road": _firsts("路|街|巷|道|环"), "stop": _firsts("站"),
            "school": _firsts(_SCHOOL.pattern, "中"), "market": _firsts(_MARKET.pattern), "shop": _firsts(_SHOP.pattern, "馆"),
            "place": _firsts(_PLACE.pattern)}


@lru_cache(maxsize=256)
def finders_for(kinds: frozenset[str]) -> frozenset[str]:
    """The finders that name objects of these kinds (a building is found as its compound)."""
    wanted = {"road" if k in ("junction", "stretch", "road") else k for k in kinds}
    return frozenset((wanted - {"building"}) | ({"compound"} if "building" in kinds else set()))


def objects_in(text: str, kinds: frozenset[str] | set[str], seen: dict[str, list[Found]] | None = None) -> list[Found]:
    """The objects of these kinds named in a cleaned text, in order of position; `seen`, when
    given, keeps each finder's finds for the next call on the same text (a row's problems
    are tried in turn, most of them needing a finder already run)."""
    wanted = finders_for(frozenset(kinds))
    seen = {} if seen is None else seen
    for kind in wanted - seen.keys():
        seen[kind] = FINDERS[kind](text) if TRIGGERS[kind].search(text) else []
    found = sorted((f for kind in wanted for f in seen[kind]
                    if f.kind in kinds or (f.kind == "compound" and "building" in kinds)), key=lambda f: (f.at, -f.end))
    return [f for i, f in enumerate(found) if not _qualifies(text, f, [g for g in found[i + 1:] if g.kind != "line"])]


def first_object(text: str, order: tuple[str, ...], seen: dict[str, list[Found]]) -> Found | None:
    """The object a problem is about in a cleaned text: the first named of the first kind in
    `order` named at all (the market, not the road it stands on; a building is found as its
    compound), not one that only places another; finders run in that order, and no further
    once one names an object (most rows name their object by the first kind). `seen` as for
    `objects_in`."""
    found: list[Found] = []
    for kind in order:
        finder = _FINDER_OF.get(kind, kind)
        if finder not in seen:
            seen[finder] = FINDERS[finder](text) if TRIGGERS[finder].search(text) else []
        if seen[finder]:
            found = sorted({*found, *seen[finder]}, key=_by_place)
        wanted = "compound" if kind == "building" else kind
        for i, f in enumerate(found):
            if f.kind == wanted and (not _LANDMARK.match(text, f.end)
                                     or not _qualifies(text, f, [g for g in found[i + 1:] if g.kind != "line"])):
                return _built(text, f, order, seen)
    return None


_BUILDS = re.compile("(?:公司)?(?:承建|承包|开发|施工|负责)的")


def _built(text: str, found: Found, order: tuple[str, ...], seen: dict[str, list[Found]]) -> Found:
    """The site a company found builds, when a problem may be about a site and the text names
    one after the company's 承建的 (安阳置业承建的俊林国际项目: the site's matter), else the object found."""
    if found.kind != "company" or "site" not in order or not _BUILDS.match(text, found.end):
        return found
    return next((f for f in objects_in(text, {"site"}, seen) if f.at >= found.end), found)


_FINDER_OF = {"junction": "road", "stretch": "road", "building": "compound"}


def _by_place(found: Found) -> tuple[int, int]:
    return found.at, -found.end


def _qualifies(text: str, found: Found, after: list[Found]) -> bool:
    """Whether a name only places another object (红星幼儿园旁边的第八中学, 金色佳苑（蓝天幼儿园对面）),
    not when it is the object itself (体育馆站附近，84路车…; a bus line is never placed so)."""
    beside = _LANDMARK.match(text, found.end)
    return bool(beside) and (bool(after) or text[beside.end():beside.end() + 1] in ("的", ")", "）"))


def building_after(text: str, at: int, strict: bool = False) -> str | None:
    """The building named at or after `at` in a text (3号楼, 3栋, 3#, 3幢, B座, T3栋, 2期7栋;
    a bare 3号 only when not `strict`), or None."""
    m = (_BUILDING_STRICT if strict else _BUILDING).search(text, at)
    return _building(m) if m else None


def _building(m: re.Match) -> str:
    """A building's id: its number (letters upper-cased, zeros dropped), after its phase (2期7)."""
    number = m.group("n")
    number = number[0].upper() + str(int(number[1:])) if number[0].isalpha() and number[1:] else \
        number.upper() if number.isalpha() else str(int(number))
    return f"{int(m.group('phase'))}期{number}" if m.group("phase") else number


_ADDRESS_STREET = re.compile(rf"^[{CJK}0-9]*?(?:大街|大道|路|街(?!道)|巷)(?:\d+号(?:院)?)?")
_ADDRESS_HOME = re.compile(rf"([{CJK}A-Za-z]{{2,10}}?)(?:小区)?[的]?(?:第?\d{{1,3}}(?:号楼|号院|栋|幢|座|#楼|#|号|单元)|\d{{1,3}}[-－—]\d)")


_ADDRESS_NAME = re.compile(rf"([{CJK}A-Za-z]{{2,10}}?)(?:小区)?")    # 平阳路世茂大都会: the address ends with its name
_OTHER_PLACE = re.compile("(?:公司|厂|店|中心|医院|学校|学|园|村委会|委会|线路|路口|口|项目|工地|广场|市场|站|局|院|馆|所|部|"
                          "(?<![东西南北中活])区|[县市镇乡])$|"     # a district, not 兴华北区 or 钢厂二生活区
                          "[0-9]")                    # an address naming something else than a home


@lru_cache(maxsize=4096)
def address_home(address: str) -> tuple[Found, ...]:
    """The compound of a cleaned address field: by its suffix when it has one, else by where
    it stands (after the city, district and street number, before the building number or a
    3-2-501): an address names its compound whatever its name ends with (怡景壹号13栋, 玉兰大境1-2-1002).
    Cached: a writer's address comes again with each of their rows."""
    named = compounds(address)
    if named:
        return (named[0],)
    rest, _ = place_stripped(address)
    street = _ADDRESS_STREET.match(rest)
    at = len(address) - len(rest) + (street.end() if street else 0)
    m = _ADDRESS_HOME.match(address, at) or _ADDRESS_NAME.fullmatch(address, at)
    if not m or m.group(1) in _NOT_A_COMPOUND or _STREET.search(m.group(1)) or _OTHER_PLACE.search(m.group(1)):
        return ()
    return (Found("compound", m.group(1), m.start(1), m.end(1)),)


@lru_cache(maxsize=4096)
def address_objects(address: str, kinds: frozenset[str]) -> tuple[Found, ...]:
    """The objects of these kinds a cleaned address field names, the first kind listed first
    (where the matter is, when the text only says 这个路口 or 学校). Cached per address."""
    return tuple(objects_in(address, kinds))


_STREET_NUMBER = re.compile(rf"(?:[{CJK}]{{2,3}}?[省市])?(?:[{CJK}]{{1,4}}?[区县])?"
                            rf"([{CJK}0-9]{{2,8}}?(?:大街|大道|路|街)\d{{1,4}}号)(?:院)?")


@lru_cache(maxsize=4096)
def street_number(address: str) -> str:
    """The road and number a cleaned address field is no more than (建设南路198号 of 晋源区建设南路198号),
    where a business stands (事发地址); '' for a home (a compound, a building, a room, a lane)."""
    m = _STREET_NUMBER.fullmatch(address)
    return m.group(1) if m and not re.search("村|巷", m.group(1)) else ""


def address_building(address: str, compound: str) -> str | None:
    """The building of an address that names `compound`: the number after the name
    (…阳光花园3号楼2单元501, 阳光花园3-2-501), or None when the address is elsewhere."""
    at = address.find(compound)
    if at < 0:
        return None
    m = _ADDRESS_BUILDING.match(address, re.match(r"(?:小区|社区)*", address[at + len(compound):]).end()
                                + at + len(compound))
    return _building(m) if m else None
