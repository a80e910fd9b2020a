/**
 * The server's authentication (langgraph.json `auth.path`). The identity it
 * returns becomes `config.configurable.langgraph_auth_user_id` of every run,
 * set by the server over anything a request body says, and the memory
 * namespace `["users", "{langgraph_auth_user_id}"]` is filled from it.
 *
 * DEMO ONLY: bearer tokens from EXAMPLE_AUTH_TOKENS (`token=user,…`). Replace
 * it with your real check (a JWT, a session) before deploying.
 */
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";

function tokens(): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of (process.env.EXAMPLE_AUTH_TOKENS ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at > 0 && at < pair.length - 1) out.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
  }
  return out;
}

const users = tokens();

export const auth = new Auth()
  .authenticate(async (request: Request) => {
    const header = request.headers.get("authorization") ?? "";
    const token = header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "";
    const identity = users.get(token);
    if (!identity) throw new HTTPException(401, { message: "unknown or missing bearer token" });
    return { identity, permissions: [] };
  })
  // Each user sees only their own threads.
  .on("threads", ({ user, value }) => {
    if ("metadata" in value) value.metadata = { ...(value.metadata ?? {}), owner: user.identity };
    return { owner: user.identity };
  });
