// The static explorer's back end: a module Web Worker that answers what
// `query serve` answers, from the databases beside it (listed in
// `databases.json`, an array of file names, written by `web/build-site`),
// read by HTTP range requests or, when the server ignores them, whole.
//
//   const worker = new Worker("worker.js", { type: "module" });
//   worker.postMessage({ id: 1, op: "position", db: 0, p: "start" });
//
// Messages to the worker: {id, op, db, p, m}, op one of
//   "info"      {databases: [{game, variant, alias, moves_joined_by, records, complete,
//               searched_past_the_book, file, about, even, players}]} (the body of
//               GET /api/info; opens every database)
//   "position"  the answer `query --json` prints (GET /api/position), parsed
//   "svg"       the picture `query --svg` draws, as text (an error when the
//               game has none, as serve's 404); with m, the picture of the
//               position after move m, that move marked
//   "line"      {line: [MOVE, ...]}
//   "play"      {position: TEXT}, the position after move m
// with db the database's index in the list. Replies: {id, ok: true, body}
// or {id, error: MESSAGE}; {started: id} when the work for a request
// begins (its database open), so that the page can time the work alone;
// and {progress: {file, loaded, total}} while a database is downloaded
// whole.
//
// The answers for one database are worked out one at a time (a search is
// synchronous and holds the worker), the line of perfect play after any
// other waiting request: it can take longest, and the page shows it last;
// a line asked for drops the lines still waiting. A move is played at once:
// it reads nothing.

// Imported, not `import`ed: this file starts the fetches of the
// WebAssembly module and of the list of files while the modules load, and
// the glue boardsolve.js imports is fetched beside it, not after it.
const boardsolve = import("./boardsolve.js");
import("./boardsolve_wasm.js").catch(() => {});

/// The longest position, in bytes, as `query serve` takes it.
const MAX_POSITION = 4096;

let names = null;
const tables = [];
const queues = [];

/// The file names of databases.json, fetched once.
function list() {
  if (!names) {
    names = (async () => {
      const response = await fetch(new URL("databases.json", import.meta.url));
      if (!response.ok) {
        throw new Error(`databases.json: HTTP ${response.status} ${response.statusText}`);
      }
      const files = await response.json();
      if (!Array.isArray(files) || files.length === 0 || !files.every((f) => typeof f === "string" && f !== "")) {
        throw new Error("databases.json is not a list of database file names");
      }
      return files;
    })();
    // A failed fetch is tried again by the next request.
    names.catch(() => { names = null; });
  }
  return names;
}

/// The open database `index`, opened on first use.
async function table(index) {
  const files = await list();
  if (!Number.isInteger(index) || index < 0 || index >= files.length) {
    throw new Error(`no database ${index}: ${files.length} served (see info)`);
  }
  if (!tables[index]) {
    const file = files[index];
    const { open } = await boardsolve;
    if (tables[index]) return tables[index];
    const opening = open(new URL(encodeURIComponent(file), import.meta.url), {
      name: file,
      onProgress: ({ loaded, total }) => postMessage({ progress: { file, loaded, total } }),
    });
    tables[index] = opening;
    opening.catch(() => { if (tables[index] === opening) tables[index] = null; });
  }
  return tables[index];
}

/// Runs `job` ({id, op, work}) on database `index` after the requests
/// before it, the line of perfect play last; a line asked for supersedes
/// the lines still waiting (the page shows one position at a time).
function enqueue(index, job) {
  let q = queues[index];
  if (!q) {
    q = queues[index] = { jobs: [], running: false };
  }
  if (job.op === "line") {
    for (const old of q.jobs.filter((j) => j.op === "line")) {
      q.jobs.splice(q.jobs.indexOf(old), 1);
      old.reject(new Error("superseded by a later request"));
    }
  }
  const done = new Promise((resolve, reject) => q.jobs.push({ ...job, resolve, reject }));
  pump(q);
  return done;
}

async function pump(q) {
  if (q.running) return;
  q.running = true;
  while (q.jobs.length) {
    let at = q.jobs.findIndex((j) => j.op !== "line");
    if (at < 0) at = 0;
    const [job] = q.jobs.splice(at, 1);
    postMessage({ started: job.id });
    try {
      job.resolve(await job.work());
    } catch (e) {
      job.reject(e);
    }
  }
  q.running = false;
}

function position(p) {
  if (typeof p !== "string") throw new Error("no position: give p=POSITION");
  if (new TextEncoder().encode(p).length > MAX_POSITION) {
    throw new Error(`position is longer than ${MAX_POSITION} bytes`);
  }
  return p;
}

async function answer({ id, op, db, p, m }) {
  if (op === "info") {
    const files = await list();
    const all = await Promise.all(files.map((_, i) => table(i)));
    postMessage({ started: id });
    return {
      databases: await Promise.all(all.map((tb) => tb.served())),
    };
  }
  if (!["position", "svg", "line", "play"].includes(op)) throw new Error(`no such request: ${op}`);
  const tb = await table(db);
  switch (op) {
    case "position": {
      const input = position(p);
      return enqueue(db, { id, op, work: () => tb.probe(input) });
    }
    case "svg": {
      const input = position(p);
      if (m !== undefined && m !== null) {
        if (typeof m !== "string") throw new Error("give m=MOVE");
        position(p + m);
      }
      const last = m === null ? undefined : m;
      return enqueue(db, {
        id,
        op,
        work: async () => {
          const picture = await tb.svg(input, last);
          if (picture === undefined || picture === null) throw new Error("this game has no picture");
          return picture;
        },
      });
    }
    case "line": {
      const input = position(p);
      return enqueue(db, { id, op, work: async () => ({ line: Array.from(await tb.line(input)) }) });
    }
    case "play": {
      if (typeof p !== "string" || typeof m !== "string") throw new Error("give p=POSITION and m=MOVE");
      position(p + m);
      // A move reads no bytes: played at once by the table itself, not
      // after a line of perfect play still being read.
      postMessage({ started: id });
      const next = tb.table && typeof tb.table.play === "function" ? tb.table.play(p, m) : await tb.play(p, m);
      return { position: next };
    }
    default:
      throw new Error(`no such request: ${op}`);
  }
}

self.addEventListener("message", (event) => {
  const request = event.data || {};
  answer(request).then(
    (body) => postMessage({ id: request.id, ok: true, body }),
    (e) => postMessage({ id: request.id, error: e && e.message ? e.message : String(e) }),
  );
});

// The WebAssembly module and the list of files are fetched at once, while
// the modules load and the page asks its first question.
const wasm = fetch(new URL("boardsolve_wasm_bg.wasm", import.meta.url));
wasm.catch(() => {});
boardsolve.then(({ load }) => load(wasm)).catch(() => {});
list().catch(() => {});
