/**
 * Child process of the fault-injection suite (bundled by bundleChild).
 *
 *   crash <dir> <seed>        random writes until killed; prints "B <op json>" before each
 *                             operation and "A" when it resolved (acknowledged)
 *   verify <dir>              opens the store, prints "RESULT <json>": every item and any item
 *                             whose vector does not match its text (after re-putting a sample,
 *                             so a corrupt embedding-cache entry would show), or the error
 *   diskfull <dir> <filler>   writes until the disk is full, frees it, reopens, prints "RESULT <json>"
 */
import fs from "node:fs";
import path from "node:path";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { rng } from "../helpers/rng.js";

const [mode, dir, arg] = process.argv.slice(2);
const DIMS = 32;
const silent = { warn: () => undefined };

/** The embedder the directory was built with (a reindex switches between two). */
function modelOf(d: string): string {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(d, "store.json"), "utf8"));
    const id = String(m.index?.embedder ?? "");
    return id.endsWith(":fb") ? "fb" : "fa";
  } catch {
    return "fa";
  }
}

const embedder = (model: string) => new FakeEmbeddings({ dims: DIMS, model });
const openStore = (d: string, model = modelOf(d), extra = {}) =>
  new HNSWStore({ path: d, index: { dims: DIMS, embeddings: embedder(model), fields: ["text"] }, compactAfterBytes: 8192, compactLogRatio: 0, logger: silent, ...extra });

const words = ["alpha", "bravo", "cedar", "delta", "ember", "fjord", "glade", "heron", "iris", "jade", "kelp", "lumen"];

async function crash(seed: number): Promise<void> {
  const rand = rng(seed);
  let model = modelOf(dir);
  const store = openStore(dir, model);
  await store.open();
  const keys = (await store.search(["f"], { limit: 100000 })).map((i) => ({ ns: i.namespace, key: i.key }));
  process.stdout.write("ready\n");
  const text = () => Array.from({ length: 4 }, () => words[Math.floor(rand() * words.length)]).join(" ") + ` s${seed} ${Math.floor(rand() * 1e6)}`;
  const ns = () => ["f", `g${Math.floor(rand() * 4)}`];
  for (let n = 0; ; n++) {
    const r = rand();
    let op: Record<string, unknown>;
    if (r < 0.5) op = { t: "put", ns: ns(), key: `k${seed}-${n}`, text: text() };
    else if (r < 0.75) op = { t: "batch", items: [0, 1, 2].map((j) => ({ ns: ns(), key: `b${seed}-${n}-${j}`, text: text() })) };
    else if (r < 0.88 && keys.length) op = { t: "del", ...keys[Math.floor(rand() * keys.length)] };
    else if (r < 0.92) op = { t: "delns", ns: ns() };
    else if (r < 0.97) op = { t: "compact" };
    else op = { t: "reindex", model: model === "fa" ? "fb" : "fa" };
    process.stdout.write(`B ${JSON.stringify(op)}\n`);
    if (op.t === "put") await store.put(op.ns as string[], op.key as string, { text: op.text });
    else if (op.t === "batch") {
      const items = op.items as { ns: string[]; key: string; text: string }[];
      await store.batch(items.map((i) => ({ namespace: i.ns, key: i.key, value: { text: i.text } })));
    } else if (op.t === "del") await store.delete(op.ns as string[], op.key as string);
    else if (op.t === "delns") await store.deleteNamespace(op.ns as string[]);
    else if (op.t === "compact") await store.compact();
    else {
      model = op.model as string;
      await store.reindex({ index: { dims: DIMS, embeddings: embedder(model), fields: ["text"] } });
    }
    process.stdout.write("A\n");
    if (op.t === "put") keys.push({ ns: op.ns as string[], key: op.key as string });
    if (op.t === "batch") for (const i of op.items as { ns: string[]; key: string }[]) keys.push(i);
  }
}

/** Every item, and the keys whose stored vector is not their text's (score of their own text < 0.999). */
async function dump(store: HNSWStore): Promise<{ items: { ns: string[]; key: string; text: string }[]; badVectors: string[] }> {
  const all = await store.search(["f"], { limit: 1_000_000 });
  const items = all.map((i) => ({ ns: i.namespace, key: i.key, text: String(i.value.text) }));
  const badVectors: string[] = [];
  for (const it of items) {
    const [hit] = await store.search(it.ns, { query: it.text, filter: { text: it.text }, limit: 1 });
    if (!hit || hit.key !== it.key || !(hit.score! > 0.999)) badVectors.push(it.key);
  }
  return { items, badVectors };
}

async function verify(): Promise<void> {
  try {
    const store = openStore(dir);
    await store.open();
    const before = await dump(store);
    // Re-put a sample with the same text: a corrupt cache entry would be served here.
    for (const it of before.items.slice(0, 10)) await store.put(it.ns, it.key, { text: it.text });
    const after = await dump(store);
    await store.close();
    process.stdout.write(`RESULT ${JSON.stringify({ ok: true, items: before.items, badVectors: [...new Set([...before.badVectors, ...after.badVectors])] })}\n`);
  } catch (err) {
    const e = err as Error & { file?: string };
    process.stdout.write(`RESULT ${JSON.stringify({ ok: false, name: e.name, message: String(e.message).slice(0, 300), file: e.file })}\n`);
  }
}

async function diskFull(filler: string): Promise<void> {
  const store = openStore(dir, "fa", { compactAfterBytes: 32 * 1024 });
  const acked: string[] = [];
  const rejected: { key: string; error: string }[] = [];
  let failuresInARow = 0;
  for (let n = 0; n < 3000 && failuresInARow < 25; n++) {
    const key = `d${n}`;
    try {
      await store.put(["f", "full"], key, { text: `${words[n % words.length]} ${"x".repeat(1500)} ${n}` });
      acked.push(key);
      failuresInARow = 0;
    } catch (err) {
      rejected.push({ key, error: `${(err as Error).name}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message.slice(0, 80)}` });
      failuresInARow++;
    }
  }
  let closeError: string | undefined;
  await store.close().catch((err: Error) => (closeError = `${err.name}: ${err.message}`));
  fs.rmSync(filler, { force: true });
  const again = openStore(dir, "fa");
  const present = new Set((await again.search(["f", "full"], { limit: 1_000_000 })).map((i) => i.key));
  await again.close();
  process.stdout.write(
    `RESULT ${JSON.stringify({
      acked: acked.length,
      rejected: rejected.length,
      errors: [...new Set(rejected.map((r) => r.error))],
      lost: acked.filter((k) => !present.has(k)),
      rejectedButPresent: rejected.filter((r) => present.has(r.key)).map((r) => r.key),
      closeError,
    })}\n`,
  );
}

if (mode === "crash") await crash(Number(arg));
else if (mode === "verify") await verify();
else if (mode === "diskfull") await diskFull(arg);
process.exit(0);
