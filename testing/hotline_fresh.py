"""A third labelled 12345-hotline table (the FRESH set), written from the rules of issue 52 alone,
by a hand that never saw testing/hotline.py or testing/hotline_heldback.py, so that the matters
method can be judged on a table nobody developing it has looked at.

The city is Taiyuan (太原): its districts, streets (长风街, 坞城路, 学府街, numbered ones such as
经二路, 纬三路), compounds named without 小区/花园 (万科城市之光, 保利天悦, 金地湖城大境), urban
villages (北格村, 许西村), resettlement housing (幸福家园三期) and old work-unit housing
(纺织厂宿舍, 机车厂宿舍). Each row is a 12345 work order: an operator's summary (来电人称…,
市民反映…, 工单内容：…) or the caller's own words, often colloquial (没得暖气, 冻死个人, 血汗钱),
sometimes describing the problem without its keyword ("屋里才十几度"), with pinyin typos and
digits of either width. The address field is the 事发地址: sometimes the only place that says which
building or which company, sometimes blank.

How it is made: objects first (buildings of compounds, compounds, villages, companies, sites,
intersections, stretches of road, shops, squares, schools, hospitals, bus lines, metro exits,
markets), each with the names that identify it alone and the vague names that need the address
field; a name two objects share is vague for both, so the truth never rests on hidden
information. Then matters: an object, one of 36 problem kinds that fits it, and an episode (a
centre day and a spread); a number of people (exactly the scaled count of matters and of hot
ones), each writing once in their own words, some re-submitting, some signing one form letter.
Then the rest: single complaints about objects and problems no one else raises in that season,
one person's issue with its re-submissions, and policy questions (None however many ask).

Hard negatives, by construction, pairs of matters listed in `Hotline.hard` (at the default size
and seed): sibling buildings of one compound with the same problem within a week (34 pairs),
companies with similar names (鑫达劳务 / 鑫达建材, 14), one name in two districts (兴隆装修 in
万柏林区 and in 晋源区; 桃园新村 in two districts; 12), adjacent intersections (12), two stretches
of one road (12), the same object with another problem (wages / social insurance, night noise /
dust, heating / lift; 30), the same object and problem in another episode (this winter's and
last winter's heating; 30), one form letter filed for two objects (8). Besides: 480 policy
questions on 14 topics (取暖补贴 among them), 258 one-person issues with their re-submissions
(718 rows), 2,026 single complaints, 838 re-submissions and 245 form-letter rows inside matters;
690 matters, 260 of five people or more, 30 of 20-57 people, 4,776 rows in matters of 8,000.
Everything follows from the seed. A matter key reads m0001:problem:object:YYYYMMDD (`matter_parts`).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

START, END = datetime(2025, 1, 1), datetime(2026, 6, 30, 23, 59)
MATTERS, HOT = 690 / 8000, 260 / 8000  # per row of the table
BIG_SHARE = 0.1  # hot matters with 20-60 people
RESUBMIT = 0.13  # people who file the same thing again
POLICY_SHARE = 0.06  # policy questions per row
ONE_PERSON_SHARE = 0.033  # one-person issues (with re-submissions) per row
HARD_COUNTS = {"sibling_buildings": 34, "similar_company_names": 14, "name_in_two_districts": 12,
               "adjacent_intersections": 12, "two_stretches": 12, "other_problem": 30,
               "other_episode": 30, "form_letter_other_object": 8}

DISTRICTS = ["小店区", "迎泽区", "杏花岭区", "万柏林区", "晋源区", "尖草坪区"]
ROADS = ["长风街", "坞城路", "学府街", "体育路", "平阳路", "亲贤街", "并州南路", "南内环街", "迎泽大街",
         "建设南路", "解放路", "新建路", "和平南路", "千峰南路", "滨河东路", "滨河西路", "真武路", "许坦东街",
         "龙城大街", "晋阳街", "北中环街", "南中环街", "大昌南路", "太榆路", "康宁街", "府东街", "五一路",
         "胜利街", "漪汾街", "兴华街", "西矿街", "后小河", "经二路", "经五路", "纬三路", "纬六路", "学院路",
         "师范街", "王村南街", "恒山路", "东岗路", "寇庄西路", "南沙河路", "和平北路", "柳巷南路"]
BRANDS = ["万科", "保利", "金地", "融创", "龙湖", "中海", "华润", "绿地", "富力", "招商", "旭辉", "世茂",
          "碧桂园", "恒大", "华宇", "星河湾", "山投", "阳光城", "荣盛", "泰禾"]
ESTATES = ["城市之光", "天悦", "湖城大境", "翡翠城", "公园里", "玖章", "云著", "滨江府", "御府", "金域华府",
           "紫宸", "名邸", "峰景", "悦府", "璟园", "观澜", "和府", "大都会", "壹号院", "书香门第", "锦绣",
           "东方明珠", "西山印象", "汾河湾", "时代天街", "龙城首府", "长风壹号", "绿洲", "橡树湾", "未来城"]
PLAIN = ["和平", "幸福", "康宁", "滨河", "文苑", "丽华", "鸿福", "桃园", "阳光", "安居", "泽苑", "晋泰",
         "兴华", "南寒", "北营", "龙城", "金桥", "锦华", "体育", "新华"]
PLAIN_SUFFIX = ["小区", "花园", "苑", "家园", "新村", "公寓", "雅苑", "南区", "北区"]
RESETTLEMENT = ["幸福家园{}期", "和谐家园{}期", "康乐苑{}期安置房", "阳光新城{}区", "富民佳苑{}期"]
WORK_UNIT = ["纺织厂宿舍", "机车厂宿舍", "化肥厂家属院", "钢厂二生活区", "电业局家属楼", "煤机厂宿舍",
             "矿机宿舍", "粮食局宿舍", "重机厂十一宿舍", "针织厂家属院", "建筑公司老宿舍", "第二热电厂宿舍",
             "铁路分局宿舍", "印染厂宿舍", "汽修厂家属楼"]
VILLAGES = ["北格", "许西", "南堰", "下元", "东岗", "黄陵", "西温庄", "小店", "郝庄", "杨家堡", "寇庄",
            "南畔", "北畔", "武宿", "大马", "殷家堡", "坞城", "孙家寨", "王村", "刘家堡", "古城营", "东社",
            "北张", "城西", "营盘"]
FIRM_WORDS = ["鑫达", "永兴", "宏运", "晋丰", "华泰", "盛源", "恒通", "瑞祥", "金鼎", "嘉禾", "润达",
              "昌盛", "隆鑫", "天宇", "博远", "汇丰源", "中晋", "德顺", "聚源", "同创", "弘毅", "腾飞",
              "锦程", "新锐", "众诚", "晋阳", "龙腾", "正大", "鼎盛", "亿家", "东晟", "和信", "九州",
              "远航", "泓泰", "金诺", "福瑞", "振兴", "安泰", "海川", "星辰", "银河", "光大", "仁和"]
TRADES = [("建筑劳务", "劳务", "工地", "干活"), ("装饰工程", "装修", "装修队", "干装修"),
          ("物流", "物流", "物流园", "开车送货"), ("餐饮管理", "餐饮", "饭店", "当服务员"),
          ("纸制品", "纸箱", "纸箱厂", "上班"), ("机械制造", "机械", "机械厂", "上班"),
          ("保安服务", "保安", "保安公司", "当保安"), ("保洁服务", "保洁", "保洁公司", "干保洁"),
          ("电子科技", "电子", "电子厂", "上班"), ("食品", "食品", "食品厂", "上班"),
          ("汽车销售服务", "汽贸", "4S店", "上班"), ("教育咨询", "教育", "培训学校", "上课"),
          ("体育文化发展", "健身", "健身房", "锻炼"), ("化工", "化工", "化工厂", "上班"),
          ("建材", "建材", "建材厂", "上班"), ("家政服务", "家政", "家政公司", "干家政")]
SIGNS = ["乐动", "超能", "优学", "快乐星", "好邻居", "金牌", "一点", "壹号", "悦享", "蜜豆", "小蜜蜂", "绿叶",
         "阳光宝贝", "益起", "麦田", "橙子", "铂金", "新势力"]
SURNAMES = "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶阎余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段雷钱汤尹黎易常武乔贺赖龚文"
GIVEN = "建国军红梅丽华伟芳秀英强磊洋勇艳杰娟涛明超霞平刚桂兰玉珍志文海燕静敏飞鹏辉亮斌波宇浩凯晓慧婷雪琳晨阳俊峰"
CN = "零一二三四五六七八九十"
FULL = str.maketrans("0123456789", "０１２３４５６７８９")
TYPOS = {"暖气": "暖汽", "已经": "以经", "反映": "反应", "投诉": "投述", "维修": "维休", "物业": "物叶",
         "工资": "工姿", "再次": "在次", "解决": "接决", "电梯": "电题", "业主": "业住", "噪音": "燥音",
         "拖欠": "拖久", "施工": "施公", "停车": "亭车", "的": "得", "小区": "小去", "一直": "一只"}


def cn_number(n: int) -> str:
    """1..99 in Chinese numerals, as a caller would say a building."""
    if n <= 10:
        return CN[n]
    tens, ones = divmod(n, 10)
    return (CN[tens] if tens > 1 else "") + "十" + (CN[ones] if ones else "")


@dataclass
class Obj:
    """A concrete object: names that say it alone, vague names that need `where` (the address field)."""
    key: str
    kind: str
    forms: list[str]
    vague: list[str]
    where: list[str]
    district: str
    parent: str = ""  # the compound of a building
    extra: dict = field(default_factory=dict)


@dataclass
class Hotline:
    rows: list[dict]
    matter: dict[int, str | None]
    person: dict[int, str]
    hard: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # kind -> pairs of matter keys


# ------------------------------------------------------------------ problems
# Each: category, object kind, titles, sayings ({m} = the object's name; some without the keyword),
# details and asks. Matters of one kind share these words; one matter's rows share only {m}.

P = {}


def problem(name, category, kind, titles, say, detail, ask, big=False, season=None):
    """One problem kind into P; `big`: 20-60 people may share it; `season`: when it can happen."""
    P[name] = {"category": category, "kind": kind, "titles": titles, "say": say, "detail": detail, "ask": ask,
               "big": big, "season": season}


problem("heating", "城乡建设/供热", "building", ["暖气不热", "供暖不达标", "供热问题", "家里太冷", "暖气温度低"],
        ["{m}的暖气不热", "{m}供暖不达标", "{m}屋里才十几度，开空调都不管用", "{m}暖气片摸着是凉的",
         "{m}家里冻死个人，暖气跟没开一样", "{m}没得暖气，老人孩子都冻感冒了", "{m}室温只有{t}度左右",
         "{m}晚上在家得穿羽绒服", "{m}的供热温度一直上不来", "{m}家里冷得跟冰窖一样"],
        ["交了{a}元取暖费", "热力公司说是管网问题", "物业说上游压力不够", "已经冷了{d}天了", "测了温度才{t}度",
         "低层还凑合，高层根本不热", "家里有八十多岁的老人"],
        ["要求尽快解决供暖问题", "请热力公司来人排查", "要求退还部分取暖费", "希望尽快来人测温"], big=True,
        season="winter")
problem("lift", "城乡建设/电梯安全", "building", ["电梯故障", "电梯困人", "电梯老坏", "电梯问题"],
        ["{m}的电梯三天两头坏", "{m}电梯又把人关里面了", "{m}电梯困人半个多小时", "{m}电梯运行时咣咣响",
         "{m}电梯停了{d}天没人修", "{m}电梯门关不严还往下掉"],
        ["家里老人上下楼全靠爬", "打物业电话没人接", "维保单位一直不来", "上礼拜刚困过一次"],
        ["要求彻底检修电梯", "请市场监管部门查一下维保", "尽快恢复电梯运行"], big=True)
problem("leak", "城乡建设/房屋质量", "building", ["房屋漏水", "楼顶漏水", "外墙渗水"],
        ["{m}楼顶漏水", "{m}一下雨屋里就往下滴水", "{m}顶层墙皮都泡掉了", "{m}楼道里的水管爆了淹了半层",
         "{m}外墙渗水，卧室墙上全是霉"],
        ["找开发商说过了保修期", "物业让找维修基金", "已经漏了{d}天了"],
        ["要求尽快维修防水", "请启用维修基金", "希望有人来看一下"])
problem("gas", "应急管理/燃气安全", "building", ["燃气泄漏", "有煤气味", "燃气安全隐患"],
        ["{m}楼道里一股煤气味", "{m}天然气味道很大", "{m}闻着像是哪家燃气漏了", "{m}楼下燃气管道锈得厉害",
         "{m}单元门口有刺鼻的气味，怀疑是燃气"],
        ["已经好几天了", "打了燃气公司电话说排队", "住户都不敢开火"],
        ["请燃气公司马上来检查", "要求排除安全隐患", "赶紧派人来看看"])
problem("charging", "应急管理/消防安全", "building", ["电动车楼道充电", "飞线充电", "消防隐患"],
        ["{m}有人把电动车推进楼道充电", "{m}外卖小哥天天在楼道充电瓶车", "{m}电线从窗户吊下来给电动车充电",
         "{m}一楼楼道停满电动车插着电", "{m}有人把电瓶拎回家充"],
        ["前两天别的地方刚着过火", "楼道堵得人都过不去", "跟物业说了没用"],
        ["要求清理楼道电动车", "请消防部门检查", "希望安装充电桩"])
problem("throwing", "公安/治安管理", "building", ["高空抛物", "楼上扔东西", "高空坠物"],
        ["{m}有人从楼上往下扔东西", "{m}楼上扔下来一个酒瓶子差点砸到人", "{m}经常有垃圾从楼上掉下来",
         "{m}高空抛物，车被砸了", "{m}楼上往下泼水扔烟头"],
        ["孩子在楼下玩很危险", "已经好几次了", "物业说查不出是谁"],
        ["要求查清楚是哪户", "请派出所处理", "建议安装监控"])
problem("reno", "环境保护/噪声污染", "building", ["装修噪音", "装修扰民", "装修时间不规范"],
        ["{m}有户人家装修天天电钻", "{m}装修从早上七点砸到晚上九点", "{m}砸墙的声音吵得睡不着",
         "{m}中午也在装修，孩子没法午休", "{m}装修噪音太大，周末都不停"],
        ["物业规定的时间根本不遵守", "家里有高三学生", "上门说了也没用"],
        ["要求规范装修时间", "请物业管一管", "希望执法部门处理"])
problem("propfee", "城乡建设/物业管理", "compound", ["物业费涨价", "物业乱收费", "物业服务差"],
        ["{m}物业费一下涨了{p}", "{m}物业不打招呼就上调收费标准", "{m}物业啥也不干还收那么多钱",
         "{m}物业费从每平米{f}元涨到{g}元", "{m}物业强行收取公摊电费"],
        ["没开业主大会", "卫生没人打扫", "门禁坏了半年"],
        ["要求物业公示收费依据", "请住建部门查处", "不同意涨价"], big=True)
problem("parking", "城乡建设/物业管理", "compound", ["停车收费", "停车费", "车位问题"],
        ["{m}地下车库停车费涨到每月{a}元", "{m}物业不让没买车位的车进", "{m}地面停车位也要收费",
         "{m}车位只售不租，不买就不让停", "{m}临时停车一小时收{q}元"],
        ["收费没有公示", "小区里面都停满了", "业主都有意见"],
        ["要求按规定收费", "请发改部门核查收费标准"], big=True)
problem("certificate", "自然资源/不动产登记", "compound", ["房产证办不下来", "不动产证", "办证难"],
        ["{m}交房{y}年了房产证还没办下来", "{m}不动产权证一直办不了", "{m}开发商说手续不全办不了证",
         "{m}孩子上学要房本，到现在没有", "{m}买房好几年了证还没拿到"],
        ["开发商一直推", "不动产中心说开发商没交材料", "问了好多次都说在办"],
        ["要求尽快办理不动产证", "请政府协调开发商"], big=True)
problem("garbage", "城市管理/环境卫生", "compound", ["垃圾清运不及时", "垃圾堆积"],
        ["{m}垃圾好几天没人拉", "{m}垃圾箱满了堆在地上", "{m}门口垃圾臭气熏天",
         "{m}垃圾站夏天苍蝇满天飞"],
        ["已经{d}天了", "物业说环卫不来", "晚上老鼠乱窜"],
        ["要求及时清运", "请环卫部门处理"])
problem("water", "城乡建设/供水", "compound", ["停水", "水压低", "自来水问题"],
        ["{m}又停水了", "{m}高层水压低得没法洗澡", "{m}自来水发黄有味道", "{m}停水也不提前通知",
         "{m}这几天水龙头就滴答几滴"],
        ["已经停了{d}天", "打供水公司电话说在修", "做饭都没水"],
        ["要求尽快恢复供水", "请说明停水原因"], big=True)
problem("illegal", "城市管理/违法建设", "compound", ["违章建筑", "私搭乱建", "违建"],
        ["{m}有人在楼顶搭了个大棚子", "{m}一楼住户把绿地圈起来盖房子", "{m}有人私自扩建阳台",
         "{m}底商在院子里盖了一排彩钢房", "{m}有人在楼顶加盖了一层"],
        ["物业不管", "已经快盖好了", "影响采光"],
        ["要求拆除违建", "请城管执法部门查处"])
problem("delivery", "城乡建设/房地产", "compound", ["延期交房", "逾期交房", "烂尾"],
        ["{m}合同约定去年交房到现在还没交", "{m}工地停工好几个月了", "{m}开发商一拖再拖不交房",
         "{m}楼盖了一半不动了", "{m}交房日期又往后推了"],
        ["我们还在外面租房", "房贷每月照还", "开发商说资金紧张"],
        ["要求按期交房", "请政府督促复工", "要求支付违约金"], big=True)
problem("demolition", "住房保障/征收补偿", "village", ["拆迁补偿", "征收补偿", "安置房"],
        ["{m}拆迁补偿款一直没到位", "{m}拆了{y}年了安置房还没分", "{m}过渡费停发了",
         "{m}补偿标准比隔壁村低一大截", "{m}旧房拆了，我们一家到现在还在外面租房子"],
        ["村委说等上面的钱", "签协议时说好半年回迁", "老人等不起了"],
        ["要求按协议发放补偿", "请尽快安置回迁", "要求公开补偿标准"], big=True)
problem("village_sewage", "环境保护/水污染", "village", ["污水横流", "排水不畅"],
        ["{m}污水管堵了，街上全是污水", "{m}下水道冒水臭得不行", "{m}排水沟堵死了一下雨就淹"],
        ["好几个月了", "村里说没钱修"], ["要求疏通管道", "请街道解决"])
problem("wages", "劳动保障/欠薪", "company", ["拖欠工资", "讨薪", "欠薪", "不发工资"],
        ["{m}拖欠工资{n}个月", "在{m}干了三个月活一分没拿到", "{m}欠我们的血汗钱不给",
         "{m}老板拖着工钱不发", "{m}说好月底结账，到现在一直拖", "{m}欠了{a}元工资"],
        ["去劳动监察那里也登记过", "老板电话打不通", "过年回家的路费都没有", "一起干活的有好几十个人"],
        ["要求尽快支付工资", "请劳动监察部门帮忙讨薪", "帮我们把工钱要回来"], big=True)
problem("insurance", "劳动保障/社会保险", "company", ["未缴社保", "社保断缴", "社会保险"],
        ["{m}不给员工交社保", "{m}从{mo}月起就断缴社保了", "{m}扣了社保的钱却没交上",
         "{m}入职一年了一直没上五险", "{m}查了社保记录一直是空的"],
        ["工资条上每月都扣了", "问人事说在办", "生病住院没法报销"],
        ["要求补缴社保", "请社保部门核查"], big=True)
problem("sewage", "环境保护/水污染", "company", ["工厂排污", "偷排污水", "废水"],
        ["{m}晚上往河里偷排污水", "{m}排出来的水是黑的还有臭味", "{m}废水直接流到排水渠里",
         "{m}后面的沟渠被污水染成了红色", "{m}一到半夜就往外放污水"],
        ["附近的庄稼都死了", "晚上气味特别大", "好几年了"],
        ["请环保部门查处", "要求停产整改"], big=True)
problem("prepaid", "市场监管/预付卡", "company", ["预付卡", "跑路", "退费"],
        ["{m}突然关门了，卡里还有{a}元", "{m}老板跑路了", "办了{m}的年卡没几天就停业",
         "{m}不给退费", "{m}换了个名字不认以前的卡"],
        ["好几百个会员", "电话打不通", "门上贴了个装修通知就再没开"],
        ["要求退还预付款", "请市场监管部门介入"], big=True)
problem("night_noise", "环境保护/噪声污染", "site", ["夜间施工", "施工噪音", "施工扰民"],
        ["{m}半夜还在施工", "{m}夜里打桩吵得睡不着", "{m}凌晨两三点还有渣土车进出",
         "{m}晚上十一点以后还在浇混凝土", "{m}天天夜里叮叮当当"],
        ["没见有夜间施工许可", "孩子第二天还要上学", "已经持续一个礼拜了"],
        ["要求停止夜间施工", "请执法部门夜里来查"], big=True)
problem("dust", "环境保护/大气污染", "site", ["扬尘", "工地扬尘", "尘土飞扬"],
        ["{m}扬尘特别大", "{m}土堆也不盖网", "{m}渣土车出来满街都是泥", "{m}风一刮满天都是灰",
         "{m}窗户都不敢开全是土"],
        ["没有洒水降尘", "车轮也不冲洗"], ["要求落实降尘措施", "请环保部门处理"])
problem("signal", "交通运输/交通设施", "crossing", ["红绿灯", "信号灯", "路口拥堵"],
        ["{m}红绿灯坏了", "{m}左转绿灯才{s}秒", "{m}信号灯一直闪黄灯", "{m}早晚高峰堵得走不动",
         "{m}行人过马路的绿灯太短"],
        ["差点出事故", "交警也不在", "好几天了"], ["请交管部门调整配时", "要求尽快维修信号灯"])
problem("flooding", "城市管理/排水", "crossing", ["路口积水", "内涝", "下雨积水"],
        ["{m}一下雨就成了河", "{m}积水没过膝盖", "{m}雨水井堵了", "{m}车过去水都进了发动机"],
        ["年年都这样", "行人根本过不去"], ["要求疏通排水", "请市政部门改造"])
problem("streetlight", "城市管理/市政设施", "stretch", ["路灯不亮", "路灯坏了"],
        ["{m}路灯全黑", "{m}晚上黑乎乎的一盏灯都不亮", "{m}路灯坏了好久", "{m}晚上走路得打手电"],
        ["女孩子晚上不敢走", "前几天有人摔了"], ["要求修复路灯", "请市政部门处理"])
problem("stalls", "城市管理/占道经营", "stretch", ["占道经营", "摆摊", "流动摊贩"],
        ["{m}摊贩把人行道都占满了", "{m}晚上全是烧烤摊", "{m}卖菜的把路堵了一半", "{m}夜市摊子占道"],
        ["车都过不去", "垃圾扔一地", "城管来了就跑走了又回来"], ["要求取缔占道经营", "请城管加强巡查"])
problem("pothole", "城市管理/道路维护", "stretch", ["路面坑洼", "井盖缺失", "道路破损"],
        ["{m}路面坑坑洼洼", "{m}有个井盖没了", "{m}路面塌了一个大坑", "{m}修完路一直没恢复"],
        ["电动车摔了好几个", "晚上看不见很危险"], ["要求尽快修补路面", "请设置警示标志"])
problem("bar_noise", "环境保护/噪声污染", "shop", ["酒吧噪音", "噪音扰民", "商铺扰民"],
        ["{m}每天晚上音响震得玻璃响", "{m}半夜一两点还在唱歌", "{m}客人在门口喝酒吵闹",
         "{m}低音炮咚咚咚吵得睡不着"],
        ["楼上住户都受不了", "报了好几次警", "周末更严重"], ["要求限制营业时间", "请环保部门测噪音"],
        big=True)
problem("fumes", "环境保护/油烟污染", "shop", ["油烟扰民", "餐馆油烟"],
        ["{m}油烟直接往楼上排", "{m}烧烤的烟熏得窗户不能开", "{m}没装油烟净化器", "{m}排风扇对着住户窗户"],
        ["家里衣服都是烟味", "夏天没法开窗"], ["要求安装净化设备", "请执法部门处理"])
problem("dance", "环境保护/噪声污染", "square", ["广场舞噪音", "噪音扰民"],
        ["{m}跳广场舞的音箱开得特别大", "{m}每天早上六点就开始放音乐", "{m}大妈们跳舞的音响吵得人头疼",
         "{m}晚上音乐放到十点多", "{m}跳舞的喇叭声隔着窗户都震耳朵"],
        ["家里有病人需要休息", "沟通过没用还骂人"], ["要求控制音量和时间", "请派出所管一管"], big=True)
problem("school_fee", "教育/学校收费", "school", ["学校乱收费", "收费问题"],
        ["{m}收{a}元的资料费", "{m}强制订校服", "{m}课后服务费自愿变强制", "{m}让家长交赞助费",
         "{m}收了书本费不给票"],
        ["说是自愿其实不交不行", "班主任在群里催"], ["要求退还费用", "请教育局核查"], big=True)
problem("school_food", "教育/校园食品安全", "school", ["学校食堂", "营养餐", "食品安全"],
        ["{m}食堂饭菜吃出虫子", "{m}孩子吃了午饭拉肚子", "{m}营养餐的菜少得可怜",
         "{m}午餐全是冷的", "{m}配餐公司的饭又贵又难吃"],
        ["好几个孩子都说了", "家长群里都在说"], ["要求更换配餐公司", "请市场监管部门检查"], big=True)
problem("hosp_parking", "卫生健康/医院管理", "hospital", ["医院停车难", "停车收费", "医院周边拥堵"],
        ["{m}停车场排队一个多小时", "{m}停车费太贵，看个病停车花了{q}0多块", "{m}门口黄牛占车位收钱",
         "{m}周边路上全是违停的车"],
        ["救护车都进不去", "带老人看病很不方便"], ["要求增加车位", "请规范停车秩序"], big=True)
problem("bus_route", "交通运输/公交", "bus", ["公交线路", "公交班次", "公交站点"],
        ["{m}改线后我们这里没车坐了", "{m}班次太少等了四十分钟", "{m}取消了我们小区门口的站",
         "{m}末班车太早", "{m}司机不按站停车"],
        ["上班的老人孩子都受影响", "附近就这一路车"], ["要求恢复原线路", "请增加班次"], big=True)
problem("bikes", "城市管理/共享单车", "station", ["共享单车乱停", "单车堆积"],
        ["{m}共享单车堆成了山", "{m}单车把盲道全占了", "{m}乱停的电单车挡着出口",
         "{m}门口横七竖八全是小黄车"],
        ["出站都走不过去", "运营公司不来清理"], ["请督促企业清理", "划定停放区域"])
problem("market_stalls", "城市管理/占道经营", "market", ["市场占道", "市场周边拥堵"],
        ["{m}门口摊位摆到了马路上", "{m}周边早上堵得水泄不通", "{m}外面卖菜的堵住了消防通道"],
        ["好几年了", "城管来了也管不住"], ["要求规范经营秩序", "请城管处理"])

POLICY = [("医保报销", "咨询医保报销比例", ["想问一下住院医保能报多少", "异地就医医保怎么报销", "门诊慢性病报销比例是多少"]),
          ("落户", "咨询落户政策", ["想问一下外地户口怎么落户太原", "大专学历能不能直接落户", "投靠落户需要什么材料"]),
          ("公积金", "咨询公积金提取", ["公积金租房提取怎么办理", "离职以后公积金能不能取出来", "公积金贷款额度怎么算"]),
          ("新生儿入户", "咨询新生儿入户", ["孩子出生了怎么上户口", "新生儿入户需要带什么"]),
          ("居住证", "咨询居住证办理", ["居住证在哪里办", "居住证到期了怎么续签"]),
          ("养老保险", "咨询养老保险", ["灵活就业养老保险怎么交", "养老保险断缴了能不能补", "退休年龄怎么算"]),
          ("育儿补贴", "咨询育儿补贴", ["三孩的育儿补贴怎么申请", "育儿补贴什么时候发"]),
          ("电动车上牌", "咨询电动车上牌", ["新买的电动车在哪上牌", "旧电动车过渡期是到什么时候"]),
          ("取暖补贴", "咨询取暖补贴政策", ["低保户有没有取暖补贴", "取暖费补贴标准是多少", "今年什么时候开始供暖"]),
          ("个税", "咨询个税专项附加扣除", ["个税专项附加扣除怎么填", "赡养老人扣除标准是多少"]),
          ("驾驶证", "咨询驾驶证换证", ["驾驶证到期在哪换", "外地驾照能在太原换证吗"]),
          ("人才补贴", "咨询人才政策", ["硕士来太原有没有安家费", "人才补贴怎么申请"]),
          ("学区划分", "咨询入学政策", ["今年小学入学需要什么材料", "随迁子女怎么入学"]),
          ("失业金", "咨询失业保险金", ["失业金怎么领", "失业保险金能领几个月"])]
OPENERS = ["来电人称：", "市民反映：", "工单内容：市民来电反映，", "来电人反映：", "市民来电：", "", "", "", "",
           "网友留言：", "尊敬的领导：您好！", "你好，", "领导好，我想反映个事，"]
MOODS = ["", "", "", "，有没有人管啊", "，实在受不了了", "！！", "，希望领导重视", "，已经打过好几次12345了",
         "，真是气人", "，太欺负人了"]
LEADS = ["最近", "这几天", "从上个月开始", "这段时间", "这阵子", "这两天", "近来"]
WINTER_LEADS = ["入冬以来", "自打供暖开始", "今年供暖以后"]
RESUBMIT_PREFIX = ["再次反映：", "之前反映过，", "第二次打电话了，", "重复来电：", "催办：", "上次的工单没人回复，",
                   "又来反映一次，", "到现在还没解决！"]


# ------------------------------------------------------------------ objects


def person_name(rng: random.Random) -> str:
    """A caller's name as the operator typed it."""
    s = rng.choice(SURNAMES)
    r = rng.random()
    if r < 0.45:
        return s + rng.choice(["先生", "女士"])
    if r < 0.93:
        return s + "".join(rng.choice(GIVEN) for _ in range(rng.choice([1, 2, 2])))
    return rng.choice(["匿名", "市民", "未提供"])


