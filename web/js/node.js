// boardsolve in WebAssembly, for Node.js: everything `boardsolve.js`
// offers, the module loaded from beside this file, `openFile` to read a
// database from disk, and `openShipped` for the books the package holds.
//
//   import { openFile } from "boardsolve";
//   const tb = await openFile("bsq.db");
//   console.log((await tb.probe("start")).value);

import { open as openHandle, readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as core from "./boardsolve.js";

export { Tablebase } from "./boardsolve.js";

/// Loads the WebAssembly module from beside this file (once).
export async function load() {
  return core.load(await readFile(new URL("./boardsolve_wasm_bg.wasm", import.meta.url)));
}

/// Opens a database: a URL, bytes or a reader function, as
/// `boardsolve.js`'s `open`.
export async function open(source, options = {}) {
  await load();
  return core.open(source, options);
}

/// Opens the database file at `path`. By default it is read by ranges,
/// a few pieces at a time as answers need them, and `close()` closes it;
/// `{ whole: true }` reads it into memory at once (faster for many
/// answers).
export async function openFile(path, options = {}) {
  await load();
  const name = options.name || String(path);
  if (options.whole) {
    return core.open(await readFile(path), { ...options, name });
  }
  const file = await openHandle(path, "r");
  const { size } = await file.stat();
  const read = async (start, end) => {
    const bytes = new Uint8Array(end - start);
    let at = 0;
    while (at < bytes.length) {
      const { bytesRead } = await file.read(bytes, at, bytes.length - at, start + at);
      if (bytesRead === 0) {
        throw new Error(`${name}: the file ends before byte ${start + at}: it changed while open`);
      }
      at += bytesRead;
    }
    return bytes;
  };
  let tb;
  try {
    tb = await core.open(read, { ...options, name, length: size });
  } catch (e) {
    await file.close();
    throw e;
  }
  /// Closes the file (a table read by ranges keeps it open).
  tb.close = () => file.close();
  return tb;
}

/// The opening books that come with the package, by file name (`c4.db`:
/// Connect Four 7x6, every position of its first moves).
export async function shippedBooks() {
  const names = await readdir(new URL("./books/", import.meta.url));
  return names.filter((n) => n.endsWith(".db")).sort();
}

/// Opens a book that comes with the package by its file name, read by
/// ranges as `openFile` reads any file (same options).
export async function openShipped(name, options = {}) {
  const books = await shippedBooks();
  if (!books.includes(name)) {
    throw new Error(`${name}: no such book comes with the package (${books.join(", ")})`);
  }
  const path = fileURLToPath(new URL(`./books/${name}`, import.meta.url));
  return openFile(path, { name, ...options });
}
