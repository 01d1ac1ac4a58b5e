// The console's only script (the Content-Security-Policy allows no other): keyboard
// shortcuts, and the live counts. It reads nothing from the database but the counts' JSON.
"use strict";

// A key press clicks the element marked data-key="<key>": s same, d different, j or Space
// skip, q the queue, u undo the last decision, Enter start. Not while typing a note.
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
  const target = event.target;
  if (target instanceof HTMLElement && target.closest("input, textarea, select")) {
    if (event.key === "Escape") target.blur();
    return;
  }
  const key = event.key === " " ? "j" : event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const element = document.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (!element) return;
  event.preventDefault();
  if (element.dataset.clicked) return;  // one decision per page, however fast the keys come
  element.dataset.clicked = "1";
  element.click();
});

// The counts, refreshed every 15 seconds while the page is open.
const counts = document.getElementById("counts");
if (counts) {
  const refresh = async () => {
    try {
      const answer = await fetch(counts.dataset.url, {credentials: "same-origin", headers: {Accept: "application/json"}});
      if (!answer.ok) return;
      const values = await answer.json();
      for (const cell of counts.querySelectorAll("[data-count]")) {
        const value = values[cell.dataset.count];
        if (typeof value === "number") cell.textContent = value.toLocaleString();
      }
    } catch (error) {
      // the server is away for a moment: the next refresh will tell
    }
  };
  setInterval(refresh, 15000);
}