def phone(rng: random.Random) -> str:
    return "1" + rng.choice("3456789") + "".join(rng.choice("0123456789") for _ in range(9))


def building_names(n: int, letter: str | None) -> list[str]:
    """The ways a caller writes one building: 3号楼, 三号楼, 3栋, 3#楼, 3幢, 3座, 03栋; B座."""
    if letter:
        return [f"{letter}座", f"{letter}栋", f"{letter.lower()}座", f"{letter}号楼"]
    c = cn_number(n)
    return [f"{n}号楼", f"{c}号楼", f"{n}栋", f"{n}#楼", f"{n}#", f"{n}幢", f"{n}座", f"{n:02d}栋", f"{c}栋",
            f"{n}号"]


def compound(key: str, name: str, district: str, road: str, brand: str = "") -> Obj:
    """A compound: its name, with 小区 for some, its district or road; vague: the name without the brand."""
    forms = [name, district + name, road + name, f"{district}{road}{name}"]
    if brand:
        forms.append(name + "小区")
    vague = [name[len(brand):]] if brand else []  # 城市之光 for 万科城市之光
    return Obj(key, "compound", forms, vague, [f"{district}{road}{name}", f"{district}{name}"], district,
               extra={"road": road, "name": name, "new": bool(brand) or "期" in name})


