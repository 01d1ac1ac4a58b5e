"""Deciding in the console (issue 50, findings 3, 4 and 7): a decision made from a view that is
no longer current is refused with who decided what and when, never a silent overwrite; bad
input is a 4xx in the reviewer's language, not an outage; the last act is said on the next
page and can be undone from it; a group page shows its history and can say "none of these".
The pages over the stand-in desk (testing/console.py); the library's part (the check and the
write as one, the undo, a group's history) on a real MariaDB."""

import re
import threading

import pytest
import sqlalchemy as sa

from dedup_pipeline import commands
from dedup_pipeline.config import parse_config
from dedup_pipeline.core.decision import NOT_MEASURED
from dedup_pipeline.errors import InputError
from dedup_pipeline.sql import decisions, migrate
from dedup_pipeline.sql.decisions import Conflict
from dedup_pipeline.sql.source import SourceError, SqlSource


def post(client, path="/decide", **data):
    return client.post(path, data={"csrf_token": client.csrf, **data})


def seen_on(page: str) -> str:
    """What the page's decision form says it showed (the latest decision's id, or "none")."""
    return re.search(r'name="seen" value="([^"]*)"', page).group(1)


def as_text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


# ---------------------------------------------------------------- one decision at a time (finding 3)

def test_a_pair_page_with_no_decision_says_so_in_its_form(signed_in):
    assert seen_on(signed_in.get("/pair?a=1&b=2").text) == "none"


def test_a_pair_page_carries_the_id_of_the_latest_decision_it_shows(signed_in, console_desk):
    [made] = console_desk.decide(1, 2, same=False, by="li")
    assert seen_on(signed_in.get("/pair?a=1&b=2").text) == str(made.id)


def test_a_pair_decided_by_another_since_the_page_was_opened_is_refused_with_who_what_and_when(signed_in,
                                                                                               console_desk):
    seen = seen_on(signed_in.get("/pair?a=1&b=2").text)
    console_desk.decide(1, 2, same=False, by="li")
    answer = post(signed_in, kind="pair", a="1", b="2", verdict="same", seen=seen)
    text = as_text(answer.text)
    assert answer.status_code == 409 and "决定未记录" in text
    assert "li 于 2025-03-10 09:01 已决定：1 与 2 不是重复" in text
    assert 'href="/pair?a=1&amp;b=2"' in answer.text and "按当前状态重新决定" in text
    assert [d.reviewer for d in console_desk.made] == ["li"]


def test_a_pair_decided_from_the_current_view_is_recorded(signed_in, console_desk):
    console_desk.decide(1, 2, same=False, by="li")
    seen = seen_on(signed_in.get("/pair?a=1&b=2").text)
    answer = post(signed_in, kind="pair", a="1", b="2", verdict="same", seen=seen)
    assert answer.status_code == 303 and [d.verdict for d in console_desk.made] == ["different", "same"]


def test_a_group_decided_by_another_since_the_page_was_opened_is_refused_with_who_and_what(signed_in,
                                                                                           console_desk):
    page = signed_in.get("/group?row=4&row=5&row=6").text
    assert seen_on(page) == "none"
    console_desk.decide(5, 6, same=True, by="li")
    answer = post(signed_in, kind="group", row=["4", "5", "6"], verdict="same", seen=seen_on(page))
    assert answer.status_code == 409 and "li 于 2025-03-10 09:01 已决定：5 与 6 是重复" in as_text(answer.text)
    assert 'href="/group?row=4&amp;row=5&amp;row=6"' in answer.text and len(console_desk.made) == 1


def test_a_row_taken_out_of_a_group_from_a_stale_view_is_refused(signed_in, console_desk):
    seen = seen_on(signed_in.get("/group?row=4&row=5&row=6").text)
    console_desk.decide(4, 6, same=True, by="li")
    answer = post(signed_in, kind="group", row=["4", "5", "6"], other="5", verdict="different", seen=seen)
    assert answer.status_code == 409 and len(console_desk.made) == 1


# ---------------------------------------------------------------- bad input is not an outage (finding 4)

