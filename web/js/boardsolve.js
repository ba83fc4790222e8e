// boardsolve in WebAssembly: answers positions from database files held
// in memory, read by HTTP range requests, or read by any function that
// returns the bytes at an offset. Works in browsers, Web Workers and
// Node.js 18 or later.
//
//   import { open } from "./boardsolve.js";
//   const tb = await open("https://example.org/bsq.db");
//   const answer = await tb.probe("start");   // query --json's answer
//
// Every method that reads the database is asynchronous: the probe asks
// for the bytes it lacks, they are fetched (several at once), and it runs
// again. Errors are exceptions whose messages are `query`'s.

import init, { initSync, Pieces, Table } from "./boardsolve_wasm.js";

let ready = null;

/// Loads the WebAssembly module once: from `module` (bytes, a
/// `WebAssembly.Module`, a URL or a Response) when given, else from
/// `boardsolve_wasm_bg.wasm` beside this file.
export function load(module) {
  if (!ready) {
    if (module instanceof Uint8Array || module instanceof ArrayBuffer || module instanceof WebAssembly.Module) {
      initSync({ module });
      ready = Promise.resolve();
    } else {
      ready = init(module === undefined ? undefined : { module_or_path: module });
    }
  }
  return ready;
}

/// Bytes of the first request for a file read by ranges: the header.
const HEADER_BYTES = 4096;

/// At most this many range requests in flight at once per database.
const PARALLEL_REQUESTS = 6;

/// A byte source over HTTP: range requests, or the whole file when the
/// server ignores `Range` (answers 200).
async function httpSource(url, options) {
  const first = await fetch(url, { headers: { Range: `bytes=0-${HEADER_BYTES - 1}` } });
  if (first.status === 206) {
    const range = first.headers.get("Content-Range") || "";
    const total = Number(range.split("/")[1]);
    if (!Number.isSafeInteger(total)) {
      throw new Error(`${url}: the server gave no file length (Content-Range: ${range || "none"})`);
    }
    const head = new Uint8Array(await first.arrayBuffer());
    return {
      length: total,
      head,
      headBytes: head.length,
      read: async (start, end) => {
        const r = await fetch(url, { headers: { Range: `bytes=${start}-${end - 1}` } });
        if (r.status !== 206) {
          throw new Error(`${url}: HTTP ${r.status} for bytes ${start} to ${end}`);
        }
        const bytes = new Uint8Array(await r.arrayBuffer());
        if (bytes.length !== end - start) {
          throw new Error(`${url}: ${bytes.length} bytes for bytes ${start} to ${end}: the file changed or the server is broken`);
        }
        return bytes;
      },
    };
  }
  if (!first.ok) {
    throw new Error(`${url}: HTTP ${first.status} ${first.statusText}`);
  }
  return { whole: await readWhole(url, first, options.onProgress) };
}

/// The body of a whole-file response, reporting progress as it comes.
async function readWhole(url, response, onProgress) {
  const total = Number(response.headers.get("Content-Length")) || 0;
  if (!response.body || !onProgress) {
    return new Uint8Array(await response.arrayBuffer());
  }
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  onProgress({ url, loaded, total });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress({ url, loaded, total });
  }
  const all = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}

/// Opens a database.
///
/// `source` is a URL (string or `URL`: read by HTTP range requests, or
/// fetched whole when the server ignores them), the file's bytes
/// (`Uint8Array` or `ArrayBuffer`), or a function `(start, end) =>
/// Promise<Uint8Array>` returning bytes `start` to `end` (then give
/// `options.length`, the file's length). `options.name` names the file in
/// messages; `options.onProgress({url, loaded, total})` follows a
/// whole-file download.
export async function open(source, options = {}) {
  // A URL's first request goes out while the module loads.
  const loading = load(options.wasm);
  if (typeof source !== "function" && !(source instanceof ArrayBuffer) && !(source instanceof Uint8Array)) {
    const url = String(source);
    const [http] = await Promise.all([httpSource(url, options), loading]);
    const name = options.name || url;
    if (http.whole) {
      const tb = new Tablebase(Table.fromBytes(name, http.whole), null, name);
      tb.stats.requests = 1;
      tb.stats.bytes = http.whole.length;
      return tb;
    }
    return openPieces(name, http);
  }
  await loading;
  if (source instanceof ArrayBuffer) source = new Uint8Array(source);
  if (source instanceof Uint8Array) {
    const name = options.name || "database";
    return new Tablebase(Table.fromBytes(name, source), null, name);
  }
  if (typeof source === "function") {
    if (!Number.isSafeInteger(options.length) || options.length < 0) {
      throw new Error("a database read by a function needs options.length, the file's length in bytes");
    }
    return openPieces(options.name || "database", { length: options.length, read: source });
  }
  throw new Error("open: give a URL, the file's bytes, or a function reading them");
}

