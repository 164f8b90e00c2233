// The table page: draws the generic table the server sends (seats, cards, lives, bids,
// whose turn, the clock) and, on the user's turn, the controls it lists. A move sends back
// an action the server gave, with the version it was drawn at.
import { h, format } from "./dom.js";
import { cardBox } from "./cards.js";
import { postEvent } from "./tg.js";

function hearts(seat) {
  if (seat.tally === null || seat.tally === undefined) return null;
  if (seat.out) return h("span.lives.out", {}, "💀");
  if (seat.tally_label) return h("span.lives", {}, seat.tally_label);
  const full = "♥".repeat(Math.max(0, seat.tally));
  const empty = "♡".repeat(Math.max(0, (seat.max_tally || seat.tally) - seat.tally));
  return h("span.lives", { "aria-label": `${seat.tally}` }, h("span.full", {}, full), empty);
}

function seatTile(seat, t) {
  const classes = ["seat", seat.you && "you", seat.turn && "turn", seat.out && "out"]
    .filter(Boolean).join(".");
  return h(`div.${classes}`, { dataset: { seat: seat.seat } },
    h("div.seat-head", {},
      h("span.name", {}, seat.name), seat.ai ? h("span.badge", {}, "🤖") : null,
      seat.you ? h("span.badge.me", {}, t.you) : null,
      ...seat.badges.map((b) => h("span.badge", {}, b))),
    h("div.seat-cards", {}, seat.cards.map((card) => cardBox(card,
      card.own ? t.your_card : card.note || null))),
    h("div.seat-foot", {}, hearts(seat),
      seat.place ? h("span.place", {}, format(t.place, { n: seat.place })) : null));
}

function clock(page, t) {
  if (page.game.paused) return h("p.clock", {}, "⏸ ", t.paused);
  if (!page.game.deadline) return null;
  return h("p.clock", { dataset: { deadline: page.game.deadline, template: t.turn_ends } }, "");
}

