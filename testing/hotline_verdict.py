"""A seventh labelled 12345-hotline table: 鹤川市, an invented north-eastern city, written blind.

How it is made. 鹤川市 has six districts (鹤北区 川东区 白桦区 柳条区 新屯区 经开区) and forty
invented roads. Its objects are compounds and their buildings, companies, construction sites,
intersections, stretches of road, bus lines and stops, schools, markets, barbecue stalls, gyms,
training schools, parcel stations, parks, hospitals and villages; every object has a list of
surface names (full, short, with or without the district, 3号楼/三号楼/3栋/3#楼/3幢, the boss's
name, 甲路与乙路交叉口/甲乙路口/甲路和乙路那个十字路口/甲路乙路交汇处) and no name names two
objects except the deliberate "two districts" twins. A matter is one object + one problem + one
episode of at most 58 days, written by >= 2 different people; its first-hand rows are in seven
styles (operator 工单, web message, letter, terse, 东北话, app form, spoken), with typos outside
names, half-width punctuation, full-width digits, a second problem mentioned in passing, and
for residents sometimes only the address field saying which building or compound
("我们楼", "我们小区"). Some people re-submit (same phone, name sometimes shortened to 王先生);
some matters have a form letter, one text signed by several of its people. Outside matters:
one person's issue (an object + problem nobody else writes about) with 0-3 re-submissions, and
policy questions with no object (医保报销, 落户, 公积金提取, 社保转移 ...). Heating matters lie
in the heating season, barbecue and square-dance ones in summer. Hard negatives come in pairs of
matters: sibling buildings of one compound with one problem the same week, similar company
names, one name in two districts, adjacent intersections on one road, two stretches of one
road (these four with one problem, starting within 30 days of each other), one object with
another problem at the same time (starting within 3 days), one object and problem in another
episode >= 120 days after the first ends. ids follow created_at. Everything is drawn from random.Random(seed).

Figures of make(8000, 7), measured (tests/test_hotline_verdict.py checks them):
- rows: 8000
- days: 548
- objects: 1267
- people: 6509
- matters: 700
- matters_5plus: 252
- matters_20plus: 40
- largest_matter: 60
- matter_rows: 5514
- form_letters: 37
- form_rows: 186
- repeat_rows: 1375
- single_rows: 1198
- policy_rows: 600
- masked_phones: 636
- no_name_rows: 771
- hard_sibling_building: 20
- hard_similar_company: 14
- hard_two_districts: 12
- hard_adjacent_intersection: 12
- hard_road_stretch: 10
- hard_other_problem: 24
- hard_other_episode: 24
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

CITY = "鹤川市"
DISTRICTS = ["鹤北区", "川东区", "白桦区", "柳条区", "新屯区", "经开区"]
START = datetime(2023, 3, 1)
DAYS = 548
MAX_EPISODE = 58
ROADS = [
    "长白大街",
    "红旗街",
    "建设路",
    "民主街",
    "太平路",
    "胜利大街",
    "工农路",
    "铁西街",
    "卫星路",
    "黄河路",
    "友谊大街",
    "解放路",
    "人民大街",
    "中山路",
    "新华街",
    "文化路",
    "青年街",
    "团结路",
    "北岭大街",
    "松江路",
    "牡丹街",
    "丁香路",
    "榆林街",
    "白山路",
    "兴安大街",
    "鹤翔路",
    "滨河街",
    "站前路",
    "育才街",
    "学府路",
    "农林街",
    "航空路",
    "燎原街",
    "东风路",
    "向阳大街",
    "红星路",
    "曙光街",
    "前进路",
    "光华街",
    "振兴大路",
]
FIRST = "金银富康安华瑞锦翠碧嘉盛龙凤祥泰鑫宏福丰和德恒润天江林桦枫柏桂梅兰御景雅馨怡欣佳明阳春秋雪东"
SECOND = (
    "源达通隆业发城苑府庭湾园山水河湖桥海峰原川星月辉阁都邦鼎晟昌旺宇航程远顺利新诚信鸿"
)
HOMOPHONE = {
    "宏": "鸿",
    "达": "大",
    "鑫": "新",
    "盛": "胜",
    "华": "桦",
    "安": "岸",
    "丰": "峰",
    "祥": "翔",
    "瑞": "锐",
    "隆": "龙",
    "源": "元",
    "泰": "太",
    "恒": "衡",
    "福": "富",
    "明": "铭",
    "通": "同",
    "昌": "长",
    "兴": "星",
    "利": "力",
    "信": "鑫",
    "新": "欣",
}
SURNAMES = "王李张刘陈杨赵黄周吴徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏付方白邹孟熊秦邱尹薛闫段雷侯史陶贺顾毛郝龚邵万严武戴孔汤"
GIVEN = "国建华志明永春秀兰玉凤英丽红军海涛伟刚勇军静敏燕霞桂芳淑琴德发文强福荣宝山平亮杰涛鹏飞丹颖晶雪梅冬冰娜婷宇浩然子轩欣怡"
CN = "零一二三四五六七八九"
TOWNS = ["靠山镇", "双岔镇", "红岩镇", "三道镇", "五棵树镇", "大岭镇"]
INDUSTRY = [
    "建材",
    "物流",
    "食品",
    "机械",
    "服装",
    "商贸",
    "劳务",
    "汽配",
    "包装",
    "制药",
    "农业科技",
    "印刷",
]
SIMILAR_INDUSTRY = [
    ("建材", "建筑"),
    ("物流", "物业"),
    ("食品", "实业"),
    ("机械", "机电"),
    ("商贸", "贸易"),
    ("服装", "服饰"),
    ("包装", "包材"),
    ("印刷", "印务"),
]
COMPOUND_SUFFIX = ["花园", "小区", "家园", "新村", "嘉苑", "名都", "雅居", "佳园"]

# problem key: (label, category, season, phrases, demand); phrases may hold {o} for the object.
PROBLEMS: dict[str, tuple[str, str, str, list[str], str]] = {
    "heating": (
        "暖气不热",
        "城乡建设/供热",
        "heat",
        [
            "暖气不热，屋里才{t}度",
            "家里暖气温乎乎的跟没烧一样",
            "供暖都{d}了暖气片还是凉的",
            "室温一直上不去，老人孩子都冻感冒了",
            "暖气不热，给热力公司打了好几次电话也没人来",
            "暖器冰凉，在屋里穿棉袄都冷",
            "今年供暖温度不达标，测了才{t}度",
        ],
        "要求尽快达标供热",
    ),
    "lift": (
        "电梯故障",
        "城乡建设/电梯",
        "",
        [
            "电梯三天两头坏",
            "电梯又停了，老人上不去楼",
            "电梯关人了，太危险了",
            "电梯异响，上下晃得厉害",
            "电梯坏了{d}没人修",
        ],
        "请尽快把电梯修好",
    ),
    "leak": (
        "楼顶漏水",
        "城乡建设/房屋",
        "",
        [
            "楼顶漏水，一下雨屋里就滴水",
            "顶楼漏雨，墙都泡了",
            "外墙渗水，屋里墙皮都长毛了",
            "楼顶防水层坏了，雨天往下漏",
        ],
        "要求维修楼顶防水",
    ),
    "crack": (
        "墙体开裂",
        "城乡建设/房屋",
        "",
        [
            "楼体墙面裂了好几道缝",
            "外墙开裂掉皮，住着害怕",
            "墙皮大块脱落把车砸了",
            "楼墙上的裂缝越来越大",
        ],
        "请派人鉴定一下安全",
    ),
    "addlift": (
        "加装电梯",
        "城乡建设/老旧小区改造",
        "",
        [
            "想加装电梯，一楼住户不同意卡住了",
            "加装电梯的申请交了半年没动静",
            "加装电梯施工停了{d}了",
            "加装电梯的费用分摊谈不拢",
        ],
        "希望协调加装电梯",
    ),
    "sewer": (
        "下水道返臭",
        "城乡建设/排水",
        "",
        [
            "下水道堵了往上返水",
            "一楼下水返臭味熏死人",
            "化粪池满了往外冒",
            "下水管道堵了{d}，物业说不归他们管",
        ],
        "请尽快疏通",
    ),
    "property": (
        "物业不作为",
        "住房保障/物业",
        "",
        [
            "物业不作为，垃圾堆了好几天没人清",
            "物业费涨了服务一点没有",
            "物业天天找不着人",
            "楼道灯坏了物业不修，垃圾也不清",
        ],
        "要求物业整改",
    ),
    "gate": (
        "门禁损坏",
        "住房保障/物业",
        "",
        [
            "小区门禁坏了好几个月，谁都能进",
            "门禁卡收费还不好使",
            "大门道闸不抬杆，车进不去",
            "门禁系统瘫了，外卖快递随便进",
        ],
        "请督促物业修门禁",
    ),
    "gas": (
        "燃气问题",
        "城乡建设/燃气",
        "",
        [
            "燃气管道有股味，怕出事",
            "燃气公司入户安检乱收费",
            "燃气表不走字还扣费",
            "天然气停了{d}了，饭都做不了",
        ],
        "请燃气公司来处理",
    ),
    "illegal": (
        "违章建筑",
        "城市管理/违建",
        "",
        [
            "有人在楼下私搭乱建",
            "一楼住户扩建院子把绿地占了",
            "楼顶有人加盖阳光房",
            "有人在小区里盖了个小仓房",
        ],
        "要求拆除违建",
    ),
    "parking": (
        "停车乱收费",
        "住房保障/物业",
        "",
        [
            "小区停车乱收费，一个月要三百",
            "地库车位只卖不租",
            "物业在消防通道上划车位收钱",
        ],
        "要求规范收费",
    ),
    "wage": (
        "拖欠工资",
        "劳动保障/欠薪",
        "",
        [
            "我在{o}上班，公司拖欠工资{m}个月了",
            "{o}拖欠我们{m}个月工资，一共{money}",
            "{o}老板跑了，工资没发",
            "{o}欠薪{m}个月，找老板就说没钱",
            "{o}离职了工资一直不给结",
        ],
        "要求支付拖欠工资",
    ),
    "social": (
        "不缴社保",
        "劳动保障/社保",
        "",
        [
            "我在{o}上班，公司不给交社保",
            "{o}社保断缴了{m}个月",
            "{o}每月扣了社保的钱却没交",
            "{o}入职一年了也不给上保险",
        ],
        "要求补缴社保",
    ),
    "pollution": (
        "排污异味",
        "生态环境/大气",
        "",
        [
            "厂子往外排黑烟",
            "晚上偷排污水，味大得很",
            "厂里气味刺鼻，窗户都不敢开",
            "烟囱冒黄烟，呛得人嗓子疼",
        ],
        "请环保部门查处",
    ),
    "site_wage": (
        "拖欠农民工工资",
        "劳动保障/欠薪",
        "",
        [
            "我们在{o}干活，干完了包工头不给钱",
            "{o}拖欠农民工工资{money}",
            "在{o}干了{m}个月，一分钱没拿到",
            "{o}项目部拖欠我们工钱，找谁都推",
        ],
        "要求支付农民工工资",
    ),
    "night_noise": (
        "夜间施工噪音",
        "生态环境/噪声",
        "",
        [
            "晚上{h}还在施工",
            "半夜打桩吵得睡不着",
            "天天夜里施工，搅拌车轰轰的",
            "夜间施工扰民，孩子没法睡觉",
        ],
        "请制止夜间施工",
    ),
    "dust": (
        "工地扬尘",
        "生态环境/大气",
        "",
        [
            "工地扬尘大，土方没有苫盖",
            "土堆没盖网，一刮风全是灰",
            "工地出口不冲车，路上全是泥",
            "工地拆迁不洒水，灰大得睁不开眼",
        ],
        "请督促工地降尘",
    ),
    "muck": (
        "渣土车",
        "城市管理/渣土",
        "",
        [
            "渣土车一路撒土",
            "渣土车半夜跑，路上全是泥",
            "渣土车不苫盖还超速",
            "拉土的大车闯红灯",
        ],
        "请管管渣土车",
    ),
    "light": (
        "信号灯故障",
        "交通运输/信号灯",
        "",
        [
            "红绿灯坏了好几天",
            "信号灯绿灯时间太短，老人过不去",
            "左转灯配时不合理，堵一长串",
            "信号灯一直黄灯闪",
        ],
        "请交警部门调整",
    ),
    "jam": (
        "路口拥堵",
        "交通运输/拥堵",
        "",
        ["早晚高峰堵死了", "路口天天堵，没人指挥", "路口乱停车堵得过不去"],
        "请疏导交通",
    ),
    "ponding": (
        "路口积水",
        "城乡建设/排水",
        "",
        ["一下雨就积水，车都熄火了", "雨后积水半米深", "排水口堵了，一下雨就淹"],
        "请疏通排水",
    ),
    "pothole": (
        "路面坑洼",
        "城乡建设/道路",
        "",
        [
            "路面坑坑洼洼",
            "路上有个大坑，晚上骑车摔了",
            "路面塌陷了一块",
            "路面破得不成样子，车都开不了",
        ],
        "请尽快修路",
    ),
    "roadwork": (
        "道路施工",
        "城乡建设/道路",
        "",
        [
            "道路施工围挡好几个月不撤",
            "路挖开了就没人管了",
            "修路工期一拖再拖",
            "施工占了半幅路，天天堵",
        ],
        "请加快施工",
    ),
    "lamp": (
        "路灯不亮",
        "城市管理/路灯",
        "",
        ["路灯不亮，一到晚上黑乎乎的", "整条路的路灯都坏了", "路灯白天亮晚上不亮"],
        "请修路灯",
    ),
    "manhole": (
        "井盖缺失",
        "城市管理/市政设施",
        "",
        ["井盖丢了好危险", "井盖松了车一过就响", "井盖塌了个窟窿"],
        "请尽快补上井盖",
    ),
    "interval": (
        "公交班次少",
        "交通运输/公交",
        "",
        ["等车得四十分钟", "末班车提前收车", "早高峰车太少挤不上去", "发车间隔太长"],
        "请增加班次",
    ),
    "driver": (
        "公交司机态度",
        "交通运输/公交",
        "",
        ["司机不等人就开走了", "司机态度恶劣骂人", "司机开车打电话", "司机不进站停车"],
        "请教育司机",
    ),
    "stop_broken": (
        "站台损坏",
        "交通运输/公交",
        "",
        ["站牌倒了没人扶", "候车亭玻璃碎了一地", "站台座椅坏了"],
        "请修复站台",
    ),
    "stop_moved": (
        "站点迁移",
        "交通运输/公交",
        "",
        ["站点挪远了，老人走不过去", "站点突然取消了", "新站点设在路口特别危险"],
        "希望恢复原站点",
    ),
    "school_jam": (
        "学校门口拥堵",
        "交通运输/拥堵",
        "",
        [
            "放学的时候门口堵得水泄不通",
            "接孩子的家长车乱停",
            "学校门口没有护学岗，太乱了",
        ],
        "请加强疏导",
    ),
    "fee": (
        "学校乱收费",
        "教育/收费",
        "",
        ["学校收资料费", "强制订校服还挺贵", "老师让交班费"],
        "要求退还违规收费",
    ),
    "canteen": (
        "学校食堂",
        "教育/食品安全",
        "",
        ["学校食堂饭菜质量太差", "孩子在食堂吃完拉肚子", "食堂饭菜有头发"],
        "请查一查食堂",
    ),
    "occupy": (
        "占道经营",
        "城市管理/占道",
        "",
        ["摊贩占道经营，车过不去", "早市摊位摆到马路上", "门口占道卖菜，堵得死死的"],
        "请城管管一管",
    ),
    "hygiene": (
        "市场卫生差",
        "市场监管/卫生",
        "",
        ["垃圾遍地没人清", "臭气熏天，苍蝇乱飞", "污水横流"],
        "请整治卫生",
    ),
    "bbq_noise": (
        "烧烤噪音",
        "生态环境/噪声",
        "summer",
        ["半夜喝酒划拳吵闹", "烧烤摊开到凌晨两点", "每天晚上吵到{h}，根本睡不了"],
        "请管管噪音",
    ),
    "smoke": (
        "烧烤油烟",
        "生态环境/大气",
        "summer",
        ["油烟直往楼里灌", "烧烤的烟熏得窗户都不敢开", "油烟没净化直排"],
        "请整治油烟",
    ),
    "refund": (
        "跑路退费",
        "市场监管/消费",
        "",
        [
            "{o}关门跑路了，卡里还有{money}",
            "{o}突然停课不退费",
            "{o}老板联系不上了，办的卡退不了",
            "在{o}交了{money}，现在人去楼空",
        ],
        "要求退费",
    ),
    "express_fee": (
        "驿站收费",
        "邮政/快递",
        "",
        ["{o}取件还要收钱", "{o}不送货上门还收保管费", "{o}超时收费"],
        "请规范收费",
    ),
    "express_lost": (
        "快递丢失",
        "邮政/快递",
        "",
        ["{o}把快递弄丢了不赔", "{o}快递堆在门口被人拿走了", "{o}签收了我没拿到"],
        "要求赔偿",
    ),
    "dance": (
        "广场舞噪音",
        "生态环境/噪声",
        "summer",
        ["广场舞音响太大", "早上五点多就开始跳广场舞", "广场舞放音乐到晚上{h}"],
        "请限制音量",
    ),
    "facility": (
        "设施损坏",
        "城市管理/市政设施",
        "",
        ["健身器材坏了好久", "公厕没人管，脏得进不去", "长椅和栏杆都坏了"],
        "请维修",
    ),
    "hosp_park": (
        "医院停车难",
        "医疗卫生/就医环境",
        "",
        ["停车排队要一个小时", "门口乱停车把路都堵了", "停车场收费太贵"],
        "希望解决停车问题",
    ),
    "queue": (
        "挂号排队",
        "医疗卫生/就医环境",
        "",
        ["挂号排队太长", "专家号根本挂不上", "网上预约了还得排半天"],
        "请优化流程",
    ),
    "water": (
        "饮水问题",
        "农业农村/饮水",
        "",
        ["自来水发浑", "村里停水{d}了", "井水有怪味不敢喝"],
        "请尽快解决吃水问题",
    ),
    "village_road": (
        "村路损坏",
        "农业农村/道路",
        "",
        ["村里的路坏得没法走", "村道一下雨全是泥", "村路塌了一块"],
        "请修路",
    ),
    "compensation": (
        "征地补偿",
        "自然资源/征地",
        "",
        ["征地补偿款一直没到位", "占了地不给补偿", "补偿标准村民不认可"],
        "要求落实补偿",
    ),
}
KIND_PROBLEMS = {
    "building": ["heating", "heating", "lift", "leak", "crack", "addlift", "sewer"],
    "compound": ["property", "gate", "gas", "illegal", "parking"],
    "company": ["wage", "wage", "social", "pollution"],
    "site": ["site_wage", "site_wage", "night_noise", "dust", "muck"],
    "intersection": ["light", "jam", "ponding"],
    "stretch": ["pothole", "roadwork", "lamp", "manhole"],
    "busline": ["interval", "driver"],
    "busstop": ["stop_broken", "stop_moved"],
    "school": ["school_jam", "fee", "canteen"],
    "market": ["occupy", "hygiene"],
    "bbq": ["bbq_noise", "smoke"],
    "gym": ["refund"],
    "training": ["refund"],
    "express": ["express_fee", "express_lost"],
    "park": ["dance", "facility"],
    "hospital": ["hosp_park", "queue"],
    "village": ["water", "village_road", "compensation"],
}
KIND_WEIGHT = {
    "building": 22,
    "compound": 13,
    "company": 10,
    "site": 9,
    "intersection": 6,
    "stretch": 5,
    "busline": 3,
    "busstop": 2,
    "school": 5,
    "market": 4,
    "bbq": 4,
    "gym": 2,
    "training": 2,
    "express": 2,
    "park": 4,
    "hospital": 3,
    "village": 4,
}
RESIDENT_KINDS = ("building", "compound")
POLICY = {
    "医保报销": [
        "住院医保能报多少",
        "门诊慢病报销比例是多少",
        "职工医保和居民医保报销比例有啥区别",
    ],
    "落户政策": [
        "外地的想落户需要什么条件",
        "大学毕业生落户要啥材料",
        "投靠子女落户怎么办",
    ],
    "公积金提取": [
        "公积金提取需要什么材料",
        "租房能不能提公积金",
        "离职了公积金怎么提",
    ],
    "社保转移": [
        "社保从外省转回来怎么办",
        "养老保险关系转移要多久",
        "社保转移在网上能办吗",
    ],
    "异地就医": ["异地就医备案怎么弄", "在外地住院能直接结算吗"],
    "养老金认证": ["养老金资格认证在哪认证", "手机上怎么做养老金认证"],
    "灵活就业参保": ["灵活就业人员社保怎么交", "个人交社保每月多少钱"],
    "居住证": ["居住证怎么办", "居住证办下来需要多长时间"],
    "生育津贴": ["生育津贴怎么申领", "男方能不能领生育津贴"],
    "供暖费补贴": ["低保户供暖费有没有补贴", "供暖费减免政策是啥"],
    "个税扣除": ["个税专项附加扣除怎么填", "赡养老人的扣除标准是多少"],
    "新生儿医保": ["新生儿医保怎么办理", "孩子刚出生医保在哪交"],
}
TYPOS = [
    ("的", "得"),
    ("在", "再"),
    ("已经", "以经"),
    ("反映", "反应"),
    ("部门", "部们"),
    ("现在", "现再"),
    ("一直", "一值"),
    ("希望", "稀望"),
    ("解决", "解绝"),
    ("这个", "这各"),
    ("好几", "好几几"),
    ("没人", "每人"),
    ("处理", "处里"),
    ("还是", "还事"),
]
DIALECT = [
    "咋整啊",
    "贼闹心",
    "都老鼻子天了",
    "整得人贼膈应",
    "这事儿磨叽老长时间了",
    "别老忽悠我们",
]
DEMANDS = [
    "希望有关部门尽快解决",
    "请尽快处理",
    "希望领导重视一下",
    "麻烦给协调一下",
    "请相关部门管一管",
    "盼复",
]
HARD_KINDS = [
    "sibling_building",
    "similar_company",
    "two_districts",
    "adjacent_intersection",
    "road_stretch",
    "other_problem",
    "other_episode",
]
HARD_COUNTS = {
    "sibling_building": 20,
    "similar_company": 14,
    "two_districts": 12,
    "adjacent_intersection": 12,
    "road_stretch": 10,
    "other_problem": 24,
    "other_episode": 24,
}
NAME = "\x01"


@dataclass
class Hotline:
    """The table's rows and its truth: each row's matter (None outside one), person and role."""

    rows: list[dict]
    matter: dict[int, str | None]
    person: dict[int, str]
    hard: list[tuple[str, str, str]] = field(default_factory=list)
    role: dict[int, str] = field(default_factory=dict)
    about: dict[int, tuple[str, str]] = field(default_factory=dict)


@dataclass
class Obj:
    """A concrete object: its kind, district, location road and every surface name."""

    key: str
    kind: str
    district: str
    road: str
    names: list[str]
    core: str = ""
    parent: str | None = None
    number: int = 0
    roads: tuple[str, ...] = ()
    twin: bool = False


@dataclass
class Person:
    """A writer: key, shown name, surname, gender word and the phone shown on every row."""

    key: str
    name: str
    surname: str
    sir: str
    phone: str


@dataclass
class Plan:
    """One group of rows to write: a matter (name) or an issue (name None)."""

    obj: Obj
    problem: str
    start: int
    length: int
    size: int
    name: str | None = None


def cn(n: int) -> str:
    """Chinese numeral for 1..99."""
    if n < 10:
        return CN[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else CN[tens]) + "十" + (CN[ones] if ones else "")


def day_of(text: str) -> int:
    """Day offset from START of a date string."""
    return (datetime.strptime(text, "%Y-%m-%d") - START).days


SEASONS = {
    "": [(0, DAYS - 1)],
    "heat": [(0, day_of("2023-04-10")), (day_of("2023-10-20"), day_of("2024-04-10"))],
    "summer": [
        (day_of("2023-05-01"), day_of("2023-09-30")),
        (day_of("2024-05-01"), DAYS - 1),
    ],
}


def road_core(road: str) -> str:
    """A road's name without its 路/街/大街/大路."""
    return re.sub(r"(大街|大路|路|街)$", "", road)


