// The npm package, installed from its tarball into a scratch project, as a
// user meets it: every answer equal to `query --json`, by ranges and from
// memory, for each game and layout; errors with query's messages.
//
// Run by tests/node/run.sh, which sets BOARDSOLVE_BIN (the query binary and
// the random_positions example) and BOARDSOLVE_DBS (a directory of
// databases: NAME.db, with NAME `game,variant`, and their packed copies).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { open, openFile, openShipped, shippedBooks } from "boardsolve";

const bin = process.env.BOARDSOLVE_BIN;
const dir = process.env.BOARDSOLVE_DBS;
const files = readdirSync(dir).filter((f) => f.endsWith(".db")).sort();

function query(db, positions) {
  const out = execFileSync(join(bin, "query"), ["--db", db, "--json", "-"], {
    input: positions.join("\n") + "\n",
    // Exit 1: some position failed; its line carries the error.
    encoding: "utf8",
    stdio: ["pipe", "pipe", "ignore"],
  }).trim().split("\n");
  return out.map((l) => JSON.parse(l));
}

function randomPositions(game, variant, n) {
  const out = execFileSync(join(bin, "examples", "random_positions"), [String(n), "7", variant, game], {
    encoding: "utf8",
  });
  return out.split("\n").filter((l) => l.length > 0);
}

function queryOrExit1(db, positions) {
  try {
    return query(db, positions);
  } catch (e) {
    if (e.status !== 1) throw e;
    return e.stdout.trim().split("\n").map((l) => JSON.parse(l));
  }
}

for (const file of files) {
  const [game, variant] = file.replace(/\.packed\.db$|\.db$/, "").split(",");
  const path = join(dir, file);
  test(`${file}: answers equal query --json, read by ranges and from memory`, async () => {
    const positions = randomPositions(game, variant, 150).concat(["start", "not a position"]);
    const want = queryOrExit1(path, positions);
    for (const whole of [false, true]) {
      const tb = await openFile(path, { whole });
      assert.equal(tb.game, game);
      assert.equal(tb.variant, variant);
      assert.equal(tb.packed, file.endsWith(".packed.db"));
      const got = await tb.probeMany(positions);
      for (let i = 0; i < positions.length; i += 1) {
        if (want[i].error !== undefined) {
          assert.equal(got[i].error, want[i].error, positions[i]);
        } else {
          assert.deepEqual(got[i], want[i], positions[i]);
        }
      }
      if (!whole) {
        // A packed file's header, index and blocks are each read once; a
        // plain file's pages may overlap its header.
        const { size } = statSync(path);
        const most = tb.packed ? size : 2 * size + 16384;
        assert.ok(tb.stats.bytes <= most, `${tb.stats.bytes} bytes read of ${size}`);
      }
      await tb.close();
    }
  });
}

test("lines, moves and info agree with query", async () => {
  const file = files.find((f) => f.startsWith("british-square"));
  const path = join(dir, file);
  const tb = await openFile(path);
  const pv = execFileSync(join(bin, "query"), ["--db", path, "--pv", "start"], { encoding: "utf8" });
  const line = await tb.line("start");
  assert.ok(line.length > 0);
  for (const move of line) assert.ok(pv.includes(move), `${move} in ${pv}`);
  const next = await tb.play("start", line[0]);
  const [after] = query(path, [`${line[0]}`]);
  assert.equal((await tb.probe(next)).value, after.value);
  const info = await tb.info();
  const want = JSON.parse(execFileSync(join(bin, "query"), ["--db", path, "info", "--json"], { encoding: "utf8" }));
  assert.deepEqual({ ...info, db: want.db }, want);
  const served = await tb.served();
  assert.equal(served.game, want.game);
  assert.equal(served.records, want.records);
  assert.equal(served.file, true);
  assert.deepEqual(served.players.map((p) => p.name), ["X", "O"]);
  assert.match(served.players[0].pieces, /crosses/);
  assert.match(served.about, /^British Square: /);
  assert.match(await tb.svg("start"), /^<svg/);
  // With a move: the picture after it, the move marked once.
  const marks = (svg) => (svg.match(/data-mark="last"/g) || []).length;
  assert.equal(marks(await tb.svg("start")), 0);
  const marked = await tb.svg("start", line[0]);
  assert.equal(marks(marked), 1);
  assert.equal(marked.replace(/<g data-mark="last"[^]*?<\/g>\n/, ""), await tb.svg(next));
  await tb.close();
});

test("errors are exceptions with query's messages", async () => {
  const file = files.find((f) => f.startsWith("british-square"));
  const path = join(dir, file);
  const tb = await openFile(path);
  const [want] = queryOrExit1(path, ["z9"]);
  await assert.rejects(tb.probe("z9"), (e) => e instanceof Error && e.message === want.error);
  await assert.rejects(tb.play("start", "q17"), /q17/);
  await assert.rejects(tb.svg("start", "q17"), /q17/);
  await tb.close();
  // Not a database, a truncated one, and bytes read by a broken reader.
  await assert.rejects(open(new Uint8Array(100)), /shorter than the 4096 byte header/);
  const bytes = readFileSync(path);
  await assert.rejects(open(bytes.subarray(0, bytes.length - 8), { name: "cut.db" }), /cut\.db: file is \d+ bytes but its header promises/);
  const broken = await open(async () => new Uint8Array(4096).fill(7), { length: bytes.length, name: "junk.db" })
    .then(() => null, (e) => e);
  assert.match(String(broken), /junk\.db: not a boardsolve database/);
});

test("the shipped Connect Four book answers as query answers from it", async () => {
  assert.deepEqual(await shippedBooks(), ["c4.db"]);
  const tb = await openShipped("c4.db");
  assert.equal(tb.game, "connect-four");
  assert.equal(tb.variant, "7x6");
  assert.equal(tb.packed, true);
  // Positions whose moves are all in the book: answered without search.
  const positions = ["start", "4", "44", "35"];
  const book = join(process.env.BOARDSOLVE_ROOT, "src/games/connect_four/shipped/c4.db");
  const want = query(book, positions);
  assert.deepEqual(await tb.probeMany(positions), want);
  await tb.close();
  await assert.rejects(openShipped("bsq.db"), /bsq.db: no such book comes with the package \(c4.db\)/);
});
