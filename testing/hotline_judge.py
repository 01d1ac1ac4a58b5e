"""A sixth labelled 12345-hotline table, written blind: a judge for matter detection.

The city is 澜港市, an invented southern coastal city of eight districts (滨海区, 南湾区,
榕华区, 港北区, 沙埔区, 新洲区, 云溪区, 金渡区), from 2024-07-01 to 2025-12-31
(18 months). Its kinds of matters are its own: trees down and 内涝 after typhoons (six
typhoon days, when many roads flood at once), 城中村 sewage, fire risks and 违建, 电动车
充电桩 and 物业费 in compounds, 电梯 failures, 二次供水 and roof leaks of one building,
油烟 and late noise of restaurants, 外卖 riders, 学校周边 traffic, 公交 line changes,
菜市场, 工地 night work, dust and 渣土车, unpaid wages (more of them before the Spring
Festival), social insurance and overtime at companies and factories, 路灯, 井盖, parking.

How it is made, from ``random.Random(seed)`` only:

1. Objects. Each object (a building of a compound, a compound, an urban village, a company
   or factory, a construction site, an intersection, a stretch of a road between two cross
   streets, a bus line, a bus stop, a school or kindergarten, a market, a shop or restaurant,
   a park, a hospital) gets a key (``"B|滨海区|翠湖花园|3"``, ``"X|南湾区|中山路|文化路"``...)
   and the surface names writers use for it (3号楼 / 三号楼 / 3栋 / 3#楼 / 3幢 / 3号, with
   or without 小区 and the district; a company's full name, short name, "XX路那边的XX公司",
   its boss's name; three ways of naming a crossing...). A registry refuses an object any
   of whose names already names another object, except the deliberate pairs of one name
   in two districts. ``make_with_names`` returns that registry with the table.
2. Matters. A matter is an object, a problem and an episode (a window of at most 60 days);
   it has at least two people. First the hard-negative pairs of matters, then ordinary
   matters, all on fresh objects (a pair of kind other_problem or other_episode shares its
   one object). Sizes: 36.5% two people, 17% three, 10% four, 30% 5-15, 6.5% 20-60.
3. Rows of a matter: one row per person (4% of them people of another matter), dated in
   the window; 10% of people re-submit 1-3 times (role repeat, same phone, the name kept or
   shortened to 王先生); in 20% of matters of six or more people a form letter, one text
   (title and content) sent by 3-15 of them within two days (role form).
4. Outside matters: policy questions with no object (医保报销比例, 落户, 公积金提取...,
   role policy, about ``("", topic)``), and single issues: one person, an object and a
   problem no one else writes about (20% on an object of a matter, with another problem),
   with 0-3 re-submissions (role single, then repeat). Singles fill the table to exactly
   ``rows`` rows.
5. Writing. Six styles: operator 工单 ("来电人反映："), web message, formal letter,
   terse, Cantonese-flavoured (冇, 嘅, 喺, 唔该), and the app's 【诉求内容】 form. Building,
   compound and village rows say "我们楼" / "我们小区" / "我们村" a quarter of the time and
   leave the object to the address field. Typos outside names (反应, 以经, 处里...),
   half-width punctuation, full-width digits. Names are full (74%), 王先生 / 李女士, 匿名 or
   empty; each person has one phone, unique, 12% masked as 138****1234. Categories are
   sometimes the operator's other choice. Ids follow created_at.

Figures of make(8000, 7), measured: 8,000 rows from 2024-07-01 to 2025-12-31; 700 matters
covering 6,022 rows (matter 4,948, form 247, repeat 827), and 465 re-submissions outside
matters; 254 matters with >= 5 distinct people, 53 with 20-60; policy 600 rows; 913 single
issues; the largest matter has 60 people. Hard-negative pairs (``HARD``): 20 sibling_building
(two buildings of one compound, one problem, the same week), 14 similar_company (鑫达科技 /
新达科技, 鑫达科技 / 鑫达电子), 12 two_districts (one name in two districts: 4 compounds,
3 markets, 3 schools, 2 restaurants), 12 adjacent_intersection (next crossings of one road),
10 road_stretch (two stretches of one road meeting at a cross street), 24 other_problem
(same object, another problem, overlapping in time), 24 other_episode (same object and
problem, the second starting >= 120 days after the first ends).
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta

CITY = "澜港市"
DISTRICTS = ["滨海区", "南湾区", "榕华区", "港北区", "沙埔区", "新洲区", "云溪区", "金渡区"]
START = datetime(2024, 7, 1)
DAYS = 549
EPISODE = 59
GAP = 120
TYPHOONS = [27, 67, 111, 348, 383, 450]
SPRING = (168, 205)

HARD = {"sibling_building": 20, "similar_company": 14, "two_districts": 12,
        "adjacent_intersection": 12, "road_stretch": 10, "other_problem": 24,
        "other_episode": 24}
MATTERS = 700
POLICY = 600

SURNAMES = list("王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高梁郑谢宋唐许韩冯邓曹彭曾肖田董袁潘蔡蒋余杜叶程苏魏吕丁任沈姚卢钟谭陆汪范金廖冼麦莫温")
GIVEN = list("伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玲红建国志文海燕辉斌宇浩凯婷雪琳晨俊峰鑫家嘉欣怡梓思雨美淑德荣栋锦颖慧佳")
PHONE_HEADS = ["130", "131", "132", "133", "135", "136", "137", "138", "139", "150", "151",
               "152", "155", "156", "157", "158", "159", "166", "176", "177", "180", "181",
               "185", "186", "187", "188", "189", "198", "199"]

COMPOUND_HEADS = ["翠湖", "海景", "金沙", "榕树", "碧海", "蓝湾", "椰风", "银滩", "阳光", "锦绣",
                  "丽景", "君悦", "海韵", "东方", "星河", "南国", "滨江", "御景", "怡海", "荔园",
                  "桃源", "明珠", "绿洲", "香榭", "水岸", "珊瑚", "听涛", "观澜", "金色", "幸福",
                  "海天", "帝景", "富丽", "金港", "新港", "康乐", "景湾", "半岛", "天悦", "海悦",
                  "玉兰", "枫林", "云顶", "宝华", "金域", "华景", "聚福", "东海", "凯旋", "颐和"]
COMPOUND_TAILS = ["花园", "苑", "豪庭", "新村", "雅居", "华府", "名苑", "家园", "公馆", "山庄",
                  "嘉园", "雅苑", "城", "里", "湾"]
VILLAGE_HEADS = list("上下东西南北大小新老石岗塘田湖岭龙凤榕")
VILLAGE_TAILS = list("沙围头井尾坑湾埔洲厦涌边心背墩")
COMPANY_HEADS = ["鑫达", "宏远", "华盛", "联创", "海川", "恒通", "锦程", "盛泰", "嘉禾", "顺发",
                 "永利", "金鹏", "腾越", "新亚", "瑞丰", "振华", "天润", "浩宇", "众诚", "华美",
                 "隆兴", "鼎盛", "创辉", "明达", "东升", "汇通", "信诚", "伟业", "宝丰", "中和",
                 "兴旺", "万利", "利华", "广源", "达丰", "荣昌", "富强", "恒丰", "粤港", "捷安"]
LOOKALIKE = {"鑫达": "新达", "宏远": "宏源", "华盛": "华晟", "恒通": "亨通", "锦程": "金程",
             "盛泰": "胜泰", "嘉禾": "佳禾", "顺发": "顺达", "永利": "永丽", "金鹏": "锦鹏",
             "瑞丰": "瑞峰", "振华": "振辉", "天润": "天闰", "明达": "铭达", "汇通": "惠通",
             "信诚": "鑫诚", "伟业": "玮业", "宝丰": "宝峰", "兴旺": "鑫旺", "达丰": "达峰"}
OFFICES = ["科技", "物流", "餐饮管理", "建筑劳务", "贸易", "装饰工程", "保安服务", "教育咨询",
           "信息技术"]
FACTORIES = ["电子", "服装", "塑胶制品", "五金", "家具", "食品", "包装", "模具", "印刷"]
MAINS = ["中山路", "人民路", "解放路", "滨海大道", "海港路", "新华路", "建设路", "环岛路",
         "湖滨路", "金沙大道", "迎宾大道", "南湾大道", "港北大道", "云溪路", "金渡路",
         "椰林大道", "红树林路", "望海路", "龙门路", "朝阳路", "沙埔大道", "新洲路"]
CROSSES = ["文化路", "育才路", "凤凰路", "海燕路", "白鹭路", "渔港路", "荔枝路", "芒果路",
           "木棉路", "紫荆路", "花园路", "体育路", "学府路", "青年路", "五一路", "八一路",
           "光明路", "和平路", "团结路", "前进路", "跃进路", "东风路", "兴业路", "创业路",
           "科技路", "工业一路", "工业二路", "工业三路", "工业四路", "工业五路", "港湾路",
           "海韵路", "银滩路", "榕树路", "桂花路", "石榴路", "龙眼路", "菠萝路", "椰子路",
           "三角梅路"]
WORDS = ["海滨", "东湖", "白沙", "金湾", "银湖", "青山", "翠竹", "红岭", "北斗", "新民", "育才",
         "实验", "文昌", "凤岗", "梅林", "桃园", "岭南", "星海", "朝阳", "向阳", "光明", "和平",
         "东风", "胜利", "红星", "长兴", "永安", "太平", "同乐", "福海", "海湾", "椰林", "木棉",
         "紫荆", "凤凰", "白鹭", "港湾", "渔港", "沙头", "石岩", "田园", "麒麟", "黄田", "西湾",
         "东涌", "南澳", "蚝乡", "榕荫", "碧波", "潮音"]
SHOP_HEADS = ["阿强", "阿明", "老陈", "老李", "阿珍", "强记", "明记", "华记", "发记", "兴记", "潮汕",
              "湛江", "顺德", "客家", "阿婆", "老友", "大佬", "好运", "福满", "食为天", "老街",
              "阿伟", "肥仔", "靓仔", "海鲜", "渔家"]
FOODS = ["烧烤", "大排档", "茶餐厅", "猪脚饭", "牛肉火锅", "砂锅粥", "糖水铺", "肠粉店",
         "奶茶店", "火锅店", "烤鱼"]
BARS = ["酒吧", "KTV"]
SERVICES = ["健身房", "理发店", "美容院", "游泳馆"]
CN = "零一二三四五六七八九"

# problem: category, other category, descriptions, short names, demands ("|" separates)
PROBLEMS = {
    "elevator": ("城乡建设", "住房保障",
        "的电梯经常坏，这个月已经停了好几次，老人小孩上下楼很困难|"
        "电梯三天两头出故障，昨天还有人被困在里面|"
        "的电梯坏了一个多星期，物业一直说在等配件|"
        "电梯运行时异响很大，还经常停在两层中间，很危险",
        "电梯故障|电梯老是坏|电梯停运|电梯困人",
        "请督促物业尽快维修电梯|希望尽快把电梯修好|要求物业给个说法"),
    "water_pressure": ("城乡建设", "水务",
        "的二次供水水压太低，高层一到晚上就没水|"
        "高峰期水龙头出水很小，热水器都打不着火|二次供水的水泵坏了，十几楼经常停水",
        "水压不足|二次供水问题|高层没水",
        "请供水部门尽快检修加压设备|希望解决高层用水问题"),
    "roof_leak": ("城乡建设", "住房保障",
        "的楼顶防水层坏了，一下雨顶楼住户家里就漏水|"
        "天面漏水，下暴雨时屋里要拿盆接水|楼顶漏水好几个月，维修基金一直批不下来",
        "楼顶漏水|天面漏水|顶楼渗水",
        "请尽快安排维修楼顶防水|希望督促物业启用维修基金"),
    "renovation_noise": ("城市管理", "环境保护",
        "有住户装修，中午和晚上都在电钻敲墙，严重影响休息|"
        "有一户装修从早上七点就开始打钻，周末也不停|装修噪音一直持续到晚上九点多",
        "装修噪音|装修扰民|违规装修施工",
        "请物业和相关部门制止|希望规定装修时间"),
    "wall_tiles": ("城乡建设", "应急管理",
        "的外墙瓷砖脱落，台风天掉下来差点砸到人|外墙砖大面积空鼓，已经掉了好几块|"
        "外墙瓷砖一块块往下掉，楼下都不敢走人",
        "外墙瓷砖脱落|外墙掉砖|外墙安全隐患",
        "请尽快排查外墙隐患|希望尽快拉警戒线并维修"),
    "property_fee": ("住房保障", "城乡建设",
        "物业突然通知物业费从每平方1.8元涨到2.6元，没有开业主大会|"
        "的物业公司单方面上调物业费，服务却越来越差|物业费涨价没有公示，业主都不同意",
        "物业费上涨|物业乱涨价|物业费问题",
        "请住建部门核查物业收费|要求物业停止涨价"),
    "ev_charging": ("城市管理", "应急管理",
        "的电动车充电桩坏了一大半，大家只能飞线充电，很危险|"
        "没有电动车充电桩，很多人在楼道里充电，有火灾隐患|"
        "的充电桩收费太高，还经常扫码充不上",
        "充电桩问题|电动车充电难|充电桩故障",
        "请尽快增设和维修充电桩|希望督促物业解决充电问题"),
    "garbage_station": ("城市管理", "环境保护",
        "的垃圾站紧挨着住宅楼，天热臭得窗户都不敢开|"
        "垃圾中转站清运不及时，苍蝇蚊子很多，味道很大|"
        "的垃圾站污水横流，晚上还有清运车噪音",
        "垃圾站臭味|垃圾站扰民|垃圾站选址",
        "请尽快整改垃圾站|希望把垃圾站搬离住宅楼"),
    "parking_fee": ("住房保障", "交通运输",
        "物业对小区内停车乱收费，临时停车一小时收十块|"
        "的地面停车位被物业私自出租，业主没地方停车|"
        "停车费一年涨了两次，也没有经过业主同意",
        "停车乱收费|停车位问题|停车收费",
        "请物价部门核查停车收费|要求物业公开停车收费标准"),
    "garage_flood": ("城乡建设", "应急管理",
        "的地下车库每次下大雨都水浸，车都被泡了|"
        "一下暴雨门口积水到膝盖，排水管道堵塞|"
        "台风暴雨后地下车库进水，物业的抽水泵根本不够用",
        "车库水浸|小区积水|地下室进水",
        "请尽快疏通排水|希望加装挡水板和抽水设备"),
    "illegal_building": ("城乡建设", "城市管理",
        "有人在加盖楼层，违章搭建越盖越高|的握手楼又在加建，挡住了消防通道|"
        "有户人家在天台搭铁皮房，还往外扩建",
        "违章搭建|违建加层|私搭乱建",
        "请执法部门尽快查处|希望依法拆除违建"),
    "sewage": ("城市管理", "环境保护",
        "的下水道堵塞，污水横流，臭气熏天|的排污渠好久没清理，污水漫到路面上|"
        "巷子里的化粪池满了往外冒，气味很大",
        "污水横流|下水道堵塞|排污渠发臭",
        "请尽快疏通下水道|希望清理排污渠"),
    "fire_risk": ("应急管理", "城乡建设",
        "的出租屋电线乱拉，电动车在楼道充电，消防隐患很大|"
        "很多出租屋没有消防通道，一栋楼住几十户人|"
        "巷子里的电线像蜘蛛网一样，经常冒火花",
        "出租屋消防隐患|电线乱拉|消防通道堵塞",
        "请消防部门上门检查|希望尽快整治消防隐患"),
    "village_garbage": ("城市管理", "环境保护",
        "的巷子里垃圾堆成山，好几天没人清运|垃圾乱堆乱放，老鼠到处跑|"
        "的垃圾桶满了没人收，臭到整条巷",
        "垃圾堆积|垃圾没人清运|环境卫生差",
        "请环卫部门尽快清运|希望增加垃圾清运次数"),
    "village_flood": ("城乡建设", "应急管理",
        "一下雨巷子里就水浸，积水一直退不下去|暴雨后积水到小腿，很多人家里进水|"
        "的排水沟太小，台风天整条村都水浸",
        "水浸街|积水内涝|村里积水",
        "请尽快疏通排水沟|希望改造排水管网"),
    "wages": ("劳动和社会保障", "市场监管",
        "拖欠我们工资已经三个月了，老板一直说下个月发|"
        "欠薪两个多月，上百名员工的工资都没发|"
        "说好月底发工资，现在拖了五十多天，找老板也找不到|"
        "拖欠工人工资，老板电话也不接",
        "拖欠工资|欠薪|工资不发",
        "请劳动监察部门帮忙追讨工资|希望尽快督促公司发放工资"),
    "social_insurance": ("劳动和社会保障", "医疗保障",
        "一直没有给员工买社保，入职时说好的|从去年开始停缴社保，工资条上却照扣|"
        "给员工断缴社保好几个月，看病都报销不了",
        "不交社保|社保断缴|未缴社保",
        "请社保部门核查并督促补缴|要求公司补缴社保"),
    "overtime": ("劳动和社会保障", "市场监管",
        "每天要求加班到晚上十点，从来不给加班费|周末强制加班不给加班工资|"
        "一个月只休两天，加班费按最低工资算",
        "加班不给加班费|强制加班|超时加班",
        "请劳动部门依法处理|希望督促公司支付加班费"),
    "fumes_factory": ("环境保护", "城市管理",
        "每天晚上偷排废气，刺鼻的味道飘到附近小区|"
        "排出的废气有股塑料烧焦的味道，晚上更严重|的烟囱一直冒黑烟，附近居民都在咳嗽",
        "工厂废气|偷排废气|排放异味",
        "请环保部门夜间突击检查|希望依法查处偷排"),
    "night_work": ("城乡建设", "环境保护",
        "晚上十一点以后还在施工，打桩机声音很大，附近居民没法睡觉|"
        "连续几个晚上通宵浇筑混凝土，噪音扰民|"
        "凌晨两点还在作业，也没有看到夜间施工许可",
        "夜间施工噪音|夜间施工|半夜施工扰民",
        "请执法部门夜间查处|希望禁止工地夜间施工"),
    "dust": ("环境保护", "城乡建设",
        "扬尘很大，没有围挡和洒水，附近家里窗台全是灰|裸土没有覆盖，一刮风满天灰|"
        "的搅拌站粉尘飘得到处都是",
        "扬尘污染|扬尘问题|粉尘问题",
        "请督促工地落实防尘措施|希望加强洒水降尘"),
    "muck_truck": ("交通运输", "城市管理",
        "的渣土车进出撒漏泥土，路面全是泥，下雨天很滑|"
        "的渣土车半夜超速行驶，还闯红灯，非常危险|"
        "出来的泥头车不冲洗车轮，整条路都是泥",
        "渣土车撒漏|泥头车问题|渣土车乱开",
        "请交警和城管查处渣土车|希望督促工地冲洗车辆"),
    "road_occupied": ("城乡建设", "交通运输",
        "的施工围挡占用了半条马路，早晚高峰堵得厉害|"
        "施工占道好几个月，人行道也封了，行人只能走机动车道|的围挡把公交站都围进去了",
        "施工占道|围挡占路|占道施工",
        "请核查占道审批|希望缩小围挡范围"),
    "signal": ("交通运输", "公安",
        "的红绿灯坏了好几天，车和行人乱成一团|"
        "的红绿灯配时不合理，行人绿灯只有十几秒老人过不去|"
        "的信号灯一直黄灯闪烁，差点撞车",
        "红绿灯故障|信号灯问题|红绿灯配时",
        "请交警尽快修复信号灯|希望调整红绿灯时间"),
    "junction_flood": ("城乡建设", "应急管理",
        "一下雨就积水，水深到小腿，车都熄火了|暴雨后积水严重，排水口被树叶堵住了|"
        "每次台风都水浸，积水两三个小时才退",
        "路口积水|积水内涝|水浸路口",
        "请尽快疏通排水口|希望改造排水管"),
    "manhole": ("城市管理", "城乡建设",
        "有个井盖缺失，只放了个路障，晚上很危险|"
        "的井盖松动，车一压就哐当响，半夜很吵|的井盖破损塌陷，有电动车摔倒了",
        "井盖缺失|井盖异响|井盖破损",
        "请尽快更换井盖|希望相关部门尽快修复"),
    "congestion": ("交通运输", "公安",
        "早晚高峰堵得很厉害，建议增加左转车道|没有左转灯，每天上下班堵成一锅粥|"
        "车辆乱加塞，每天堵半个小时以上",
        "拥堵|交通拥堵|堵车严重",
        "请交警部门优化路口|希望增加交警疏导"),
    "streetlight": ("城市管理", "城乡建设",
        "的路灯一整段都不亮，晚上黑漆漆的，很不安全|"
        "路灯坏了半个月了，晚上走路要打手电|的路灯时亮时不亮，已经有人摔倒了",
        "路灯不亮|路灯故障|路灯坏了",
        "请尽快维修路灯|希望尽快恢复照明"),
    "tree_down": ("城市管理", "应急管理",
        "台风过后有好几棵大树倒在路上，到现在还没清理|"
        "台风把路边的树刮倒了，压住了人行道和几辆车|"
        "倒伏的树木挡住了一条车道，断枝还挂在电线上",
        "台风后树木倒伏|倒树没清理|大树倒伏",
        "请园林部门尽快清理倒树|希望尽快清障"),
    "road_flood": ("城乡建设", "应急管理",
        "一下暴雨就内涝，积水有半米深|每次下大雨都水浸，车辆涉水熄火|"
        "台风暴雨后积水整整一天都没退",
        "道路积水|内涝|水浸街",
        "请尽快排涝|希望彻底改造排水系统"),
    "pothole": ("城乡建设", "交通运输",
        "路面坑坑洼洼，电动车经过很容易摔|路面塌陷了一个大坑，只用围挡围着|"
        "的沥青路面破损严重，下雨天全是水坑",
        "路面坑洼|路面塌陷|道路破损",
        "请尽快修补路面|希望尽快维修道路"),
    "line_change": ("交通运输", "城乡建设",
        "调整线路后不再经过我们这里，老人孩子出行很不方便|"
        "突然改线取消了好几个站，附近居民要走二十分钟才能坐车|"
        "改线以后绕了一大圈，上班要多花半小时",
        "公交线路调整|公交改线|取消站点",
        "希望恢复原来的线路|请公交公司重新考虑线路调整"),
    "bus_interval": ("交通运输", "城乡建设",
        "班次从十分钟一班改成半小时一班，早高峰根本挤不上|"
        "晚上八点以后就没车了，下班回不了家|经常等四十分钟都不来一班",
        "公交班次太少|发车间隔太长|末班车太早",
        "希望增加班次|请公交公司加密早晚高峰班次"),
    "stop_occupied": ("交通运输", "城市管理",
        "被电动车和摊贩占了，乘客只能站在马路上等车|"
        "的候车亭顶棚被台风刮坏了一直没修|的站台被共享单车堆满，上下车很危险",
        "公交站被占|候车亭损坏|站台乱停",
        "请尽快清理站台|希望尽快修复候车亭"),
    "stop_removed": ("交通运输", "城乡建设",
        "被撤掉了，附近几个小区的人都没车坐|突然撤站，也没有提前公示|"
        "撤掉以后最近的站要走一公里",
        "公交站撤销|撤站|站点取消",
        "希望恢复公交站点|请说明撤站理由"),
    "school_traffic": ("交通运输", "教育",
        "门口上学放学时间车辆乱停，接送的家长把路堵死了|"
        "周边早上七点半开始堵车，没有交警疏导，孩子过马路很危险|"
        "门口的斑马线没有红绿灯，车开得很快",
        "学校周边拥堵|接送拥堵|学校门口交通安全",
        "请交警在上下学时段疏导|希望设置临时停车区"),
    "school_vendors": ("市场监管", "教育",
        "门口有很多流动摊贩卖三无食品|周边小卖部卖辣条和电子烟给学生|"
        "放学时门口摊贩占满人行道",
        "校门口摊贩|周边三无食品|校园周边环境",
        "请市场监管部门查处|希望清理校门口摊贩"),
    "kg_fee": ("教育", "市场监管",
        "突然说要停办，已经交的学费和保育费不给退|收费超标，还要额外交兴趣班费用|"
        "一学期涨价一千多，也没有公示",
        "幼儿园退费|幼儿园乱收费|收费问题",
        "请教育部门介入退费|希望核查收费标准"),
    "market_hygiene": ("市场监管", "城市管理",
        "里面地面污水横流，垃圾没人清理|卫生很差，鱼档的污水流到过道上|"
        "的下水道堵了，整个市场都是臭味",
        "市场卫生差|市场脏乱|环境卫生",
        "请尽快整治市场卫生|希望加强管理"),
    "market_occupy": ("城市管理", "交通运输",
        "门口摊贩占道经营，把人行道全占了|的摊位摆到马路上，车都过不去|"
        "外面的流动摊贩早上把路堵死",
        "占道经营|摊贩占道|乱摆卖",
        "请城管部门清理|希望规范摆卖"),
    "market_noise": ("环境保护", "城市管理",
        "每天凌晨三四点就开始卸货，吵得附近居民睡不着|的冷库机组噪音很大，日夜不停|"
        "凌晨杀鸡杀鸭，声音和气味都很大",
        "市场噪音|凌晨卸货扰民|噪音扰民",
        "请相关部门处理噪音|希望调整卸货时间"),
    "short_weight": ("市场监管", "城市管理",
        "有摊贩用电子秤缺斤短两，买一斤少二两|的海鲜档鬼秤很多，投诉了也没用|"
        "的公平秤坏了很久没人修",
        "缺斤短两|鬼秤|短秤",
        "请市场监管部门查处|希望加强计量检查"),
    "fumes": ("环境保护", "城市管理",
        "的油烟直接排到居民楼，家里都是油烟味，窗户都不敢开|"
        "没有安装油烟净化器，油烟熏黑了外墙|的排烟管对着住户窗口，一到饭点满屋油烟",
        "油烟扰民|油烟污染|排烟问题",
        "请环保部门督促整改|希望安装油烟净化设备"),
    "late_noise": ("环境保护", "公安",
        "每天营业到凌晨两三点，客人喝酒划拳声音很大|门口摆桌子宵夜，半夜非常吵|"
        "的音响开得很大，半夜楼上都震",
        "深夜噪音|夜宵扰民|营业噪音",
        "请执法部门处理噪音|希望限制营业时间"),
    "delivery": ("城市管理", "交通运输",
        "门口外卖电动车堆满了人行道，骑手等单时大声喧哗|"
        "的外卖骑手逆行乱停，堵住了小区出入口|门口外卖车太多，行人都过不去",
        "外卖车乱停|外卖骑手聚集|外卖扰民",
        "请城管规范停放|希望设置外卖停车点"),
    "prepaid": ("市场监管", "商务",
        "突然关门，办的会员卡余额退不了|老板跑路了，充值卡里的钱没法退|"
        "换了老板说以前的卡不认了",
        "预付卡退费|会员卡跑路|充值卡退款",
        "请市场监管部门帮助追讨|希望依法处理"),
    "dance_noise": ("环境保护", "城市管理",
        "晚上广场舞音响开得很大，九点多还不停|每天早上六点就有人在里面放音乐跳舞|"
        "有人带大音箱唱卡拉OK，一唱就是一晚上",
        "广场舞噪音|公园噪音|音响扰民",
        "请城管和派出所处理|希望规定音量和时间"),
    "park_facilities": ("城市管理", "城乡建设",
        "里面的健身器材坏了很久没人修，小孩玩很危险|台风后倒了几棵树，步道一直封着|"
        "的儿童游乐设施生锈断裂",
        "公园设施损坏|健身器材损坏|设施老化",
        "请尽快维修|希望加强维护"),
    "park_light": ("城市管理", "公安",
        "晚上路灯不亮，散步的人很多，很不安全|的照明灯坏了一半，晚上黑乎乎的|"
        "晚上灯全灭了，有人在里面摔伤了",
        "公园照明|公园灯不亮|夜间照明差",
        "请尽快修复照明|希望增加照明"),
    "hospital_parking": ("卫生健康", "交通运输",
        "门口停车太难了，排队进停车场要一个多小时，车堵到主路上|"
        "周边乱停车严重，救护车都进不去|停车场收费太贵还没车位",
        "医院停车难|医院周边拥堵|停车问题",
        "请卫健和交警部门协调|希望增加停车位"),
    "scalper": ("卫生健康", "公安",
        "有黄牛倒卖专家号，网上根本挂不到号|门口有号贩子拉客，专家号加价几百块|"
        "的黄牛在挂号窗口插队",
        "黄牛倒号|号贩子|挂号难",
        "请公安打击号贩子|希望整治挂号秩序"),
}

KIND_PROBLEMS = {
    "B": ["elevator", "water_pressure", "roof_leak", "renovation_noise", "wall_tiles"],
    "C": ["property_fee", "ev_charging", "garbage_station", "parking_fee", "garage_flood"],
    "V": ["illegal_building", "sewage", "fire_risk", "village_garbage", "village_flood"],
    "W": ["night_work", "dust", "muck_truck", "road_occupied"],
    "X": ["signal", "junction_flood", "manhole", "congestion"],
    "S": ["streetlight", "tree_down", "road_flood", "pothole", "manhole"],
    "L": ["line_change", "bus_interval"],
    "P": ["stop_occupied", "stop_removed"],
    "M": ["market_hygiene", "market_occupy", "market_noise", "short_weight"],
    "K": ["dance_noise", "park_facilities", "park_light"],
    "H": ["hospital_parking", "scalper"],
}
TYPHOON_PROBLEMS = ["tree_down", "road_flood", "junction_flood", "village_flood", "garage_flood",
                    "wall_tiles"]
KIND_WEIGHTS = [("B", 16), ("C", 14), ("V", 7), ("Q", 12), ("W", 9), ("X", 7), ("S", 7),
                ("L", 3), ("P", 2), ("E", 6), ("M", 5), ("R", 8), ("K", 3), ("H", 1)]

POLICY_TOPICS = {
    "医保报销比例": ("医疗保障", "在市里住院医保报销比例是多少|门诊特定病种报销比例怎么算|异地就医备案以后报销比例一样吗|退休人员医保报销比例有没有提高"),
    "落户政策": ("公安", "人才引进落户需要什么条件|本科学历可以直接落户吗|父母随迁落户有什么要求|在澜港市买房能不能落户"),
    "公积金提取": ("住房保障", "租房提取公积金每个月能提多少|离职以后公积金怎么提取|买二手房可以提取公积金吗|公积金提取到账要几天"),
    "社保转移": ("劳动和社会保障", "从外省转社保过来要怎么办理|社保转移接续要带什么材料|养老保险转回老家怎么办"),
    "积分入学": ("教育", "积分入学的积分怎么计算|非户籍孩子读公办小学要什么条件|积分入学什么时候开始申请"),
    "居住证办理": ("公安", "居住证到期怎么续签|第一次办居住证要什么材料|居住证可以网上办理吗"),
    "生育津贴": ("医疗保障", "生育津贴怎么申领，要多久到账|男方可以领生育津贴吗|生育津贴按什么标准算"),
    "灵活就业社保": ("劳动和社会保障", "灵活就业人员怎么交社保|灵活就业交社保有没有补贴|外地户口能不能以灵活就业身份参保"),
    "养老金调整": ("劳动和社会保障", "今年养老金调整什么时候发放|养老金调整后每个月能涨多少|退休金是怎么计算的"),
    "人才补贴": ("人力资源", "新引进人才租房补贴怎么申请|人才补贴需要交满几个月社保|硕士毕业生生活补贴有多少"),
    "台风停工工资": ("劳动和社会保障", "台风红色预警停工那几天工资怎么算|台风天公司要求上班合法吗|停课停工期间单位能扣工资吗"),
    "新能源车指标": ("交通运输", "新能源车牌照怎么申请|外地户口能不能申请新能源指标|个人增量指标什么时候摇号"),
}

RESIDENT_EXTRAS = ["已经反映过好几次了", "附近居民意见很大", "家里有老人小孩", "打了物业电话没人接",
                   "街道也来看过，但一直没解决", "严重影响我们的正常生活", "不知道该找哪个部门",
                   "拍了照片可以提供"]
WORKER_EXTRAS = ["我们几十个工友都没拿到钱", "快过年了大家都等着钱回家", "去公司找了几次老板都不在",
                 "劳动监察那边也去过了", "家里还等着这笔钱交房租", "公司说是资金周转困难"]
DEMANDS = ["请相关部门尽快处理", "希望有关部门管一管", "请尽快核实处理", "恳请领导重视"]
TYPOS = {"反映": "反应", "已经": "以经", "希望": "希旺", "处理": "处里", "严重": "严种",
         "晚上": "晚尚", "噪音": "燥音", "解决": "结决", "部门": "布门", "尽快": "进快",
         "附近": "附进", "影响": "影向"}
DIALECT = [("没有", "冇"), ("不", "唔"), ("很", "好"), ("在", "喺"), ("那", "嗰"), ("这", "呢"),
           ("的", "嘅"), ("吵", "嘈"), ("睡", "瞓"), ("看", "睇"), ("快点", "快啲"), ("他们", "佢哋")]
DIALECT_TAILS = ["唔该你哋快啲嚟处理下啦", "成日都系咁，有冇人管㗎", "搞到我哋好烦啊",
                 "讲咗好多次都冇用", "真系顶唔顺"]
TERSE_TAILS = ["没人管", "赶紧处理", "多久了还不解决", "有没有人管啊", "请处理", "急"]
STYLES = [("op", 35), ("web", 22), ("letter", 8), ("terse", 12), ("dialect", 10), ("app", 13)]
MARK = "\x01"
HOME = "\x02"


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
    """One object writers name: its key, kind, district, surface names, problems and places."""
    key: str
    kind: str
    district: str
    names: list[str]
    problems: list[str]
    places: list[str] = field(default_factory=list)
    ours: str = ""
    twin: bool = False


@dataclass
class Matter:
    """A planned matter: object, problem, window of days and number of people."""
    obj: Obj
    problem: str
    start: int
    end: int
    people: int
    name: str = ""


@dataclass
class Person:
    """A writer: true key, name, gender and one phone as shown."""
    key: str
    name: str
    gender: str
    phone: str


def weighted(rng: random.Random, pairs: list[tuple[str, int]]) -> str:
    """Draw a key from (key, weight) pairs."""
    return rng.choices([k for k, _ in pairs], [w for _, w in pairs])[0]


def cn(n: int) -> str:
    """Chinese numeral for 1..99."""
    if n < 10:
        return CN[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else CN[tens]) + "十" + (CN[ones] if ones else "")


def nfkc(text: str) -> str:
    """Normalise width (full-width digits and punctuation to half-width)."""
    return unicodedata.normalize("NFKC", text)


class World:
    """Objects, people and the registry of surface names, drawn from one Random."""

    def __init__(self, rng: random.Random):
        """Start an empty world on rng."""
        self.rng = rng
        self.names: dict[str, str] = {}
        self.objects: dict[str, Obj] = {}
        self.taken: dict[str, bool] = {}
        self.compounds: list[tuple[str, str]] = []
        self.buildings: dict[tuple[str, str], list[int]] = {}
        self.people: list[Person] = []
        self.phones: dict[str, bool] = {}
        self.bosses: dict[str, bool] = {}
        self.grid = self.roads()

    def roads(self) -> list[tuple[str, str, list[str]]]:
        """Main roads, each in a district and crossing a run of seven cross streets in order."""
        grid = []
        for main in MAINS:
            first = self.rng.randint(0, len(CROSSES) - 7)
            grid.append((main, self.rng.choice(DISTRICTS), CROSSES[first:first + 7]))
        return grid

    def register(self, obj: Obj, twin: str = "") -> Obj | None:
        """Keep obj if none of its names names another object (but its twin); else None."""
        if obj.key in self.objects:
            return None
        for name in obj.names:
            owner = self.names.get(nfkc(name))
            if owner is not None and owner != twin:
                return None
        for name in obj.names:
            self.names.setdefault(nfkc(name), obj.key)
        self.objects[obj.key] = obj
        return obj

    def unique(self, space: str, draw) -> str:
        """A drawn name not yet taken in its space."""
        for _ in range(200):
            value = draw()
            if (space, value) not in self.taken:
                self.taken[(space, value)] = True
                return value
        raise RuntimeError(f"no free name in {space}")

    def compound(self, district: str = "") -> tuple[str, str]:
        """A new compound record (district, name)."""
        name = self.unique("compound", self.estate)
        record = (district or self.rng.choice(DISTRICTS), name)
        self.compounds.append(record)
        self.buildings[record] = []
        return record

    def estate(self) -> str:
        """A drawn estate name (a compound's, or a site's project)."""
        return self.rng.choice(COMPOUND_HEADS) + self.rng.choice(COMPOUND_TAILS)

    def road(self) -> str:
        """Any road of the city."""
        return self.rng.choice(MAINS + CROSSES)

    def place(self, district: str) -> str:
        """A street address in district."""
        return f"{district}{self.road()}{self.rng.randint(1, 388)}号"

    def boss(self) -> str:
        """A boss's full name, unique in the city."""
        rng = self.rng
        return self.unique("boss", lambda: rng.choice(SURNAMES) + "".join(rng.choices(GIVEN, k=2)))

    def person(self) -> Person:
        """A new writer with a unique phone, masked one time in eight."""
        rng = self.rng
        key = f"P{len(self.people) + 1:05d}"
        name = rng.choice(SURNAMES) + "".join(rng.choices(GIVEN, k=rng.choice([1, 2, 2])))
        for _ in range(1000):
            head, tail = rng.choice(PHONE_HEADS), f"{rng.randint(0, 9999):04d}"
            if head + tail not in self.phones:
                break
        self.phones[head + tail] = True
        phone = f"{head}****{tail}" if rng.random() < 0.12 else f"{head}{rng.randint(0, 9999):04d}{tail}"
        who = Person(key, name, rng.choice(["先生", "女士"]), phone)
        self.people.append(who)
        return who


