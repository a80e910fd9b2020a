import { createHash } from "node:crypto";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { Embeddings } from "@langchain/core/embeddings";

/**
 * A bench-only embedding cache on disk (bench/results/, git-ignored), so that
 * re-running a benchmark does not embed the same few thousand turns again.
 * Vectors are exactly those the wrapped embedder returned.
 */
export class DiskCachedEmbeddings extends Embeddings {
  private readonly map = new Map<string, number[]>();
  private dirty = false;
  computed = 0;
  constructor(
    private readonly inner: Embeddings & { model?: string },
    private readonly file: URL,
  ) {
    super({});
  }
  get model(): string | undefined {
    return this.inner.model;
  }
  embedderIdentity(): string {
    return `disk-cache(${this.inner.model ?? "embedder"})`;
  }
  private static key(text: string): string {
    return createHash("sha256").update(text).digest("base64url").slice(0, 32);
  }
  async load(): Promise<this> {
    try {
      const raw = JSON.parse(await readFile(this.file, "utf8")) as Record<string, string>;
      for (const [k, b64] of Object.entries(raw)) {
        const buf = Buffer.from(b64, "base64");
        this.map.set(k, Array.from(new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength))));
      }
    } catch {
      /* no cache yet */
    }
    return this;
  }
  async save(): Promise<void> {
    if (!this.dirty) return;
    const out: Record<string, string> = {};
    for (const [k, v] of this.map) out[k] = Buffer.from(new Float32Array(v).buffer).toString("base64");
    await mkdir(new URL("./", this.file), { recursive: true });
    await writeFile(this.file, JSON.stringify(out));
    this.dirty = false;
  }
  has(text: string): boolean {
    return this.map.has(DiskCachedEmbeddings.key(text));
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    const missing = [...new Set(texts.filter((t) => !this.map.has(DiskCachedEmbeddings.key(t))))];
    for (let i = 0; i < missing.length; i += 256) {
      const chunk = missing.slice(i, i + 256);
      const vs = await this.inner.embedDocuments(chunk);
      chunk.forEach((t, j) => this.map.set(DiskCachedEmbeddings.key(t), vs[j]!));
      this.computed += chunk.length;
      this.dirty = true;
      if (missing.length > 256) process.stderr.write(`  embedded ${Math.min(i + 256, missing.length)}/${missing.length}\r`);
    }
    if (missing.length > 256) await this.save();
    return texts.map((t) => this.map.get(DiskCachedEmbeddings.key(t))!);
  }
  async embedQuery(text: string): Promise<number[]> {
    return (await this.embedDocuments([text]))[0]!;
  }
}