def buildings_of(c: Obj, rng: random.Random, count: int) -> list[Obj]:
    """Buildings of a compound, numbered or lettered; the address field writes 3-2-501 too."""
    lettered = rng.random() < 0.12
    out = []
    for n in range(1, count + 1):
        letter = "ABCDEFGH"[n - 1] if lettered and n <= 8 else None
        names = building_names(n, letter)
        forms = [cf + bn for cf in c.forms for bn in names]
        vague = [bn for bn in names] + [cf + bn for cf in c.vague for bn in names]
        home = (f"{letter}座" if letter else f"{n}-{{u}}-{{r}}")
        where = [f"{w}{names[0]}{{u}}单元{{r}}室" for w in c.where] + [f"{w}{home}" for w in c.where]
        out.append(Obj(f"{c.key}/{n}", "building", forms, vague, where, c.district, parent=c.key,
                       extra={"n": n, "names": names, "compound": c}))
    return out


def firm(key: str, word: str, trade: tuple, district: str, road: str, boss: str, in_name: bool,
         brand: str = "") -> Obj:
    """A company: legal name, short name, 'X那边的Y', 'Y厂'; the boss's name and a brand that is not
    in its legal name are vague (the address field says which), brand and legal name together are not."""
    legal = f"太原市{district if in_name else ''}{word}{trade[0]}有限公司"
    short = word + trade[1]
    forms = [legal, f"山西{word}{trade[0]}有限公司" if not in_name else legal, short, f"{road}那边的{short}",
             f"{district}的{short}", f"{road}的{word}{trade[2]}", f"{word}{trade[2]}"]
    vague = [f"{word}公司", word, f"{boss[0]}老板的{trade[1]}公司", f"{boss[0]}老板那儿", f"{boss}的公司"]
    if brand:
        vague += [brand, f"{road}的{brand}"]
        forms += [f"{brand}（{legal}）", f"{brand}，就是{short}"]
    return Obj(key, "company", list(dict.fromkeys(forms)), vague, [f"{district}{road}{rng_no(key)}号"],
               district, extra={"boss": boss, "trade": trade, "word": word, "road": road})


