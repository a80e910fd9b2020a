import { threadId } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { EmbeddingError, InvalidArgumentError } from "../../src/errors.js";
import { EmbeddingWorker, sharedEmbeddingWorker } from "../../src/embeddings/embedding-worker.js";
import { UniversalSentenceEncoderEmbeddings } from "../../src/embeddings/universal-sentence-encoder.js";

// The REAL Universal Sentence Encoder lite, in a worker thread and on the main thread.

const texts = ["Vegetarian since 2015", "Lives in Rotterdam with two cats", "x".repeat(1500) + " long text. " + "y ".repeat(400), ""];

describe("USE-lite in a worker thread", () => {
  it("gives the same vectors as the main thread, from another thread", async () => {
    const inWorker = new UniversalSentenceEncoderEmbeddings();
    const onMain = new UniversalSentenceEncoderEmbeddings({ thread: "main" });
    expect(inWorker.thread).toBe("worker");
    const [a, b] = [await inWorker.embedDocuments(texts), await onMain.embedDocuments(texts)];
    expect(a).toHaveLength(texts.length);
    a.forEach((v, i) => {
      expect(v).toHaveLength(512);
      v.forEach((x, d) => expect(x).toBeCloseTo(b[i]![d]!, 5));
    });
    expect((await inWorker.embedQuery("Vegetarian since 2015"))[3]).toBeCloseTo(a[0]![3]!, 6);
    const worker = sharedEmbeddingWorker();
    expect(worker.threadId).toBeGreaterThan(0);
    expect(worker.threadId).not.toBe(threadId);
  });

  it("answers concurrent requests each with its own vectors", async () => {
    const e = new UniversalSentenceEncoderEmbeddings();
    const [one, two] = await Promise.all([e.embedDocuments(["cats"]), e.embedDocuments(["the cello", "cats"])]);
    one[0]!.forEach((x, d) => expect(x).toBeCloseTo(two[1]![d]!, 5));
  });

  it("fails a request with EmbeddingError when the thread stops, and starts a new one for the next", async () => {
    const w = new EmbeddingWorker();
    const pending = w.embed(["a sentence"]);
    const first = w.threadId;
    await w.close();
    await expect(pending).rejects.toThrow(EmbeddingError);
    const again = w.embed(["a sentence"]);
    expect(w.threadId).toBeGreaterThan(first!);
    await w.close();
    await expect(again).rejects.toThrow(/worker stopped/);
  });

  it("refuses an unknown thread option", () => {
    expect(() => new UniversalSentenceEncoderEmbeddings({ thread: "gpu" as "main" })).toThrow(InvalidArgumentError);
  });
});
