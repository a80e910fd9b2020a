import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { PROCEDURE_FEEDBACK_ROOT, PROCEDURES_ROOT, procedureNamespace } from "../scope/procedure-namespace.js";
import { decodeLabel } from "../scope/namespace-template.js";
import { underlyingStore } from "../scope/resolve-store.js";

/** One agent with learned instructions. */
export interface ProcedureAgent {
  /** The agent's id. */
  agentId: string;
  /** Whether the agent has instructions of its own (not per user). */
  agentWide: boolean;
  /** Users with instructions learned for them. */
  users: string[];
}

async function namespacesUnder(store: BaseStore, prefix: string[], maxDepth: number): Promise<string[][]> {
  const out: string[][] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await store.listNamespaces({ prefix, maxDepth, limit: 1000, offset });
    out.push(...page);
    if (page.length < 1000) return out;
  }
}

/** Every agent with learned instructions (agent-wide or for any user), sorted by id. */
export async function listProcedureAgents(store: BaseStore): Promise<ProcedureAgent[]> {
  const real = underlyingStore(store);
  const agents = new Map<string, ProcedureAgent>();
  for (const ns of await namespacesUnder(real, [PROCEDURES_ROOT], 3)) {
    if (ns.length < 2) continue;
    const agentId = decodeLabel(ns[1]);
    const entry = agents.get(agentId) ?? { agentId, agentWide: false, users: [] };
    if (ns.length === 2) entry.agentWide = true;
    else entry.users.push(decodeLabel(ns[2]));
    agents.set(agentId, entry);
  }
  for (const a of agents.values()) a.users.sort();
  return [...agents.values()].sort((a, b) => a.agentId.localeCompare(b.agentId));
}

/** The users of one agent with instructions learned for them (or, with `of: "feedback"`, with feedback recorded). */
export async function listProcedureUsers(store: BaseStore, agentId: string, of: "instructions" | "feedback" = "instructions"): Promise<string[]> {
  const prefix = procedureNamespace(agentId, undefined, of === "feedback" ? PROCEDURE_FEEDBACK_ROOT : PROCEDURES_ROOT);
  const found = await namespacesUnder(underlyingStore(store), prefix, 3);
  return found.filter((ns) => ns.length === 3).map((ns) => decodeLabel(ns[2])).sort();
}