def rng_no(key: str) -> int:
    """A stable house number for an object's address."""
    return sum(map(ord, key)) % 300 + 1


def crossing(key: str, a: str, b: str, district: str) -> Obj:
    forms = [f"{a}与{b}交叉口", f"{b}与{a}交叉口", f"{a}和{b}路口", f"{a}{b}路口", f"{b}{a}口",
             f"{a}/{b}十字路口", f"{b}和{a}的十字口"]
    return Obj(key, "crossing", forms, ["那个路口", "这个十字路口"], [f"{district}{a}与{b}交叉口"], district)


def stretch(key: str, road: str, a: str, b: str, district: str) -> Obj:
    forms = [f"{road}{a}至{b}段", f"{road}从{a}到{b}这一段", f"{a}到{b}之间的{road}", f"{road}（{b}-{a}段）",
             f"{road}{b}往{a}方向那段"]
    return Obj(key, "stretch", forms, [road, f"{road}这一段"], [f"{district}{road}（{a}至{b}）"], district)


def simple(key: str, kind: str, forms: list[str], vague: list[str], where: str, district: str) -> Obj:
    return Obj(key, kind, forms, vague, [where], district)


class World:
    """Every object of the city, and which (object, problem) pairs are used when."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.by_kind: dict[str, list[Obj]] = {}
        self.used: dict[tuple[str, str], list[datetime]] = {}
        self.bosses: set[str] = set()
        self._compounds()
        self._firms()
        self._places()
        self._settle_names()

    def add(self, o: Obj) -> Obj:
        self.by_kind.setdefault(o.kind, []).append(o)
        return o

    def boss(self) -> str:
        while True:
            b = self.rng.choice(SURNAMES) + "".join(self.rng.choice(GIVEN) for _ in range(2))
            if b not in self.bosses:
                self.bosses.add(b)
                return b

    def brand(self, trade: tuple) -> str:
        """A shop sign for some companies that meet the public: 乐动健身, 优学教育."""
        if trade[0] not in MEMBERS or self.rng.random() < 0.4:
            return ""
        return self.rng.choice(SIGNS) + trade[1]

    def _compounds(self):
        rng = self.rng
        pairs = [(b, e) for b in BRANDS for e in ESTATES]
        rng.shuffle(pairs)
        names = {(b + e, b) for b, e in pairs[:70]}
        names |= {(p + rng.choice([x for x in PLAIN_SUFFIX if x[0] != p[-1]]), "") for p in rng.sample(PLAIN, 12)}
        names |= {(t.format(CN[k]), "") for t in RESETTLEMENT for k in range(1, 4)}
        names |= {(w, "") for w in WORK_UNIT}
        for name, brand in sorted(names):
            self.compound(name, rng.choice(DISTRICTS), brand)
        self.twin_compounds = []
        for p in rng.sample([p for p in PLAIN if not any(n.startswith(p) for n, _ in names)], 4):
            name = p + rng.choice(["小区", "家园", "新村"])
            d1, d2 = rng.sample(DISTRICTS, 2)
            self.twin_compounds.append((self.compound(name, d1), self.compound(name, d2)))
        for v in VILLAGES:
            d = rng.choice(DISTRICTS)
            self.add(Obj(f"v:{v}", "village", [f"{v}村", f"{d}{v}村", f"{v}村城中村", f"{d}{v}村委会"],
                         [f"{v}", "我们村"], [f"{d}{v}村"], d))

    def compound(self, name: str, district: str, brand: str = "") -> Obj:
        """A compound and its buildings."""
        c = self.add(compound(f"c:{district}{name}", name, district, self.rng.choice(ROADS), brand))
        for b in buildings_of(c, self.rng, self.rng.randint(4, 28)):
            self.add(b)
        return c
    def _firms(self):
        rng = self.rng
        self.similar_firms = []
        for word in FIRM_WORDS:
            made = [self.add(firm(f"f:{word}{trade[1]}", word, trade, rng.choice(DISTRICTS), rng.choice(ROADS),
                                  self.boss(), False, self.brand(trade))) for trade in rng.sample(TRADES, 4)]
            self.similar_firms.append(made)
        self.twin_firms = []
        for word in rng.sample(["兴隆", "大成", "万通", "金利", "华联", "顺发", "宝丰", "康达", "鸿源", "祥和"], 8):
            trade = rng.choice(TRADES)
            d1, d2 = rng.sample(DISTRICTS, 2)
            r1, r2 = rng.sample(ROADS, 2)
            self.twin_firms.append(tuple(self.add(firm(f"f:{d}{word}{trade[1]}", word, trade, d, r, self.boss(), True))
                                         for d, r in ((d1, r1), (d2, r2))))

    def _places(self):
        rng = self.rng
        self.adjacent, self.stretches, seen = [], [], set()
        for main in rng.sample(ROADS, 24):
            a, b = rng.sample([r for r in ROADS if r != main], 2)
            pair = []
            for other in (a, b):
                if frozenset((main, other)) not in seen:
                    seen.add(frozenset((main, other)))
                    pair.append(self.add(crossing(f"x:{main}/{other}", main, other, rng.choice(DISTRICTS))))
            if len(pair) == 2:
                self.adjacent.append(tuple(pair))
        landmarks = ["南内环桥", "长风桥", "南中环桥", "亲贤街口", "学府街口", "体育路口", "火车站", "五一广场",
                     "平阳路口", "北营", "坞城路口", "龙城大街口", "晋阳桥", "许坦东街口"]
        for road in rng.sample(ROADS, 24):
            a, b, c = rng.sample(landmarks, 3)
            d = rng.choice(DISTRICTS)
            self.stretches.append((self.add(stretch(f"s:{road}:{a}-{b}", road, a, b, d)),
                                   self.add(stretch(f"s:{road}:{b}-{c}", road, b, c, d))))
        bars = BAR_NAMES
        eats = ["老张烧烤", "川渝火锅", "晋味面馆", "大串烧烤", "刘记羊杂割", "东北饺子馆", "小龙虾大排档",
                "重庆鸡公煲", "黄焖鸡", "兰州拉面", "麻辣烫"]
        for w in bars:
            r = rng.choice(ROADS)
            self.add(simple(f"shop:{w}", "shop", [f"{w}酒吧", f"{r}的{w}酒吧", f"{w}清吧", f"{w}LiveHouse"],
                            ["楼下的酒吧", "那个酒吧"], f"{r}{rng_no(w)}号{w}酒吧", rng.choice(DISTRICTS)))
        for w in eats:
            r = rng.choice(ROADS)
            self.add(simple(f"shop:{r}{w}", "shop", [f"{r}的{w}", f"{r}{w}店", f"{w}（{r}店）"],
                            [w, "楼下饭店"], f"{r}{rng_no(w)}号", rng.choice(DISTRICTS)))
        for w in ["滨河", "长风", "南宫", "五一", "迎泽公园", "龙潭公园", "汾河公园", "晋阳湖", "府东",
                  "学府公园", "体育中心", "万达", "和平", "漪汾"]:
            name = w if "公园" in w else w + "广场"
            self.add(simple(f"sq:{name}", "square", [name, name + "上", f"{name}东门", f"{name}那块空地"],
                            ["楼下广场", "小区门口空地"], name, rng.choice(DISTRICTS)))
        for n in range(1, 41):
            c = cn_number(n)
            self.add(simple(f"sch:{n}中", "school", [f"太原市第{c}中学", f"{c}中", f"{n}中", f"第{n}中学"],
                            ["孩子学校", "学校"], f"太原市第{c}中学校", rng.choice(DISTRICTS)))
        for r in rng.sample(ROADS, 14):
            self.add(simple(f"sch:{r}小学", "school", [f"{r}小学", f"{r}小", f"太原市{r}小学校"],
                            ["孩子学校", "学校"], f"{r}小学", rng.choice(DISTRICTS)))
        for full, shorts in [("山西省人民医院", ["省人民医院", "省人医"]), ("太原市中心医院", ["市中心医院"]),
                             ("山西医科大学第一医院", ["山医大一院", "医大一院"]),
                             ("山西医科大学第二医院", ["医大二院", "山医大二院"]), ("山西白求恩医院", ["白求恩医院"]),
                             ("山西省儿童医院", ["省儿童医院", "儿童医院"]), ("太原市妇幼保健院", ["市妇幼"]),
                             ("山西省肿瘤医院", ["肿瘤医院"]), ("太原市第三人民医院", ["市三院"])]:
            self.add(simple(f"h:{full}", "hospital", [full] + shorts, ["医院"], full, rng.choice(DISTRICTS)))
        for n in rng.sample(range(1, 120), 45):
            self.add(simple(f"bus:{n}", "bus", [f"{n}路公交", f"{n}路", f"{n}路车", f"{n}路公交车"],
                            ["公交车", "这趟车"], f"{n}路公交线路", rng.choice(DISTRICTS)))
        for st in ["大南门", "府东街", "体育馆", "长风街", "南内环", "西桥", "人民南路", "太原南站", "小店",
                   "亲贤", "学府街", "平阳路", "北营", "武宿", "坞城"]:
            for exit_ in rng.sample("ABCD", 2):
                self.add(simple(f"st:{st}{exit_}", "station",
                                [f"地铁{st}站{exit_}口", f"{st}地铁站{exit_}口", f"{st}站{exit_}出口"],
                                [f"{st}站", "地铁口"], f"地铁2号线{st}站{exit_}口", rng.choice(DISTRICTS)))
        for m in ["南内环", "山大", "桃园", "许坦", "北营", "坞城", "新建路", "后小河", "黄陵", "长风"]:
            self.add(simple(f"mkt:{m}", "market", [f"{m}农贸市场", f"{m}菜市场", f"{m}市场"],
                            ["菜市场", "市场"], f"{m}农贸市场", rng.choice(DISTRICTS)))
        for word in FIRM_WORDS[:30]:
            proj = rng.choice(BRANDS) + rng.choice(ESTATES) + "项目"
            r = rng.choice(ROADS)
            self.add(simple(f"site:{word}{proj}", "site", [f"{proj}工地", f"{r}{proj}工地", f"{r}的{proj}"],
                            [f"{r}那个工地", "工地", "对面工地"], f"{r}{proj}", rng.choice(DISTRICTS)))

    def _settle_names(self):
        """A name two objects share says neither alone: it becomes vague for both."""
        every = [o for objs in self.by_kind.values() for o in objs]
        count = Counter(f for o in every for f in set(o.forms))
        places = Counter(w for o in every for w in set(o.where))
        for o in every:
            o.vague = o.vague + [f for f in o.forms if count[f] > 1]
            o.forms = [f for f in o.forms if count[f] == 1]
            o.where = [w for w in o.where if places[w] == 1]
            if not o.where:
                o.vague = []
            assert o.forms, o.key

    def free(self, o: Obj, prob: str, at: datetime, gap: int = 120) -> bool:
        """Whether no one else raised this object's problem within `gap` days."""
        return all(abs((at - t).days) > gap for t in self.used.get((o.key, prob), []))

    def take(self, o: Obj, prob: str, at: datetime) -> None:
        self.used.setdefault((o.key, prob), []).append(at)


