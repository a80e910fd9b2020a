import { UniversalSentenceEncoderEmbeddings } from "../../src/embeddings/universal-sentence-encoder.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { recordEpisodes } from "../../src/episodes/record.js";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { baselineText, type LargeConversation } from "./conversations-large.js";

/**
 * Records `convs` into one episode namespace with recordEpisodes, session by
 * session (one call each, as a thread is recorded), cycling through them
 * under new thread ids (`r<rep>-<conversation>-s<session>`) until `turns`
 * turns are written. Returns how many were written.
 */
export async function recordTurns(store: BaseStore, namespace: string[], convs: LargeConversation[], turns: number, onSession?: (recorded: number) => void): Promise<number> {
  let recorded = 0;
  for (let rep = 0; recorded < turns; rep++) {
    for (const c of convs) {
      for (const [si, s] of c.sessions.entries()) {
        if (recorded >= turns) break;
        const take = s.turns.slice(0, turns - recorded);
        await recordEpisodes({
          store,
          namespace,
          threadId: `r${rep}-${c.id}-s${si}`,
          messages: take.map(([speaker, text]) => ({ role: speaker === c.speakers[0] ? "user" : "assistant", content: text })),
          now: `${s.date}T12:00:00Z`,
          speakers: { user: c.speakers[0], assistant: c.speakers[1] },
        });
        recorded += take.length;
        onSession?.(recorded);
      }
    }
  }
  return recorded;
}

/**
 * Ingest throughput, uncached: the same sessions recorded as episodes
 * (recordEpisodes, one call per session) and put as plain turn items
 * (`{ text: "<speaker>: <text>" }`, one store.batch per session), each in a
 * fresh in-memory HNSWStore over a live USE-lite embedder, alternating
 * plain / episodes `rounds` times. Returns turns per second, the best round
 * of each (the machine is shared; the best round is the least disturbed).
 */
export async function measureIngest(convs: LargeConversation[], turns: number, rounds = 2): Promise<{ turns: number; plain: number; episodes: number }> {
  const use = new UniversalSentenceEncoderEmbeddings();
  await use.embedQuery("warm up");
  const sessions: Array<{ c: LargeConversation; si: number; date: string; turns: Array<[string, string]> }> = [];
  let n = 0;
  for (const c of convs) {
    for (const [si, s] of c.sessions.entries()) {
      if (n >= turns) break;
      sessions.push({ c, si, date: s.date, turns: s.turns });
      n += s.turns.length;
    }
  }
  const run = async (episodes: boolean) => {
    const store = new HNSWStore({ index: { dims: 512, embeddings: use, fields: ["text"] } });
    const t = performance.now();
    for (const s of sessions) {
      const [a, b] = s.c.speakers;
      if (episodes) {
        await recordEpisodes({
          store,
          namespace: [s.c.id],
          threadId: `s${s.si}`,
          messages: s.turns.map(([speaker, text]) => ({ role: speaker === a ? "user" : "assistant", content: text })),
          now: `${s.date}T12:00:00Z`,
          speakers: { user: a, assistant: b },
        });
      } else {
        await store.batch(s.turns.map(([speaker, text], ti) => ({ namespace: [s.c.id], key: `s${s.si}#${ti}`, value: { text: baselineText(speaker, text) } })));
      }
    }
    const rate = n / ((performance.now() - t) / 1000);
    await store.close();
    return rate;
  };
  let plain = 0;
  let episodes = 0;
  for (let r = 0; r < rounds; r++) {
    plain = Math.max(plain, await run(false));
    episodes = Math.max(episodes, await run(true));
  }
  return { turns: n, plain, episodes };
}