def building(w: World, record: tuple[str, str] | None = None, number: int = 0) -> Obj | None:
    """A building of a compound, named 3号楼 / 三号楼 / 3栋 / 3#楼 / 3幢 / 3号."""
    if record is None:
        usable = [r for r in w.compounds if len(w.buildings[r]) < 6 and ("twin", r[1]) not in w.taken]
        record = w.rng.choice(usable) if usable and w.rng.random() < 0.4 else w.compound()
    district, comp = record
    number = number or w.rng.choice([n for n in range(1, 29) if n not in w.buildings[record]])
    forms = [f"{number}号楼", f"{cn(number)}号楼", f"{number}栋", f"{number}#楼", f"{number}幢",
             f"{number}号", f"{cn(number)}栋"]
    names = [head + form for form in forms for head in (comp, comp + "小区", district + comp)]
    obj = Obj(f"B|{district}|{comp}|{number}", "B", district, names, KIND_PROBLEMS["B"],
              ours=w.rng.choice(["我们楼", "我们这栋楼", "我住的这栋", "本栋"]))
    if w.register(obj):
        w.buildings[record].append(number)
        return obj
    return None


def compound_obj(w: World, record: tuple[str, str] | None = None, twin: str = "") -> Obj | None:
    """A compound named with or without 小区 and its district."""
    district, comp = record or w.compound()
    names = [comp, comp + "小区", district + comp, district + comp + "小区"]
    obj = Obj(f"C|{district}|{comp}", "C", district, names, KIND_PROBLEMS["C"],
              ours=w.rng.choice(["我们小区", "我们这个小区", "本小区"]), twin=bool(twin))
    return w.register(obj, twin)


