import type { Embeddings } from "@langchain/core/embeddings";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { UniversalSentenceEncoderEmbeddings } from "../../src/index.js";
import { OFFLINE_MODEL_NOTICE, OfflineDemoModel } from "./offline-model.js";

/** Which embedder the chatbot uses. */
export type EmbeddingsChoice = "local" | "openai" | "ollama";

/** A chat model and a line saying what it is. */
export interface ChosenModel {
  model: BaseChatModel;
  /** Shown at start-up, e.g. "model: gpt-4o-mini via https://api.openai.com/v1". */
  description: string;
  offline: boolean;
  /** The server the model is called at (for error messages). */
  url?: string;
  /** Retries after a failed call. */
  maxRetries?: number;
  /** A one-line hint to print at start-up (e.g. OPENAI_BASE_URL without a key). */
  hint?: string;
}

/** An embedder, its output size, and a line saying what it is. */
export interface ChosenEmbeddings {
  embeddings: Embeddings;
  dims: number;
  description: string;
}

const OLLAMA_DEFAULT_URL = "http://localhost:11434/v1";

/**
 * `ChatOpenAI` when `OPENAI_API_KEY` is set (pointed at `OPENAI_BASE_URL`
 * when that is set: Ollama, llama.cpp, vLLM…), otherwise the offline
 * scripted model. `offline` forces the scripted model.
 */
export async function chooseModel(options: { model?: string; offline?: boolean; env?: NodeJS.ProcessEnv }): Promise<ChosenModel> {
  const env = options.env ?? process.env;
  if (options.offline || !env.OPENAI_API_KEY) {
    const hint =
      !options.offline && env.OPENAI_BASE_URL
        ? `hint: OPENAI_BASE_URL is set (${env.OPENAI_BASE_URL}) but OPENAI_API_KEY is not, so the offline demo model is used; set OPENAI_API_KEY (any value for a local server such as Ollama) to chat with it`
        : undefined;
    return { model: new OfflineDemoModel(), description: OFFLINE_MODEL_NOTICE, offline: true, hint };
  }
  const { ChatOpenAI } = await import("@langchain/openai");
  const name = options.model ?? env.OPENAI_MODEL ?? "gpt-4o-mini";
  const baseURL = env.OPENAI_BASE_URL;
  const maxRetries = 2;
  const model = new ChatOpenAI({ model: name, apiKey: env.OPENAI_API_KEY, maxRetries, configuration: baseURL ? { baseURL } : undefined });
  return { model, description: `model: ${name} via ${baseURL ?? "api.openai.com"}`, offline: false, url: baseURL ?? "https://api.openai.com/v1", maxRetries };
}

/** True for errors that mean the server was not reached at all (refused, DNS, timeout). */
export function isUnreachable(err: unknown): boolean {
  for (let e = err as { name?: string; code?: string; message?: string; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e.name === "APIConnectionError" || e.name === "APIConnectionTimeoutError") return true;
    if (e.code && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|ETIMEDOUT|EHOSTUNREACH)$/.test(e.code)) return true;
    if (e.message && /Connection error|fetch failed|ECONNREFUSED/i.test(e.message)) return true;
  }
  return false;
}

/** What the chatbot prints when the chat model cannot be reached. */
export function unreachableMessage(chosen: ChosenModel, err: unknown): string {
  const retries = chosen.maxRetries ?? 0;
  return (
    `error: could not reach the chat model at ${chosen.url} (tried ${retries + 1} times: 1 call + ${retries} retries): ${String((err as Error)?.message ?? err).replace(/\.$/, "")}. ` +
    `Check that the server is running and listening there, that OPENAI_BASE_URL is right (it should end in /v1 for most servers) and that OPENAI_API_KEY is valid; or run with --offline.`
  );
}

/**
 * The local USE-lite embedder (offline, 512 dims) by default; OpenAI's
 * embeddings API, or Ollama's OpenAI-compatible one, when asked. The output
 * size of a hosted embedder is measured with one call.
 */
export async function chooseEmbeddings(options: { choice?: EmbeddingsChoice; model?: string; env?: NodeJS.ProcessEnv }): Promise<ChosenEmbeddings> {
  const env = options.env ?? process.env;
  const choice = options.choice ?? "local";
  if (choice === "local") {
    return { embeddings: new UniversalSentenceEncoderEmbeddings(), dims: 512, description: "embeddings: Universal Sentence Encoder lite (local, offline)" };
  }
  const { OpenAIEmbeddings } = await import("@langchain/openai");
  let embeddings: Embeddings;
  let where: string;
  if (choice === "openai") {
    if (!env.OPENAI_API_KEY) throw new Error("--embeddings openai needs OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server)");
    const model = options.model ?? "text-embedding-3-small";
    const baseURL = env.OPENAI_BASE_URL;
    embeddings = new OpenAIEmbeddings({ model, apiKey: env.OPENAI_API_KEY, maxRetries: 2, configuration: baseURL ? { baseURL } : undefined });
    where = `${model} via ${baseURL ?? "api.openai.com"}`;
  } else if (choice === "ollama") {
    const model = options.model ?? "nomic-embed-text";
    const baseURL = env.OLLAMA_BASE_URL ?? OLLAMA_DEFAULT_URL;
    // Ollama ignores the key but the client requires one.
    embeddings = new OpenAIEmbeddings({ model, apiKey: "ollama", maxRetries: 2, encodingFormat: "float", configuration: { baseURL } });
    where = `${model} via Ollama at ${baseURL}`;
  } else {
    throw new Error(`--embeddings must be local, openai or ollama, got ${JSON.stringify(choice)}`);
  }
  let dims: number;
  try {
    dims = (await embeddings.embedQuery("dimension probe")).length;
  } catch (e) {
    throw new Error(`could not reach the embedder (${where}): ${(e as Error).message}`);
  }
  return { embeddings, dims, description: `embeddings: ${where} (${dims} dims)` };
}
