import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { encodeLabel } from "./namespace-template.js";

/**
 * The root label of learned instructions (procedural memory):
 * `["procedures", agentId]` holds an agent's own, and
 * `["procedures", agentId, userId]` those learned for one user.
 */
export const PROCEDURES_ROOT = "procedures";

/** The root label of recorded feedback: `["procedure_feedback", agentId]` and `[..., agentId, userId]`. */
export const PROCEDURE_FEEDBACK_ROOT = "procedure_feedback";

/** Both roots; a user's namespaces under them are erased with the user. */
export const PROCEDURE_ROOTS: readonly string[] = [PROCEDURES_ROOT, PROCEDURE_FEEDBACK_ROOT];

function checkId(what: string, id: unknown): string {
  if (typeof id !== "string" || id.length === 0 || id.length > 200) {
    throw new InvalidArgumentError(`${what} must be a non-empty string of at most 200 characters, got ${JSON.stringify(id)}`);
  }
  return id;
}

/**
 * The namespace of an agent's learned instructions (or of its feedback, with
 * `root`), per user when `userId` is given. Ids are encoded as the memory
 * namespaces encode them (`.` → `%2E`), so any id is a valid label.
 */
export function procedureNamespace(agentId: string, userId?: string, root: string = PROCEDURES_ROOT): string[] {
  const ns = [root, encodeLabel(checkId("agentId", agentId))];
  if (userId !== undefined) ns.push(encodeLabel(checkId("userId", userId)));
  return ns;
}

/**
 * Every per-user procedure and feedback namespace of `userId`, across all
 * agents: what erasing that person must delete (with their kept versions).
 */
export async function personProcedureNamespaces(store: BaseStore, userId: string): Promise<string[][]> {
  const label = encodeLabel(checkId("userId", userId));
  const out: string[][] = [];
  for (const root of PROCEDURE_ROOTS) {
    for (let offset = 0; ; offset += 1000) {
      const page = await store.listNamespaces({ prefix: [root], maxDepth: 3, limit: 1000, offset });
      for (const ns of page) if (ns.length === 3 && ns[2] === label) out.push(ns);
      if (page.length < 1000) break;
    }
  }
  return out;
}