def village(w: World) -> Obj | None:
    """An urban village (城中村)."""
    name = w.unique("village", lambda: w.rng.choice(VILLAGE_HEADS) + w.rng.choice(VILLAGE_TAILS))
    district = w.rng.choice(DISTRICTS)
    names = [name + "村", district + name + "村", name + "社区", name + "旧村", name + "城中村"]
    obj = Obj(f"V|{district}|{name}", "V", district, names, KIND_PROBLEMS["V"],
              ours=w.rng.choice(["我们村", "我们这条村", "我们城中村"]))
    return w.register(obj)


def company(w: World, head: str = "", trade: str = "", district: str = "") -> Obj | None:
    """A company or factory: full name, short name, by its road, by its boss."""
    rng = w.rng
    head = head or rng.choice(COMPANY_HEADS)
    trade = trade or rng.choice(OFFICES + FACTORIES)
    district = district or rng.choice(DISTRICTS)
    road, boss = w.road(), w.boss()
    short = head + trade
    names = [f"{CITY}{short}有限公司", f"{short}有限公司", short, f"{district}{short}",
             f"{road}那边的{head}公司", f"{boss}老板的公司"]
    problems = ["wages", "social_insurance", "overtime"]
    if trade in FACTORIES:
        names += [f"{short}厂", f"{road}的{head}{trade}厂", f"{boss}开的厂"]
        problems = problems + ["fumes_factory"]
    obj = Obj(f"Q|{district}|{short}", "Q", district, names, problems,
              places=[f"{district}{road}{rng.randint(1, 388)}号", f"{road}{rng.randint(1, 388)}号"])
    return w.register(obj)


