// Telegram's launch parameters, read from the URL without Telegram's script (no CDN): the
// client puts them in the fragment (tgWebAppData = the signed initData, tgWebAppThemeParams,
// tgWebAppStartParam). They are kept in sessionStorage: a reload inside Telegram keeps them.
const KEY = "coyote-launch";

function fromHash() {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (!hash.get("tgWebAppData")) return null;
  let theme = {};
  try { theme = JSON.parse(hash.get("tgWebAppThemeParams") || "{}"); } catch { theme = {}; }
  const initData = hash.get("tgWebAppData");
  const start = hash.get("tgWebAppStartParam") ||
    new URLSearchParams(initData).get("start_param") || "";
  return { initData, theme, start };
}

export function launch() {
  let params = fromHash();
  if (params) sessionStorage.setItem(KEY, JSON.stringify(params));
  else {
    try { params = JSON.parse(sessionStorage.getItem(KEY) || "null"); } catch { params = null; }
  }
  params = params || { initData: "", theme: {}, start: "" };
  // A web_app button (private chat) cannot carry startapp: its URL says ?start=…
  const query = new URLSearchParams(location.search).get("start");
  if (!params.start && query) params.start = query;
  return params;
}

// Theme: Telegram's colours as CSS variables; without them the stylesheet's own light and
// dark colours (prefers-color-scheme) apply.
export function applyTheme(theme) {
  const root = document.documentElement;
  for (const [key, value] of Object.entries(theme || {})) {
    if (/^#[0-9a-f]{3,8}$/i.test(value)) {
      root.style.setProperty(`--tg-${key.replaceAll("_", "-")}`, value);
    }
  }
  if (theme && theme.bg_color) {
    const hex = theme.bg_color.replace("#", "");
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
    root.dataset.scheme = (r * 299 + g * 587 + b * 114) / 1000 < 128 ? "dark" : "light";
  }
}

export function postEvent(type, data = {}) {
  const body = JSON.stringify({ eventType: type, eventData: data });
  try {
    if (window.TelegramWebviewProxy) window.TelegramWebviewProxy.postEvent(type, JSON.stringify(data));
    else if (window.external && "notify" in window.external) window.external.notify(body);
    else if (window.parent !== window) window.parent.postMessage(body, "https://web.telegram.org");
  } catch { /* outside Telegram: nothing to tell */ }
}

// Telegram tells a theme change to the web client by postMessage and to the mobile and
// desktop clients by calling window.Telegram.WebView.receiveEvent (as its own script does).
export function onThemeChange(callback) {
  const receive = (type, data) => {
    if (type === "theme_changed" && data && data.theme_params) callback(data.theme_params);
  };
  window.Telegram = window.Telegram || {};
  window.Telegram.WebView = window.Telegram.WebView || {};
  const previous = window.Telegram.WebView.receiveEvent;
  window.Telegram.WebView.receiveEvent = (type, data) => {
    receive(type, data);
    if (previous) previous(type, data);
  };
  window.addEventListener("message", (event) => {
    try {
      const { eventType, eventData } = JSON.parse(event.data);
      receive(eventType, eventData);
    } catch { /* not Telegram's */ }
  });
}

export function haptic(kind = "light") {
  postEvent("web_app_trigger_haptic_feedback", { type: "impact", impact_style: kind });
}