# ------------------------------------------------------------------ writing rows

GENERIC = {"building": ["我们楼", "我家这栋楼", "我住的这栋", "本楼"], "compound": ["我们小区", "小区", "我家小区"],
           "company": ["公司", "我们单位", "老板"], "village": ["我们村"], "site": ["家对面的工地"],
           "school": ["孩子学校"], "shop": ["楼下那家店"], "square": ["楼下广场"]}
KEYWORDS = ["暖气", "电梯", "工资", "物业", "噪音", "施工", "漏水", "停车"]


def fill(rng: random.Random, text: str) -> str:
    """The numbers of a saying: a temperature, an amount, days, months."""
    slots = {"t": rng.randint(11, 17), "a": rng.choice([300, 800, 1500, 2680, 4000, 12000, 35000]),
             "d": rng.randint(3, 25), "n": rng.randint(2, 8), "p": rng.choice(["一倍", "百分之三十", "快一半"]),
             "f": rng.choice(["1.2", "1.5", "0.9"]), "g": rng.choice(["2.3", "2.8", "3.5"]),
             "q": rng.randint(5, 20), "y": rng.randint(2, 7), "mo": rng.randint(1, 12), "s": rng.randint(8, 15),
             "u": rng.randint(1, 6), "r": rng.choice([101, 202, 301, 502, 601, 1102, 1503, 1801, 2202])}
    return text.format(**slots)


