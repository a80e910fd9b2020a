/** Synthetic memories for the per-turn benchmarks: `perUser` short facts about one user, distinct per user. */
const SUBJECTS = ["cooking", "running", "jazz", "gardening", "chess", "travel", "photography", "cycling", "baking", "hiking"];
const VERBS = ["enjoys", "is learning", "dislikes", "teaches", "reads about", "spends weekends on", "wants to try", "gave up"];
const DETAILS = ["with friends", "alone", "since 2019", "in the mornings", "on holidays", "every week", "with the kids", "at a club", "online", "in winter"];

export { DETAILS, SUBJECTS, VERBS };

export const userFacts = (user: number, perUser: number): string[] =>
  Array.from({ length: perUser }, (_, i) => {
    const s = SUBJECTS[(i + user) % SUBJECTS.length];
    const v = VERBS[Math.floor(i / SUBJECTS.length) % VERBS.length];
    const d = DETAILS[(i * 7 + user) % DETAILS.length];
    return `User ${v} ${s} ${d} (note ${user}-${i}).`;
  });