// Each clock on the page (data-deadline, whoever drew it): the time left in its template,
// from an hour on as the page's words say hours and minutes (t.hours), else as m:ss.
export function tickClocks(t) {
  for (const el of document.querySelectorAll("[data-deadline]")) {
    const left = Math.max(0, Math.round((Date.parse(el.dataset.deadline) - Date.now()) / 1000));
    const text = left >= 3600
      ? format(t.hours, { h: Math.floor(left / 3600), m: Math.floor(left % 3600 / 60) })
      : `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    el.textContent = "⏱ " + format(el.dataset.template, { time: text });
  }
}

function numberControl(control, send, t) {
  let value = control.min;
  let modifier = null;
  const shown = h("input.number", {
    type: "number", inputmode: "numeric", min: control.min, max: control.max,
    value: String(value), "aria-label": control.title,
  });
  const submit = h("button.primary.big", { type: "button", "data-testid": "submit-bid" });
  const update = () => {
    shown.value = String(value);
    submit.textContent = format(control.submit, { n: value });
  };
  const set = (n) => { value = Math.min(control.max, Math.max(control.min, n)); update(); };
  shown.addEventListener("input", () => {
    const n = parseInt(shown.value, 10);
    if (!Number.isNaN(n)) { value = Math.min(control.max, Math.max(control.min, n)); }
    submit.textContent = format(control.submit, { n: value });
  });
  submit.addEventListener("click", () => {
    const action = { ...control.action, [control.field]: value, ...(modifier || {}) };
    send(action);
  });
  const quick = [0, 1, 2, 3, 4].map((d) => control.min + d).filter((n) => n <= control.max);
  const chips = control.modifiers.length ? h("div.chips", {},
    [{ label: t.no_modifier, patch: null }, ...control.modifiers].map((m, i) => {
      const chip = h("button.chip", { type: "button", "aria-pressed": i === 0 ? "true" : "false" },
        m.label);
      chip.addEventListener("click", () => {
        modifier = m.patch;
        for (const other of chip.parentElement.children) other.setAttribute("aria-pressed", "false");
        chip.setAttribute("aria-pressed", "true");
      });
      return chip;
    })) : null;
  update();
  return h("section.control.bid", {},
    h("h3", {}, control.title),
    h("div.stepper", {},
      h("button.step", { type: "button", "aria-label": t.less, onclick: () => set(value - 1) }, "−"),
      shown,
      h("button.step", { type: "button", "aria-label": t.more, onclick: () => set(value + 1) }, "+")),
    h("div.quick", {}, quick.map((n) => h("button.quickbid", {
      type: "button", onclick: () => set(n), "data-bid": n }, String(n)))),
    chips, submit);
}

export function buttonsControl(control, send) {
  // An option with "confirm" (Coyote!, which ends the round) asks once, in place: its
  // confirmation and Back take the row's place, as the chat's keyboard does.
  const button = (option) => h(`button.big.${option.style || "secondary"}`, {
    type: "button", onclick: () => (option.confirm ? ask(option) : send(option.action)),
  }, option.label);
  const ask = (option) => options.replaceChildren(
    h(`button.big.${option.style || "secondary"}`,
      { type: "button", "data-testid": "confirm", onclick: () => send(option.action) },
      option.confirm.label),
    h("button.big.secondary", { type: "button", onclick: () =>
      options.replaceChildren(...control.options.map(button)) }, option.confirm.back));
  const options = h("div.options", {}, control.options.map(button));
  if (control.options.length > 6 && control.title) {
    // A long list (a card to guess) stays folded until asked for, as in the chat.
    return h(`details.control.${control.id}`, {}, h("summary", {}, control.title), options);
  }
  return h(`section.control.${control.id}`, {},
    control.title ? h("h3", {}, control.title) : null, options);
}

// A line of the end's places after its mark: the player's name in its own (isolated)
// element, as the group's message isolates it, then what follows it (a game's sign, the Elo
// change), so that a right-to-left name cannot carry "−20" along and show it as "20−".
function placeLine(r) {
  const name = r.player && r.name.startsWith(r.player) ? r.player : "";
  return h("span.place-line", {}, name ? h("span.name", {}, name) : null,
    r.name.slice(name.length) || null);
}

// The end of a game: the places as the group's last message gives them (shared places
// included) and, for its players, where the chat's 🔁 Rematch is with a way back to it (the
// page cannot press that button: its tap opens the lobby in the group).
export function endBox(page, t) {
  if (!page.over || !page.result || !page.result.length) return null;
  return h("section.end", { "data-testid": "result" },
    h("h3", {}, t.result),
    h("ol.result", {}, page.result.map((r) => h(`li${r.you ? ".mine" : ""}`, {},
      h("span.mark", {}, r.mark), " ", placeLine(r)))),
    page.rematch ? h("div.rematch", {},
      h("p.hint", {}, page.rematch.text),
      h("button.big.secondary", { type: "button", "data-testid": "back-to-chat",
        onclick: () => postEvent("web_app_close") }, page.rematch.button)) : null);
}

// What the special cards on the table do, once per card, under the seats that show them.
export function legendBox(page) {
  if (!page.legend || !page.legend.length) return null;
  return h("section.legend", { "data-testid": "legend" }, page.legend.map((item) => h("p", {},
    h("b", {}, item.label), " ", item.text)));
}

export function drawTable(page, t, send) {
  const mine = page.seats.find((seat) => seat.you);
  const others = page.seats.filter((seat) => !seat.you);
  const seats = mine ? [mine, ...others] : page.seats;
  const bids = page.claims.length
    ? h("ol.bids", {}, page.claims.slice(-10).map((b) => h(`li${b.you ? ".mine" : ""}`, {},
      h("span.name", {}, b.name), " ", h("b", {}, String(b.amount)))))
    : h("p.hint", {}, t.no_bid);
  return h("div.table", { "data-version": page.game.version },
    h("header.table-head", {}, h("h2", {}, page.title),
      page.pile !== null && page.pile !== undefined
        ? h("span.hint", {}, format(t.pile, { n: page.pile })) : null),
    h("div.seats", {}, seats.map((seat) => seatTile(seat, t))),
    legendBox(page),
    page.pile === null || page.over ? null
      : h("section.bidline", {}, h("h3", {}, t.claims), bids),
    page.notes.map((note) => h("p.note", {}, note)),
    h(`p.prompt${page.your_turn ? ".mine" : ""}`, {}, page.prompt),
    endBox(page, t),
    clock(page, t),
    page.controls.length ? h("div.controls", {}, page.controls.map((control) =>
      control.type === "number" ? numberControl(control, send, t) : buttonsControl(control, send)))
      : null,
    page.recent.length ? h("section.recent", {}, page.recent.map((line) => h("p", {}, line)))
      : null);
}
