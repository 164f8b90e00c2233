// The Koira table: the other players (card counts, never their cards), the stock, the trump,
// the trick, the player's own hand and, on their turn, the moves the server listed. Tapping
// hand cards selects them; Play lights up only when the selection is exactly one of the
// plays the server sent (which cards make a sequence or beat the trick is never decided
// here), and sends that play.
import { h, format } from "../../dom.js";
import { cardSvg, playingCardSvg } from "../../cards.js";
import { buttonsControl, endBox, legendBox } from "../../table.js";

function seatTile(seat, t) {
  const classes = ["kseat", seat.turn && "turn", seat.out && "out"].filter(Boolean).join(".");
  return h(`div.${classes}`, { dataset: { seat: seat.seat } },
    h("div.seat-head", {}, h("span.name", {}, seat.name),
      seat.ai ? h("span.badge", {}, "🤖") : null,
      ...seat.badges.map((b) => h("span.badge", {}, b))),
    h("div.kseat-body", {},
      h("div.mini-back", { "aria-hidden": "true" }, cardSvg({ hidden: true })),
      h("div.kseat-counts", {}, h("span.count", {}, seat.count_text),
        seat.pile_text ? h("span.hint.small", {}, seat.pile_text) : null),
      ...seat.cards.map((card) => h("figure.cardbox.faceup", {}, playingCardSvg(card),
        card.note ? h("figcaption", {}, card.note) : null))),
    seat.place ? h("div.seat-foot", {}, h("span.place", {}, format(t.place, { n: seat.place })))
      : null);
}

function board(k, t) {
  const stock = h("div.stock", { "data-testid": "stock" },
    k.stock > 0 ? cardSvg({ hidden: true }) : h("div.empty-slot"),
    h("span.small", {}, k.stock_text));
  const trump = k.trump ? h("div.trump", { "data-testid": "trump" },
    k.trump_card ? playingCardSvg(k.trump_card) : null,
    h("span.small", {}, k.trump.text)) : null;
  const plays = k.trick.map((play) => h(
    `div.play${play.top ? ".top" : ""}${play.bottom ? ".bottom" : ""}${play.tied ? ".tied" : ""}`,
    { dataset: { seat: play.seat } },
    h("div.play-cards", {}, play.cards.map((card) => playingCardSvg(card))),
    // (the player's own play is marked "you", not ★: the star marks trumps)
    h("span.play-name.name", {}, play.name,
      play.you ? [" ", h("span.badge.me", {}, t.you)] : null, play.from_stock ? " 🂠" : "")));
  return h("section.board", {},
    h("div.board-row", {}, stock, trump),
    h("h3", {}, k.trick_text),
    h("div.trick", { "data-testid": "trick" }, plays));
}

function handCards(k, control, send, t) {
  const hand = k.hand || [];
  const many = hand.length > 12 ? ".many" : "";
  if (!control) {
    return h(`div.hand${many}`, {}, hand.map((card) => h("div.hcard", { dataset: { card: card.code } },
      playingCardSvg(card))));
  }
  const plays = control.plays.map((cards) => ({ cards, key: [...cards].sort().join(" ") }));
  const playable = new Set(control.plays.flat());
  const selected = new Set();
  const submit = h("button.big.primary", { type: "button", "data-testid": "play", disabled: true });
  const buttons = hand.map((card) => {
    const button = h("button.hcard", {
      type: "button", "aria-pressed": "false", dataset: { card: card.code },
      disabled: !playable.has(card.code),
    }, playingCardSvg(card));
    button.addEventListener("click", () => {
      const code = card.code;
      if (selected.has(code)) selected.delete(code);
      else {
        // a card that fits no play with the ones selected starts a new selection
        const fits = plays.some((p) => p.cards.includes(code) &&
          [...selected].every((c) => p.cards.includes(c)));
        if (!fits) selected.clear();
        selected.add(code);
      }
      refresh();
    });
    return button;
  });
  const match = () => {
    const key = [...selected].sort().join(" ");
    return plays.find((p) => p.key === key) || null;
  };
  function refresh() {
    for (const button of buttons) {
      button.setAttribute("aria-pressed", selected.has(button.dataset.card) ? "true" : "false");
    }
    const play = match();
    submit.disabled = !play;
    const labels = play ? play.cards.map((code) => hand.find((c) => c.code === code).label) : [];
    submit.textContent = play ? format(control.submit, { cards: labels.join(" ") }) : control.empty;
  }
  submit.addEventListener("click", () => {
    const play = match();
    if (play) send({ ...control.action, [control.field]: play.cards });
  });
  refresh();
  return [h(`div.hand.selectable${many}`, { "data-testid": "hand" }, buttons), submit];
}

function myHand(page, mine, play, send, t) {
  if (!mine) return null;
  const k = page.koira;
  return h(`section.myhand${mine.turn ? ".turn" : ""}`, {},
    h("div.seat-head", {}, h("span", {}, k.hand_text), h("span.badge.me", {}, t.you),
      h("span.hint.small", {}, mine.count_text),
      mine.pile_text ? h("span.hint.small", {}, `· ${mine.pile_text}`) : null,
      ...mine.badges.map((b) => h("span.badge", {}, b)),
      mine.place ? h("span.place", {}, format(t.place, { n: mine.place })) : null),
    handCards(k, play, send, t));
}

export function draw(page, t, send) {
  const k = page.koira;
  const mine = page.seats.find((seat) => seat.you);
  const others = page.seats.filter((seat) => !seat.you);
  const play = page.controls.find((c) => c.type === "cards");
  const rest = page.controls.filter((c) => c.type !== "cards");
  const clock = page.game.paused ? h("p.clock", {}, "⏸ ", t.paused)
    : page.game.deadline ? h("p.clock", { dataset: { deadline: page.game.deadline,
      template: t.turn_ends } }, "") : null;
  return h("div.table.koira", { "data-version": page.game.version },
    h("header.table-head", {}, h("h2", {}, page.title)),
    h("div.kseats", {}, others.map((seat) => seatTile(seat, t))),
    board(k, t),
    legendBox(page), // what the ★ on trump cards means
    page.notes.map((note) => h("p.note", {}, note)),
    h(`p.prompt${page.your_turn ? ".mine" : ""}`, {}, page.prompt),
    endBox(page, t),
    clock,
    // the stock and a pick-up go above the hand: a long phase-2 hand would hide them
    page.controls.length ? h("div.controls", {},
      rest.map((control) => buttonsControl(control, send)), myHand(page, mine, play, send, t))
      : myHand(page, mine, null, send, t),
    page.recent.length ? h("section.recent", {}, page.recent.map((line) => h("p", {}, line)))
      : null);
}