@pytest.mark.parametrize("form, said", [
    ({"kind": "pair", "a": "1", "b": "1", "verdict": "same", "seen": "none"}, "不能把一条记录与它自己比较（编号 1）"),
    ({"kind": "group", "row": ["4", "5", "4"], "verdict": "same", "seen": "none"}, "不能把一条记录与它自己比较（编号 4）"),
    ({"kind": "pair", "a": "1", "verdict": "same", "seen": "none"}, "表单缺少或填错了“b”"),
    ({"kind": "pair", "a": "1", "b": "2", "seen": "none"}, "结论只能是“是重复”或“不是重复”"),
    ({"kind": "pair", "a": "1", "b": "2", "verdict": "maybe", "seen": "none"}, "结论只能是“是重复”或“不是重复”"),
    ({"kind": "pair", "a": "1", "b": "2", "verdict": "same", "seen": "latest"}, "表单缺少或填错了“seen”"),
    ({"kind": "pair", "a": "1", "b": "2", "verdict": "same"}, "表单缺少或填错了“seen”"),
    ({"kind": "group", "row": ["4", "5", "6"], "verdict": "same"}, "表单缺少或填错了“seen”"),
    ({"kind": "triple", "a": "1", "b": "2", "verdict": "same", "seen": "none"}, "表单缺少或填错了“kind”"),
    ({"kind": "group", "row": ["4"], "verdict": "same", "seen": "none"}, "表单缺少或填错了“row”"),
], ids=["one-row-twice", "a-group-row-twice", "missing-b", "missing-verdict", "other-verdict", "malformed-seen",
        "missing-seen", "a-group-without-seen", "unknown-kind", "a-group-of-one"])
def test_a_malformed_decision_is_a_400_in_chinese_and_records_nothing(signed_in, console_desk, form, said):
    answer = post(signed_in, **form)
    assert answer.status_code == 400 and "请求有误" in answer.text and said in answer.text
    assert console_desk.made == [] and console_desk.decided == []


def test_a_pair_page_of_one_row_twice_is_a_400(signed_in):
    answer = signed_in.get("/pair?a=2&b=2")
    assert answer.status_code == 400 and "不能把一条记录与它自己比较" in answer.text


def test_an_input_error_of_the_library_is_a_400_not_an_outage(signed_in, console_desk, monkeypatch):
    def refuse(*args, **kwargs):
        raise InputError("a decision is about two different rows, not row 1 with itself: nothing was decided")

    monkeypatch.setattr(console_desk, "decide", refuse)
    answer = post(signed_in, kind="pair", a="1", b="2", verdict="same", seen="none")
    assert answer.status_code == 400 and "请求的内容无法处理" in answer.text and "暂不可用" not in answer.text


def test_a_real_outage_is_still_a_503(signed_in, console_desk, monkeypatch):
    def away(*args, **kwargs):
        raise SourceError("cannot connect to the source database")

    monkeypatch.setattr(console_desk, "decide", away)
    answer = post(signed_in, kind="pair", a="1", b="2", verdict="same", seen="none")
    assert answer.status_code == 503 and "暂不可用" in answer.text


def test_a_row_the_table_has_not_is_a_404_in_chinese(signed_in):
    answer = signed_in.get("/pair?a=1&b=999")
    assert answer.status_code == 404 and "没有编号为 999 的记录" in answer.text
    assert "no row" not in answer.text and 'lang="zh-CN"' in answer.text


def test_a_decision_about_a_row_the_table_has_not_is_a_404_in_chinese(signed_in, console_desk):
    answer = post(signed_in, kind="pair", a="1", b="999", verdict="same", seen="none")
    assert answer.status_code == 404 and "没有编号为 999 的记录" in answer.text and console_desk.made == []


def test_an_unknown_path_is_the_consoles_own_404_in_chinese(signed_in):
    answer = signed_in.get("/no/such/page")
    assert answer.status_code == 404 and "没有这个页面：/no/such/page" in answer.text
    assert "Not Found" not in answer.text and "返回队列" in answer.text


