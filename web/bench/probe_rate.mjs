// Probes a second of the WebAssembly probe in Node.js:
//   node web/bench/probe_rate.mjs PKG_DIR DB POSITIONS_FILE [ROUNDS]
// PKG_DIR holds the built package (web/build-wasm output plus
// web/js/*.js). Prints one JSON line: the median of ROUNDS timed passes
// over every position, through the API (`probe`, parsed), through the
// API's text (`probeJson`), and through the module (`table.probeJson`), the
// file held in memory.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, db, list, roundsArg] = process.argv.slice(2);
const { openFile } = await import(pathToFileURL(resolve(join(pkg, "node.js"))).href);
const positions = readFileSync(list, "utf8").split("\n").filter((l) => l.length > 0);
const rounds = Number(roundsArg || 5);
const tb = await openFile(db, { whole: true });
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function time(pass) {
  const rates = [];
  for (let r = 0; r < rounds; r += 1) {
    const t0 = process.hrtime.bigint();
    await pass();
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    rates.push(positions.length / s);
  }
  return median(rates);
}

const api = await time(async () => {
  for (const p of positions) await tb.probe(p);
});
const text = await time(async () => {
  for (const p of positions) await tb.probeJson(p);
});
const module = await time(async () => {
  for (const p of positions) tb.table.probeJson(p);
});
console.log(JSON.stringify({ positions: positions.length, api_per_s: Math.round(api), api_text_per_s: Math.round(text), module_per_s: Math.round(module) }));