def mention(rng: random.Random, o: Obj) -> tuple[str, str]:
    """The object's name in the text and the address field, together saying which object it is."""
    vague = o.vague + GENERIC.get(o.kind, [])
    if o.where and vague and rng.random() < 0.28:
        return rng.choice(vague), fill(rng, rng.choice(o.where))
    r = rng.random()
    addr = (fill(rng, rng.choice(o.where)) if o.where and r < 0.55 else
            "" if r < 0.75 else o.district if r < 0.9 else "太原市" + o.district)
    return rng.choice(o.forms), addr


def compose(rng: random.Random, prob: str, m: str) -> str:
    """One writer's text: an opener, the saying, details, an ask, a mood; the writer's own choice of each."""
    p = P[prob]
    say = rng.choice(p["say"])
    if say.startswith("{m}") and rng.random() < 0.4:
        say = "{m}" + rng.choice(LEADS + (WINTER_LEADS if p["season"] == "winter" else [])) + say[3:]
    text = rng.choice(OPENERS) + fill(rng, say.replace("{m}", m))
    details = rng.sample(p["detail"], rng.choice([0, 1, 1, 2]))
    if details:
        text += "，" + "，".join(fill(rng, d) for d in details)
    text += "。"
    if rng.random() < 0.7:
        text += rng.choice(p["ask"]) + rng.choice(["。", "！", "，谢谢。", "。"])
    return text + rng.choice(MOODS).lstrip("，")


def roughen(rng: random.Random, text: str) -> str:
    """What typing does: a pinyin typo, digits of the other width, half-width punctuation."""
    if rng.random() < 0.12:
        hits = [k for k in TYPOS if k in text]
        if hits:
            k = rng.choice(hits)
            text = text.replace(k, TYPOS[k], 1)
    if rng.random() < 0.12:
        text = text.translate(FULL)
    if rng.random() < 0.08:
        text = text.translate(str.maketrans("，。：！（）", ",.:!()"))
    return text


def title(rng: random.Random, prob: str, m: str) -> str:
    p = P[prob]
    r = rng.random()
    if r < 0.45:
        return rng.choice(p["titles"])
    if r < 0.75:
        return f"关于{m}{rng.choice(p['titles'])}的问题"
    if r < 0.85:
        return f"{m}{rng.choice(p['titles'])}"
    return rng.choice(["投诉", "求助", "市民来电", "反映问题", "投诉举报", "咨询"])