def site(w: World) -> Obj | None:
    """A construction site named after its project."""
    name = w.unique("compound", w.estate)
    district, road = w.rng.choice(DISTRICTS), w.road()
    names = [f"{name}项目工地", f"{name}工地", f"{name}项目", f"{road}的{name}工地", f"{district}{name}工地"]
    obj = Obj(f"W|{district}|{name}", "W", district, names, KIND_PROBLEMS["W"],
              places=[f"{district}{road}{name}项目", f"{road}{name}工地"])
    return w.register(obj)


def crossing(w: World, main: str, district: str, cross: str) -> Obj | None:
    """An intersection named three ways and more."""
    names = [f"{main}与{cross}交叉口", f"{main}{cross}路口", f"{main}和{cross}那个十字路口",
             f"{cross}与{main}交叉口", f"{main}{cross}交界处", f"{district}{main}与{cross}交叉口"]
    obj = Obj(f"X|{district}|{main}|{cross}", "X", district, names, KIND_PROBLEMS["X"],
              places=[f"{district}{main}与{cross}交叉口", f"{main}{cross}路口"])
    return w.register(obj)


def stretch(w: World, main: str, district: str, first: str, second: str) -> Obj | None:
    """The stretch of a main road between two cross streets."""
    names = [f"{main}{first}至{second}段", f"{main}（{first}至{second}）", f"{main}从{first}到{second}那一段",
             f"{main}{first}到{second}之间", f"{district}{main}{first}至{second}段"]
    obj = Obj(f"S|{district}|{main}|{first}|{second}", "S", district, names, KIND_PROBLEMS["S"],
              places=[f"{district}{main}", f"{main}{first}至{second}段"])
    return w.register(obj)


