/**
 * Tokenizer for keyword ranking: lower-cases, splits on anything that is not
 * a letter or digit, drops English stop words and applies a light stemmer.
 *
 * The stemmer is deliberately light (plural and -ing/-ed/-e endings only), so
 * that "hiking", "hikes" and "hiked" meet while "teacher" and "teach" stay
 * apart. Words in other scripts are lower-cased but not stemmed.
 */

/** English stop words, including question words (queries are questions). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are aren as at be because been before being below " +
    "between both but by can cannot could couldn did didn do does doesn doing don down during each else ever " +
    "few for from further get got had hadn has hasn have haven having he her here hers herself him himself his " +
    "how i if in into is isn it its itself just let ll me might more most much must mustn my myself no nor not " +
    "now of off on once only or other ought our ours ourselves out over own re s same shall shan she should " +
    "shouldn so some such t than that the their theirs them themselves then there these they this those " +
    "through to too under until up us ve very was wasn we were weren what when where which while who whom " +
    "whose why will with won would wouldn you your yours yourself yourselves d m o y also any anything " +
    "something tell know remember recall ever please " +
    // Light verbs: in questions ("how does she take her coffee", "what do
    // they use at work") they match unrelated memories ("takes the train").
    "take takes took taken use uses used using make makes made get gets got go goes went gone like likes"
  ).split(" "),
);

const VOWEL = /[aeiouy]/;

/**
 * Light English stemmer: strips plural -s/-es/-ies, -ing, -ed and a final -e,
 * and undoubles a final consonant left by -ing/-ed ("running" → "run").
 * Only ASCII words of 4+ letters are touched.
 */
export function stem(word: string): string {
  if (word.length < 4 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (/(ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  let cut = false;
  if (w.endsWith("ing") && w.length > 5 && VOWEL.test(w.slice(0, -3))) {
    w = w.slice(0, -3);
    cut = true;
  } else if (w.endsWith("ed") && w.length > 4 && VOWEL.test(w.slice(0, -2))) {
    w = w.slice(0, -2);
    cut = true;
  }
  if (cut && /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  if (w.endsWith("y") && w.length > 3 && !VOWEL.test(w[w.length - 2]!)) w = w.slice(0, -1) + "i";
  return w;
}

/** Options for {@link tokenize}. */
export interface TokenizeOptions {
  /**
   * Apply the light stemmer.
   * @default true
   */
  stemming?: boolean;
  /**
   * Drop English stop words.
   * @default true
   */
  stopWords?: boolean;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Splits text into index terms (see the module comment). */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const stemming = options.stemming ?? true;
  const dropStop = options.stopWords ?? true;
  const out: string[] = [];
  for (const raw of text.normalize("NFKC").toLowerCase().match(WORD) ?? []) {
    if (dropStop && STOP_WORDS.has(raw)) continue;
    if (raw.length === 1 && !/\p{N}/u.test(raw) && /^[a-z]$/.test(raw)) continue;
    out.push(stemming ? stem(raw) : raw);
  }
  return out;
}
