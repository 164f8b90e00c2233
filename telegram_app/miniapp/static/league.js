// League pages: standings, a profile with its Elo chart (SVG drawn here from the points the
// server sends), the chat's history and a replay viewer stepping through a game's log. Each
// game has its own league: the switch lists the games the server names (data.kinds).
import { h, s, format } from "./dom.js";
import { cardSvg, fitCardLabels, playingCardSvg } from "./cards.js";

// The game switch: one chip per game the server offers, the shown one pressed; none for one.
export function gameSwitch(data, chooseGame) {
  if (!data.kinds || data.kinds.length < 2) return null;
  return h("div.chips.games", { role: "group" }, data.kinds.map((g) => h("button.chip", {
    type: "button", "data-game": g.kind, "aria-pressed": g.kind === data.game ? "true" : "false",
    onclick: () => chooseGame(g.kind) }, g.name)));
}

export function drawStandings(data, t, choose, openProfile, chooseGame) {
  const periods = ["week", "last", "season"].map((p) => h(
    "button.chip", { type: "button", "aria-pressed": p === data.period ? "true" : "false",
      onclick: () => choose(p) }, t[p]));
  return h("div.league", {},
    gameSwitch(data, chooseGame),
    h("div.chips", {}, periods),
    h("h2", {}, data.title), h("p.hint", {}, data.range),
    data.rows.length ? h("table.standings", {},
      h("thead", {}, h("tr", {}, ["#", "", t.col_points, t.col_games, t.col_wins, t.elo]
        .map((c) => h("th", {}, c)))),
      h("tbody", {}, data.rows.map((row) => h(`tr${row.you ? ".mine" : ""}`,
        { onclick: () => openProfile(row.user_id) },
        h("td", {}, String(row.rank)), h("td.name", {}, row.name), h("td", {}, row.points),
        h("td", {}, String(row.games)), h("td", {}, String(row.wins)),
        h("td", {}, row.elo, h("small", {}, ` ${row.change}`))))))
      : h("p.hint", {}, data.empty),
    data.rows.length ? h("p.hint.small", {}, t.rank_cols) : null);
}

// The Elo after each rated game, the line starting at the starting rating (every player's,
// a step before the first game; a hollow dot) beside a dashed line labelled with it.
export function eloChart(points, emptyText, start = 1500) {
  const width = 360; const height = 200; const pad = { l: 40, r: 34, t: 12, b: 24 };
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img" });
  if (!points.length) {
    svg.append(s("text", { x: width / 2, y: height / 2, class: "chart-empty" }, emptyText));
    return svg;
  }
  const values = [start, ...points.map((p) => p.elo)];
  let low = Math.min(...values); let high = Math.max(...values);
  if (high - low < 20) { low -= 10; high += 10; }
  const inner = 8; // room inside the frame for the first and last dots
  const x = (i) => pad.l + inner + i * (width - pad.l - pad.r - 2 * inner) / points.length;
  const y = (v) => pad.t + (high - v) * (height - pad.t - pad.b) / (high - low);
  for (const v of [low, (low + high) / 2, high]) {
    svg.append(s("line", { x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v), class: "grid" }));
    svg.append(s("text", { x: pad.l - 4, y: y(v) + 4, class: "axis" }, String(Math.round(v))));
  }
  svg.append(s("line", { x1: pad.l, x2: width - pad.r, y1: y(start), y2: y(start),
    class: "start-line" }));
  svg.append(s("text", { x: width - pad.r + 3, y: y(start) + 3, class: "axis start-label" },
    String(start)));
  const path = [`M${x(0).toFixed(1)},${y(start).toFixed(1)}`,
    ...points.map((p, i) => `L${x(i + 1).toFixed(1)},${y(p.elo).toFixed(1)}`)];
  svg.append(s("path", { d: path.join(" "), class: "line" }));
  svg.append(s("circle", { cx: x(0), cy: y(start), r: 3, class: "dot-start" }));
  points.forEach((p, i) => svg.append(s("circle", { cx: x(i + 1), cy: y(p.elo),
    r: points.length > 1 ? 3.5 : 6, class: "dot" },
  s("title", {}, `${p.day}: ${p.shown}`))));
  svg.append(s("text", { x: x(1), y: height - 6, class: points.length > 1 ? "axis start" : "axis" },
    points[0].day));
  if (points.length > 1) {
    svg.append(s("text", { x: x(points.length), y: height - 6, class: "axis" },
      points[points.length - 1].day));
  }
  return svg;
}

export function drawProfile(data, t, chooseGame) {
  return h("div.league.profile", {},
    gameSwitch(data, chooseGame),
    h("h2", {}, data.title), h("p.hint", {}, data.game_name),
    h("div.stats", {},
      h("div.stat", {}, h("b", {}, data.elo), h("span", {}, t.elo)),
      h("div.stat", {}, h("b", {}, String(data.games)), h("span", {}, t.games))),
    eloChart(data.points, data.empty, data.start),
    data.lines.map((line) => h("p.small", {}, line)));
}

