// Tournament pages: a tournament (where it stands, its settings, the standings with Buchholz,
// each round's tables with every player's place and points, the byes) and the lists that lead
// to one (a group's tournaments, a player's). Every figure and word comes from the server.
import { h, format } from "./dom.js";

// A deadline in the reader's own zone and language (the server sends an ISO moment).
function moment(iso, lang) {
  try {
    return new Date(iso).toLocaleString(lang || undefined, {
      month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  } catch { return iso; }
}

function who(p, t) {
  return [h("span.name", {}, p.name), p.ai ? h("span.badge", {}, "🤖") : null,
    p.you ? h("span.badge.me", {}, t.you) : null];
}

function standingsTable(data, t, openProfile) {
  return h("table.standings.tstandings", { "data-testid": "tournament-standings" },
    h("thead", {}, h("tr", {}, ["#", t.t_player, t.t_points, t.t_buchholz, t.t_played]
      .map((c) => h("th", {}, c)))),
    h("tbody", {}, data.standings.map((row) => h(
      `tr${row.you ? ".mine" : ""}${row.withdrawn ? ".withdrawn" : ""}`,
      { onclick: row.user_id ? () => openProfile(row.user_id) : undefined },
      h("td", {}, String(row.place)),
      h("td", {}, who(row, t), row.withdrawn ? h("span.badge.off", {}, t.withdrawn) : null),
      h("td.num", {}, h("b", {}, row.points)), h("td.num", {}, row.buchholz),
      h("td.num", {}, String(row.played))))));
}

function tableCard(table, t, open) {
  return h("section.ttable", { "data-table": table.table, "data-game": table.game_id },
    h("div.thead", {}, h("b", {}, table.title),
      h("span.hint.small", {}, table.over ? "" : t.tables_playing),
      h("button.chip", { type: "button", "data-testid": "open-game",
        onclick: () => open.game(table.game_id) }, "🃏 ", t.open_table),
      table.over ? h("button.chip", { type: "button", "data-testid": "open-replay",
        onclick: () => open.replay(table.game_id) }, "🎬 ", t.open_replay) : null),
    h("ol.tplayers", {}, table.players.map((p) => h(`li${p.you ? ".mine" : ""}`, {},
      h("span.who", {}, who(p, t)),
      h("span.tplace", {}, p.place ? format(t.place, { n: p.place }) : ""),
      h("span.tpts", {}, p.no_show ? h("span.badge.off", {}, t.no_show) : null,
        p.points_text !== null ? ` ${p.points_text}` : "")))));
}

function roundBox(round, t, open, opened) {
  return h("details.tround", { open: opened, "data-round": round.round },
    h("summary", {}, round.title, round.current ? h("span.hint", {}, ` · ${t.tables_playing}`)
      : null),
    round.tables.map((table) => tableCard(table, t, open)),
    round.byes.length ? h("p.small.byes", {}, `${t.byes}: `, round.byes.map((b, i) => [
      i ? ", " : "", h("span.name", {}, b.name),
      ` (${b.points_text})`])) : null);
}

export function drawTournament(data, t, open) {
  const rounds = [...data.rounds].reverse(); // the latest round first, opened
  const stage = h("p.stage", { "data-testid": "stage" }, h("b", {}, data.stage),
    data.deadline ? h("span.hint", {}, ` · ${format(t.round_ends,
      { time: moment(data.deadline, t.lang) })}`) : null);
  return h("div.league.tourney", { "data-status": data.status },
    h("h2", {}, data.title),
    h("p.hint", {}, [data.label === data.game ? data.game : `${data.game} · ${data.label}`,
      data.chat_title].filter(Boolean).join(" · ")),
    stage,
    h("details.tsettings", {}, h("summary", {}, t.settings),
      h("ul", {}, data.settings.map((line) => h("li", {}, line)))),
    data.status === "signup" ? [h("h3", {}, t.signed_up),
      h("ul.tsigned", {}, data.players.map((p) => h("li", {}, who(p, t))))] : null,
    data.standings.length ? [h("h3", {}, t.standings), standingsTable(data, t, open.profile),
      h("p.hint.small", {}, data.tie_break)] : null,
    rounds.length ? h("h3", {}, t.rounds) : null,
    rounds.map((round, i) => roundBox(round, t, open, i === 0)));
}

// A group's tournaments (on its league page): each opens its page; none for a group without.
export function tournamentList(data, t, openTournament) {
  if (!data.tournaments.length) return null;
  return h("section.tlist", { "data-testid": "tournaments" },
    h("h3", {}, data.title),
    data.tournaments.map((c) => h("button.titem", {
      type: "button", "data-tournament": c.id, onclick: () => openTournament(c.id) },
    h("span.ttitle", {}, `🏆 #${c.id} · `, h("span.game", {}, c.label === c.game ? c.game
      : `${c.game} · ${c.label}`), c.you ? h("span.badge.me", {}, t.you) : null),
    h("span.hint.small", {}, [c.stage, c.players].join(" · ")),
    c.winner ? h("span.small", {}, c.winner) : null)));
}

// A player's latest tournaments (on their profile), as /history lists them.
export function playedList(items, t, openTournament) {
  if (!items || !items.length) return null;
  return h("section.tlist", { "data-testid": "played-tournaments" },
    h("h3", {}, t.tournaments),
    items.map((c) => h("button.titem", { type: "button", "data-tournament": c.id,
      onclick: () => openTournament(c.id) }, h("span", {}, c.line))));
}

// On a tournament table's page: the way back to its tournament.
export function tournamentBanner(ref, openTournament) {
  if (!ref) return null;
  return h("button.tbanner", { type: "button", "data-testid": "tournament-link",
    onclick: () => openTournament(ref.id) }, ref.label);
}
