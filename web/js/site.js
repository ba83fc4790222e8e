// The static explorer's back end, on the page's side: the explorer page
// (query/src/explorer.html, copied as index.html by web/build-site) uses
// `window.explorerBackend` instead of the HTTP API of `query serve` when
// this script defines it. Every answer comes from worker.js, a Web Worker
// that reads the databases beside the page.
//
//   explorerBackend.info()                  the body of GET /api/info
//   explorerBackend.api(path, params, as)   the body of GET /api/PATH?PARAMS
//     (path "position", "svg", "line" or "play"; params {game, variant,
//     p, m}; `as` "text" for the picture), rejected with an Error carrying
//     the message serve would give
//
// A search runs to its end in the worker: an answer that takes longer than
// the time cap (`data-time-limit` of this script's tag, in seconds,
// default 20) stops the worker, a fresh one takes over, and the answer is
// rejected with "the search timed out". While a database is downloaded
// whole (the server ignores range requests), #status says how far.
(function () {
  "use strict";
  const script = document.currentScript;
  const here = new URL(".", script.src);
  const cap = Number(script.dataset.timeLimit) > 0 ? Number(script.dataset.timeLimit) : 20;

  let worker = null;
  let nextId = 1;
  // id -> {resolve, reject, timer}
  const pending = new Map();
  // file -> percent (or bytes) of a download under way
  const loading = new Map();
  let infoPromise = null;

  function status() {
    return document.getElementById("status");
  }

  function showProgress({ file, loaded, total }) {
    if (total > 0 && loaded >= total) {
      loading.delete(file);
    } else {
      loading.set(file, total > 0 ? `${Math.floor((100 * loaded) / total)}%` : `${(loaded / 1e6).toFixed(1)} MB`);
    }
    render();
  }

  function render() {
    const el = status();
    if (!el) return;
    if (loading.size) {
      el.textContent = Array.from(loading, ([f, done]) => `Loading ${f}: ${done}`).join("; ");
    } else if (el.textContent.startsWith("Loading ")) {
      // Downloaded: what the page said before, the answer being worked out.
      el.textContent = document.body.dataset.busy ? "Searching…" : "";
    }
  }

  function failAll(error) {
    for (const entry of pending.values()) {
      clearTimeout(entry.timer);
      entry.reject(error);
    }
    pending.clear();
    loading.clear();
  }

  function start() {
    worker = new Worker(new URL("worker.js", here), { type: "module" });
    worker.addEventListener("message", (event) => {
      const message = event.data;
      if (message.progress) {
        showProgress(message.progress);
        return;
      }
      if (message.started !== undefined) {
        const entry = pending.get(message.started);
        if (entry && entry.timer === null) {
          entry.timer = setTimeout(() => timedOut(message.started), cap * 1000);
        }
        return;
      }
      // An answer comes once its database is open: downloaded (also when
      // the server gave no length, and so no 100%).
      if (loading.size) {
        loading.clear();
        render();
      }
      const entry = pending.get(message.id);
      if (!entry) return;
      pending.delete(message.id);
      clearTimeout(entry.timer);
      if (message.ok) {
        entry.resolve(message.body);
      } else {
        entry.reject(new Error(message.error));
      }
    });
    worker.addEventListener("error", (event) => {
      // The worker could not start (or died): everything asked of it fails,
      // and the next question starts a new one.
      event.preventDefault();
      worker.terminate();
      worker = null;
      failAll(new Error(`the explorer's worker failed: ${event.message || "worker.js did not load"}`));
    });
  }

  // A search past the cap cannot be stopped but with its worker: a fresh
  // one answers from now on (it opens the databases again).
  function timedOut(id) {
    const entry = pending.get(id);
    if (!entry) return;
    worker.terminate();
    worker = null;
    failAll(new Error(`the search timed out: no answer within ${cap} s`));
    start();
  }

  function ask(request) {
    if (!worker) start();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, timer: null });
      worker.postMessage({ id, ...request });
    });
  }

  function info() {
    if (!infoPromise) {
      infoPromise = ask({ op: "info" });
      infoPromise.catch(() => { infoPromise = null; });
    }
    return infoPromise;
  }

  async function api(path, params, as) {
    const { databases } = await info();
    const db = databases.findIndex((d) => (d.game === params.game
      && (params.variant === undefined || d.variant === params.variant))
      || (d.alias && d.alias === params.game && params.variant === undefined));
    if (db < 0) {
      throw new Error(`not served: ${params.game} ${params.variant || ""}`.trim());
    }
    if (!["position", "svg", "line", "play"].includes(path)) {
      throw new Error(`no such path: /api/${path}`);
    }
    const body = await ask({ op: path, db, p: params.p, m: params.m });
    return as === "text" ? String(body) : body;
  }

  window.explorerBackend = { info, api };
  // The worker loads its modules and the WebAssembly while the page starts.
  start();
})();