export function drawHistory(data, t, openReplay) {
  return h("div.league", {},
    h("h2", {}, data.title),
    data.games.length ? h("ul.history", {}, data.games.map((g) => h("li", {},
      h("div.row", {}, h("b", {}, `#${g.id}`), h("span.hint", {}, ` ${g.date} · `,
        h("span.game", { "data-game": g.kind }, g.label === g.game ? g.game
          : `${g.game} · ${g.label}`)),
        h("button.chip", { type: "button", onclick: () => openReplay(g.id) }, "🎬 ", t.open_replay)),
      h("div.places", {}, g.places.map((p) => h("span.placeitem", {}, `${p.place}. `,
        h("span.name", {}, p.name), p.change ? h("small", {}, ` (${p.change})`) : null))))))
      : h("p.hint", {}, data.empty));
}

// The replay's lines after step `at`: each step keeps the first kept[i] lines of the step
// before and adds its own (a Koira trick line grows card by card: it is replaced).
function linesAt(data, at) {
  let lines = [];
  for (let i = 0; i <= at && i < data.steps.length; i += 1) {
    const kept = data.kept ? data.kept[i] : lines.length;
    lines = [...lines.slice(0, kept).map(([text]) => [text, false]),
      ...data.steps[i].map((text) => [text, true])];
  }
  return lines;
}

// The cards a step revealed or played, each with its owner under it (a Coyote showdown's
// value where the scoring changed it), and what the special ones among them do.
function stepCards(entry) {
  if (!entry || !entry.cards.length) return null;
  return h("div.rcards", { "data-testid": "step-cards" },
    h("div.rcards-row", {}, entry.cards.map((c) => h("figure.cardbox", {},
      c.card.suit ? playingCardSvg(c.card) : cardSvg(c.card),
      h("figcaption", {}, h("span.name", {}, c.name), c.value ? h("b", {}, ` → ${c.value}`)
        : null)))),
    (entry.legend || []).map((item) => h("p.small.hint", {}, h("b", {}, item.label), " ",
      item.text)));
}

// A bar that stays on screen (the step, a slider over every step, a jump to a round or a
// trick, previous and next) above the lines, the current step's lines marked and followed
// by its cards.
export function drawReplay(data, t) {
  let at = 0;
  const total = data.steps.length;
  const marks = data.marks || [];
  const body = h("div.replay-steps");
  const counter = h("p.hint.counter");
  const slider = h("input.slider", { type: "range", min: 0, max: Math.max(0, total - 1),
    step: 1, value: 0, "aria-label": data.jump, "data-testid": "slider" });
  const jump = marks.length ? h("select.jump", { "aria-label": data.jump, "data-testid": "jump" },
    h("option", { value: "", disabled: true }, data.jump),
    marks.map((m) => h("option", { value: String(m.step) }, m.label))) : null;
  const markAt = () => marks.filter((m) => m.step <= at).pop() || null;
  const show = () => {
    const lines = linesAt(data, at).map(([line, now]) => h(`p${now ? ".current" : ""}`, {}, line));
    const entry = data.cards && data.cards[at];
    const cards = stepCards(entry);
    // after the line that showed them (a showdown's), else after the step's lines
    const after = entry && entry.line !== undefined && entry.line < lines.length
      ? entry.line + 1 : lines.length;
    body.replaceChildren(h("div.rstep", {}, lines.slice(0, after), cards, lines.slice(after)));
    if (cards) fitCardLabels(cards);
    const mark = markAt();
    counter.textContent = format(t.step, { n: at + 1, total }) + (mark ? ` · ${mark.label}` : "");
    slider.value = String(at);
    if (jump) jump.value = mark ? String(mark.step) : "";
    // the step's end in view (its cards lie above it, a game's last lines below them)
    const last = body.querySelector(".rstep").lastElementChild;
    if (last) last.scrollIntoView({ block: "nearest" });
  };
  const goTo = (n) => { at = Math.min(total - 1, Math.max(0, n)); show(); };
  slider.addEventListener("input", () => goTo(Number(slider.value)));
  if (jump) jump.addEventListener("change", () => goTo(Number(jump.value)));
  const node = h("div.league.replay", {},
    h("h2", {}, data.title), h("p.hint", {}, data.label === data.game ? data.game
      : `${data.game} · ${data.label}`),
    h("div.replay-bar", {}, counter, slider,
      h("div.stepper-row", {},
        h("button.big.secondary", { type: "button", onclick: () => goTo(at - 1),
          "data-testid": "prev" }, t.prev),
        jump,
        h("button.big.primary", { type: "button", onclick: () => goTo(at + 1),
          "data-testid": "next" }, t.next))),
    body);
  show();
  return node;
}