def road_obj(w: World, kind: str) -> Obj | None:
    """A random intersection (X) or stretch (S) of the grid."""
    main, district, crosses = w.rng.choice(w.grid)
    i = w.rng.randrange(len(crosses) - 1)
    if kind == "X":
        return crossing(w, main, district, crosses[i])
    return stretch(w, main, district, crosses[i], crosses[i + 1])


def bus_line(w: World) -> Obj | None:
    """A bus line."""
    number = w.unique("line", lambda: w.rng.choice(["", "", "", "K", "B"]) + str(w.rng.randint(1, 399)))
    names = [f"{number}路公交", f"{number}路公交车", f"{number}路车", f"公交{number}路"]
    return w.register(Obj(f"L|{number}", "L", "", names, KIND_PROBLEMS["L"]))


def bus_stop(w: World) -> Obj | None:
    """A bus stop named after a place."""
    tails = ["新村", "路口", "市场", "桥", "牌坊", "总站"]
    name = w.unique("stop", lambda: w.rng.choice(WORDS) + w.rng.choice(tails))
    district = w.rng.choice(DISTRICTS)
    names = [f"{name}公交站", f"{name}站台", f"{name}公交车站", f"{district}{name}公交站"]
    return w.register(Obj(f"P|{district}|{name}", "P", district, names, KIND_PROBLEMS["P"],
                          places=[f"{district}{name}公交站"]))


