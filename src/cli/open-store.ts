import fs from "node:fs";
import path from "node:path";
import { CliError, NotAStoreDirectoryError, StoreLockedError } from "../errors.js";
import { HNSWStore } from "../store/hnsw/hnsw-store.js";
import { MEMORY_TEXT_FIELDS } from "../embeddings/local-index.js";
import { readManifest, type Manifest } from "../store/hnsw/snapshot.js";
import { chooseEmbedder, knownEmbedderFor, type ChosenEmbedder } from "./embedders.js";
import { plural } from "./output.js";

/** The store directory: `--path`, else `$LANGGRAPH_MEMORY_PATH`. */
export function storeDir(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const dir = given ?? env.LANGGRAPH_MEMORY_PATH;
  if (!dir) throw new CliError("no store directory: pass --path DIR or set LANGGRAPH_MEMORY_PATH");
  return path.resolve(dir);
}

/** True when `dir` holds a store (a manifest or a first log). */
export function isStoreDir(dir: string): boolean {
  return fs.existsSync(path.join(dir, "store.json")) || fs.existsSync(path.join(dir, "wal-0.log"));
}

/** The directory's manifest, checked to exist. */
export function requireStore(dir: string): Manifest | null {
  if (!fs.existsSync(dir)) throw new CliError(`no store directory at ${dir} (create one with: langgraph-memory init --path ${dir})`);
  if (!isStoreDir(dir)) throw new CliError(`${dir} is not a langgraph-hnsw-memory store (no store.json or wal-0.log)`);
  return readManifest(dir);
}

/** The pid in a directory's LOCK file, if it names a live process. */
export function livePid(dir: string): number | undefined {
  try {
    const pid = Number(JSON.parse(fs.readFileSync(path.join(dir, "LOCK"), "utf8")).pid);
    if (!Number.isInteger(pid) || pid === process.pid) return undefined;
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM" ? NaN : undefined;
  }
}

/** What a directory held by a running app is: the start of every note and refusal about it. */
export function liveMessage(dir: string, pid: number): string {
  return `store directory ${dir} is in use by process ${pid} (its LOCK file)`;
}

/** The one-line refusal for a command that must write to a directory held by a running app. */
export function liveRefusal(dir: string, pid: number): string {
  return `${liveMessage(dir, pid)}; stop that process or close its store, then retry (read-only commands such as stats, ls, get, search, export and verify work while it runs)`;
}

/**
 * Whether `dir` can hold a store: "existing" (a store), "empty" (an empty
 * directory) or "missing" (nothing there yet). Anything else (a file, a
 * directory with other entries) is refused with {@link NotAStoreDirectoryError},
 * so a store is never written into a directory that holds other things.
 * Changes nothing.
 */
export function storeDirState(dir: string): "existing" | "empty" | "missing" {
  if (!fs.existsSync(dir)) return "missing";
  if (!fs.statSync(dir).isDirectory()) throw new NotAStoreDirectoryError(dir, "it is a file, not a directory");
  if (isStoreDir(dir)) return "existing";
  const entries = fs.readdirSync(dir);
  if (entries.length === 0) return "empty";
  const shown = entries.slice(0, 3).join(", ") + (entries.length > 3 ? ", …" : "");
  throw new NotAStoreDirectoryError(dir, `it holds ${plural(entries.length, "other entry", "other entries")} (${shown}) and no store.json or wal-0.log`);
}

/** Undoes a store creation that failed: removes the directory, or empties it when it existed before. */
export function removeCreatedStore(dir: string, state: "empty" | "missing"): void {
  if (state === "missing") fs.rmSync(dir, { recursive: true, force: true });
  else for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f), { recursive: true, force: true });
}

/**
 * Creates a store in a missing or empty directory, recording `embedder`
 * (the local model unless chosen), and returns it open. An existing store
 * is opened as it is (with its own embedder when this CLI knows it).
 */
export async function openOrCreateStore(dir: string, embeddings: string | undefined): Promise<{ store: HNSWStore; created: boolean; state: ReturnType<typeof storeDirState>; embedder?: ChosenEmbedder; note?: string }> {
  const state = storeDirState(dir);
  if (state === "existing") {
    const { embedder, note } = await embedderForDirectory(dir, embeddings);
    return { store: await openStore(dir, { embedder }), created: false, state, embedder, note };
  }
  const embedder = await chooseEmbedder(embeddings ?? "local");
  try {
    return { store: await openStore(dir, { embedder, create: true }), created: true, state, embedder };
  } catch (err) {
    removeCreatedStore(dir, state);
    throw err;
  }
}

/**
 * Opens a store directory for a command. Without `embedder`, the directory
 * is opened without its embedder (`withoutEmbedder`): reads, keyword search,
 * deletes and compaction work; writes of new text say which embedder the
 * directory expects. With `embedder`, that embedder is used.
 */
export async function openStore(dir: string, options: { embedder?: ChosenEmbedder; create?: boolean; identity?: string; fields?: string[] } = {}): Promise<HNSWStore> {
  const manifest = options.create ? (fs.existsSync(dir) && isStoreDir(dir) ? readManifest(dir) : null) : requireStore(dir);
  const e = options.embedder;
  const store = new HNSWStore({
    path: dir,
    withoutEmbedder: !e,
    index: e ? { dims: e.dims, embeddings: e.embeddings, fields: options.fields ?? manifest?.index?.fields ?? (options.create ? [...MEMORY_TEXT_FIELDS] : undefined) } : undefined,
    embedderIdentity: options.identity,
    durability: "process",
    // Looking at memories must not extend their lives.
    ttl: { refreshOnRead: false, sweepIntervalMinutes: 0 },
    logger: { warn: (m: string) => process.stderr.write(`warning: ${m}\n`) },
  });
  try {
    await store.open();
  } catch (err) {
    if (err instanceof StoreLockedError) throw new CliError(liveRefusal(dir, err.pid));
    throw err;
  }
  return store;
}

/**
 * The embedder for commands that rank by meaning (search, serve): the one
 * given with `--embeddings`, else the directory's own when this CLI can
 * recreate it, else none (keyword ranking).
 */
export async function embedderForDirectory(dir: string, given: string | undefined): Promise<{ embedder?: ChosenEmbedder; note?: string }> {
  const manifest = fs.existsSync(dir) ? readManifest(dir) : null;
  const expected = manifest?.index?.embedder;
  const choice = given ?? (expected ? knownEmbedderFor(expected) : undefined);
  if (!choice) {
    return { note: expected ? `ranking by keywords: the directory's vectors were built by ${expected}; pass --embeddings to search by meaning` : undefined };
  }
  const embedder = await chooseEmbedder(choice);
  if (expected && embedder.identity !== expected) {
    throw new CliError(`the directory expects the embedder ${expected} (${manifest!.index!.dims} dims), but --embeddings ${choice} is ${embedder.identity}; use that embedder, or run reindex`);
  }
  return { embedder };
}
