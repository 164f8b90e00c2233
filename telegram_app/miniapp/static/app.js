// The Mini App: reads Telegram's launch parameters, asks the server for the page's words,
// and shows one of the pages. Every figure and every move comes from the server.
import { launch, applyTheme, postEvent, onThemeChange, haptic } from "./tg.js";
import { setInitData, get, post, watch, ApiError } from "./api.js";
import { h } from "./dom.js";
import { drawTable, tickClocks } from "./table.js";
import { fitCardLabels } from "./cards.js";
import { drawStandings, drawProfile, drawHistory, drawReplay } from "./league.js";
import { drawTournament, tournamentList, playedList, tournamentBanner } from "./tournament.js";

const main = document.getElementById("main");
const tabs = document.getElementById("tabs");
const toastBox = document.getElementById("toast");
let t = {};
let me = null;
// game: the league shown (a kind the server offers; null: the server's default).
const state = { view: "table", gameId: null, chatId: null, period: "week", profileId: null,
  replayId: null, game: null, tournamentId: null };
let stopWatch = null;
let shownVersion = null;
let toastTimer = null;

function toast(text) {
  toastBox.textContent = text;
  toastBox.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toastBox.hidden = true; }, 3500);
}

function show(node) {
  main.replaceChildren(node);
  document.body.dataset.view = state.view;
  fitCardLabels(main);
}

function drawTabs() {
  const entries = [];
  if (state.gameId) entries.push(["table", t.table]);
  if (state.chatId) entries.push(["standings", t.standings], ["history", t.history]);
  entries.push(["profile", t.profile]);
  tabs.hidden = entries.length < 2;
  tabs.replaceChildren(...entries.map(([view, label]) => h("button.tab", {
    type: "button", "aria-current": view === state.view ? "page" : "false",
    "data-view": view, onclick: () => go(view) }, label)));
}

// A game may draw its own table: its page names a "layout", served from the game's package
// (telegram_app/games/<kind>/static/table.js, exporting draw); the default is the generic one.
const layouts = {};
function layoutOf(name) {
  if (!name) return Promise.resolve(drawTable);
  layouts[name] ??= import(`./games/${encodeURIComponent(name)}/table.js`)
    .then((module) => module.draw, () => drawTable);
  return layouts[name];
}
// A tournament's table leads back to its tournament's page, whatever draws the table.
async function drawPage(page) {
  const node = await (await layoutOf(page.layout))(page, t, send);
  const banner = tournamentBanner(page.tournament, openTournament);
  if (banner) node.prepend(banner);
  return node;
}

function openTournament(id) {
  state.tournamentId = id;
  go("tournament");
}

const opens = {
  game: (id) => { state.gameId = id; go("table"); },
  replay: (id) => { state.replayId = id; go("replay"); },
  profile: (userId) => { state.profileId = userId; go("profile"); },
};

function failed(error) {
  if (error instanceof ApiError && error.status === 401) return show(h("p.error", {}, t.unauthorized || "401"));
  toast(error instanceof ApiError ? error.message : (t.error || String(error)));
}

// A page the user may not see, or that is not there (a game that never was, a mangled
// link), says why in its place (a toast would leave it empty).
function failedPage(error) {
  if (error instanceof ApiError && [403, 404].includes(error.status) && error.body.message) {
    return show(h("p.error", {}, error.message));
  }
  return failed(error);
}

async function drawGame() {
  const page = await get(`game/${state.gameId}`);
  if (state.view !== "table") return;
  if (!state.chatId) { state.chatId = page.game.chat_id; drawTabs(); }
  shownVersion = page.game.version;
  show(await drawPage(page));
  tickClocks(t);
}

async function send(action) {
  const controls = main.querySelector(".controls");
  if (controls) controls.classList.add("sending");
  haptic("medium");
  try {
    const page = await post(`game/${state.gameId}/move`, { version: shownVersion, action });
    shownVersion = page.game.version;
    show(await drawPage(page));
    tickClocks(t);
  } catch (error) {
    if (error instanceof ApiError && error.status === 409 && error.body.table) {
      toast(error.message);
      shownVersion = error.body.table.game.version;
      show(await drawPage(error.body.table));
      tickClocks(t);
    } else {
      if (controls) controls.classList.remove("sending");
      failed(error);
    }
  }
}

function gameParam(sep) {
  return state.game ? `${sep}game=${encodeURIComponent(state.game)}` : "";
}

