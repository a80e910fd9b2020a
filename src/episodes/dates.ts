/**
 * Relative time expressions in a turn ("yesterday", "last Tuesday", "two
 * weeks ago") resolved against the day the turn was said, so that recall can
 * show what day they meant: "last Friday" said on 2024-03-06 is 2024-03-01.
 */

/** One resolved expression: the words as said and the day (or month, `YYYY-MM`) they point to. */
export interface ResolvedDate {
  phrase: string;
  date: string;
}

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, "a couple of": 2, "a few": 3 };
const COUNT = `(\\d{1,2}|a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`;
const PATTERN = new RegExp(
  [
    "the day before yesterday",
    "yesterday",
    "last night",
    "today|this morning|this afternoon|this evening|tonight",
    `(?:about |around )?${COUNT} (day|week|month|year)s? ago`,
    `last (${WEEKDAYS.join("|")}|weekend|week|month|year)`,
    `on (${WEEKDAYS.join("|")})`,
  ].join("|"),
  "gi",
);

const iso = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (d: Date, n: number) => new Date(d.getTime() + n * 86_400_000);

/** The most recent `weekday` strictly before `d`. */
function lastWeekday(d: Date, weekday: number): Date {
  const back = ((d.getUTCDay() - weekday + 7) % 7) || 7;
  return addDays(d, -back);
}

function resolveOne(phrase: string, day: Date): string | undefined {
  const p = phrase.toLowerCase().replace(/^(about|around) /, "");
  if (p === "the day before yesterday") return iso(addDays(day, -2));
  if (p === "yesterday" || p === "last night") return iso(addDays(day, -1));
  if (/^(today|this |tonight)/.test(p)) return iso(day);
  const ago = p.match(new RegExp(`^${COUNT} (day|week|month|year)s? ago$`));
  if (ago) {
    const n = NUMBERS[ago[1]!] ?? Number(ago[1]);
    const unit = ago[2]!;
    if (unit === "day") return iso(addDays(day, -n));
    if (unit === "week") return iso(addDays(day, -7 * n));
    const d = new Date(day);
    if (unit === "month") d.setUTCMonth(d.getUTCMonth() - n, 1);
    else d.setUTCFullYear(d.getUTCFullYear() - n, d.getUTCMonth(), 1);
    return unit === "month" ? iso(d).slice(0, 7) : String(d.getUTCFullYear());
  }
  const last = p.match(/^(?:last|on) (\w+)$/);
  if (last) {
    const w = WEEKDAYS.indexOf(last[1]!);
    if (w >= 0) return iso(lastWeekday(day, w));
    if (last[1] === "week") return iso(addDays(day, -7));
    if (last[1] === "weekend") return iso(lastWeekday(day, 6));
    const d = new Date(day);
    if (last[1] === "month") return (d.setUTCMonth(d.getUTCMonth() - 1, 1), iso(d).slice(0, 7));
    if (last[1] === "year") return String(d.getUTCFullYear() - 1);
  }
  return undefined;
}

/**
 * The relative time expressions of `text` with the day each points to, given
 * the day `date` (`YYYY-MM-DD`) the text was said; `[]` when there are none
 * or the date is not valid. "last week" is read as seven days before,
 * "last weekend" as the Saturday before, "last month"/"two months ago" as
 * that month (`YYYY-MM`), "last year" as that year.
 */
export function resolveRelativeDates(text: string, date: string): ResolvedDate[] {
  const day = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(day.getTime())) return [];
  const out: ResolvedDate[] = [];
  for (const m of text.matchAll(PATTERN)) {
    const resolved = resolveOne(m[0], day);
    if (resolved && !out.some((r) => r.phrase.toLowerCase() === m[0].toLowerCase())) out.push({ phrase: m[0], date: resolved });
  }
  return out;
}
