// The Mini App's API: every request carries initData in the Authorization header (never in
// the URL). The event stream is read with fetch for the same reason (EventSource cannot set
// headers).
let initData = "";

export function setInitData(value) { initData = value; }

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

async function call(path, options = {}) {
  const response = await fetch(`api/${path}`, {
    ...options,
    headers: { Authorization: `tma ${initData}`, "Content-Type": "application/json" },
  });
  let body = null;
  try { body = await response.json(); } catch { body = null; }
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

export const get = (path) => call(path);
export const post = (path, data) => call(path, { method: "POST", body: JSON.stringify(data) });

// Calls onVersion(n) for each "data:" of the game's stream; reopens it when it ends or
// breaks. Returns a function that stops it.
export function watch(gameId, onVersion, onState = () => {}) {
  let stopped = false;
  let controller = null;
  (async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const response = await fetch(`api/game/${gameId}/events`, {
          headers: { Authorization: `tma ${initData}` }, signal: controller.signal,
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        onState(true);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const chunk = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const line of chunk.split("\n")) {
              if (line.startsWith("data: ")) onVersion(JSON.parse(line.slice(6)).version);
            }
          }
        }
      } catch (error) {
        if (stopped) return;
        onState(false);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  })();
  return () => { stopped = true; if (controller) controller.abort(); };
}