class World:
    """All objects, people and rows of one table, drawn from one Random."""

    def __init__(self, rows: int, seed: int):
        """Start an empty city for a table of `rows` rows."""
        self.rng = random.Random(seed)
        self.target = rows
        self.scale = rows / 8000
        banned = {road_core(r) for r in ROADS} | {d[:2] for d in DISTRICTS} | {"鹤川"}
        cores = [a + b for a in FIRST for b in SECOND if a != b and a + b not in banned]
        self.rng.shuffle(cores)
        self.cores = cores
        self.used_cores: set[str] = set()
        self.objects: dict[str, Obj] = {}
        self.by_kind: dict[str, list[Obj]] = {k: [] for k in KIND_WEIGHT}
        self.taken: set[tuple[str, str]] = set()
        self.numbers: dict[str, set[int]] = {}
        self.bosses: set[str] = set()
        self.phones: set[str] = set()
        self.people: list[Person] = []
        self.raw: list[
            tuple[datetime, dict, str | None, str, str, tuple[str, str]]
        ] = []
        self.hard: list[tuple[str, str, str]] = []
        self.matter_people: list[Person] = []
        self.plans: list[Plan] = []

    # ---- names -------------------------------------------------------------------------
    def core(self) -> str:
        """A fresh two-character name core no object has used."""
        while True:
            c = self.cores.pop()
            if c not in self.used_cores:
                self.used_cores.add(c)
                return c

    def similar_core(self, core: str) -> str | None:
        """A fresh core one homophone away from `core`, if there is one."""
        for i, ch in enumerate(core):
            alt = HOMOPHONE.get(ch)
            if alt:
                other = core[:i] + alt + core[i + 1 :]
                if other not in self.used_cores and other != core:
                    self.used_cores.add(other)
                    return other
        return None

    def person_name(self) -> tuple[str, str]:
        """A surname and a full name."""
        s = self.rng.choice(SURNAMES)
        return s, s + "".join(
            self.rng.choice(GIVEN) for _ in range(self.rng.choice((1, 2, 2)))
        )

    def add(self, kind: str, district: str, road: str, names: list[str], **kw) -> Obj:
        """Register a new object."""
        key = f"{kind}:{len(self.objects) + 1:04d}"
        obj = Obj(key, kind, district, road, list(dict.fromkeys(names)), **kw)
        self.objects[key] = obj
        self.by_kind[kind].append(obj)
        return obj

    def district(self) -> str:
        """A district, the development zone less often."""
        return self.rng.choices(DISTRICTS, weights=(5, 5, 4, 4, 3, 2))[0]

    # ---- objects -----------------------------------------------------------------------
    def compound(
        self,
        district: str | None = None,
        core: str | None = None,
        suffix: str | None = None,
        twin: bool = False,
    ) -> Obj:
        """A residential compound."""
        d = district or self.district()
        c = core or self.core()
        s = suffix or self.rng.choice(COMPOUND_SUFFIX)
        full = c + s
        names = [full, d + full, d[:2] + full]
        if not twin:
            names.append(c)
        if s != "小区":
            names.append(full + "小区")
            names.append(d + full + "小区")
        obj = self.add(
            "compound", d, self.rng.choice(ROADS), names, core=full, twin=twin
        )
        self.numbers[obj.key] = set()
        return obj

    def building(self, comp: Obj, number: int | None = None) -> Obj:
        """A building of a compound, numbered afresh."""
        taken = self.numbers[comp.key]
        n = number or self.rng.choice([i for i in range(1, 36) if i not in taken])
        taken.add(n)
        marks = [
            f"{n}号楼",
            f"{cn(n)}号楼",
            f"{n}栋",
            f"{n}#楼",
            f"{n}幢",
            f"{cn(n)}栋",
        ]
        names = [b + m for b in comp.names for m in marks]
        return self.add(
            "building",
            comp.district,
            comp.road,
            names,
            core=comp.core,
            parent=comp.key,
            number=n,
        )

    def boss(self) -> str:
        """A company boss's name no other boss has."""
        while True:
            _, name = self.person_name()
            if len(name) == 3 and name not in self.bosses:
                self.bosses.add(name)
                return name

    def company(
        self,
        core: str | None = None,
        industry: str | None = None,
        short_ok: bool = True,
    ) -> Obj:
        """A company or factory."""
        d = self.district()
        c = core or self.core()
        i = industry or self.rng.choice(INDUSTRY)
        names = [f"{CITY}{c}{i}有限公司", f"{c}{i}有限公司", f"{c}{i}", self.boss()]
        if short_ok:
            names.append(f"{c}公司")
        return self.add("company", d, self.rng.choice(ROADS), names, core=c + i)

    def site(self) -> Obj:
        """A construction site."""
        d, c, r = self.district(), self.core(), self.rng.choice(ROADS)
        names = [f"{c}项目工地", f"{c}项目", f"{c}工地", f"{r}{c}工地"]
        return self.add("site", d, r, names, core=c)

    def intersection(self, r1: str | None = None, r2: str | None = None) -> Obj | None:
        """The crossing of two roads, or None if taken."""
        r1 = r1 or self.rng.choice(ROADS)
        r2 = r2 or self.rng.choice([r for r in ROADS if r != r1])
        key = tuple(sorted((r1, r2)))
        if any(o.roads == key for o in self.by_kind["intersection"]):
            return None
        c1, c2 = road_core(r1), road_core(r2)
        names = [
            f"{r1}与{r2}交叉口",
            f"{r2}与{r1}交叉口",
            f"{c1}{c2}路口",
            f"{r1}和{r2}那个十字路口",
            f"{r1}{r2}交汇处",
            f"{r1}{r2}路口",
        ]
        return self.add("intersection", self.district(), r1, names, roads=key)

    def stretch(
        self, road: str | None = None, a: str | None = None, b: str | None = None
    ) -> Obj | None:
        """A stretch of one road between two cross roads, or None if taken."""
        r = road or self.rng.choice(ROADS)
        others = [x for x in ROADS if x != r]
        a = a or self.rng.choice(others)
        b = b or self.rng.choice([x for x in others if x != a])
        key = (r, a, b)
        if any(
            o.roads[0] == r and set(o.roads[1:]) == {a, b}
            for o in self.by_kind["stretch"]
        ):
            return None
        names = [
            f"{r}（{a}至{b}段）",
            f"{r}{a}至{b}段",
            f"{r}从{a}到{b}这段",
            f"{r}{a}到{b}之间",
        ]
        return self.add("stretch", self.district(), r, names, roads=key)

    def simple(
        self,
        kind: str,
        core: str | None = None,
        district: str | None = None,
        twin: bool = False,
    ) -> Obj:
        """A bus line or stop, school, market, shop, park, hospital or village."""
        d = district or self.district()
        r = self.rng.choice(ROADS)
        if kind == "busline":
            n = self.fresh_number("busline", 1, 160)
            return self.add(
                kind, d, r, [f"{n}路公交车", f"{n}路公交", f"{n}路车"], number=n
            )
        if kind == "hospital" and self.rng.random() < 0.5:
            n = self.fresh_number("hospital", 1, 9)
            if n:
                names = [
                    f"{CITY}第{cn(n)}人民医院",
                    f"市{cn(n)}院",
                    f"第{cn(n)}医院",
                    f"{CITY}{cn(n)}院",
                ]
                return self.add(kind, d, r, names, number=n)
        if kind == "school" and self.rng.random() < 0.3:
            n = self.fresh_number("school", 1, 40)
            if n:
                names = [
                    f"{CITY}第{cn(n)}中学",
                    f"第{cn(n)}中学",
                    f"{cn(n)}中",
                    f"{n}中",
                ]
                return self.add(kind, d, r, names, number=n)
        c = core or self.core()
        town = self.rng.choice(TOWNS)
        table = {
            "busstop": [f"{c}公交站", f"{c}站", f"{c}站点"],
            "school": (
                [f"{CITY}{c}小学", f"{c}小学", f"{d}{c}小学"]
                if self.rng.random() < 0.6
                else [f"{c}幼儿园", f"{d}{c}幼儿园", f"{c}幼"]
            ),
            "market": [f"{c}农贸市场", f"{c}菜市场", f"{c}市场", f"{d}{c}农贸市场"],
            "bbq": [f"{c}烧烤", f"{c}烧烤店", f"{c}烤串", f"{d}{c}烧烤"],
            "gym": [f"{c}健身", f"{c}健身房", f"{c}健身会所"],
            "training": [f"{c}教育", f"{c}培训学校", f"{c}教育培训"],
            "express": [f"{c}驿站", f"{c}菜鸟驿站", f"{c}快递站", f"{d}{c}驿站"],
            "park": (
                [f"{c}公园", f"{d}{c}公园"]
                if self.rng.random() < 0.5
                else [f"{c}广场", f"{c}文化广场"]
            ),
            "hospital": [f"{c}医院", f"{CITY}{c}医院"],
            "village": [f"{c}村", f"{town}{c}村", f"{d}{town}{c}村"],
        }
        names = table[kind]
        if twin:
            names = [x for x in names if not x.startswith(d)] + [
                d + x for x in names if not x.startswith(d)
            ]
            names = list(dict.fromkeys(names))
        return self.add(kind, d, r, names, core=c, twin=twin)

    def fresh_number(self, kind: str, lo: int, hi: int) -> int:
        """A number for a bus line, hospital or middle school not yet used (0 when none)."""
        used = self.numbers.setdefault("#" + kind, set())
        free = [i for i in range(lo, hi + 1) if i not in used]
        if not free:
            return 0
        n = self.rng.choice(free)
        used.add(n)
        return n

    def new_object(self, kind: str) -> Obj:
        """A fresh object of a kind."""
        if kind == "building":
            comps = [c for c in self.by_kind["compound"] if not c.twin]
            if comps and self.rng.random() < 0.35:
                return self.building(self.rng.choice(comps))
            return self.building(self.compound())
        if kind == "compound":
            return self.compound()
        if kind == "company":
            return self.company()
        if kind == "site":
            return self.site()
        if kind == "intersection":
            while True:
                obj = self.intersection()
                if obj:
                    return obj
        if kind == "stretch":
            while True:
                obj = self.stretch()
                if obj:
                    return obj
        return self.simple(kind)

    def pick(self, kind: str, reuse: float) -> tuple[Obj, str]:
        """An object of a kind (new or reused) with a problem nobody has taken on it."""
        if self.rng.random() < reuse:
            pool = [
                o
                for o in self.by_kind[kind]
                if not o.twin
                and any((o.key, p) not in self.taken for p in KIND_PROBLEMS[kind])
            ]
            if pool:
                obj = self.rng.choice(pool)
                free = [
                    p for p in KIND_PROBLEMS[kind] if (obj.key, p) not in self.taken
                ]
                return obj, self.rng.choice(free)
        obj = self.new_object(kind)
        return obj, self.rng.choice(KIND_PROBLEMS[kind])

    def kind(self) -> str:
        """A kind of object, by weight."""
        kinds = list(KIND_WEIGHT)
        return self.rng.choices(kinds, weights=[KIND_WEIGHT[k] for k in kinds])[0]

    # ---- time --------------------------------------------------------------------------
    def window(
        self, problem: str, length: int, lo: int = 0, hi: int = DAYS - 1
    ) -> tuple[int, int] | None:
        """A start day and length inside the problem's season and [lo, hi], or None."""
        spans = []
        for a, b in SEASONS[PROBLEMS[problem][2]]:
            a, b = max(a, lo), min(b, hi)
            if b - a >= 1:
                spans.append((a, b))
        if not spans:
            return None
        a, b = self.rng.choices(spans, weights=[b - a for a, b in spans])[0]
        length = min(length, b - a)
        return self.rng.randint(a, b - length), length

    def length(self, size: int) -> int:
        """An episode length in days for a matter of `size` people."""
        return min(
            MAX_EPISODE, self.rng.randint(2, 12) + size // 2 + self.rng.randint(0, 14)
        )

    def stamp(self, day: float) -> datetime:
        """A created_at on a day, between 7:00 and 23:00."""
        base = START + timedelta(days=int(day))
        return base + timedelta(seconds=self.rng.randint(7 * 3600, 23 * 3600 - 1))

    # ---- people ------------------------------------------------------------------------
    def phone(self) -> str:
        """A phone number unique to one person, sometimes masked."""
        while True:
            p = self.rng.choice(["13", "15", "18", "17", "19"]) + "".join(
                self.rng.choice("0123456789") for _ in range(9)
            )
            shown = p[:3] + "****" + p[-4:] if self.rng.random() < 0.1 else p
            if p not in self.phones and shown not in self.phones:
                self.phones.update({p, shown})
                return shown

    def person(self) -> Person:
        """A new writer."""
        surname, full = self.person_name()
        sir = self.rng.choice(["先生", "女士"])
        u = self.rng.random()
        name = (
            "匿名"
            if u < 0.05
            else ""
            if u < 0.09
            else surname + sir
            if u < 0.14
            else full
        )
        p = Person(f"P{len(self.people) + 1:05d}", name, surname, sir, self.phone())
        self.people.append(p)
        return p

    def shown_name(self, p: Person, repeat: bool) -> str:
        """The name on a row: the person's, sometimes shortened to 王先生 on re-submissions."""
        if repeat and p.name not in ("", "匿名") and self.rng.random() < 0.4:
            return p.surname + p.sir
        return p.name

    # ---- text --------------------------------------------------------------------------
    def fill(self, text: str) -> str:
        """Put numbers into a phrase's {t} {m} {d} {h} {money} slots."""
        r = self.rng
        return text.format(
            o="{o}",
            t=r.randint(11, 16),
            m=r.choice(["两", "三", "4", "五", "6", "三四"]),
            d=r.choice(["三天", "一个礼拜", "半个月", "十来天", "二十多天"]),
            h=r.choice(["十一点", "十二点", "凌晨一点", "11点多"]),
            money=r.choice(["两万多", "八千多块", "3万", "一万二", "五千多", "四千块"]),
        )

    def mention(self, obj: Obj) -> str:
        """How a writer names an object this time."""
        r = self.rng
        name = r.choice(obj.names)
        if obj.kind == "building" and r.random() < 0.3:
            name += f"{r.randint(1, 6)}单元"
        elif obj.kind == "company" and r.random() < 0.12:
            name = (
                f"{obj.road}那边的{name}"
                if not re.fullmatch(r"[\u4e00-\u9fff]{3}", name)
                else f"老板叫{name}的那个厂"
            )
        elif obj.kind == "company" and re.fullmatch(r"[\u4e00-\u9fff]{3}", name):
            name = f"{name}开的厂子"
        elif obj.kind in ("intersection", "market", "bbq", "park") and r.random() < 0.2:
            name += r.choice(["附近", "那块", "这边"])
        return name

    def address(self, obj: Obj, resident: bool, own: bool) -> str:
        """The address field: the writer's flat, the object's place, a home, or empty."""
        r = self.rng
        if resident:
            comp = self.objects[obj.parent] if obj.parent else obj
            n = obj.number if obj.kind == "building" else r.randint(1, 24)
            u, room = r.randint(1, 6), f"{r.randint(1, 18)}0{r.randint(1, 4)}"
            cname = r.choice(
                [
                    x
                    for x in comp.names
                    if len(x) > 2 and (x.startswith(comp.district) or not comp.twin)
                ]
            )
            forms = [
                f"{comp.district}{comp.road}{r.randint(1, 300)}号{cname}{n}号楼{u}单元{room}",
                f"{cname}{n}-{u}-{room}",
                f"{cname}{n}栋{u}单元{room}室",
                f"{cname}{n}号楼",
            ]
            if own:
                forms = forms[:2] + forms[2:3]
            return r.choice(forms)
        u = r.random()
        if obj.twin or u < 0.45:
            return f"{obj.district}{obj.road}" + r.choice(
                ["附近", f"{r.randint(1, 400)}号", ""]
            )
        if u < 0.8:
            return f"{self.district()}{r.choice(ROADS)}{r.randint(1, 400)}号"
        return ""

    def secondary(self, obj: Obj, problem: str) -> str:
        """A second problem mentioned in passing, or ''."""
        others = [p for p in dict.fromkeys(KIND_PROBLEMS[obj.kind]) if p != problem]
        if not others or self.rng.random() > 0.15:
            return ""
        phrases = [x for x in PROBLEMS[self.rng.choice(others)][3] if "{o}" not in x]
        if not phrases:
            return ""
        return self.rng.choice(
            ["另外", "还有就是", "顺便说一下，", "再一个"]
        ) + self.fill(self.rng.choice(phrases))

    def body(self, obj: Obj, problem: str, own: bool) -> str:
        """The object-and-problem sentence, the object as the NAME placeholder."""
        phrase = self.fill(self.rng.choice(PROBLEMS[problem][3]))
        if own:
            where = "我们楼" if obj.kind == "building" else "我们小区"
            where = self.rng.choice(
                [
                    where,
                    where.replace("我们", "俺们"),
                    "我家这栋楼" if obj.kind == "building" else "我们这个小区",
                ]
            )
            return (
                phrase.format(o=where)
                if "{o}" in phrase
                else where + self.rng.choice(["", "，"]) + phrase
            )
        if "{o}" in phrase:
            return phrase.format(o=NAME)
        return NAME + self.rng.choice(["", "，", "这边", "那里", " ", "的"]) + phrase

    def compose(self, body: str, extra: str, demand: str, kind: str) -> str:
        """Wrap a body in one of the writers' styles."""
        r = self.rng
        who = {
            "building": "业主",
            "compound": "业主",
            "company": "员工",
            "site": "工人",
        }.get(kind, "市民")
        style = r.choice(
            ["ticket", "web", "letter", "terse", "dialect", "app", "spoken"]
        )
        x = ("，" + extra) if extra else ""
        if style == "ticket":
            return f"来电人反映：{body}{x}。来电人诉求：{demand}。"
        if style == "web":
            return f"您好！我是{who}，{body}{x}，{demand}！" + r.choice(
                ["", "谢谢！", "！！"]
            )
        if style == "letter":
            return f"尊敬的领导：\n    您好！{body}。{extra + '。' if extra else ''}{demand}。\n此致\n敬礼"
        if style == "terse":
            return body + r.choice(["", "，没人管", "。", " 快管管吧", "？？"])
        if style == "dialect":
            return f"{body}，{r.choice(DIALECT)}{x}，你们给整整呗"
        if style == "app":
            return f"【诉求类型】投诉\n【诉求内容】{body}{x}\n【诉求】{demand}"
        return f"喂，那个，我想反映一下啊，就是{body}，嗯{x}，{r.choice(['你们能不能给管管', '这事儿到底谁管', '麻烦你们了'])}"

    def roughen(self, text: str, name: str) -> str:
        """Typos outside names, half-width punctuation, full-width digits; then the name."""
        r = self.rng
        if r.random() < 0.3:
            for a, b in r.sample(TYPOS, 2):
                text = text.replace(a, b, 1)
        if r.random() < 0.3:
            for a, b in (
                ("，", ","),
                ("。", "."),
                ("！", "!"),
                ("？", "?"),
                ("：", ":"),
            ):
                text = text.replace(a, b)
        text = text.replace(NAME, name)
        if r.random() < 0.1:
            text = text.translate({ord(str(i)): chr(0xFF10 + i) for i in range(10)})
        return text

    def title(self, obj: Obj, problem: str, own: bool) -> str:
        """A row's title."""
        label = PROBLEMS[problem][0]
        if own or self.rng.random() < 0.35:
            return self.rng.choice(
                [label, f"投诉{label}", f"反映{label}问题", "投诉", "求助"]
            )
        name = self.rng.choice(obj.names)
        return self.rng.choice(
            [f"{name}{label}", f"关于{name}{label}的问题", f"反映{name}问题"]
        )

    def category(self, problem: str) -> str:
        """The operator's category, sometimes the wrong one."""
        if self.rng.random() < 0.06:
            return self.rng.choice(sorted({v[1] for v in PROBLEMS.values()}))
        return PROBLEMS[problem][1]

    def first_row(
        self, obj: Obj, problem: str, who: Person, own_ok: bool = True
    ) -> dict:
        """A first-hand row of a person about an object's problem."""
        resident = obj.kind in RESIDENT_KINDS and self.rng.random() < 0.85
        own = own_ok and resident and self.rng.random() < 0.15
        demand = self.rng.choice([PROBLEMS[problem][4]] + DEMANDS)
        text = self.compose(
            self.body(obj, problem, own), self.secondary(obj, problem), demand, obj.kind
        )
        return {
            "title": self.title(obj, problem, own),
            "name": self.shown_name(who, False),
            "phone": who.phone,
            "address": self.address(obj, resident, own),
            "category": self.category(problem),
            "content": self.roughen(text, self.mention(obj)),
        }

    def repeat_row(self, before: dict, obj: Obj, problem: str, who: Person) -> dict:
        """A re-submission: a copy, a 再次反映 copy, or a new text saying it is again."""
        row = dict(before, name=self.shown_name(who, True))
        u = self.rng.random()
        if u < 0.35:
            return row
        if u < 0.55:
            row["content"] = (
                self.rng.choice(["再次反映：", "重复来电：", "二次投诉，"])
                + before["content"]
            )
            return row
        fresh = self.first_row(obj, problem, who, own_ok=False)
        lead = self.rng.choice(
            [
                "之前反映过，一直没人处理，",
                "第二次打电话了，",
                "上次说给解决到现在也没动静，",
                "又来反映了，",
            ]
        )
        fresh["content"] = lead + fresh["content"]
        fresh["name"], fresh["phone"], fresh["address"] = (
            row["name"],
            who.phone,
            before["address"],
        )
        return fresh

    # ---- groups ------------------------------------------------------------------------
    def emit(
        self,
        when: datetime,
        row: dict,
        matter: str | None,
        who: Person,
        role: str,
        about: tuple[str, str],
    ) -> None:
        """Keep one row with its truth."""
        self.raw.append((when, row, matter, who.key, role, about))

    def write_matter(self, plan: Plan) -> None:
        """All rows of one matter: first-hand, form letter, re-submissions."""
        r = self.rng
        obj, problem = plan.obj, plan.problem
        forms = (
            r.randint(3, min(8, plan.size - 1))
            if plan.size >= 6 and r.random() < 0.2
            else 0
        )
        here: set[str] = set()
        for i in range(plan.size - forms):
            who = self.reused(here) if i and r.random() < 0.03 else self.person()
            here.add(who.key)
            day = plan.start if i == 0 else plan.start + r.randint(0, plan.length)
            when = self.stamp(day)
            row = self.first_row(obj, problem, who)
            self.emit(when, row, plan.name, who, "matter", (obj.key, problem))
            self.matter_people.append(who)
            if r.random() < 0.12:
                for _ in range(r.choice((1, 1, 2))):
                    left = plan.start + plan.length - (when - START).days
                    if left < 1:
                        break
                    when = self.stamp((when - START).days + r.randint(1, left))
                    self.emit(
                        when,
                        self.repeat_row(row, obj, problem, who),
                        plan.name,
                        who,
                        "repeat",
                        (obj.key, problem),
                    )
        if forms:
            self.write_form(plan, forms)

    def write_form(self, plan: Plan, count: int) -> None:
        """One form letter signed by `count` new people of the matter."""
        r = self.rng
        obj, problem = plan.obj, plan.problem
        text = self.roughen(
            f"尊敬的领导：\n    我们是{NAME}的{'全体业主' if obj.kind in RESIDENT_KINDS else '受害群众'}，"
            f"{self.fill(r.choice([x for x in PROBLEMS[problem][3] if '{o}' not in x] or ['问题一直没解决']))}，"
            f"多次反映无果，现联名上书，恳请{PROBLEMS[problem][4]}。\n联名人见附件",
            self.mention(obj),
        )
        title = f"联名反映{PROBLEMS[problem][0]}"
        first = plan.start + r.randint(0, plan.length)
        for _ in range(count):
            who = self.person()
            day = min(plan.start + plan.length, first + r.randint(0, 3))
            row = {
                "title": title,
                "name": who.name,
                "phone": who.phone,
                "address": self.address(obj, obj.kind in RESIDENT_KINDS, False),
                "category": PROBLEMS[problem][1],
                "content": text,
            }
            self.emit(self.stamp(day), row, plan.name, who, "form", (obj.key, problem))

    def reused(self, here: set[str]) -> Person:
        """A person who already wrote in another matter (not this one)."""
        for _ in range(5):
            if self.matter_people:
                who = self.rng.choice(self.matter_people)
                if who.key not in here:
                    return who
        return self.person()

    def write_issue(self, budget: int) -> int:
        """One person's issue with 0-3 re-submissions; returns rows written."""
        r = self.rng
        for _ in range(200):
            obj, problem = self.pick(self.kind(), 0.45)
            if (obj.key, problem) not in self.taken:
                break
        self.taken.add((obj.key, problem))
        start, _ = self.window(problem, 1)
        who = self.person()
        when = self.stamp(start)
        row = self.first_row(obj, problem, who)
        self.emit(when, row, None, who, "single", (obj.key, problem))
        n = min(budget - 1, r.choices((0, 1, 2, 3), weights=(62, 24, 9, 5))[0])
        for _ in range(n):
            day = min(DAYS - 1, (when - START).days + r.randint(1, 20))
            when = self.stamp(day)
            self.emit(
                when,
                self.repeat_row(row, obj, problem, who),
                None,
                who,
                "repeat",
                (obj.key, problem),
            )
        return n + 1

    def write_policy(self) -> None:
        """One policy question, no object."""
        r = self.rng
        topic = r.choice(sorted(POLICY))
        q = r.choice(POLICY[topic])
        who = self.person()
        text = r.choice(
            [
                f"来电人咨询：{q}。",
                f"您好，{q}？谢谢",
                f"{q}",
                f"那啥，我想问问{q}呗",
                f"【诉求类型】咨询\n【诉求内容】{q}",
                f"喂，你好，我就是想问一下啊，{q}",
            ]
        )
        row = {
            "title": r.choice([f"咨询{topic}", topic, "政策咨询", "咨询"]),
            "name": who.name,
            "phone": who.phone,
            "address": r.choice(
                ["", f"{self.district()}{r.choice(ROADS)}{r.randint(1, 400)}号"]
            ),
            "category": "政策咨询/" + topic,
            "content": self.roughen(text, ""),
        }
        self.emit(
            self.stamp(r.randint(0, DAYS - 1)),
            row,
            None,
            who,
            "policy",
            ("", "policy:" + topic),
        )

    # ---- plans -------------------------------------------------------------------------
    def plan(
        self, obj: Obj, problem: str, size: int, at: tuple[int, int] | None = None
    ) -> Plan:
        """A matter on an object and problem, taking the pair."""
        self.taken.add((obj.key, problem))
        start, length = at or self.window(problem, self.length(size))
        p = Plan(obj, problem, start, length, size, f"M{len(self.plans) + 1:04d}")
        self.plans.append(p)
        return p

    def near(
        self, p: Plan, size: int, spread: int, problem: str | None = None
    ) -> tuple[int, int]:
        """A start within `spread` days of another matter's start, in the problem's season."""
        seasons = SEASONS[PROBLEMS[problem or p.problem][2]]
        a, b = next((s for s in seasons if s[0] <= p.start <= s[1]), (0, DAYS - 1))
        start = max(a, min(p.start + self.rng.randint(-spread, spread), b - 1))
        return start, min(self.length(size), b - start)

    def pair(self, kind: str, a: Plan, b: Plan) -> None:
        """Record a hard-negative pair."""
        self.hard.append((a.name, b.name, kind))

    def hard_pairs(self, sizes: list[int]) -> None:
        """All hard-negative pairs of matters."""
        for kind in HARD_KINDS:
            for _ in range(round(HARD_COUNTS[kind] * self.scale)):
                getattr(self, "hard_" + kind)(sizes.pop(), sizes.pop())

    def hard_sibling_building(self, s1: int, s2: int) -> None:
        """Two buildings of one compound, one problem, the same week."""
        comp = self.compound()
        b1, b2 = self.building(comp), self.building(comp)
        problem = self.rng.choice(["heating", "heating", "lift", "leak", "sewer"])
        a = self.plan(b1, problem, s1)
        b = self.plan(b2, problem, s2, self.near(a, s2, 6))
        self.pair("sibling_building", a, b)

    def hard_similar_company(self, s1: int, s2: int) -> None:
        """Two companies with similar names, one problem, near in time."""
        if self.rng.random() < 0.5:
            i1, i2 = self.rng.choice(SIMILAR_INDUSTRY)
            core = self.core()
            c1, c2 = self.company(core, i1, False), self.company(core, i2, False)
        else:
            core = self.core()
            other = self.similar_core(core)
            while other is None:
                core = self.core()
                other = self.similar_core(core)
            ind = self.rng.choice(INDUSTRY)
            c1, c2 = self.company(core, ind, False), self.company(other, ind, False)
        problem = self.rng.choice(["wage", "wage", "social", "pollution"])
        a = self.plan(c1, problem, s1)
        b = self.plan(c2, problem, s2, self.near(a, s2, 30))
        self.pair("similar_company", a, b)

    def hard_two_districts(self, s1: int, s2: int) -> None:
        """One name in two districts, one problem, near in time."""
        d1, d2 = self.rng.sample(DISTRICTS[:5], 2)
        kind = self.rng.choice(["compound", "compound", "market", "bbq", "express"])
        core = self.core()
        if kind == "compound":
            suffix = self.rng.choice(COMPOUND_SUFFIX)
            o1, o2 = (self.compound(d, core, suffix, True) for d in (d1, d2))
        else:
            o1, o2 = (self.simple(kind, core, d, True) for d in (d1, d2))
        problem = self.rng.choice(KIND_PROBLEMS[kind])
        a = self.plan(o1, problem, s1)
        b = self.plan(o2, problem, s2, self.near(a, s2, 30))
        self.pair("two_districts", a, b)

    def hard_adjacent_intersection(self, s1: int, s2: int) -> None:
        """Two crossings of one road with its neighbouring cross roads, one problem."""
        while True:
            r1, r2, r3 = self.rng.sample(ROADS, 3)
            o1 = self.intersection(r1, r2)
            if o1 is None:
                continue
            o2 = self.intersection(r1, r3)
            if o2 is not None:
                o2.district = o1.district
                break
        problem = self.rng.choice(KIND_PROBLEMS["intersection"])
        a = self.plan(o1, problem, s1)
        b = self.plan(o2, problem, s2, self.near(a, s2, 20))
        self.pair("adjacent_intersection", a, b)

    def hard_road_stretch(self, s1: int, s2: int) -> None:
        """Two consecutive stretches of one road, one problem."""
        while True:
            r, x, y, z = self.rng.sample(ROADS, 4)
            o1 = self.stretch(r, x, y)
            if o1 is None:
                continue
            o2 = self.stretch(r, y, z)
            if o2 is not None:
                o2.district = o1.district
                break
        problem = self.rng.choice(KIND_PROBLEMS["stretch"])
        a = self.plan(o1, problem, s1)
        b = self.plan(o2, problem, s2, self.near(a, s2, 20))
        self.pair("road_stretch", a, b)

    def hard_other_problem(self, s1: int, s2: int) -> None:
        """One object, two problems at the same time."""
        kind = self.rng.choice(
            [
                "company",
                "company",
                "site",
                "site",
                "compound",
                "building",
                "bbq",
                "school",
                "market",
                "village",
                "park",
            ]
        )
        obj = self.new_object(kind)
        p1, p2 = self.rng.sample(sorted(set(KIND_PROBLEMS[kind])), 2)
        if PROBLEMS[p1][2] != PROBLEMS[p2][2]:
            p1, p2 = sorted((p1, p2), key=lambda p: PROBLEMS[p][2] == "")
        a = self.plan(obj, p1, s1)
        b = self.plan(obj, p2, s2, self.near(a, s2, 3, p2))
        self.pair("other_problem", a, b)

    def hard_other_episode(self, s1: int, s2: int) -> None:
        """One object and problem, a second episode >= 120 days after the first ends."""
        kind = self.rng.choice(
            [
                "building",
                "building",
                "compound",
                "company",
                "site",
                "stretch",
                "intersection",
                "bbq",
                "market",
                "park",
            ]
        )
        obj = self.new_object(kind)
        problem = self.rng.choice(KIND_PROBLEMS[kind])
        for _ in range(100):
            l1 = self.length(s1)
            first = self.window(problem, l1, 0, DAYS // 2)
            start, l1 = first
            got = self.window(problem, self.length(s2), start + l1 + 121)
            if got:
                break
        a = self.plan(obj, problem, s1, first)
        b = self.plan(obj, problem, s2, got)
        self.taken.add((obj.key, problem))
        self.pair("other_episode", a, b)

    def sizes(self, matters: int) -> list[int]:
        """People per matter: a few 20-60, about a third 5-19, the rest 2-4."""
        r = self.rng
        big, mid = round(40 * self.scale), round(212 * self.scale)
        out = [r.randint(20, 60) for _ in range(big)]
        out += [5 + int(14 * r.random() ** 2) for _ in range(mid)]
        out += [
            r.choice((2, 2, 2, 3, 3, 4)) for _ in range(max(0, matters - big - mid))
        ]
        r.shuffle(out)
        return out

    def build(self) -> Hotline:
        """Plan every matter, write all rows, fill with issues and policy, number by time."""
        sizes = self.sizes(round(700 * self.scale))
        self.hard_pairs(sizes)
        while sizes:
            obj, problem = self.pick(self.kind(), 0.3)
            self.plan(obj, problem, sizes.pop())
        for p in self.plans:
            self.write_matter(p)
        policy = round(600 * self.scale)
        budget = self.target - len(self.raw) - policy
        if budget < 0:
            raise ValueError(f"{self.target} rows are too few for this table")
        while budget > 0:
            budget -= self.write_issue(budget)
        for _ in range(policy):
            self.write_policy()
        return self.finish()

    def finish(self) -> Hotline:
        """Order rows by created_at and give ids 1..n."""
        order = sorted(range(len(self.raw)), key=lambda i: (self.raw[i][0], i))
        h = Hotline(rows=[], matter={}, person={}, hard=list(self.hard))
        for rid, i in enumerate(order, 1):
            when, row, matter, person, role, about = self.raw[i]
            h.rows.append(
                {
                    "id": rid,
                    "title": row["title"],
                    "name": row["name"],
                    "phone": row["phone"],
                    "address": row["address"],
                    "category": row["category"],
                    "content": row["content"],
                    "created_at": when.strftime("%Y-%m-%d %H:%M:%S"),
                }
            )
            h.matter[rid], h.person[rid], h.role[rid], h.about[rid] = (
                matter,
                person,
                role,
                about,
            )
        return h


def build(rows: int = 8000, seed: int = 7) -> tuple[Hotline, dict[str, Obj]]:
    """The table and its catalogue of objects (key -> Obj)."""
    world = World(rows, seed)
    return world.build(), world.objects


def make(rows: int = 8000, seed: int = 7) -> Hotline:
    """The labelled table of `rows` rows drawn from `seed`."""
    return build(rows, seed)[0]


def figures(h: Hotline, objects: dict[str, Obj]) -> dict[str, int]:
    """The figures the module docstring states, measured on a table."""
    people: dict[str, set[str]] = {}
    for rid, m in h.matter.items():
        if m:
            people.setdefault(m, set()).add(h.person[rid])
    roles = list(h.role.values())
    form_texts = {r["content"] for r in h.rows if h.role[r["id"]] == "form"}
    days = [r["created_at"][:10] for r in h.rows]
    out = {
        "rows": len(h.rows),
        "days": (
            datetime.strptime(max(days), "%Y-%m-%d")
            - datetime.strptime(min(days), "%Y-%m-%d")
        ).days
        + 1,
        "objects": len({a[0] for a in h.about.values() if a[0]}),
        "people": len(set(h.person.values())),
        "matters": len(people),
        "matters_5plus": sum(len(v) >= 5 for v in people.values()),
        "matters_20plus": sum(len(v) >= 20 for v in people.values()),
        "largest_matter": max(len(v) for v in people.values()),
        "matter_rows": sum(m is not None for m in h.matter.values()),
        "form_letters": len(form_texts),
        "form_rows": roles.count("form"),
        "repeat_rows": roles.count("repeat"),
        "single_rows": roles.count("single"),
        "policy_rows": roles.count("policy"),
        "masked_phones": len({r["phone"] for r in h.rows if "*" in r["phone"]}),
        "no_name_rows": sum(r["name"] in ("", "匿名") for r in h.rows),
    }
    for kind in HARD_KINDS:
        out["hard_" + kind] = sum(k == kind for _, _, k in h.hard)
    return out
