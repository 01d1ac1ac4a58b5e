"use strict";
// Search, filter and sort the groups of the report. Reads only the JSON block and the
// page's own text; writes only textContent and hidden: nothing here builds HTML.
(function () {
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const list = document.getElementById("groups");
  const byNumber = new Map();
  for (const el of list.querySelectorAll("section.group")) {
    byNumber.set(Number(el.dataset.group), { el: el, text: el.textContent.toLowerCase() });
  }
  const input = (id) => document.getElementById(id) || { value: "", addEventListener() {} };
  const search = input("search"), category = input("category");
  const from = input("date-from"), to = input("date-to"), sort = input("sort");
  const matching = document.getElementById("matching");

  function matches(group) {
    const query = search.value.trim().toLowerCase();
    if (query && !byNumber.get(group.n).text.includes(query)) return false;
    if (category.value && !group.cats.includes(category.value)) return false;
    if (from.value && (!group.last || group.last < from.value)) return false;
    if (to.value && (!group.first || group.first > to.value)) return false;
    return true;
  }

  function order(a, b) {
    if (sort.value === "recent" && a.last !== b.last) return a.last < b.last ? 1 : -1;
    return b.size - a.size || a.n - b.n;
  }

  function update() {
    let shown = 0;
    for (const group of data.groups.slice().sort(order)) {
      const el = byNumber.get(group.n).el;
      el.hidden = !matches(group);
      if (!el.hidden) shown += 1;
      list.appendChild(el);
    }
    matching.textContent = data.matching.replace("{n}", String(shown));
  }

  for (const control of [search, category, from, to, sort]) control.addEventListener("input", update);
  update();
})();