def category(rng: random.Random, prob: str) -> str:
    """The operator's category: mostly the problem's, sometimes a wrong one or 其他."""
    if rng.random() < 0.88:
        return P[prob]["category"]
    return rng.choice([P[k]["category"] for k in P] + ["其他/其他", "综合/投诉"])


def when(rng: random.Random, prob: str, near: datetime | None = None, spread: int = 0) -> datetime:
    """A day in the season of the problem, near `near` when given."""
    for _ in range(200):
        if near is None:
            at = START + timedelta(seconds=rng.randint(0, int((END - START).total_seconds())))
        else:
            at = near + timedelta(days=rng.randint(0, spread), seconds=rng.randint(0, 86399))
        if START <= at <= END and (P[prob]["season"] != "winter" or in_winter(at)):
            return at.replace(hour=rng.choice(range(7, 23)), minute=rng.randint(0, 59), second=rng.randint(0, 59))
    if near is not None:
        return near  # the episode's own day, at the end of a season or of the table
    raise ValueError("no day for " + prob)


def in_winter(at: datetime) -> bool:
    """Taiyuan's heating season, November 15 to March 15."""
    return (at.month, at.day) >= (11, 15) or (at.month, at.day) <= (3, 15)


@dataclass
class Person:
    key: str
    name: str
    phone: str


class Writer:
    """Makes rows: a person's first complaint, their re-submissions, form letters."""

    def __init__(self, rng: random.Random):
        self.rng, self.rows, self.people = rng, [], 0

    def person(self) -> Person:
        self.people += 1
        return Person(f"p{self.people:05d}", person_name(self.rng), phone(self.rng))

    def row(self, who: Person, at: datetime, prob: str | None, m: str, addr: str, content: str,
            matter: str | None, head: str | None = None, cat: str | None = None) -> dict:
        rng = self.rng
        r = {"title": head or title(rng, prob, m), "name": who.name, "phone": who.phone, "address": addr,
             "category": cat or category(rng, prob), "content": roughen(rng, content),
             "created_at": at, "_matter": matter, "_person": who.key}
        self.rows.append(r)
        return r

    def complaint(self, who: Person, o: Obj, prob: str, at: datetime, matter: str | None,
                  resubmit: float = RESUBMIT) -> None:
        """A person's complaint in their own words, and maybe their re-submissions of it."""
        rng = self.rng
        m, addr = mention(rng, o)
        first = self.row(who, at, prob, m, addr, compose(rng, prob, m), matter)
        extra = 0 if rng.random() >= resubmit else rng.choice([1, 1, 2, 3])
        for _ in range(extra):
            at = at + timedelta(days=rng.randint(1, 25), hours=rng.randint(0, 12))
            if at > END:
                break
            if rng.random() < 0.5:
                content = rng.choice(RESUBMIT_PREFIX) + first["content"]
            else:
                content = rng.choice(RESUBMIT_PREFIX) + f"{m}{rng.choice(P[prob]['titles'])}的事到现在还没人处理。"
            self.row(who, at, prob, m, addr, content, matter, head=first["title"], cat=first["category"])

    def form_letter(self, signers: list[Person], o: Obj, prob: str, at: datetime, spread: int,
                    matter: str, letter: str | None = None) -> str:
        """One letter signed by several people, each filing it with their name; returns the letter."""
        rng = self.rng
        m = rng.choice(o.forms)
        letter = letter or FORM_LETTER.format(
            who=WHO.get(o.kind, "附近的居民"), say=fill(rng, rng.choice(P[prob]["say"]).replace("{m}", "{{m}}")),
            ask=rng.choice(P[prob]["ask"]), detail=fill(rng, rng.choice(P[prob]["detail"])))
        text = letter.format(m=m)
        head = f"关于{m}{rng.choice(P[prob]['titles'])}的联名信"
        for who in signers:
            sign = rng.choice(["联名人：{n}，电话：{p}", "反映人：{n} {p}", "业主{n}（{p}）", "{n}"])
            self.row(who, when(rng, prob, at, spread), prob, m, fill(rng, rng.choice(o.where)) if o.where else "",
                     text + sign.format(n=who.name, p=who.phone), matter, head=head)
        return letter

    def policy(self, at: datetime) -> None:
        rng = self.rng
        topic, head, asks = rng.choice(POLICY)
        text = rng.choice(["", "来电人咨询：", "市民咨询", "工单内容：市民来电咨询，", "你好，"]) + rng.choice(asks)
        text += rng.choice(["？", "。", "，请给个答复。", "，谢谢。", "，网上没查到。"])
        self.row(self.person(), at, None, "", rng.choice(["", "", "太原市", rng.choice(DISTRICTS)]), text, None,
                 head=rng.choice([head, "咨询", "政策咨询", topic]), cat="咨询/政策咨询")


FORM_LETTER = ("尊敬的领导：我们是{{m}}{who}，现联名反映：{say}，{detail}。多次沟通无果，{ask}。"
               "以上情况属实，望领导重视！")
WHO = {"building": "的住户", "compound": "的业主", "company": "的员工", "village": "的村民", "school": "的学生家长"}


# ------------------------------------------------------------------ matters and the rest

GAP = 150  # days between two episodes of one object's problem, and around every single complaint
PAIRED = {"building": [("heating", "lift"), ("lift", "leak"), ("heating", "charging"), ("gas", "throwing")],
          "company": [("wages", "insurance")], "site": [("night_noise", "dust")],
          "compound": [("propfee", "parking"), ("certificate", "propfee"), ("water", "garbage")],
          "shop": [("bar_noise", "fumes")], "school": [("school_fee", "school_food")],
          "crossing": [("signal", "flooding")], "village": [("demolition", "village_sewage")]}


@dataclass
class Matter:
    key: str
    obj: Obj
    prob: str
    at: datetime
    size: int = 0
    letter: str | None = None


BAR_NAMES = ("夜猫子", "蓝调", "后街", "老城故事", "MOJO", "一号码头", "微醺", "青柠", "回声", "码头")
MAKERS = {"纸制品", "机械制造", "电子科技", "食品", "化工", "建材"}  # trades that can pollute water
MEMBERS = {"体育文化发展", "教育咨询", "餐饮管理", "家政服务", "汽车销售服务"}  # trades that sell prepaid cards


def fits(o: Obj, prob: str) -> bool:
    """Whether the problem can happen to the object: a factory pollutes, a gym sells cards, a new estate is late."""
    if P[prob]["kind"] != o.kind:
        return False
    if prob == "sewage":
        return o.extra["trade"][0] in MAKERS
    if prob == "prepaid":
        return o.extra["trade"][0] in MEMBERS
    if prob == "delivery":
        return o.extra.get("new", False)
    if prob == "fumes":
        return not o.key.endswith(BAR_NAMES)
    return True


def problems_of(kind: str) -> list[str]:
    return [k for k, p in P.items() if p["kind"] == kind]


def matter_sizes(rng: random.Random, count: int, hot: int) -> list[int]:
    """People per matter: `hot` of five or more (a tenth of them 20-60), the rest two to four."""
    out = [rng.randint(20, 60) if rng.random() < BIG_SHARE else min(19, 5 + int(rng.expovariate(1 / 3.5)))
           for _ in range(hot)]
    out += rng.choices([2, 3, 4], [0.55, 0.3, 0.15], k=count - hot)
    rng.shuffle(out)
    return out


