import { afterEach, describe, expect, it, vi } from "vitest";
import { InvalidArgumentError } from "../../src/errors.js";
import { KeywordIndex } from "../../src/embeddings/keyword-index.js";
import { chunkText, UniversalSentenceEncoderEmbeddings } from "../../src/embeddings/universal-sentence-encoder.js";
import { embedderIdentity } from "../../src/embeddings/identity.js";

// The REAL Universal Sentence Encoder lite, loaded from node_modules.

const facts = [
  "Severe penicillin reaction as a child",
  "Lives in a flat in Rotterdam with two cats",
  "Works night shifts as an ICU nurse",
  "Vegetarian since 2015",
  "Plays the cello in a community orchestra",
  "Afraid of flying; takes the train everywhere",
  "Daughter Mia starts primary school in September",
  "Training for a marathon in the spring",
];

// Each question shares no content word with its answer. USE-lite is a small
// model: it misses some phrasings ("What does she do for a living?" goes to
// the daughter fact); `npm run bench:retrieval` has the full figures.
const questions: Array<[string, number]> = [
  ["Which antibiotics should I avoid?", 0],
  ["Does she have any pets?", 1],
  ["What is her job?", 2],
  ["Can I cook steak for her?", 3],
  ["What musical instrument does she play?", 4],
  ["Will she come by plane?", 5],
  ["Does she have kids?", 6],
  ["What sport is she preparing for?", 7],
];

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("UniversalSentenceEncoderEmbeddings (real model)", () => {
  it("loads and embeds with the network blocked", async () => {
    vi.stubGlobal("fetch", () => {
      throw new Error("network is blocked in this test");
    });
    const embeddings = new UniversalSentenceEncoderEmbeddings();
    const [v] = await embeddings.embedDocuments(["offline sentence"]);
    expect(v).toHaveLength(512);
    expect(Math.hypot(...v!)).toBeCloseTo(1, 4);
    expect(embeddingsIdentity(embeddings)).toBe("UniversalSentenceEncoderEmbeddings:universal-sentence-encoder-lite@0.2.0");
  });

  it("ranks the right fact first by meaning, where keyword ranking does not", async () => {
    const embeddings = new UniversalSentenceEncoderEmbeddings();
    const factVectors = await embeddings.embedDocuments(facts);
    const keywords = new KeywordIndex();
    facts.forEach((f, i) => keywords.add(String(i), [f]));
    let vectorTop1 = 0;
    let keywordTop1 = 0;
    for (const [question, answer] of questions) {
      const q = await embeddings.embedQuery(question);
      const best = factVectors.map((v, i) => [cosine(q, v), i] as const).sort((a, b) => b[0] - a[0])[0]![1];
      if (best === answer) vectorTop1++;
      else console.warn(`USE-lite missed: ${question} -> ${facts[best]}`);
      if (keywords.search(question, { limit: 1 })[0]?.id === String(answer)) keywordTop1++;
    }
    expect(vectorTop1).toBe(questions.length);
    expect(keywordTop1).toBeLessThanOrEqual(1);
  });

  it("is deterministic and agrees between batched and single calls, and between instances", async () => {
    const a = new UniversalSentenceEncoderEmbeddings({ batchSize: 3 });
    const b = new UniversalSentenceEncoderEmbeddings();
    const batched = await a.embedDocuments(facts);
    const again = await a.embedDocuments(facts);
    expect(again).toEqual(batched);
    const single = await b.embedQuery(facts[4]!);
    single.forEach((x, i) => expect(Math.abs(x - batched[4]![i]!)).toBeLessThan(1e-5));
  });

  it("handles empty, whitespace, non-English and very long texts", async () => {
    const embeddings = new UniversalSentenceEncoderEmbeddings({ chunkChars: 200, maxChunks: 4 });
    const long = "I enjoy long walks along the river in the evening. ".repeat(100);
    const out = await embeddings.embedDocuments(["", "   ", "Je suis allergique à la pénicilline", "日本語のテキスト", long]);
    for (const v of out) {
      expect(v).toHaveLength(512);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(Math.hypot(...v)).toBeCloseTo(1, 4);
    }
    const [shortWalk] = await embeddings.embedDocuments(["I enjoy long walks along the river in the evening."]);
    expect(cosine(out[4]!, shortWalk!)).toBeGreaterThan(0.9);
  });

  it("splits long text at sentence boundaries and caps the chunk count", () => {
    const text = "One two three. ".repeat(40);
    const chunks = chunkText(text, 100, 3);
    expect(chunks).toHaveLength(3);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(100);
      expect(c.endsWith(".")).toBe(true);
    }
    expect(chunkText("short", 100, 3)).toEqual(["short"]);
  });

  it("rejects bad options and non-string input with a named error", async () => {
    expect(() => new UniversalSentenceEncoderEmbeddings({ batchSize: 0 })).toThrow(InvalidArgumentError);
    const embeddings = new UniversalSentenceEncoderEmbeddings();
    await expect(embeddings.embedDocuments(["ok", 5 as unknown as string])).rejects.toThrow(/text 1 is number/);
    await expect(embeddings.embedQuery(undefined as unknown as string)).rejects.toThrow(InvalidArgumentError);
  });
});

function embeddingsIdentity(e: UniversalSentenceEncoderEmbeddings): string {
  return embedderIdentity(e);
}