/// A table on a file read by ranges from `source` ({length, read, head}).
async function openPieces(name, source) {
  const pieces = new Pieces(source.length);
  const fetcher = new Fetcher(source);
  if (source.head) {
    pieces.supply(0, source.head);
    fetcher.stats.requests += 1;
    fetcher.stats.bytes += source.head.length;
  }
  for (let round = 0; ; round += 1) {
    try {
      return new Tablebase(Table.fromPieces(name, pieces), fetcher, name);
    } catch (e) {
      const wanted = pieces.wanted();
      if (wanted.length === 0 || round > 8) throw e;
      await fetcher.fetch(wanted, (start, bytes) => pieces.supply(start, bytes));
    }
  }
}

/// Fetches wanted ranges, a few at once, and counts what it fetched.
class Fetcher {
  constructor(source) {
    this.source = source;
    this.stats = { requests: 0, bytes: 0 };
  }

  async fetch(flat, supply) {
    const ranges = [];
    for (let i = 0; i < flat.length; i += 2) ranges.push([flat[i], flat[i + 1]]);
    let next = 0;
    const worker = async () => {
      while (next < ranges.length) {
        const [start, end] = ranges[next];
        next += 1;
        const bytes = await this.source.read(start, end);
        this.stats.requests += 1;
        this.stats.bytes += bytes.length;
        supply(start, bytes);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_REQUESTS, ranges.length) }, worker));
  }
}

/// An open database.
export class Tablebase {
  constructor(table, fetcher, name) {
    this.table = table;
    this.fetcher = fetcher;
    this.name = name;
    this.stats = fetcher ? fetcher.stats : { requests: 0, bytes: 0 };
    // One call at a time: the bytes a call wants are its own.
    this.queue = Promise.resolve();
  }

  /// Runs `call(table)` until it wants no more bytes.
  run(call) {
    if (!this.fetcher) {
      // In memory: nothing is ever wanted, so no queue either.
      try {
        return Promise.resolve(call(this.table));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    const go = async () => {
      for (let round = 0; ; round += 1) {
        let result;
        let error = null;
        try {
          result = call(this.table);
        } catch (e) {
          error = e;
        }
        const wanted = this.fetcher ? this.table.wanted() : [];
        if (wanted.length === 0) {
          if (error) throw error;
          return result;
        }
        if (round > 10000) throw new Error(`${this.name}: the answer still wants bytes after 10000 rounds`);
        await this.fetcher.fetch(wanted, (start, bytes) => this.table.supply(start, bytes));
      }
    };
    const done = this.queue.then(go, go);
    this.queue = done.catch(() => {});
    return done;
  }

  /// Lets go of the file: nothing for a table in memory (Node.js's
  /// `openFile` closes the file it reads by ranges).
  async close() {}

  /// The game's name, as the file's header names it.
  get game() { return this.table.game; }
  /// The variant.
  get variant() { return this.table.variant; }
  /// The number of records.
  get records() { return this.table.records; }
  /// True when the file holds every reachable position.
  get complete() { return this.table.complete; }
  /// True when positions past the file's opening book are searched.
  get searchedPastTheBook() { return this.table.searchedPastTheBook; }
  /// True for a packed file.
  get packed() { return this.table.packed; }

  /// The answer for `position`, as `query --json` prints it (parsed).
  async probe(position) {
    return JSON.parse(await this.run((t) => t.probeJson(position)));
  }

  /// The answer for `position` as the JSON text `query --json` prints
  /// (one line, no newline): cheaper than `probe` where the text is
  /// passed on as it is.
  probeJson(position) {
    return this.run((t) => t.probeJson(position));
  }

  /// The answers for many positions; a position that fails gets
  /// `{position, error}`, as in `query --json`'s batch mode.
  async probeMany(positions) {
    const out = [];
    for (const p of positions) {
      try {
        out.push(await this.probe(p));
      } catch (e) {
        out.push({ position: p, error: e.message });
      }
    }
    return out;
  }

  /// The moves of perfect play from `position` to the end.
  line(position) {
    return this.run((t) => t.line(position));
  }

  /// The position after move `move`, in the game's notation.
  play(position, move) {
    return this.run((t) => t.play(position, move));
  }

  /// The picture `query --svg` draws, or `undefined` for a game without
  /// pictures; with `move`, the picture of the position after that move
  /// of `position`, the move marked (`data-mark="last"`), as `query
  /// serve`'s `GET /api/svg?p=POSITION&m=MOVE` draws it.
  svg(position, move) {
    return this.run((t) => (move === undefined ? t.svg(position) : t.svgAfter(position, move)));
  }

  /// The game, as `query serve`'s `GET /api/info` lists it (parsed):
  /// `{game, variant, alias, moves_joined_by, records, complete,
  /// searched_past_the_book, file, about, even, players: [{name, pieces},
  /// ...]}`.
  async served() {
    return JSON.parse(await this.run((t) => t.servedJson()));
  }

  /// What `query info --json` says about the file (parsed).
  async info() {
    return JSON.parse(await this.run((t) => t.infoJson()));
  }
}
