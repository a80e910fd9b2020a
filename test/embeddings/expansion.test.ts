import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEYWORD_EXPANSION, type TermExpansion } from "../../src/embeddings/expansion.js";
import { WordNet, wordNetExpansion } from "../../bench/lib/expansion-wordnet.js";
import { wordVectorExpansion } from "../../bench/lib/expansion-vectors.js";
import { KeywordIndex } from "../../src/embeddings/keyword-index.js";

/** A keyword index built while `expansion` is the current one. */
function indexWith(expansion: TermExpansion | undefined, docs: Record<string, string>): KeywordIndex {
  KEYWORD_EXPANSION.current = expansion;
  try {
    const index = new KeywordIndex();
    for (const [id, text] of Object.entries(docs)) index.add(id, [text]);
    return index;
  } finally {
    KEYWORD_EXPANSION.current = undefined;
  }
}

describe("KeywordIndex with term expansion", () => {
  const docs = { pet: "has a dog named Rex", job: "works as a nurse", diet: "allergic to prawns" };

  it("finds a document through a word it only stands for, ranked below a written match", () => {
    const dogIsAnimal: TermExpansion = { document: (w) => new Map(w === "dog" ? [["animal", 0.3]] : []) };
    expect(indexWith(undefined, docs).search("does she have animals?", { limit: 5 })).toEqual([]);
    const index = indexWith(dogIsAnimal, { ...docs, zoo: "visited the animal shelter" });
    const hits = index.search("does she have animals?", { limit: 5 });
    expect(hits.map((h) => h.id)).toEqual(["zoo", "pet"]);
    expect(hits[1]!.score).toBeLessThan(hits[0]!.score);
  });

  it("expands a query word only into words the searched documents contain", () => {
    const seen: string[][] = [];
    const seafood: TermExpansion = {
      query: (w, vocabulary) => {
        seen.push([...vocabulary]);
        return new Map(w === "seafood" ? [["prawns", 0.5], ["lobster", 0.5]] : []);
      },
    };
    const index = indexWith(seafood, docs);
    expect(index.search("which seafood must she avoid?", { limit: 5 }).map((h) => h.id)).toEqual(["diet"]);
    expect(seen[0]).toEqual(expect.arrayContaining(["dog", "rex", "nurse", "allergic", "prawns"]));
  });

  it("in the gaps only: a written query word matches only where it is written", () => {
    const toAnimal: TermExpansion = { gapsOnly: true, document: (w) => new Map(w === "dog" || w === "cat" ? [["animal", 0.3], ["pet", 0.3]] : []) };
    const index = indexWith(toAnimal, { dog: "has a dog named Rex", cat: "feeds the neighbour's cat", pet: "pet insurance renewed in May" });
    expect(index.search("which pet insurance?", { limit: 5 }).map((h) => h.id)).toEqual(["pet"]);
    expect(index.search("does she have animals?", { limit: 5 }).map((h) => h.id).sort()).toEqual(["cat", "dog"]);
    index.remove("pet");
    expect(index.search("which pet?", { limit: 5 }).map((h) => h.id).sort()).toEqual(["cat", "dog"]);
  });

  it("written matches first: documents found only through expansions follow", () => {
    const toAnimal: TermExpansion = { writtenFirst: true, document: (w) => new Map(w === "dog" ? [["animal", 0.9]] : []) };
    const index = indexWith(toAnimal, { dog: "dog dog dog", shelter: "volunteers at an animal shelter and walks her neighbour's collie and retriever" });
    expect(index.search("animal", { limit: 5 }).map((h) => h.id)).toEqual(["shelter", "dog"]);
  });

  it("word vectors match the nearest vocabulary words above the threshold", () => {
    const unit = (...x: number[]) => Float32Array.from(x.map((v) => v / Math.hypot(...x)));
    const vectors = new Map([["animals", unit(1, 0.1)], ["dog", unit(1, 0.3)], ["nurse", unit(0, 1)], ["prawns", unit(0.3, 1)]]);
    const expansion = wordVectorExpansion((w) => vectors.get(w), { threshold: 0.8, perWord: 3, weight: 0.5 });
    const m = expansion.query!("animals", ["dog", "nurse", "prawns"]);
    expect([...m.keys()]).toEqual(["dog"]);
    expect(m.get("dog")).toBeCloseTo(0.5 * (1 * 1 + 0.1 * 0.3) / Math.hypot(1, 0.1) / Math.hypot(1, 0.3), 5);
  });
});

describe("WordNet reader", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "wordnet-"));
    // A tiny database in WordNet's own format: data lines are found by their byte offset.
    const synsets = [
      { id: "animal", words: ["animal", "beast"], hyper: [] as string[] },
      { id: "domestic", words: ["domestic_animal"], hyper: ["animal"] },
      { id: "dog", words: ["dog", "domestic_dog"], hyper: ["domestic"] },
    ];
    const offsets = new Map<string, number>();
    let data = "  1 This software and database is being provided\n";
    const lines: string[] = [];
    // Offsets are 8 digits, so each line's length is known before the offsets are.
    for (const s of synsets) {
      offsets.set(s.id, data.length + lines.join("").length);
      const words = s.words.map((w) => `${w} 0`).join(" ");
      const ptrs = s.hyper.map((h) => `@ ${h.padEnd(8, "_")} n 0000`).join(" ");
      lines.push(`${"0".repeat(8)} 05 n ${s.words.length.toString(16).padStart(2, "0")} ${words} ${String(s.hyper.length).padStart(3, "0")} ${ptrs} | gloss\n`);
    }
    const off = (id: string) => String(offsets.get(id)).padStart(8, "0");
    data += synsets
      .map((s, i) => lines[i]!.replace(/^0{8}/, off(s.id)).replace(/@ (\w+?)_* n/g, (_m, h: string) => `@ ${off(h)} n`))
      .join("");
    const index = [
      "  1 This software and database is being provided",
      `animal n 1 1 @ 1 0 ${off("animal")}`,
      `beast n 1 1 @ 1 0 ${off("animal")}`,
      `dog n 1 1 @ 1 0 ${off("dog")}`,
      `domestic_animal n 1 1 @ 1 0 ${off("domestic")}`,
    ].join("\n");
    await writeFile(path.join(dir, "data.noun"), data, "latin1");
    await writeFile(path.join(dir, "index.noun"), index + "\n", "latin1");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads base forms, synonyms and hypernyms by depth", () => {
    const wn = new WordNet(dir);
    expect(wn.lemmas("dogs", "noun")).toEqual(["dog"]);
    expect(wn.lemmas("cats", "noun")).toEqual([]);
    expect([...wn.related("dogs", "noun", { senses: 1, depth: 2 })]).toEqual([
      ["domestic dog", 0],
      ["domestic animal", 1],
      ["animal", 2],
      ["beast", 2],
    ]);
    expect([...wn.related("dog", "noun", { senses: 1, depth: 1 }).keys()]).not.toContain("animal");
    const expansion = wordNetExpansion(wn, { senses: 1, depth: 2, weight: 0.4, decay: 0.5, synonymWeight: 0.3, querySynonymWeight: 0, pos: ["noun"] });
    // Heads of multi-word lemmas; a hypernym at depth d weighs weight * decay^(d-1).
    expect(Object.fromEntries(expansion.document!("dog"))).toEqual({ animal: 0.4, beast: 0.2 });
    wn.close();
  });
});