def school(w: World, word: str = "", kind: str = "", district: str = "", twin: str = "") -> Obj | None:
    """A school or kindergarten."""
    word = word or w.rng.choice(WORDS)
    kind = kind or w.rng.choice(["小学", "小学", "中学", "幼儿园", "实验学校"])
    district = district or w.rng.choice(DISTRICTS)
    name = word + kind
    names = [name, district + name]
    names += {"小学": [word + "小"], "中学": [word + "中"], "幼儿园": [word + "幼"]}.get(kind, [])
    problems = ["school_traffic", "kg_fee"] if kind == "幼儿园" else ["school_traffic", "school_vendors"]
    obj = Obj(f"E|{district}|{name}", "E", district, names, problems, places=[w.place(district)],
              twin=bool(twin))
    return w.register(obj, twin)


def market(w: World, word: str = "", district: str = "", twin: str = "") -> Obj | None:
    """A market (菜市场)."""
    word = word or w.rng.choice(WORDS)
    district = district or w.rng.choice(DISTRICTS)
    names = [f"{word}菜市场", f"{word}市场", f"{word}肉菜市场", f"{district}{word}市场"]
    obj = Obj(f"M|{district}|{word}", "M", district, names, KIND_PROBLEMS["M"],
              places=[w.place(district)], twin=bool(twin))
    return w.register(obj, twin)


def shop(w: World, name: str = "", district: str = "", twin: str = "") -> Obj | None:
    """A shop or restaurant."""
    rng = w.rng
    name = name or rng.choice(SHOP_HEADS) + rng.choice(FOODS * 3 + BARS + SERVICES)
    trade = next(t for t in FOODS + BARS + SERVICES if name.endswith(t))
    district, road = district or rng.choice(DISTRICTS), w.road()
    names = [name, f"{road}的{name}", f"{road}那家{name}", f"{district}{name}"]
    if trade in FOODS:
        problems = ["fumes", "late_noise", "delivery", "prepaid"]
    elif trade in BARS:
        problems = ["late_noise", "prepaid"]
    else:
        problems = ["prepaid"]
    obj = Obj(f"R|{district}|{name}", "R", district, names, problems,
              places=[f"{district}{road}{rng.randint(1, 388)}号", f"{road}{rng.randint(1, 388)}号"],
              twin=bool(twin))
    return w.register(obj, twin)


def park(w: World) -> Obj | None:
    """A park."""
    word, district = w.rng.choice(WORDS), w.rng.choice(DISTRICTS)
    names = [f"{word}公园", f"{district}{word}公园", f"{word}公园广场"]
    return w.register(Obj(f"K|{district}|{word}", "K", district, names, KIND_PROBLEMS["K"],
                          places=[w.place(district)]))


def hospital(w: World) -> Obj | None:
    """A city or district hospital."""
    if w.rng.random() < 0.4:
        k = w.rng.randint(1, 8)
        names = [f"{CITY}第{cn(k)}人民医院", f"市第{cn(k)}人民医院", f"市{cn(k)}医院", f"{cn(k)}院"]
        district = w.rng.choice(DISTRICTS)
    else:
        district = w.rng.choice(DISTRICTS)
        kind = w.rng.choice(["人民医院", "中医院", "妇幼保健院"])
        short = {"人民医院": "人医", "中医院": "中医", "妇幼保健院": "妇幼"}[kind]
        names = [f"{district}{kind}", f"{district[:2]}{kind}", f"{district[:2]}{short}"]
    return w.register(Obj(f"H|{names[0]}", "H", district, names, KIND_PROBLEMS["H"],
                          places=[w.place(district)]))


MAKERS = {"B": building, "C": compound_obj, "V": village, "Q": company, "W": site, "L": bus_line,
          "P": bus_stop, "E": school, "M": market, "R": shop, "K": park, "H": hospital,
          "X": lambda w: road_obj(w, "X"), "S": lambda w: road_obj(w, "S")}


def fresh(w: World, kind: str = "") -> Obj:
    """A new object of kind (or of a drawn kind), retrying on a taken name."""
    for _ in range(400):
        obj = MAKERS[kind or weighted(w.rng, KIND_WEIGHTS)](w)
        if obj is not None:
            return obj
        if w.rng.random() < 0.2:
            kind = ""
    raise RuntimeError("no fresh object")


def people_count(rng: random.Random) -> int:
    """Distinct people of a matter: mostly 2-4, then 5-15, some 20-60."""
    r = rng.random()
    if r < 0.365:
        return 2
    if r < 0.535:
        return 3
    if r < 0.635:
        return 4
    if r < 0.935:
        return rng.randint(5, 15)
    return rng.randint(20, 60)


def duration(rng: random.Random, people: int, problem: str) -> int:
    """Days an episode lasts, longer for bigger matters, short after a typhoon."""
    if people <= 4:
        days = rng.randint(0, 20)
    elif people <= 15:
        days = rng.randint(3, 40)
    else:
        days = rng.randint(10, EPISODE)
    return min(days, 14) if problem in TYPHOON_PROBLEMS else days


def start_day(rng: random.Random, problem: str, days: int, low: int = 0) -> int:
    """First day of an episode: typhoon days for floods and trees, before Spring Festival for wages."""
    last = DAYS - 1 - days
    if problem in TYPHOON_PROBLEMS and rng.random() < 0.7:
        options = [t for t in TYPHOONS if low <= t <= last]
        if options:
            return min(last, rng.choice(options) + rng.randint(0, 2))
    if problem == "wages" and rng.random() < 0.4 and low <= SPRING[0] <= last:
        return rng.randint(SPRING[0], min(SPRING[1], last))
    return rng.randint(low, last)


def matter_on(rng: random.Random, obj: Obj, problem: str, start: int = -1, low: int = 0) -> Matter:
    """A matter on obj: its people, and a window from start (or a drawn start >= low)."""
    people = people_count(rng)
    days = duration(rng, people, problem)
    if start >= 0:
        start = min(start, DAYS - 1)
        return Matter(obj, problem, start, min(start + days, DAYS - 1), people)
    first = start_day(rng, problem, days, low)
    return Matter(obj, problem, first, first + days, people)


def near(rng: random.Random, base: Matter, obj: Obj, problem: str, spread: int) -> Matter:
    """A matter on obj starting within spread days of base."""
    return matter_on(rng, obj, problem, start=base.start + rng.randint(0, spread))


def sibling_pair(w: World) -> tuple[Matter, Matter]:
    """Two buildings of one compound with one problem in the same week."""
    while True:
        record = w.compound()
        first = w.rng.randint(1, 20)
        one = building(w, record, first)
        two = building(w, record, first + w.rng.choice([1, 1, 2, 3, 5, 10]))
        if one and two:
            break
    problem = w.rng.choice(KIND_PROBLEMS["B"])
    base = matter_on(w.rng, one, problem)
    return base, near(w.rng, base, two, problem, 4)


def company_pair(w: World) -> tuple[Matter, Matter]:
    """Two companies with alike names and one labour problem at about one time."""
    while True:
        head = w.rng.choice(sorted(LOOKALIKE))
        trade = w.rng.choice(OFFICES + FACTORIES)
        one = company(w, head, trade)
        if w.rng.random() < 0.5:
            two = company(w, LOOKALIKE[head], trade) if one else None
        else:
            others = [t for t in OFFICES + FACTORIES if t != trade]
            two = company(w, head, w.rng.choice(others)) if one else None
        if one and two:
            break
    problem = w.rng.choice(["wages", "wages", "social_insurance", "overtime"])
    base = matter_on(w.rng, one, problem)
    return base, near(w.rng, base, two, problem, 20)


def district_pair(w: World, kind: str) -> tuple[Matter, Matter]:
    """One name in two districts (compound, market, school, restaurant), one problem at one time."""
    while True:
        d1, d2 = w.rng.sample(DISTRICTS, 2)
        if kind == "C":
            d1, name = w.compound(d1)
            w.taken[("twin", name)] = True
            one = compound_obj(w, (d1, name))
            two = compound_obj(w, (d2, name), twin=one.key) if one else None
        elif kind == "M":
            word = w.rng.choice(WORDS)
            one = market(w, word, d1)
            two = market(w, word, d2, twin=one.key) if one else None
        elif kind == "R":
            name = w.rng.choice(SHOP_HEADS) + w.rng.choice(FOODS)
            one = shop(w, name, d1)
            two = shop(w, name, d2, twin=one.key) if one else None
        else:
            word, level = w.rng.choice(WORDS), w.rng.choice(["小学", "幼儿园", "中学"])
            one = school(w, word, level, d1)
            two = school(w, word, level, d2, twin=one.key) if one else None
        if one and two:
            one.twin = True
            break
    problem = w.rng.choice(one.problems)
    base = matter_on(w.rng, one, problem)
    return base, near(w.rng, base, two, problem, 20)


