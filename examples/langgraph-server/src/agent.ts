/**
 * `memory_agent`: a langchain v1 `createAgent` with `memoryMiddleware`
 * (the memory block before each model call, the memory tools, extraction
 * after the agent).
 *
 * In your project: `from "langgraph-hnsw-memory/agent"` and `"langgraph-hnsw-memory"`.
 */
import { createAgent } from "langchain";
import { memoryMiddleware } from "../../../src/agent/index.js";
import { MemoryExtractor } from "../../../src/index.js";
import { chatModel } from "./model.js";
import { NAMESPACE, store } from "./store.js";

const model = chatModel();

export const agent = createAgent({
  model,
  tools: [],
  systemPrompt: "You are a friendly cooking assistant.",
  middleware: [
    memoryMiddleware({
      namespace: NAMESPACE,
      store,
      mode: "both",
      extract: { extractor: new MemoryExtractor({ model }), debounceSeconds: 0 },
    }),
  ],
});
