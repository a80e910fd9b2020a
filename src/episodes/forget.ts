import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { erasePrefixes } from "../scope/erase-prefixes.js";

/**
 * Erases a person's episodes: every turn under `namespace` (e.g.
 * `["episodes", "42"]`), every thread cursor of it (which holds the last
 * reply's text) and every kept version of those turns, as `erasePerson`
 * does, so that recording starts afresh; on HNSWStore one compaction purges
 * them from every file. Returns how many turns were deleted.
 */
export async function forgetEpisodes(store: BaseStore, namespace: string[]): Promise<number> {
  if (!store || typeof store.batch !== "function") throw new InvalidArgumentError("forgetEpisodes needs a BaseStore");
  if (!Array.isArray(namespace) || namespace.length === 0 || namespace.some((l) => typeof l !== "string" || l === "")) {
    throw new InvalidArgumentError(`forgetEpisodes needs a resolved namespace of non-empty labels, got ${JSON.stringify(namespace)}`);
  }
  const [erased] = await erasePrefixes(store, [namespace]);
  return erased!.items;
}
