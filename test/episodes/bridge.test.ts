/**
 * Repeated turns take one place, and entity bridging finds the second hop of
 * a call-back: rerankEpisodes' rules alone, then searchEpisodes end to end on
 * a real HNSWStore. Embeddings: FakeEmbeddings (TEST DOUBLE, bag of words),
 * since both rules are about words, not meaning.
 */
import { describe, expect, it } from "vitest";
import type { BaseMessage } from "@langchain/core/messages";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { rerankEpisodes } from "../../src/episodes/rank.js";
import { nameTerms } from "../../src/episodes/bridge.js";
import { recordEpisodes } from "../../src/episodes/record.js";
import { searchEpisodes } from "../../src/episodes/search.js";
import { episodeKey, type Episode } from "../../src/episodes/episode.js";
import { InvalidArgumentError } from "../../src/errors.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

const turn = (threadId: string, n: number, text: string, speaker = "Priya"): Episode => ({ key: episodeKey(threadId, n), text, speaker, threadId, turn: n, date: "2024-01-01", timestamp: "" });
const off = { minWords: 0, speakerBoost: 1, timeBoost: 1, replyWeight: 0, promptWeight: 0, k: 1 };

describe("collapseRepeats", () => {
  it("keeps the best copy of a line said in several sessions, and every copy when off", () => {
    const hits = [turn("s1", 0, "There's a new Thai place opening near me."), turn("s2", 4, "there's a new  Thai place opening near me. "), turn("s3", 2, "The Thai place opened, the curry was great"), turn("s4", 1, "There's a new Thai place opening near me.")];
    expect(rerankEpisodes("thai place", hits, 3, off).map((e) => e.key)).toEqual([hits[0]!.key, hits[2]!.key]);
    expect(rerankEpisodes("thai place", hits, 3, { ...off, collapseRepeats: false }).map((e) => e.key)).toEqual([hits[0]!.key, hits[1]!.key, hits[2]!.key]);
    // with session diversity on, the same rule holds
    expect(rerankEpisodes("thai place", hits, 3, { ...off, sessionDecay: 0.5 }).map((e) => e.key)).toEqual([hits[0]!.key, hits[2]!.key]);
  });
});

describe("entity bridging", () => {
  it("reads names inside sentences, not the word that opens the turn or a sentence", () => {
    expect([...nameTerms("All fine, except Callum announced that he's off to Singapore.")]).toEqual(["callum", "singapor"]);
    expect([...nameTerms("It's sorted. Wendy finally stopped. Mostly fine")]).toEqual([]);
    expect([...nameTerms("We met Élodie and O'Brien at the Old Vic")]).toEqual(["élodie", "brien", "old", "vic"]);
  });

  const topic = turn("s3", 4, "All fine, except Callum announced the day before yesterday that he's off to Singapore.");
  const prompt = turn("s3", 5, "Your brother? For how long?", "Dan");
  const callBack = turn("s7", 16, "Not yet, but Callum says the chef job is going really well.");
  const filler = [turn("s1", 2, "The car park at the supermarket was chaos."), turn("s2", 9, "Work has been so busy this month."), turn("s5", 3, "I started a new book but keep falling asleep.")];
  const q = "What does Priya's brother do for a living in the new city?";

  it("lifts the later turn that says a name one of the best turns said, and only when on", () => {
    const hits = [prompt, topic, ...filler, callBack];
    const on = rerankEpisodes(q, hits, 3, { ...off, bridgeWeight: 0.5 }).map((e) => e.key);
    expect(on).toContain(callBack.key);
    expect(rerankEpisodes(q, hits, 3, { ...off, bridgeWeight: 0 }).map((e) => e.key)).not.toContain(callBack.key);
  });

  it("does not bridge on a name the question says, a speaker's name, or a name in many turns", () => {
    const hits = [prompt, topic, ...filler, callBack];
    // the question names Callum: the name already ranked what it could
    expect(rerankEpisodes("What does Callum do for a living in the new city?", [prompt, topic, ...filler, callBack], 3, { ...off, bridgeWeight: 0.5 }).map((e) => e.key)).not.toContain(callBack.key);
    // Callum is a speaker here
    const asSpeaker = [prompt, topic, ...filler, turn("s7", 15, "Hi there", "Callum"), callBack];
    expect(rerankEpisodes(q, asSpeaker, 3, { ...off, bridgeWeight: 0.5 }).map((e) => e.key)).not.toContain(callBack.key);
    // four turns say Callum: it links nothing
    const common = [...hits, turn("s8", 1, "I told Callum already"), turn("s9", 1, "Callum again, of course")];
    expect(rerankEpisodes(q, common, 3, { ...off, bridgeWeight: 0.5 }).map((e) => e.key)).not.toContain(callBack.key);
  });

  it("rejects bad values with named errors", () => {
    expect(() => rerankEpisodes("q", [], 1, { bridgeWeight: -0.1 })).toThrow(/bridgeWeight must be a finite number >= 0/);
    expect(() => rerankEpisodes("q", [], 1, { bridgeWeight: Number.POSITIVE_INFINITY })).toThrow(InvalidArgumentError);
    expect(() => rerankEpisodes("q", [], 1, { collapseRepeats: "yes" as unknown as boolean })).toThrow(/collapseRepeats must be a boolean/);
  });
});

describe("searchEpisodes with the defaults, on HNSWStore", () => {
  const session = (lines: Array<[string, string]>): BaseMessage[] => lines.map(([who, text]) => (who === "Priya" ? new HumanMessage(text) : new AIMessage(text)));
  const sessions: Array<{ date: string; lines: Array<[string, string]> }> = [
    { date: "2024-03-01", lines: [["Priya", "Big family news this week."], ["Dan", "Oh? Is everyone all right?"], ["Priya", "All fine, except Callum announced he's off to Singapore."], ["Dan", "Your brother? For how long?"], ["Priya", "At least two years, he starts in June."]] },
    ...["2024-03-08", "2024-03-15", "2024-03-22", "2024-03-29"].map((date) => ({ date, lines: [["Priya", "There's a new place opening near me, my brother would love it."], ["Dan", "Work has been so busy this month."], ["Priya", "Ha, rookie mistake."]] as Array<[string, string]> })),
    { date: "2024-05-10", lines: [["Dan", "Any news from Singapore?"], ["Priya", "Not yet, but Callum says the chef job is going really well."], ["Dan", "Glad to hear it."]] },
  ];

  it("returns each line once and brings the call-back into the top five", async () => {
    const store = new HNSWStore({ index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] }, embeddingCache: false });
    try {
      for (const [i, s] of sessions.entries()) {
        await recordEpisodes({ store, namespace: ["episodes", "p"], threadId: `s${i}`, now: `${s.date}T12:00:00Z`, speakers: { user: "Priya", assistant: "Dan" }, messages: session(s.lines) });
      }
      const query = "What does Priya's brother do for a living now?";
      const found = await searchEpisodes(store, ["episodes", "p"], { query, limit: 5 });
      const texts = found.map((e) => e.text);
      expect(new Set(texts).size).toBe(texts.length);
      expect(texts).toContain("Not yet, but Callum says the chef job is going really well.");
      const before = await searchEpisodes(store, ["episodes", "p"], { query, limit: 5, collapseRepeats: false, bridgeWeight: 0 });
      expect(new Set(before.map((e) => e.text)).size).toBeLessThan(before.length);
      expect(before.map((e) => e.text)).not.toContain("Not yet, but Callum says the chef job is going really well.");
    } finally {
      await store.close();
    }
  });
});