function chooseGame(view) {
  return (kind) => { state.game = kind; go(view); };
}

async function go(view) {
  state.view = view;
  if (stopWatch && view !== "table") { stopWatch(); stopWatch = null; }
  drawTabs();
  try {
    if (view === "table") {
      await drawGame();
      if (!stopWatch) {
        stopWatch = watch(state.gameId, (version) => {
          if (version !== shownVersion && state.view === "table") drawGame().catch(failed);
        }, (online) => document.body.classList.toggle("offline", !online));
      }
    } else if (view === "standings") {
      const [data, cups] = await Promise.all([
        get(`chat/${state.chatId}/standings?period=${state.period}${gameParam("&")}`),
        get(`chat/${state.chatId}/tournaments`)]);
      const node = drawStandings(data, t, (period) => { state.period = period; go("standings"); },
        opens.profile, chooseGame("standings"));
      const list = tournamentList(cups, t, openTournament);
      if (list) node.append(list);
      show(node);
    } else if (view === "profile") {
      const who = state.profileId || me.id;
      const chat = state.chatId ? `?chat=${state.chatId}` : "";
      const data = await get(`profile/${who}${chat}${gameParam(chat ? "&" : "?")}`);
      const node = drawProfile(data, t, (kind) => { state.profileId = who; chooseGame("profile")(kind); });
      const played = playedList(data.tournaments, t, openTournament);
      if (played) node.append(played);
      show(node);
      state.profileId = null;
    } else if (view === "history") {
      show(drawHistory(await get(`chat/${state.chatId}/history`), t,
        (gameId) => { state.replayId = gameId; go("replay"); }));
    } else if (view === "replay") {
      const data = await get(`replay/${state.replayId}`);
      if (!state.chatId) { state.chatId = data.chat_id; drawTabs(); }
      show(drawReplay(data, t));
    } else if (view === "tournament") {
      const data = await get(`tournament/${state.tournamentId}`);
      if (state.chatId !== data.chat_id) { state.chatId = data.chat_id; drawTabs(); }
      show(drawTournament(data, t, opens));
    }
  } catch (error) { failedPage(error); }
}

function home() {
  const items = [];
  if (me.games.length) {
    items.push(h("h2", {}, t.your_games), ...me.games.map((g) => h("button.big.secondary", {
      type: "button", onclick: () => { state.gameId = g.id; state.chatId = g.chat_id; go("table"); },
    }, `${t.open_table} #${g.id}`)));
  }
  if (me.chats.length) {
    items.push(h("h2", {}, t.your_leagues), ...me.chats.map((c) => h("button.big.secondary", {
      type: "button", onclick: () => { state.chatId = c.id; go("standings"); } }, c.title)));
  }
  if (!items.length) items.push(h("p.hint", {}, t.no_game));
  state.view = "home";
  drawTabs();
  show(h("div.home", {}, items));
}

async function boot() {
  const params = launch();
  applyTheme(params.theme);
  onThemeChange(applyTheme);
  setInitData(params.initData);
  postEvent("web_app_ready");
  postEvent("web_app_expand");
  setInterval(() => tickClocks(t), 1000);
  try {
    // (a refusal of the words comes first: its message says why, in the app's language)
    // (the screen it opens: a reader whose app sends no language reads its group's)
    const words = params.start ? `strings?start=${encodeURIComponent(params.start)}` : "strings";
    [t, me] = await Promise.all([get(words), get("me").catch((error) => error)]);
    if (me instanceof Error) throw me;
    document.documentElement.lang = t.lang || "en";
  } catch (error) {
    show(h("p.error", {}, error instanceof ApiError && error.status === 401
      ? t.unauthorized || error.message : String(error)));
    return;
  }
  const start = params.start || "";
  // (an id stays its digits: Number() would turn a long one into another id, or "1e+23")
  const id = start.slice(1);
  if (/^g\d+$/.test(start)) { state.gameId = id; return go("table"); }
  if (/^r\d+$/.test(start)) { state.replayId = id; return go("replay"); }
  if (/^c-?\d+$/.test(start)) { state.chatId = Number(id); return go("standings"); }
  if (/^t\d+$/.test(start)) { state.tournamentId = id; return go("tournament"); }
  if (start === "p") return go("profile");
  if (me.games.length === 1) {
    state.gameId = me.games[0].id; state.chatId = me.games[0].chat_id;
    return go("table");
  }
  return home();
}

boot();
