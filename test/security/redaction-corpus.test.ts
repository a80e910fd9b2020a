import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AuditLog, createRedactor, HNSWStore, ProtectedStore, RedactionError } from "../../src/index.js";
import { normalizeForMatching } from "../../src/privacy/normalize.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { BENIGN_TEXTS, redactionCorpus } from "./redaction-corpus.js";

/**
 * The redaction corpus through a ProtectedStore over a real HNSWStore
 * directory. The embedder is a SPY (FakeEmbeddings records every text it is
 * given; its vectors are a bag of words): what is under test is which texts
 * reach it, and which bytes reach the disk.
 */

/** Lower-case letters and digits of the normalised text, nothing else: the form a leak is looked for in. */
function compact(s: string): string {
  return normalizeForMatching(s).text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
}

/** Whether any 12-character window of the needle (or the whole, if shorter) appears in the haystack. */
function leaks(haystack: string, needle: string): boolean {
  const n = compact(needle);
  if (n.length <= WINDOW) return haystack.includes(n);
  for (let i = 0; i + WINDOW <= n.length; i++) if (haystack.includes(n.slice(i, i + WINDOW))) return true;
  return false;
}
const WINDOW = 12;

function leaksRaw(haystack: string, needle: string): boolean {
  const n = normalizeForMatching(needle).text;
  for (let i = 0; i + WINDOW <= n.length; i++) if (haystack.includes(n.slice(i, i + WINDOW))) return true;
  return n.length < WINDOW && haystack.includes(n);
}

function leafTexts(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(leafTexts);
  if (v && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => [k, ...leafTexts(x)]);
  return [];
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

const tally = { tried: 0, held: 0, failures: [] as string[] };

afterAll(() => {
  console.log(`redaction corpus: ${tally.held}/${tally.tried} held${tally.failures.length ? `; leaked: ${tally.failures.join(" | ")}` : ""}`);
});

describe("redaction corpus: formatting does not get PII past the redactor", () => {
  it("no variant reaches the embedder (documents or queries) or any file of the store", async () => {
    const t = tempDir("redaction-corpus-");
    try {
      const embeddings = new FakeEmbeddings({ dims: 32 });
      const inner = new HNSWStore({ path: path.join(t.dir, "store"), index: { dims: 32, embeddings, fields: ["$"] } });
      const audit = new AuditLog({ path: path.join(t.dir, "audit") });
      const store = new ProtectedStore(inner, { redactor: createRedactor(), history: true, audit });
      const cases = redactionCorpus();
      const seen: string[] = [];
      for (let i = 0; i < cases.length; i++) {
        const [d, q] = [embeddings.documentCalls.length, embeddings.queryCalls.length];
        await store.put(["users", "u1"], `k${i}`, cases[i]!.value);
        // Overwrite once so that history holds a version too, and search with the same text.
        await store.put(["users", "u1"], `k${i}`, { ...cases[i]!.value, rev: 2 });
        for (const query of leafTexts(cases[i]!.value)) await store.search(["users", "u1"], { query, limit: 1 });
        seen.push([...embeddings.documentCalls.slice(d).flat(), ...embeddings.queryCalls.slice(q)].map(compact).join("|"));
      }
      const stored = await Promise.all(cases.map((_, i) => store.get(["users", "u1"], `k${i}`)));
      await store.close();
      // Text files are compacted like the needles; binary ones (the HNSW graph: little-endian labels
      // compact into runs like "abcd…") are searched for the needle's windows as written.
      const files = filesUnder(t.dir).map((f) => {
        const buf = fs.readFileSync(f);
        return [f, buf.includes(0) ? buf.toString("latin1") : compact(buf.toString("utf8")).replace(/\|/g, "")] as const;
      });
      const binary = new Set(files.filter(([f]) => fs.readFileSync(f).includes(0)).map(([f]) => f));
      const disk = files.filter(([f]) => !binary.has(f)).map(([, text]) => text).join("|");
      if (process.env.REDACTION_DEBUG) for (const c of cases) for (const n of c.needles) for (const [f, text] of files) if (leaks(text, n)) console.log(c.name, "in", f, text.slice(Math.max(0, text.indexOf(compact(n).slice(0, 12)) - 60), text.indexOf(compact(n).slice(0, 12)) + 60));
      cases.forEach((c, i) => {
        tally.tried++;
        const where: string[] = [];
        for (const needle of c.needles) {
          if (leaks(seen[i]!, needle)) where.push("embedder");
          if (leaks(disk, needle)) where.push("disk");
          if (files.some(([f, text]) => binary.has(f) && leaksRaw(text, needle))) where.push("binary file");
          if (leaks(compact(JSON.stringify(stored[i]?.value ?? {})), needle)) where.push("stored value");
        }
        if (where.length === 0) tally.held++;
        else tally.failures.push(`${c.name} (${[...new Set(where)].join(", ")})`);
      });
      expect(tally.failures).toEqual([]);
      expect(tally.tried).toBeGreaterThan(200);
    } finally {
      t.cleanup();
    }
  });

  it("two keys that redact alike stay two keys (nothing is silently merged)", async () => {
    const store = new ProtectedStore(new HNSWStore(), { redactor: createRedactor() });
    await store.put(["u"], "k", { m: { "ana@example.com": "a", "bob@example.org": "b" } });
    expect((await store.get(["u"], "k"))?.value).toEqual({ m: { "[EMAIL]": "a", "[EMAIL]#2": "b" } });
    await store.close();
  });

  it("an item key holding PII is refused with RedactionError, and nothing is written", async () => {
    const embeddings = new FakeEmbeddings({ dims: 16 });
    const inner = new HNSWStore({ index: { dims: 16, embeddings } });
    const store = new ProtectedStore(inner, { redactor: createRedactor() });
    for (const key of ["ana.silva@example.com", "card-4111\u200B1111\u200B1111\u200B1111", "sk-proj-AbCdEf1234567890GhIjKlMn"]) {
      tally.tried++;
      const err = await store.put(["u"], key, { text: "x" }).catch((e: unknown) => e);
      const held = err instanceof RedactionError && !(err as Error).message.includes(key) && (await inner.count()) === 0;
      if (held) tally.held++;
      else tally.failures.push(`item key ${JSON.stringify(key)}`);
      expect(held).toBe(true);
    }
    expect(embeddings.documentCalls.flat()).toEqual([]);
    // A delete by such a key (of an item written before redaction was on) still works.
    await inner.put(["u"], "ana.silva@example.com", { text: "old" });
    await store.delete(["u"], "ana.silva@example.com");
    expect(await inner.count()).toBe(0);
    await store.close();
  });

  it("ordinary text, emoji sequences and other scripts come out exactly as they went in", () => {
    const redact = createRedactor();
    for (const text of BENIGN_TEXTS) {
      tally.tried++;
      const out = redact(text);
      if (out === text) tally.held++;
      else tally.failures.push(`benign ${JSON.stringify(text)} -> ${JSON.stringify(out)}`);
      expect(out).toBe(text);
    }
  });
});
