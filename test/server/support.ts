import type { Embeddings } from "@langchain/core/embeddings";
import type { FastifyRequest } from "fastify";
import { HNSWStore } from "../../src/index.js";
import { createMemoryServer, type MemoryServerOptions } from "../../src/server/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

import { API_KEY } from "./keys.js";
export { API_KEY };

/**
 * TEST auth hook: `authorization: Bearer user:<id>` is end user <id>. A real
 * deployment verifies a token here; the server's scoping is what is tested.
 */
export function bearerAuth(request: FastifyRequest): { identity: string } | null {
  const m = /^Bearer user:(.+)$/.exec(request.headers.authorization ?? "");
  return m ? { identity: m[1] } : null;
}

export const asUser = (id: string) => ({ authorization: `Bearer user:${id}` });

export interface TestServer {
  url: string;
  store: HNSWStore;
  dir: string;
  close: () => Promise<void>;
}

/** A real HNSWStore in a fresh temp dir, served on 127.0.0.1 on a free port. */
export async function startTestServer(
  options: { embeddings?: Embeddings; dims?: number; server?: Partial<MemoryServerOptions> } = {},
): Promise<TestServer> {
  const { dir, cleanup } = tempDir("memory-server-");
  const dims = options.dims ?? 32;
  const store = new HNSWStore({ path: dir, index: { dims, embeddings: options.embeddings ?? new FakeEmbeddings({ dims }), fields: ["text"] } });
  const app = createMemoryServer({ store, apiKey: API_KEY, authenticate: bearerAuth, logger: false, ...options.server });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    dir,
    close: async () => {
      await app.close();
      cleanup();
    },
  };
}

/** A raw JSON request (for what the SDK does not send). */
export async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.status, body: json as any };
}