def test_a_method_not_allowed_is_a_405_in_chinese(signed_in):
    answer = signed_in.get("/decide")
    assert answer.status_code == 405 and "此地址不接受 GET 请求" in answer.text
    assert "Method Not Allowed" not in answer.text


def test_a_body_too_large_is_a_413_in_chinese(signed_in, console_desk):
    answer = post(signed_in, kind="pair", a="1", b="2", verdict="same", seen="none", note="长" * 40_000)
    assert answer.status_code == 413 and "提交的内容过大" in answer.text and console_desk.made == []


def test_the_refusals_are_in_english_for_a_reviewer_who_chose_it(signed_in):
    signed_in.get("/?lang=en")
    assert "There is no row with id 999" in signed_in.get("/pair?a=1&b=999").text
    assert "There is no page /nowhere" in signed_in.get("/nowhere").text


# ---------------------------------------------------------------- undo, a group's history, none of these (finding 7)

def decide_and_follow(client, **form):
    """Decide from the page's form, and the page it goes on to (the next item)."""
    answer = post(client, **form)
    assert answer.status_code == 303, answer.text
    return client.get(client.get(answer.headers["Location"]).headers["Location"]).text


def undo_of(page: str) -> str:
    return re.search(r'name="act" value="([^"]+)"', page).group(1)


def test_the_next_page_says_what_was_recorded_with_an_undo_on_u(signed_in):
    page = decide_and_follow(signed_in, kind="pair", a="1", b="2", verdict="different", seen="none")
    assert "已记录：1 与 2 不是重复" in as_text(page)
    assert re.search(r'<form method="post" action="/undo"[^>]*>\s*<input type="hidden" name="csrf_token"', page)
    assert 'data-key="u"' in page


def test_undo_of_a_first_decision_leaves_the_pair_undecided_and_its_history_shows_it(signed_in, console_desk):
    page = decide_and_follow(signed_in, kind="pair", a="1", b="2", verdict="different", seen="none")
    answer = post(signed_in, "/undo", act=undo_of(page))
    assert answer.status_code == 303 and answer.headers["Location"] == "/pair?a=1&b=2"
    back = signed_in.get("/pair?a=1&b=2").text
    assert "已撤销：1 与 2 不是重复" in as_text(back) and "无决定（已撤销）" in back
    assert [(d.verdict, d.withdrawn, d.undo) for d in console_desk.made] == [("different", False, False),
                                                                            ("different", True, True)]
    assert next(item.rows for item in console_desk.queue()) == [1, 2], "back in the queue"


def test_undo_restores_the_decision_made_before(signed_in, console_desk):
    console_desk.decide(1, 2, same=True, by="li")
    page = decide_and_follow(signed_in, kind="pair", a="1", b="2", verdict="different",
                             seen=seen_on(signed_in.get("/pair?a=1&b=2").text))
    post(signed_in, "/undo", act=undo_of(page))
    last = console_desk.history(1, 2)[-1]
    assert (last.verdict, last.reviewer, last.undo, last.withdrawn) == ("same", "wang", True, False)


def test_the_undo_message_is_said_once(signed_in):
    page = decide_and_follow(signed_in, kind="pair", a="1", b="2", verdict="same", seen="none")
    post(signed_in, "/undo", act=undo_of(page))
    assert 'id="recorded"' in signed_in.get("/pair?a=1&b=2").text
    assert 'id="recorded"' not in signed_in.get("/pair?a=1&b=2").text


def test_undo_twice_is_refused_the_second_time(signed_in, console_desk):
    act = undo_of(decide_and_follow(signed_in, kind="pair", a="1", b="2", verdict="same", seen="none"))
    post(signed_in, "/undo", act=act)
    answer = post(signed_in, "/undo", act=act)
    assert answer.status_code == 409 and "没有可撤销的决定" in answer.text and len(console_desk.made) == 2