class Planner:
    """Chooses matters: hard-negative groups first, then any object and problem still free."""

    def __init__(self, rng: random.Random, world: World):
        self.rng, self.world, self.matters, self.hard = rng, world, [], {k: [] for k in HARD_COUNTS}

    def new(self, o: Obj, prob: str, at: datetime) -> Matter:
        self.world.take(o, prob, at)
        m = Matter(f"m{len(self.matters) + 1:04d}:{prob}:{o.key}:{at:%Y%m%d}", o, prob, at)
        self.matters.append(m)
        return m

    def pair(self, kind: str, a: tuple, b: tuple) -> bool:
        """Two matters that must not be merged, if both are free; recorded under `kind`."""
        w = self.world
        if a[:2] == b[:2] and abs((a[2] - b[2]).days) <= GAP:
            return False
        if not (fits(*a[:2]) and fits(*b[:2]) and w.free(*a, gap=GAP) and w.free(*b, gap=GAP)):
            return False
        ma, mb = self.new(*a), self.new(*b)
        self.hard[kind].append((ma.key, mb.key))
        return True

    def hard_groups(self, scale: float) -> None:
        """Each kind of hard negative, as many pairs as HARD_COUNTS says at this scale."""
        want = {k: max(1, round(n * scale)) for k, n in HARD_COUNTS.items()}
        makers = {"sibling_buildings": self.siblings, "similar_company_names": self.similar,
                  "name_in_two_districts": self.twins, "adjacent_intersections": self.adjacent,
                  "two_stretches": self.stretches, "other_problem": self.other_problem,
                  "other_episode": self.other_episode, "form_letter_other_object": self.letter_pair}
        for kind, n in want.items():
            for _ in range(n * 30):
                if len(self.hard[kind]) >= n:
                    break
                makers[kind]()

    def siblings(self) -> None:
        rng, w = self.rng, self.world
        c = rng.choice(w.by_kind["compound"])
        blocks = [b for b in w.by_kind["building"] if b.parent == c.key]
        prob = rng.choice(["heating", "heating", "heating", "lift", "leak", "gas", "charging"])
        a, b = rng.sample(blocks, 2)
        at = when(rng, prob)
        self.pair("sibling_buildings", (a, prob, at), (b, prob, when(rng, prob, at, 5)))

    def similar(self) -> None:
        rng = self.rng
        a, b = rng.sample(rng.choice(self.world.similar_firms), 2)
        prob = rng.choice(["wages", "wages", "insurance", "sewage", "prepaid"])
        at = when(rng, prob)
        self.pair("similar_company_names", (a, prob, at), (b, prob, when(rng, prob, at, 20)))

    def twins(self) -> None:
        rng, w = self.rng, self.world
        if rng.random() < 0.7:
            a, b = rng.choice(w.twin_firms)
            prob = rng.choice(["wages", "insurance", "prepaid"])
        else:
            a, b = rng.choice(w.twin_compounds)
            prob = rng.choice(["propfee", "parking", "water", "garbage"])
        at = when(rng, prob)
        self.pair("name_in_two_districts", (a, prob, at), (b, prob, when(rng, prob, at, 20)))

    def adjacent(self) -> None:
        rng = self.rng
        a, b = rng.choice(self.world.adjacent)
        prob = rng.choice(["signal", "signal", "flooding"])
        at = when(rng, prob)
        self.pair("adjacent_intersections", (a, prob, at), (b, prob, when(rng, prob, at, 10)))

    def stretches(self) -> None:
        rng = self.rng
        a, b = rng.choice(self.world.stretches)
        prob = rng.choice(problems_of("stretch"))
        at = when(rng, prob)
        self.pair("two_stretches", (a, prob, at), (b, prob, when(rng, prob, at, 10)))

    def other_problem(self) -> None:
        rng, w = self.rng, self.world
        kind = rng.choice(list(PAIRED))
        pa, pb = rng.choice(PAIRED[kind])
        o = rng.choice(w.by_kind[kind])
        at = when(rng, pa)
        self.pair("other_problem", (o, pa, at), (o, pb, when(rng, pb, at, 30)))

    def other_episode(self) -> None:
        rng, w = self.rng, self.world
        prob = rng.choice(["heating", "heating", "wages", "lift", "water", "night_noise", "dance", "bar_noise",
                           "flooding", "school_food"])
        o = rng.choice(w.by_kind[P[prob]["kind"]])
        a, b = when(rng, prob), when(rng, prob)
        if abs((a - b).days) >= 200:
            self.pair("other_episode", (o, prob, min(a, b)), (o, prob, max(a, b)))

    def letter_pair(self) -> None:
        rng, w = self.rng, self.world
        prob = rng.choice(["propfee", "parking", "certificate", "wages", "delivery"])
        a, b = rng.sample(w.by_kind[P[prob]["kind"]], 2)
        at = when(rng, prob)
        if self.pair("form_letter_other_object", (a, prob, at), (b, prob, when(rng, prob, at, 60))):
            self.matters[-1].letter = self.matters[-2].letter = "shared"

    def fill(self, count: int, sizes: list[int]) -> None:
        """Random matters up to `count`; then sizes handed out, 20-60 only to problems many can share."""
        rng, w = self.rng, self.world
        big = [k for k, p in P.items() if p["big"]]
        while len(self.matters) < count:
            prob = rng.choice(big if rng.random() < 0.55 else list(P))
            o, at = rng.choice(w.by_kind[P[prob]["kind"]]), when(rng, prob)
            if fits(o, prob) and w.free(o, prob, at, gap=GAP):
                self.new(o, prob, at)
        sizes = sorted(sizes, reverse=True)
        fit = sorted(self.matters, key=lambda m: (not P[m.prob]["big"], rng.random()))
        for m, n in zip(fit, sizes):
            m.size = max(n, 3) if m.letter else n


def make(rows: int = 8000, seed: int = 7) -> Hotline:
    """The table: matters by construction, then single complaints, one-person issues and policy questions."""
    rng = random.Random(seed)
    world, scale = World(rng), rows / 8000
    planner = Planner(rng, world)
    planner.hard_groups(scale)
    count, hot = round(rows * MATTERS), round(rows * HOT)
    planner.fill(count, matter_sizes(rng, count, hot))
    writer = Writer(rng)
    letters: dict[str, str] = {}
    for m in planner.matters:
        write_matter(rng, writer, m, letters)
    for _ in range(round(rows * POLICY_SHARE)):
        writer.policy(when(rng, "wages"))
    for _ in range(round(rows * ONE_PERSON_SHARE)):
        single(rng, world, writer, resubmit=1.0)
    if len(writer.rows) > rows:
        raise ValueError(f"{len(writer.rows)} rows of matters and the rest exceed {rows}")
    while len(writer.rows) < rows:
        single(rng, world, writer, resubmit=0.0)
    return table(writer.rows[:rows], planner.hard)


def write_matter(rng: random.Random, writer: Writer, m: Matter, letters: dict[str, str]) -> None:
    """Each person of a matter writes once in their own words; a group may sign one letter instead."""
    spread = 12 if m.size < 5 else min(50, 12 + m.size)
    people = [writer.person() for _ in range(m.size)]
    signers = []
    if m.letter:
        signers = people[:max(2, m.size // 2)]
    elif m.size >= 6 and rng.random() < 0.3:
        signers = people[:rng.randint(3, max(3, m.size // 2))]
    if signers:
        shared = letters.get(m.prob) if m.letter else None
        letter = writer.form_letter(signers, m.obj, m.prob, m.at, spread, m.key, shared)
        if m.letter:
            letters[m.prob] = letter
    for who in people[len(signers):]:
        writer.complaint(who, m.obj, m.prob, when(rng, m.prob, m.at, spread), m.key)


def single(rng: random.Random, world: World, writer: Writer, resubmit: float) -> None:
    """One person's complaint about an object and problem no one else raises in that season."""
    while True:
        prob = rng.choice(list(P))
        o, at = rng.choice(world.by_kind[P[prob]["kind"]]), when(rng, prob)
        if fits(o, prob) and world.free(o, prob, at, gap=GAP):
            world.take(o, prob, at)
            writer.complaint(writer.person(), o, prob, at, None, resubmit=resubmit)
            return


def matter_parts(key: str) -> tuple[str, str, str]:
    """A matter key's problem, object key and episode day (YYYYMMDD)."""
    _, prob, rest = key.split(":", 2)
    obj, day = rest.rsplit(":", 1)
    return prob, obj, day


def table(raw: list[dict], hard: dict) -> Hotline:
    """Ids 1..n in created_at order, and the truth beside the rows."""
    raw = sorted(raw, key=lambda r: (r["created_at"], r["_person"]))
    rows, matter, person = [], {}, {}
    for i, r in enumerate(raw, 1):
        matter[i], person[i] = r["_matter"], r["_person"]
        rows.append({"id": i, "title": r["title"], "name": r["name"], "phone": r["phone"], "address": r["address"],
                     "category": r["category"], "content": r["content"],
                     "created_at": r["created_at"].strftime("%Y-%m-%d %H:%M:%S")})
    return Hotline(rows, matter, person, hard)