def grid_pair(w: World, kind: str) -> tuple[Matter, Matter]:
    """Adjacent intersections (X) or two stretches of one road (S), one problem at one time."""
    while True:
        main, district, crosses = w.rng.choice(w.grid)
        i = w.rng.randrange(len(crosses) - 2)
        if kind == "X":
            one = crossing(w, main, district, crosses[i])
            two = crossing(w, main, district, crosses[i + 1]) if one else None
        else:
            one = stretch(w, main, district, crosses[i], crosses[i + 1])
            two = stretch(w, main, district, crosses[i + 1], crosses[i + 2]) if one else None
        if one and two:
            break
    problem = w.rng.choice(KIND_PROBLEMS[kind])
    base = matter_on(w.rng, one, problem)
    return base, near(w.rng, base, two, problem, 7)


def problem_pair(w: World) -> tuple[Matter, Matter]:
    """One object with two problems at overlapping times."""
    while True:
        obj = fresh(w, w.rng.choice(["Q", "Q", "W", "W", "R", "C", "B", "M", "X", "S", "V", "K"]))
        if len(obj.problems) >= 2:
            break
    first, second = w.rng.sample(obj.problems, 2)
    base = matter_on(w.rng, obj, first)
    return base, matter_on(w.rng, obj, second, start=w.rng.randint(base.start, base.end))


def episode_pair(w: World) -> tuple[Matter, Matter]:
    """One object and problem in two episodes at least GAP days apart."""
    while True:
        obj = fresh(w)
        problem = w.rng.choice(obj.problems)
        people = people_count(w.rng)
        days = duration(w.rng, people, problem)
        start = start_day(w.rng, problem, days)
        if start + days + GAP + 1 + EPISODE < DAYS:
            break
    base = Matter(obj, problem, start, start + days, people)
    return base, matter_on(w.rng, obj, problem, low=base.end + GAP + 1)


def hard_pairs(w: World, scale: float) -> list[tuple[Matter, Matter, str]]:
    """The hard-negative pairs of matters, HARD scaled to the table."""
    makers = {"sibling_building": lambda i: sibling_pair(w),
              "similar_company": lambda i: company_pair(w),
              "two_districts": lambda i: district_pair(w, "CMERCMECMERC"[i % 12]),
              "adjacent_intersection": lambda i: grid_pair(w, "X"),
              "road_stretch": lambda i: grid_pair(w, "S"),
              "other_problem": lambda i: problem_pair(w),
              "other_episode": lambda i: episode_pair(w)}
    pairs = []
    for kind, count in HARD.items():
        for i in range(max(1, round(count * scale))):
            one, two = makers[kind](i)
            pairs.append((one, two, kind))
    return pairs


def plan(w: World, rows: int) -> tuple[list[Matter], list[tuple[Matter, Matter, str]]]:
    """All matters (hard pairs first, then ordinary ones), named by start in order."""
    scale = rows / 8000
    pairs = hard_pairs(w, scale)
    matters = [m for one, two, _ in pairs for m in (one, two)]
    budget = rows - round(POLICY * scale) - round(0.14 * rows)
    used = sum(m.people for m in matters)
    while len(matters) < round(MATTERS * scale):
        obj = fresh(w)
        m = matter_on(w.rng, obj, w.rng.choice(obj.problems))
        if used + m.people * 1.16 > budget:
            m.people = 2
            if used + 3 > budget:
                break
        used += m.people * 1.16
        matters.append(m)
    order = sorted(range(len(matters)), key=lambda i: (matters[i].start, i))
    for rank, i in enumerate(order, 1):
        matters[i].name = f"M{rank:04d}"
    return matters, pairs


def transform(rng: random.Random, text: str, dialect: bool = False) -> str:
    """Writers' own spelling: dialect words, a typo or two (names are marked and kept)."""
    if dialect:
        for plain, local in DIALECT:
            if rng.random() < 0.6:
                text = text.replace(plain, local)
    if rng.random() < 0.22:
        present = [word for word in TYPOS if word in text]
        for word in rng.sample(present, min(len(present), rng.randint(1, 2))):
            text = text.replace(word, TYPOS[word], 1)
    return text


def widen(rng: random.Random, text: str) -> str:
    """Half-width punctuation now and then, full-width digits less often."""
    if rng.random() < 0.28:
        text = text.translate(str.maketrans("，：！？（）；", ",:!?();"))
    if rng.random() < 0.1:
        text = text.translate(str.maketrans("0123456789", "０１２３４５６７８９"))
    return text


def when(rng: random.Random) -> str:
    """A time phrase."""
    return rng.choice(["", "", "最近", "近一个月来", "从上周开始", "这几天", "今天早上", "长期以来"])


def compose(rng: random.Random, style: str, problem: str, kind: str) -> tuple[str, str]:
    """A title and a content in a style, with MARK where the object's name goes."""
    labour = kind == "Q"
    _, _, descs, shorts, demands = PROBLEMS[problem]
    desc = rng.choice(descs.split("|"))
    short = rng.choice(shorts.split("|"))
    demand = rng.choice(demands.split("|") + DEMANDS)
    extra = rng.choice(WORKER_EXTRAS if labour else RESIDENT_EXTRAS)
    extra = extra + "，" if rng.random() < 0.5 else ""
    issue = short if short.endswith("问题") else short + "问题"
    m = MARK
    if style == "op":
        head = rng.choice(["来电人反映：", "市民来电反映，", "来电人称：", "市民通过热线反映：", "来电反映："])
        content = f"{head}{when(rng)}{m}{desc}，{extra}{demand}。"
        if rng.random() < 0.3:
            content += rng.choice(["来电人要求回复。", "请相关部门核实处理。", "诉求人不愿透露更多信息。"])
        title = rng.choice([f"关于{m}{short}的问题", f"反映{m}{short}", f"{m}{short}"])
    elif style == "web":
        who = "这里的员工" if labour else rng.choice(["这里的业主" if kind in "BC" else "这里的街坊", "附近的居民", "住在附近的"])
        content = f"您好！我是{who}，{when(rng)}{m}{desc}。{extra}{demand}，谢谢！"
        title = rng.choice([f"{m}{short}，请管管", f"投诉{m}{short}", issue, f"{m}{short}"])
    elif style == "letter":
        who = "员工" if labour else rng.choice(["业主", "居民", "住户"])
        home = f"{HOME}的{who}" if kind in "BCVQ" else "附近的居民"
        content = (f"尊敬的领导：\n    您好！我们是{home}，现就{short}一事向您反映。{m}{desc}。"
                   f"{extra}恳请有关部门高度重视，{demand}。\n此致\n敬礼！")
        title = rng.choice([f"关于{m}{short}的反映信", "情况反映", f"关于{issue}的联名反映"])
    elif style == "terse":
        content = f"{m}{rng.choice([short, desc])}，{rng.choice(TERSE_TAILS)}"
        title = rng.choice([short, f"{m}{short}", "投诉"])
    elif style == "dialect":
        content = f"{m}{desc}，{rng.choice(DIALECT_TAILS)}"
        title = rng.choice([f"{m}{short}", f"{m}{issue}", short])
    else:
        content = f"【诉求地址】{MARK}\n【诉求内容】{m}{desc}\n【诉求目的】{demand}"
        title = short
    return title, content


def address(rng: random.Random, w: World, obj: Obj, ours: bool) -> str:
    """The address field: the object's own place, the writer's home, or nothing."""
    if rng.random() < 0.6:
        room = f"{rng.randint(1, 4)}单元{rng.randint(2, 33)}{rng.randint(1, 8):02d}"
    else:
        room = f"{rng.randint(2, 33)}{rng.randint(1, 8):02d}房"
    if obj.kind == "B" and (ours or rng.random() < 0.6):
        return rng.choice(obj.names) + room
    if obj.kind == "C" and (ours or rng.random() < 0.6):
        name = rng.choice(obj.names)
        return name + (f"{rng.randint(1, 28)}栋{room}" if rng.random() < 0.7 else "")
    if obj.kind == "V" and (ours or rng.random() < 0.6):
        return f"{rng.choice(obj.names[:2])}{rng.randint(1, 12)}巷{rng.randint(1, 40)}号"
    r = rng.random()
    if obj.places and r < 0.55:
        return rng.choice(obj.places)
    if r < 0.8:
        return ""
    return w.place(rng.choice(DISTRICTS))


