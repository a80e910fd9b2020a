/** resolveRelativeDates: relative time expressions read against the day they were said. */
import { describe, expect, it } from "vitest";
import { resolveRelativeDates } from "../../src/episodes/dates.js";

describe("resolveRelativeDates", () => {
  // 2024-03-06 is a Wednesday.
  const on = (text: string) => resolveRelativeDates(text, "2024-03-06").map((r) => `${r.phrase}=${r.date}`);

  it("resolves days, weekdays, counts ago, months and years", () => {
    expect(on("We adopted her yesterday.")).toEqual(["yesterday=2024-03-05"]);
    expect(on("Saw it the day before yesterday")).toEqual(["the day before yesterday=2024-03-04"]);
    expect(on("I signed last Friday, and we met on Monday")).toEqual(["last Friday=2024-03-01", "on Monday=2024-03-04"]);
    expect(on("last Wednesday")).toEqual(["last Wednesday=2024-02-28"]);
    expect(on("about ten days ago")).toEqual(["about ten days ago=2024-02-25"]);
    expect(on("Two weeks ago we moved; 3 days ago it rained")).toEqual(["Two weeks ago=2024-02-21", "3 days ago=2024-03-03"]);
    expect(on("a couple of months ago")).toEqual(["a couple of months ago=2024-01"]);
    expect(on("last month and last year")).toEqual(["last month=2024-02", "last year=2023"]);
    expect(on("last weekend")).toEqual(["last weekend=2024-03-02"]);
  });

  it("finds nothing in a turn without one, or with a bad date", () => {
    expect(on("That sounds lovely, send photos")).toEqual([]);
    expect(resolveRelativeDates("yesterday", "not a date")).toEqual([]);
  });
});

describe("recorded turns carry their resolved dates", () => {
  it("recordEpisodes stores `when` and formatEpisode shows it", async () => {
    const { InMemoryStore } = await import("@langchain/langgraph-checkpoint");
    const { recordEpisodes } = await import("../../src/episodes/record.js");
    const { searchEpisodes } = await import("../../src/episodes/search.js");
    const { formatEpisode } = await import("../../src/episodes/format.js");
    const store = new InMemoryStore();
    await recordEpisodes({ store, namespace: ["e", "u"], threadId: "t", now: "2024-03-06T10:00:00Z", messages: [{ role: "user", content: "We adopted a whippet last Friday." }, { role: "assistant", content: "Lovely!" }] });
    const [hit] = await searchEpisodes(store, ["e", "u"], { query: "whippet", limit: 1, rerank: false });
    expect(hit!.when).toEqual([{ phrase: "last Friday", date: "2024-03-01" }]);
    expect(formatEpisode(hit!)).toBe("- [2024-03-06, thread t] user: We adopted a whippet last Friday. (last Friday = 2024-03-01)");
  });
});
