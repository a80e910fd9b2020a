/**
 * Prompts used by {@link MemoryExtractor}. They are exported so that callers
 * can read, extend or replace them (`instructions` option).
 */

/** The default instructions for fact extraction. */
export const DEFAULT_EXTRACTION_PROMPT = `You extract long-term memories about the user from a conversation.

Write down only facts that will still be useful in a later, unrelated conversation:
- preferences and dislikes (food, tools, style, tone of replies)
- standing instructions ("always answer in French", "call me Sam")
- biography: name, where they live, job, plans, important dates
- relationships: family, friends, colleagues, pets, and their names

Rules:
- Each fact is one short, self-contained sentence in the third person, e.g. "User lives in Lisbon."
- Skip small talk, questions, one-off tasks and anything only true for this conversation.
- Skip what the assistant said unless the user confirmed it.
- NEVER record secrets: passwords, PINs, card numbers, bank details, API keys, tokens, one-time codes, government id numbers.
- If there is nothing worth keeping, return an empty list.`;

/** Appended to the instructions when the model answers in plain text (no structured output). */
export const FACTS_FORMAT_PROMPT = `Answer with a JSON array of strings and nothing else, for example:
["User lives in Lisbon.", "User prefers short answers."]
Answer [] when there is nothing to keep.`;

/** Instructions for the consolidation call: one call decides what to do with a batch of new facts. */
export const CONSOLIDATION_PROMPT = `You maintain a user's long-term memory. You are given NEW facts just extracted from a conversation and EXISTING memories that are close to them.
For every new fact decide one action:
- ADD: it is new information. Give "text" (you may reword it).
- UPDATE: it refines or contradicts an existing memory (e.g. "moved to Lisbon" replaces "lives in Berlin"). Give the existing "id" and the merged, up-to-date "text". The newer information wins.
- DELETE: an existing memory is now false or the user asked to forget it, and nothing should replace it. Give the existing "id".
- NONE: it is already known (a duplicate or a paraphrase). Give the existing "id" if one matches.
Answer with a JSON array, one object per decision, and nothing else:
[{"fact": "f1", "action": "UPDATE", "id": "m2", "text": "User lives in Lisbon."}, {"fact": "f2", "action": "ADD", "text": "..."}, {"fact": "f3", "action": "NONE", "id": "m1"}]`;

/** The default instructions for profile mode. */
export const DEFAULT_PROFILE_PROMPT = `You maintain a profile of the user as one JSON object, built from conversations.
Use short snake_case keys such as name, location, occupation, preferred_language, preferences, family, pets, standing_instructions.
Merge the new conversation into the CURRENT profile:
- keep every field that is still true;
- when the conversation contradicts a field, the newer information wins;
- set a field to null to remove it when the user says it no longer holds;
- values are strings, numbers, booleans or lists of strings.
NEVER record secrets: passwords, PINs, card numbers, bank details, API keys, tokens, government id numbers.`;

/** Appended to the profile instructions when the model answers in plain text. */
export const PROFILE_FORMAT_PROMPT = `Answer with the complete updated profile as one JSON object and nothing else, for example:
{"name": "Ann", "location": "Lisbon", "preferences": ["short answers"]}`;
