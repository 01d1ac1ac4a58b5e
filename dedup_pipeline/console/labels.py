"""The console's words, Chinese first (the default) and English (?lang=en, kept in the session)."""

LANGS = ("zh", "en")

# Display names of the usual petition columns (others are shown by their names).
COLUMNS = {
    "zh": {"title": "标题", "name": "姓名", "phone": "电话", "address": "地址", "category": "类别",
           "content": "内容", "created_at": "提交时间"},
    "en": {"title": "Title", "name": "Name", "phone": "Phone", "address": "Address", "category": "Category",
           "content": "Text", "created_at": "Filed"},
}

LABELS = {
    "zh": {
        "html_lang": "zh-CN", "title": "重复信访审核", "login": "登录", "name": "用户名", "password": "密码",
        "sign_in": "登录", "logout": "退出", "bad_login": "用户名或密码不正确。",
        "too_many": "登录失败次数过多，请 15 分钟后再试。", "queue": "待审队列", "other_lang": "English",
        "pairs_left": "待审相似对", "groups_left": "待审组", "left": "待审总数", "decided_today": "今日已决定",
        "pairs_found": "本批相似对", "groups_found": "本批重复组", "figures": "审核结果说明什么",
        "precision": "规则精确率", "precision_note": "规则自动配对且已审核的对中确认为重复的比例（95% 置信区间）",
        "queue_share": "待审项中确为重复的比例", "queue_share_note": "已审核的待审项中判定为重复的比例",
        "none_yet": "尚无审核", "start": "开始审核", "start_key": "回车", "kind": "类型", "pair": "相似对",
        "group": "组", "rows": "行", "distance": "距离", "newest": "最新日期", "open": "查看",
        "empty_queue": "队列已清空：没有需要人工判断的项。", "more_items": "另有 {n} 项未列出",
        "id": "编号", "date": "提交日期", "text": "内容", "field": "字段", "agree": "一致",
        "same": "是重复", "different": "不是重复", "skip": "跳过", "note": "备注（可选）",
        "shortcuts": "快捷键：S 是重复，D 不是重复，空格或 J 跳过，Q 返回队列。",
        "group_shortcuts": "快捷键：S 整组为同一集体信访，空格或 J 跳过，Q 返回队列。",
        "history": "决定记录", "no_history": "这对记录尚无决定。", "by": "审核人", "verdict": "结论",
        "when": "时间", "verdict_same": "重复", "verdict_different": "不重复",
        "stale": "已失效", "stale_hint": "决定之后有一行改动过：此决定不再生效，这对记录重新交由规则判断并可回到队列。",
        "group_same": "整组为同一集体信访", "not_of_group": "不属于本组", "base": "首行",
        "legend": "标亮处为本条独有的文字；与首行逐字比较。", "legend_pair": "标亮处为本条独有的文字。",
        "refused": "请求被拒绝", "csrf": "表单已过期或来源不明，请返回重试。", "not_found": "找不到",
        "unavailable": "暂不可用", "back": "返回队列", "of": "第 {n} 项，共 {total} 项",
        "signed_in_as": "审核人：",
    },
    "en": {
        "html_lang": "en", "title": "Duplicate petition review", "login": "Sign in", "name": "Name",
        "password": "Password", "sign_in": "Sign in", "logout": "Sign out",
        "bad_login": "Wrong name or password.", "too_many": "Too many failed sign-ins; try again in 15 minutes.",
        "queue": "Queue", "other_lang": "中文", "pairs_left": "Pairs to review", "groups_left": "Groups to review",
        "left": "Items left", "decided_today": "Decided today", "pairs_found": "Pairs in the last batch",
        "groups_found": "Groups in the last batch", "figures": "What the decisions tell",
        "precision": "Rule precision", "precision_note": "of the rule's pairs reviewed, the share confirmed "
                                                         "(95% confidence interval)",
        "queue_share": "Queue items that were duplicates", "queue_share_note": "of the queue items decided",
        "none_yet": "nothing reviewed yet", "start": "Start reviewing", "start_key": "Enter", "kind": "Kind",
        "pair": "pair", "group": "group", "rows": "rows", "distance": "Distance", "newest": "Newest",
        "open": "Open", "empty_queue": "The queue is empty: nothing needs a person.",
        "more_items": "{n} more not listed", "id": "Id", "date": "Filed", "text": "Text", "field": "Field",
        "agree": "agree", "same": "Same petition", "different": "Different", "skip": "Skip",
        "note": "Note (optional)",
        "shortcuts": "Keys: S same, D different, Space or J skip, Q back to the queue.",
        "group_shortcuts": "Keys: S the group is one collective petition, Space or J skip, Q back to the queue.",
        "history": "Decisions", "no_history": "No decision about this pair yet.", "by": "Reviewer",
        "verdict": "Verdict", "when": "When", "verdict_same": "same", "verdict_different": "different",
        "stale": "stale", "stale_hint": "A row changed since: this decision no longer stands; the rule decides the pair again and it may return to the queue.",
        "group_same": "One collective petition", "not_of_group": "Not of this group", "base": "first row",
        "legend": "Highlighted: text only this row has, compared with the first row.",
        "legend_pair": "Highlighted: text only this row has.", "refused": "Refused",
        "csrf": "The form is stale or did not come from this console; go back and try again.",
        "not_found": "Not found", "unavailable": "Unavailable", "back": "Back to the queue",
        "of": "item {n} of {total}", "signed_in_as": "Reviewer: ",
    },
}