def test_undo_after_another_reviewer_decided_the_pair_is_refused_with_who(signed_in, console_desk):
    act = undo_of(decide_and_follow(signed_in, kind="pair", a="1", b="2", verdict="same", seen="none"))
    console_desk.decide(1, 2, same=False, by="li")
    answer = post(signed_in, "/undo", act=act)
    assert answer.status_code == 409 and "li 于" in answer.text and "1 与 2 不是重复" in answer.text
    assert console_desk.history(1, 2)[-1].reviewer == "li"


def test_undo_without_the_csrf_token_is_refused(signed_in, console_desk):
    act = undo_of(decide_and_follow(signed_in, kind="pair", a="1", b="2", verdict="same", seen="none"))
    assert signed_in.post("/undo", data={"act": act}).status_code == 403 and len(console_desk.made) == 1


def test_undo_of_a_malformed_act_is_a_400(signed_in):
    assert post(signed_in, "/undo", act="<x>").status_code == 400


def test_a_group_page_shows_who_decided_what_about_its_rows(signed_in, console_desk):
    console_desk.decide(4, 5, same=True, by="li", note="同一封联名信")
    console_desk.decide(1, 2, same=True, by="li")
    page = signed_in.get("/group?row=4&row=5&row=6").text
    history = page[page.index("本组决定记录"):]
    assert "li" in history and "重复</span>：4–5" in history and "同一封联名信" in history
    assert "1–2" not in history and "本组记录之间尚无决定" not in history


def test_a_group_page_without_decisions_says_so(signed_in):
    assert "本组记录之间尚无决定" in signed_in.get("/group?row=4&row=5&row=6").text


def test_none_of_these_records_every_pair_of_the_group_as_different_in_one_act(signed_in, console_desk):
    page = signed_in.get("/group?row=4&row=5&row=6").text
    assert re.search(r'name="verdict" value="different" class="different" data-key="d">都不是重复', page)
    after = decide_and_follow(signed_in, kind="group", row=["4", "5", "6"], verdict="different", seen=seen_on(page))
    assert {(d.pair, d.verdict) for d in console_desk.made} == {((4, 5), "different"), ((4, 6), "different"),
                                                               ((5, 6), "different")}
    assert len({d.act for d in console_desk.made}) == 1 and "已记录：4、5、6 都不是重复" in as_text(after)


def test_undo_of_a_group_act_undoes_each_of_its_pairs(signed_in, console_desk):
    page = signed_in.get("/group?row=4&row=5&row=6").text
    after = decide_and_follow(signed_in, kind="group", row=["4", "5", "6"], verdict="same", seen=seen_on(page))
    answer = post(signed_in, "/undo", act=undo_of(after))
    assert answer.headers["Location"] == "/group?row=4&row=5&row=6"
    assert [d.withdrawn for d in console_desk.made] == [False, False, True, True]
    assert "撤销</span>" in signed_in.get(answer.headers["Location"]).text


# ---------------------------------------------------------------- the library's part, on MariaDB

TEXT = "小区楼下广场舞音响太大，晚上十点还不停，请有关部门处理。"


@pytest.fixture
def config(mysql_url):
    """Six rows of `petition` on a fresh MariaDB database, migrated."""
    engine = sa.create_engine(mysql_url)
    with engine.begin() as conn:
        table = sa.Table("petition", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                         sa.Column("name", sa.Text), sa.Column("content", sa.Text))
        table.create(conn)
        conn.execute(table.insert(), [{"id": i, "name": f"张{i}", "content": TEXT + str(i)} for i in range(1, 7)])
    engine.dispose()
    config = parse_config({"source": {"url": mysql_url, "table": "petition"},
                           "fields": {"name": "short", "content": "long"}}, {})
    migrate.upgrade(config)
    return config


def standing(config):
    with SqlSource(config) as source:
        return {pair: v.same for pair, v in decisions.verdicts(source).items() if not v.stale}


def test_a_decision_from_a_stale_view_is_refused_and_nothing_is_kept(config):
    commands.decide(config, 1, 2, same=False, by="li", seen=0)
    with pytest.raises(Conflict) as refused:
        commands.decide(config, 1, 2, same=True, by="wang", seen=0)
    assert (refused.value.latest.reviewer, refused.value.latest.verdict) == ("li", "different")
    assert [d.reviewer for d in commands.history(config, 1, 2)] == ["li"]


