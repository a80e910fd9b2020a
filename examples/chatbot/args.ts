import { parseArgs } from "node:util";
import type { MemoryMode } from "../../src/index.js";
import type { EmbeddingsChoice } from "./providers.js";

/** The chatbot's command-line options. */
export interface ChatArgs {
  user: string;
  thread: string;
  mode: MemoryMode;
  data: string;
  model?: string;
  embeddings: EmbeddingsChoice;
  embeddingsModel?: string;
  offline: boolean;
  /** PostgreSQL connection string: keep memories there (PostgresMemoryStore) instead of --data/memory. */
  postgres?: string;
  help: boolean;
}

export const USAGE = `usage: npm run chat -- [options]

  --user ID              who is talking (memories are per user)          default: 1
  --thread NAME          conversation thread                              default: main
  --mode MODE            preload | postload | both                        default: preload
  --data DIR             where memories and threads are kept              default: ./.memory-data
  --model NAME           chat model, when OPENAI_API_KEY is set           default: $OPENAI_MODEL or gpt-4o-mini
  --embeddings KIND      local | openai | ollama                          default: local (USE-lite, offline)
  --embeddings-model M   embedding model for openai / ollama
  --offline              use the offline scripted model even if OPENAI_API_KEY is set
  --postgres URL         keep memories in PostgreSQL + pgvector (threads stay in --data)
  --help

Environment: OPENAI_API_KEY (turns on ChatOpenAI), OPENAI_BASE_URL (any OpenAI-compatible
server: Ollama, llama.cpp, vLLM), OLLAMA_BASE_URL (default http://localhost:11434/v1).`;

const MODES = ["preload", "postload", "both"];
const EMBEDDINGS = ["local", "openai", "ollama"];

/** Parses argv (without node and the script); throws an Error with a readable message on bad input. */
export function parseChatArgs(argv: string[]): ChatArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      user: { type: "string", default: "1" },
      thread: { type: "string", default: "main" },
      mode: { type: "string", default: "preload" },
      data: { type: "string", default: "./.memory-data" },
      model: { type: "string" },
      embeddings: { type: "string", default: "local" },
      "embeddings-model": { type: "string" },
      offline: { type: "boolean", default: false },
      postgres: { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (!MODES.includes(values.mode!)) throw new Error(`--mode must be one of ${MODES.join(", ")}, got ${values.mode}`);
  if (!EMBEDDINGS.includes(values.embeddings!)) throw new Error(`--embeddings must be one of ${EMBEDDINGS.join(", ")}, got ${values.embeddings}`);
  if (!values.user) throw new Error("--user must not be empty");
  if (!values.thread) throw new Error("--thread must not be empty");
  if (values.postgres !== undefined && !/^postgres(ql)?:\/\//.test(values.postgres)) throw new Error(`--postgres must be a postgres:// URL, got ${values.postgres}`);
  return {
    user: values.user,
    thread: values.thread,
    mode: values.mode as MemoryMode,
    data: values.data!,
    model: values.model,
    embeddings: values.embeddings as EmbeddingsChoice,
    embeddingsModel: values["embeddings-model"],
    offline: values.offline!,
    postgres: values.postgres,
    help: values.help!,
  };
}
