import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { episodeCursorNamespace } from "./episode.js";

const PAGE = 500;

async function deleteAllUnder(store: BaseStore, namespace: string[]): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await store.search(namespace, { limit: PAGE });
    if (page.length === 0) return deleted;
    await store.batch(page.map((item) => ({ namespace: item.namespace, key: item.key, value: null })));
    deleted += page.length;
  }
}

/**
 * Erases a person's episodes: every turn under `namespace` (e.g.
 * `["episodes", "42"]`) and every thread cursor of it, so that recording
 * starts afresh. Returns how many turns were deleted.
 */
export async function forgetEpisodes(store: BaseStore, namespace: string[]): Promise<number> {
  if (!store || typeof store.batch !== "function") throw new InvalidArgumentError("forgetEpisodes needs a BaseStore");
  if (!Array.isArray(namespace) || namespace.length === 0 || namespace.some((l) => typeof l !== "string" || l === "")) {
    throw new InvalidArgumentError(`forgetEpisodes needs a resolved namespace of non-empty labels, got ${JSON.stringify(namespace)}`);
  }
  const turns = await deleteAllUnder(store, namespace);
  await deleteAllUnder(store, episodeCursorNamespace(namespace));
  return turns;
}