def write(rng: random.Random, w: World, obj: Obj, problem: str,
          style: str = "") -> tuple[str, str, str, str]:
    """A row's title, content, address and category about obj and problem."""
    style = style or weighted(rng, STYLES)
    ours = bool(obj.ours) and rng.random() < 0.25
    mention = obj.ours if ours else rng.choice(obj.names)
    title, content = compose(rng, style, problem, obj.kind)
    content = transform(rng, content, style == "dialect").replace(HOME, "这里" if ours else mention)
    title = title.replace(MARK, "" if ours else mention)
    addr = address(rng, w, obj, ours)
    content = content.replace(f"【诉求地址】{MARK}", f"【诉求地址】{addr or mention}").replace(MARK, mention)
    if obj.twin and obj.district not in title + content + addr:
        addr = obj.district + (addr or obj.names[0])
    category, other = PROBLEMS[problem][:2]
    return widen(rng, title), widen(rng, content), addr, other if rng.random() < 0.15 else category


def shown(rng: random.Random, who: Person, short: bool = False) -> str:
    """The name as written on a row: full, 王先生, 匿名 or empty."""
    if short:
        return who.name[0] + who.gender
    r = rng.random()
    if r < 0.74:
        return who.name
    if r < 0.84:
        return who.name[0] + who.gender
    return "匿名" if r < 0.92 else ""


def stamp(rng: random.Random, day: int) -> int:
    """Seconds from START at a time of day on day, mostly daytime."""
    hour = rng.randint(7, 23) if rng.random() < 0.92 else rng.randint(0, 6)
    return day * 86400 + hour * 3600 + rng.randint(0, 3599)


def row(ts: int, title: str, name: str, phone: str, addr: str, category: str, content: str) -> dict:
    """A row without its id."""
    return {"title": title, "name": name, "phone": phone, "address": addr, "category": category,
            "content": content, "ts": ts}


def repeats(rng: random.Random, w: World, first: dict, who: Person, obj: Obj, problem: str,
            count: int, last: int) -> list[dict]:
    """Re-submissions of first by the same person and phone, before second last."""
    out = []
    for _ in range(count):
        room = last - first["ts"]
        ts = first["ts"] + (rng.randint(3600, min(room, 12 * 86400)) if room > 3600 else max(room, 0))
        head = rng.choice(["再次反映：", "第二次来电，", "之前反映过，至今没有处理，", "重复投诉：", "还是没人管！"])
        if rng.random() < 0.35:
            title, content, addr = first["title"], head + first["content"], first["address"]
        else:
            title, content, addr, _ = write(rng, w, obj, problem)
            content = head + content
        name = shown(rng, who, short=True) if rng.random() < 0.3 else first["name"]
        out.append(row(ts, title, name, who.phone, addr, first["category"], content))
    return out


def resubmits(rng: random.Random) -> int:
    """How many times a person re-submits: 0-3."""
    r = rng.random()
    return 0 if r < 0.66 else 1 if r < 0.86 else 2 if r < 0.95 else 3


def matter_rows(rng: random.Random, w: World, m: Matter,
                crowd: list[Person]) -> list[tuple[dict, Person, str]]:
    """All rows of one matter: people, a form letter perhaps, re-submissions."""
    people: list[Person] = []
    while len(people) < m.people:
        other = rng.choice(crowd) if crowd and rng.random() < 0.04 else None
        who = other if other is not None and other not in people else w.person()
        people.append(who)
    last = m.end * 86400 + 86399
    form = 0
    if m.people >= 6 and rng.random() < 0.2:
        form = rng.randint(3, min(15, m.people - 1))
    out = []
    if form:
        style = rng.choice(["letter", "letter", "web"])
        title, content, _, category = write(rng, w, m.obj, m.problem, style)
        day = rng.randint(m.start, max(m.start, m.end - 2))
        for who in people[1:form + 1]:
            addr = address(rng, w, m.obj, True) if m.obj.kind in "BCV" else ""
            if m.obj.twin and m.obj.district not in title + content + addr:
                addr = m.obj.district + (addr or m.obj.names[0])
            ts = stamp(rng, rng.randint(day, min(day + 2, m.end)))
            letter = row(ts, title, shown(rng, who), who.phone, addr, category, content)
            out.append((letter, who, "form"))
    for i, who in enumerate(people):
        if 1 <= i <= form:
            continue
        day = m.start if i == 0 else rng.randint(m.start, m.end)
        title, content, addr, category = write(rng, w, m.obj, m.problem)
        first = row(stamp(rng, day), title, shown(rng, who), who.phone, addr, category, content)
        out.append((first, who, "matter"))
        count = resubmits(rng) if rng.random() < 0.3 else 0
        for again in repeats(rng, w, first, who, m.obj, m.problem, count, last):
            out.append((again, who, "repeat"))
    return out


def policy_rows(rng: random.Random, w: World, count: int) -> list[tuple[dict, Person, str, tuple]]:
    """Questions about policies with no object, however many ask."""
    topics = list(POLICY_TOPICS)
    out = []
    for _ in range(count):
        topic = rng.choice(topics)
        category, questions = POLICY_TOPICS[topic]
        question = rng.choice(questions.split("|"))
        who = rng.choice(w.people) if w.people and rng.random() < 0.1 else w.person()
        home = ""
        if w.compounds and rng.random() < 0.2:
            home = "我住在" + "".join(rng.choice(w.compounds)) + "，"
        style = rng.choice(["op", "web", "terse", "app"])
        if style == "op":
            content = f"来电人咨询：{home}{question}？请相关部门解答。"
        elif style == "web":
            content = f"您好，{home}想问一下{question}？谢谢！"
        elif style == "terse":
            content = f"{question}？"
        else:
            content = f"【诉求内容】{home}咨询{question}\n【诉求目的】政策解答"
        title = rng.choice([f"咨询{topic}", f"{topic}咨询", "政策咨询", "咨询"])
        day = rng.randint(0, DAYS - 1)
        content = widen(rng, transform(rng, content))
        asked = row(stamp(rng, day), title, shown(rng, who), who.phone, "", category, content)
        out.append((asked, who, "policy", ("", topic)))
    return out


def single_target(rng: random.Random, w: World, matters: list[Matter], used: dict) -> tuple[Obj, str]:
    """An object and problem no one else writes about."""
    while True:
        if rng.random() < 0.2:
            m = rng.choice(matters)
            problem = rng.choice(m.obj.problems)
            obj = m.obj
        else:
            obj = fresh(w)
            problem = rng.choice(obj.problems)
        if (obj.key, problem) not in used:
            used[(obj.key, problem)] = True
            return obj, problem


def single_rows(rng: random.Random, w: World, matters: list[Matter],
                count: int) -> list[tuple[dict, Person, str, tuple]]:
    """Single issues with their re-submissions, exactly count rows."""
    used = {(m.obj.key, m.problem): True for m in matters}
    out = []
    while len(out) < count:
        obj, problem = single_target(rng, w, matters, used)
        who = w.person()
        day = rng.randint(0, DAYS - 2)
        title, content, addr, category = write(rng, w, obj, problem)
        first = row(stamp(rng, day), title, shown(rng, who), who.phone, addr, category, content)
        out.append((first, who, "single", (obj.key, problem)))
        last = min(DAYS * 86400 - 1, first["ts"] + 30 * 86400)
        extra = min(resubmits(rng), count - len(out))
        for again in repeats(rng, w, first, who, obj, problem, extra, last):
            out.append((again, who, "repeat", (obj.key, problem)))
    return out


def make_with_names(rows: int = 8000, seed: int = 7) -> tuple[Hotline, dict[str, list[str]]]:
    """The table and every object's surface names (object key -> names)."""
    rng = random.Random(seed)
    w = World(rng)
    matters, pairs = plan(w, rows)
    drafts = []
    crowd: list[Person] = []
    for m in matters:
        batch = matter_rows(rng, w, m, crowd)
        crowd.extend(who for _, who, _ in batch)
        drafts += [(r, who, role, m.name, (m.obj.key, m.problem)) for r, who, role in batch]
    outside = policy_rows(rng, w, round(POLICY * rows / 8000))
    outside += single_rows(rng, w, matters, rows - len(drafts) - len(outside))
    drafts += [(r, who, role, None, about) for r, who, role, about in outside]
    return assemble(drafts, pairs), {k: list(o.names) for k, o in w.objects.items()}


def assemble(drafts: list, pairs: list[tuple[Matter, Matter, str]]) -> Hotline:
    """Order drafts by time, give ids and collect the truth."""
    order = sorted(range(len(drafts)), key=lambda i: (drafts[i][0]["ts"], i))
    table = Hotline([], {}, {}, [(a.name, b.name, kind) for a, b, kind in pairs])
    for rid, i in enumerate(order, 1):
        r, who, role, matter, about = drafts[i]
        when_ = START + timedelta(seconds=r["ts"])
        table.rows.append({"id": rid, "title": r["title"], "name": r["name"], "phone": r["phone"],
                           "address": r["address"], "category": r["category"], "content": r["content"],
                           "created_at": when_.strftime("%Y-%m-%d %H:%M:%S")})
        table.matter[rid] = matter
        table.person[rid] = who.key
        table.role[rid] = role
        table.about[rid] = about
    return table


def make(rows: int = 8000, seed: int = 7) -> Hotline:
    """The labelled table of rows rows, the same for the same seed."""
    return make_with_names(rows, seed)[0]
