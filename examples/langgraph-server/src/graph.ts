/**
 * `memory_graph`: a StateGraph with long-term memory wired by `withMemory`
 * (recall before the model, extraction after the answer).
 *
 * No checkpointer and no `compile({ store })`: the LangGraph server supplies
 * both, and memory uses `store` from the options whatever the server injects.
 *
 * In your project: `from "langgraph-hnsw-memory"`.
 */
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { MemoryExtractor, withMemory } from "../../../src/index.js";
import { chatModel } from "./model.js";
import { NAMESPACE, store } from "./store.js";

const model = chatModel();

export const graph = withMemory(new StateGraph(MessagesAnnotation), {
  model,
  namespace: NAMESPACE,
  store,
  // The three memories most related to the user's message, by meaning.
  limit: 3,
  fillWithRecent: false,
  // Inline (0 s): the fact is stored before the run ends. Under a server that
  // keeps running, `debounceSeconds: 30` moves extraction off the reply's path.
  extract: { extractor: new MemoryExtractor({ model }), debounceSeconds: 0 },
}).compile();
