/**
 * `npm run demo`: long-term memory across threads, users and processes,
 * offline, in under a minute.
 *
 *   npm run demo                 # in a fresh temporary directory
 *   npm run demo -- --data DIR   # in DIR (kept afterwards)
 *
 * The chat model is the offline scripted stand-in (its wording is rules);
 * everything else is real: the MemoryExtractor writes into an HNSWStore on
 * disk, recall goes through the USE-lite embedder and the HNSW index,
 * threads are checkpointed in SQLite, and a second process reads it all back.
 * Every fact printed below is read from the store, not from this script.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { formatMemories, formatSaved, runCommand } from "./commands.js";
import { findOnDisk, listFiles } from "./disk.js";
import { OFFLINE_MODEL_NOTICE, OfflineDemoModel } from "./offline-model.js";
import { chooseEmbeddings } from "./providers.js";
import { ChatSession } from "./session.js";
import type { HNSWStore } from "../../src/index.js";

const started = Date.now();
const failures: string[] = [];

function heading(title: string): void {
  console.log(`\n=== ${title} ===`);
}

function indent(text: string, prefix = "  | "): string {
  return text
    .split("\n")
    .map((l) => prefix + l)
    .join("\n");
}

/** Prints a computed check; a failed one makes the demo exit with status 1. */
function check(ok: boolean, what: string): void {
  console.log(`${ok ? "check ok" : "CHECK FAILED"}: ${what}`);
  if (!ok) failures.push(what);
}

function count(texts: string[], inside: string | undefined): number {
  return texts.filter((t) => inside?.includes(t)).length;
}

/** Runs recall-child.ts in a second node process and returns its stdout. */
function runChild(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = path.join(import.meta.dirname, "recall-child.ts");
  return new Promise((resolve, reject) => {
    // cwd: the repository, so that `--import tsx` resolves from its node_modules wherever the demo was started.
    const cwd = path.resolve(import.meta.dirname, "../..");
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function main(): Promise<number> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { data: { type: "string" } } });
  const dataDir = path.resolve(values.data ?? mkdtempSync(path.join(tmpdir(), "memory-demo-")));
  const { embeddings, dims, description } = await chooseEmbeddings({ choice: "local" });
  const open = (userId: string, thread: string) =>
    ChatSession.open({ dataDir, userId, thread, mode: "preload", model: new OfflineDemoModel(), embeddings, dims });

  console.log("langgraph-hnsw-memory demo");
  console.log(`*** ${OFFLINE_MODEL_NOTICE} ***`);
  console.log(`${description}; threads: SQLite (SqliteSaver); memories: HNSWStore`);
  console.log(`data directory: ${dataDir}`);

  let session = await open("42", "monday");

  heading("1. Monday: user 42 tells the bot about their diet (thread 'monday')");
  const monday = "Hi! I'm vegetarian and I am allergic to peanuts.";
  const t1 = await session.send(monday);
  console.log(`user 42> ${monday}`);
  console.log(`bot> ${t1.reply}`);

  heading("2. Facts the extractor wrote, and what the store now holds for user 42");
  console.log(indent(formatSaved(t1.saved).join("\n") || "(the extractor changed nothing)", "  extractor: "));
  const stored = await session.memories();
  console.log(`/memories (read back from the store):\n${indent(formatMemories(stored))}`);
  const facts = stored.map((m) => m.text);
  check(facts.length >= 2, `the store holds ${facts.length} memories for user 42`);

  heading("3. Friday: user 42 asks for dinner ideas in a NEW thread ('friday')");
  session.thread = "friday";
  const friday = "Any ideas for dinner tonight?";
  const t2 = await session.send(friday);
  console.log(`user 42> ${friday}`);
  console.log("The system message the model received for this turn:");
  console.log(indent(t2.context ?? "(none)"));
  console.log(`bot> ${t2.reply}`);
  check(count(facts, t2.context) === facts.length, `the friday context holds ${count(facts, t2.context)} of user 42's ${facts.length} facts`);

  heading("4. User 7, in their own thread, asks the same question");
  session.userId = "7";
  session.thread = "friday";
  const t3 = await session.send(friday);
  console.log(`user 7> ${friday}`);
  console.log("The memory context the model received for user 7:");
  console.log(indent(t3.context ?? "(none: user 7 has no memories, so no memory-context message was sent)"));
  console.log(`bot> ${t3.reply}`);
  check(count(facts, t3.context) === 0, `user 7's context holds ${count(facts, t3.context)} of user 42's facts`);
  await session.close();

  heading("5. A second process reopens the data directory (store closed and unlocked first)");
  const child = await runChild([dataDir, "42", "saturday", "What should I cook this weekend?"]);
  console.log(indent(child.stdout.trimEnd()));
  if (child.code !== 0) console.log(indent(child.stderr.trimEnd(), "  ! "));
  check(child.code === 0 && count(facts, child.stdout) === facts.length, `the second process recalled ${count(facts, child.stdout)} of ${facts.length} facts`);

  heading("6. /forget-all for user 42, then compaction; what is left on disk");
  session = await open("42", "friday");
  const forgot = await runCommand(session, "/forget-all");
  console.log(`/forget-all> ${forgot?.output}`);
  console.log(`/memories>\n${indent(formatMemories(await session.memories()))}`);
  const after = await session.send(friday);
  console.log(`user 42> ${friday}`);
  console.log(indent(after.context ?? "(none: no memory-context message was sent)"));
  // This turn wrote a new thread; forget it too so the scan below sees a clean slate for user 42.
  await runCommand(session, "/forget-all");
  const stats = await (session.store as HNSWStore).stats();
  const left = await session.store.count(session.namespace);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  console.log(`store after forget-all: ${plural(left, "item")} for user 42; ${plural(stats.items, "item")} and ${plural(stats.vectors, "live vector")} in all; ${stats.logBytes === 0 ? "log empty (its file holds only its header)" : `log ${stats.logBytes} bytes of records`}`);
  check(left === 0, `the store holds ${left} items for user 42`);
  await session.close();
  console.log(`files in ${dataDir}:`);
  console.log(indent(listFiles(dataDir).map((f) => `${f.file.padEnd(34)} ${String(f.bytes).padStart(8)} bytes`).join("\n")));
  const needles = [...facts, monday, "allergic to peanuts"];
  const onDisk = findOnDisk(dataDir, needles);
  for (const [file, hits] of onDisk) console.log(indent(`${file}: ${hits.map((h) => JSON.stringify(h)).join(", ")}`, "  still on disk: "));
  check(onDisk.size === 0, `byte scan of every file for ${needles.length} strings (the facts and what user 42 said): found in ${onDisk.size} files`);

  heading("Done");
  console.log(`finished in ${((Date.now() - started) / 1000).toFixed(1)} s; ${failures.length === 0 ? "all checks passed" : `${failures.length} check(s) FAILED`}`);
  if (!values.data) console.log(`(temporary data directory left for inspection: ${dataDir})`);
  return failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
    process.exit(1);
  },
);
