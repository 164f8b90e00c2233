// Cards drawn as SVG: any game's card is {label, tone, hidden?, void?, note?, title?} from
// the server; the tone picks the colours (pos, neg, zero, special, back), the label is
// printed as sent (shrunk to fit the card by fitCardLabels), the title is its tooltip.
import { s, h } from "./dom.js";

const LABEL_WIDTH = 50; // of the card's 60 (viewBox units): the face less a margin

// Long labels ("MAX→0", "🌙 night", and whatever a translation makes of them) are shrunk
// until they fit the card: their width is known only once drawn, so this runs on cards
// already in the document (hidden ones measure 0 and are left as they are).
export function fitCardLabels(root) {
  for (const text of root.querySelectorAll("svg.card .card-label")) {
    const width = text.getComputedTextLength();
    if (width > LABEL_WIDTH) {
      const size = parseFloat(text.getAttribute("font-size"));
      text.setAttribute("font-size", (size * LABEL_WIDTH / width).toFixed(2));
    }
  }
}

export function cardSvg(card, { size = "md" } = {}) {
  const tone = card.hidden ? "back" : (card.tone || "zero");
  const label = card.hidden ? "?" : String(card.label);
  const fontSize = label.length <= 2 ? 30 : label.length <= 3 ? 24 : label.length <= 5 ? 16 : 12;
  const svg = s("svg", {
    viewBox: "0 0 60 84", class: `card card-${tone} card-${size}${card.void ? " card-void" : ""}`,
    role: "img", "aria-label": card.hidden ? "hidden card" : label,
  },
  card.title ? s("title", {}, card.title) : null,
  s("rect", { x: 1.5, y: 1.5, width: 57, height: 81, rx: 7, class: "card-face" }),
  tone === "back"
    ? [s("rect", { x: 7, y: 7, width: 46, height: 70, rx: 4, class: "card-inlay" }),
       s("path", { d: "M18 52 L24 30 L30 40 L36 30 L42 52 Z", class: "card-mark" })]
    : [s("text", { x: 7, y: 16, class: "card-corner" }, label.length <= 3 ? label : ""),
       s("text", { x: 53, y: 76, class: "card-corner card-corner-end" },
         label.length <= 3 ? label : "")],
  s("text", {
    x: 30, y: tone === "back" ? 26 : 50, class: "card-label",
    "font-size": tone === "back" ? 18 : fontSize,
  }, label),
  card.void ? s("line", { x1: 6, y1: 78, x2: 54, y2: 6, class: "card-strike" }) : null);
  return svg;
}

export function cardBox(card, caption) {
  return h("figure.cardbox", {}, cardSvg(card), caption ? h("figcaption", {}, caption) : null);
}

// A playing card (Koira): {code, label, rank, suit, tone: "red" | "black", trump, title?}
// from the server, drawn with its rank and suit in two corners and a large suit in the
// middle; a trump has a star in its corner, and its title (what a trump does) is its tooltip.
export function playingCardSvg(card) {
  if (card.hidden) return cardSvg(card);
  const rank = String(card.rank);
  const corner = (x, y, end) => s("g", { class: `pc-corner${end ? " pc-end" : ""}`,
    transform: end ? `rotate(180 ${x} ${y})` : "" },
  s("text", { x, y, class: "pc-rank", "font-size": rank.length > 1 ? 13 : 15 }, rank),
  s("text", { x: x + (rank.length > 1 ? 1.5 : 0), y: y + 12, class: "pc-suit-small" }, card.suit));
  return s("svg", {
    viewBox: "0 0 60 84", role: "img", "aria-label": card.label, "data-card": card.code,
    class: `card pcard pc-${card.tone}${card.trump ? " pc-trump" : ""}`,
  },
  card.title ? s("title", {}, card.title) : null,
  s("rect", { x: 1.5, y: 1.5, width: 57, height: 81, rx: 6, class: "card-face" }),
  corner(5, 15, false), corner(55, 69, true),
  s("text", { x: 30, y: 49, class: "pc-suit" }, card.suit),
  card.trump ? s("path", { d: "M52 4 L54 9 L59 9 L55 12 L57 17 L52 14 L47 17 L49 12 L45 9 L50 9 Z",
    class: "pc-star" }) : null);
}