def test_a_decision_from_the_latest_view_is_kept(config):
    commands.decide(config, 1, 2, same=False, by="li")
    shown = commands.history(config, 1, 2)[-1]
    commands.decide(config, 1, 2, same=True, by="wang", seen=shown.id)
    assert standing(config) == {(1, 2): True}


def test_a_group_decision_from_a_stale_view_is_refused(config):
    commands.decide(config, 2, 3, same=False, by="li")
    with pytest.raises(Conflict):
        commands.decide_group(config, [1, 2, 3], same=True, by="wang", seen=0)
    with pytest.raises(Conflict):
        commands.decide_group(config, [1, 3], row=2, same=False, by="wang", seen=0)
    assert standing(config) == {(2, 3): False}


def test_a_decision_about_rows_outside_the_view_is_no_conflict(config):
    commands.decide(config, 4, 5, same=True, by="li")
    commands.decide_group(config, [1, 2, 3], same=True, by="wang", seen=0)
    assert standing(config) == {(4, 5): True, (1, 2): True, (1, 3): True}


def test_reviewers_deciding_one_pair_at_once_from_the_same_view_are_one_recorded_the_others_refused(config):
    start, outcomes = threading.Barrier(6), []

    def decide(n):
        start.wait()
        try:
            commands.decide(config, 1, 2, same=n % 2 == 0, by=f"reviewer{n}", seen=0)
            outcomes.append("kept")
        except Conflict:
            outcomes.append("refused")

    threads = [threading.Thread(target=decide, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["kept"] + ["refused"] * 5 and len(commands.history(config, 1, 2)) == 1


def test_a_decision_about_one_row_twice_is_an_input_error(config):
    with pytest.raises(InputError):
        commands.decide(config, 1, 1, same=True, by="wang")


def test_undo_of_a_first_decision_leaves_the_pair_undecided_and_the_history_shows_it(config):
    [made] = commands.decide(config, 1, 2, same=False, by="wang")
    commands.undo(config, "wang", made.act)
    assert standing(config) == {}
    history = commands.history(config, 1, 2)
    assert [(d.verdict, d.undo, d.withdrawn, d.reviewer) for d in history] == [
        ("different", False, False, "wang"), ("different", True, True, "wang")]


def test_undo_restores_the_decision_before_as_it_was(config):
    commands.decide(config, 1, 2, same=True, by="li", note="同一人")
    [made] = commands.decide(config, 1, 2, same=False, by="wang")
    commands.undo(config, "wang", made.act)
    assert standing(config) == {(1, 2): True}
    before, _, restored = commands.history(config, 1, 2)
    assert (restored.row_hash, restored.other_hash, restored.proposed) == (before.row_hash, before.other_hash,
                                                                           before.proposed)
    assert restored.undo and not restored.withdrawn and restored.reviewer == "wang"


def test_undo_of_a_group_act_restores_each_of_its_pairs(config):
    commands.decide(config, 1, 2, same=True, by="li")
    made = commands.decide_group(config, [1, 2, 3], same=False, by="wang")
    assert standing(config) == {(1, 2): False, (1, 3): False, (2, 3): False}
    commands.undo(config, "wang", made[0].act)
    assert standing(config) == {(1, 2): True}


def test_undo_is_of_the_reviewers_own_most_recent_act_only(config):
    [first] = commands.decide(config, 1, 2, same=True, by="wang")
    commands.decide(config, 3, 4, same=True, by="wang")
    commands.decide(config, 5, 6, same=True, by="li")
    with pytest.raises(Conflict) as refused:
        commands.undo(config, "wang", first.act)
    assert refused.value.latest is None and len(standing(config)) == 3


def test_undo_is_refused_when_the_pair_was_decided_since(config):
    [made] = commands.decide(config, 1, 2, same=True, by="wang")
    commands.decide(config, 1, 2, same=False, by="li")
    with pytest.raises(Conflict) as refused:
        commands.undo(config, "wang", made.act)
    assert refused.value.latest.reviewer == "li" and standing(config) == {(1, 2): False}


def test_undo_twice_is_refused(config):
    [made] = commands.decide(config, 1, 2, same=True, by="wang")
    commands.undo(config, "wang", made.act)
    with pytest.raises(Conflict):
        commands.undo(config, "wang", made.act)
    assert len(commands.history(config, 1, 2)) == 2


def test_a_pair_the_rule_made_is_back_in_dedup_match_once_its_decision_is_undone(config):
    engine = sa.create_engine(config.source.url)
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO dedup_match (row_id, similar_id, distance, source, status, source_table) "
                             "VALUES (1, 2, 0.1, 'batch', 'auto', 'petition'), (2, 1, 0.1, 'batch', 'auto', 'petition')"))
    [made] = commands.decide(config, 1, 2, same=False, by="wang")
    held = "SELECT row_id, similar_id, distance, status FROM dedup_match ORDER BY row_id"
    with engine.connect() as conn:
        assert conn.execute(sa.text(held)).all() == []
    commands.undo(config, "wang", made.act)
    with engine.connect() as conn:
        assert conn.execute(sa.text(held)).all() == [(1, 2, NOT_MEASURED, "auto"), (2, 1, NOT_MEASURED, "auto")]
    engine.dispose()


