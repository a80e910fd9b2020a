/**
 * The preload's output is pinned: for a fixed store (one user's 240 facts
 * beside 2 other users', and 2,600 recorded turns, more than the exact-scan
 * threshold, so episodes are searched with an HNSW walk and the store-wide
 * keyword index), the `[Long-term Memory Context]` block of preloadMemoryBlock
 * and the turns of searchEpisodes (neighbours on, a thread filter, a "when"
 * question) must stay byte-identical to the file snapshot. Work that only
 * makes the preload cheaper must not change a byte of it; a change of the
 * ranking on purpose updates the snapshot (`npx vitest run -u` on this file).
 * Real HNSWStore in a temp directory; FakeEmbeddings is a TEST DOUBLE (bag of
 * words: deterministic, so the snapshot is the same on every machine).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordEpisodes } from "../../src/episodes/record.js";
import { searchEpisodes } from "../../src/episodes/search.js";
import { preloadMemoryBlock, preloadScope, type PreloadSettings } from "../../src/graph/recall-context.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

/** A small deterministic PRNG (mulberry32), so the store is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ["Ana", "Ben", "Caroline", "Dev", "Mara"];
const TOPICS = ["the pottery class", "the new job at the clinic", "whale watching in Vancouver", "her brother Tom", "the marathon", "adopting a beagle", "the Lisbon trip", "peanut allergy", "jazz records", "the garden"];
const OPENERS = ["I finally went to", "Did you hear about", "We talked about", "I'm still thinking about", "Guess what happened with", "Remember"];
const TIMES = ["yesterday", "last week", "two days ago", "in May", "last Friday", "this morning", "", "", "", ""];
const REPLIES = ["Nice.", "Don't we all.", "Really?", "How did it go?", "Tell me more!", "That sounds lovely, I would like to hear how it went next time."];

const QUESTIONS = [
  "When did Caroline go whale watching?",
  "what should I cook for her, given the peanut allergy?",
  "Who is her brother?",
  "How is the new job at the clinic going?",
  "What did Ben say about the marathon?",
  "Any news about the beagle?",
  "when was the Lisbon trip",
  "jazz",
  "something nothing in the store answers: quantum chromodynamics",
  "What does the user enjoy on holidays?",
];

let dir: string;
let store: HNSWStore;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "preload-golden-"));
  store = new HNSWStore({ path: dir, index: { dims: 48, embeddings: new FakeEmbeddings({ dims: 48 }), fields: ["text"] }, embeddingCache: false });
  const rnd = prng(34);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  for (const user of ["u0", "u1", "u2"]) {
    const facts = Array.from({ length: user === "u0" ? 240 : 60 }, (_, i) => ({
      namespace: ["users", user],
      key: `f${i}`,
      value: { text: `User ${pick(["enjoys", "avoids", "is learning", "talks about"])} ${pick(TOPICS)} ${pick(TIMES) || "often"} (fact ${i}).` },
      index: ["text"],
    }));
    await store.batch(facts);
  }
  let turns = 0;
  for (let session = 0; turns < 2600; session++) {
    const [a, b] = [NAMES[session % NAMES.length]!, NAMES[(session + 2) % NAMES.length]!];
    const messages = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? { role: "user", content: `${pick(OPENERS)} ${pick(TOPICS)} ${pick(TIMES)}, ${pick(NAMES)} was there too.`.replace(" ,", ",") }
        : { role: "assistant", content: rnd() < 0.4 ? pick(REPLIES) : `Oh, ${pick(TOPICS)}! ${pick(REPLIES)}` },
    );
    const day = String(1 + (session % 28)).padStart(2, "0");
    await recordEpisodes({ store, namespace: ["episodes", "u0"], threadId: `t${session % 7}-${session}`, messages, now: `2024-0${1 + (session % 9)}-${day}T12:00:00Z`, speakers: { user: a, assistant: b } });
    turns += messages.length;
  }
}, 120_000);

afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe("preload output is pinned", () => {
  it("preloadMemoryBlock (facts + episodes) is byte-identical to the snapshot", async () => {
    const settings: PreloadSettings = { namespace: ["users", "{user_id}"], store, limit: 5, episodes: { namespace: ["episodes", "{user_id}"] } };
    const config = { configurable: { user_id: "u0" } };
    const blocks: string[] = [];
    for (const query of QUESTIONS) {
      const block = await preloadMemoryBlock(settings, { config, query, withKeys: false, scope: preloadScope(settings, config) });
      blocks.push(`### ${query}\n${block}`);
    }
    // With keys and a token budget: the fill and the budget paths.
    const tight: PreloadSettings = { ...settings, maxTokens: 260, episodes: { namespace: ["episodes", "{user_id}"], preloadLimit: 4 } };
    for (const query of QUESTIONS.slice(0, 3)) blocks.push(`### (keys, 260 tokens) ${query}\n${await preloadMemoryBlock(tight, { config, query, withKeys: true })}`);
    await expect(blocks.join("\n\n") + "\n").toMatchFileSnapshot("./__snapshots__/preload-golden.blocks.txt");
  });

  it("searchEpisodes (neighbours, thread filter) is identical to the snapshot", async () => {
    const out: unknown[] = [];
    for (const query of QUESTIONS) {
      out.push({ query, turns: await searchEpisodes(store, ["episodes", "u0"], { query, limit: 6, neighbours: true }) });
      out.push({ query, thread: "t3-3", turns: await searchEpisodes(store, ["episodes", "u0"], { query, limit: 3, threadId: "t3-3" }) });
    }
    await expect(JSON.stringify(out, null, 1) + "\n").toMatchFileSnapshot("./__snapshots__/preload-golden.episodes.json");
  });
});