def test_the_queues_share_of_duplicates_leaves_out_a_decision_undone(config):
    engine = sa.create_engine(config.source.url)
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO dedup_possible (item, row_id, distance, source_table) "
                             "VALUES (1, 1, 0.3, 'petition'), (1, 2, 0.3, 'petition')"))
    engine.dispose()
    [made] = commands.decide(config, 1, 2, same=True, by="wang")
    assert commands.precision(config).queue_decided == 1
    commands.undo(config, "wang", made.act)
    assert commands.precision(config).queue_decided == 0


def test_a_groups_history_is_the_decisions_among_its_rows(config):
    commands.decide(config, 1, 2, same=True, by="li")
    commands.decide(config, 2, 3, same=False, by="wang")
    commands.decide(config, 3, 4, same=True, by="li")
    assert [d.pair for d in commands.group_history(config, [1, 2, 3])] == [(1, 2), (2, 3)]


@pytest.fixture
def console_on_mariadb(config, tmp_path):
    """The console over the real desk on `config`'s MariaDB (an in-memory store), and a client
    signed in as wang; `.csrf` is its token."""
    import dataclasses

    from dedup_pipeline.console.app import Settings, create_app
    from dedup_pipeline.console.desk import Desk
    from dedup_pipeline.sql import reviewers

    config = dataclasses.replace(config, store=dataclasses.replace(config.store, kind="memory",
                                                                   data_dir=str(tmp_path)))
    with SqlSource(config) as source:
        reviewers.add(source, "wang", "correct horse 1")
    client = create_app(Desk(config), Settings(secret=b"test-secret")).test_client()
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/login").text).group(1)
    assert client.post("/login", data={"name": "wang", "password": "correct horse 1", "csrf_token": token}).status_code == 303
    with client.session_transaction() as session:
        client.csrf = session["csrf"]
    return client, config


def test_the_real_desk_refuses_a_stale_view_and_undoes_from_the_page(console_on_mariadb):
    client, config = console_on_mariadb
    seen = seen_on(client.get("/pair?a=1&b=2").text)
    commands.decide(config, 1, 2, same=True, by="li")
    assert post(client, kind="pair", a="1", b="2", verdict="different", seen=seen).status_code == 409
    page = decide_and_follow(client, kind="pair", a="1", b="2", verdict="different",
                             seen=seen_on(client.get("/pair?a=1&b=2").text))
    assert "已记录：1 与 2 不是重复" in as_text(page) and standing(config) == {(1, 2): False}
    assert post(client, "/undo", act=undo_of(page)).status_code == 303
    assert standing(config) == {(1, 2): True}
    assert "撤销</span>" in client.get("/pair?a=1&b=2").text
