import { z } from "zod";
import { DEFAULT_PROFILE_PROMPT } from "./prompts.js";
import { parseJsonFromReply } from "./parse.js";
import type { PromptPair } from "./model-call.js";

/** A user profile: a flat JSON object of short fields. */
export type Profile = Record<string, unknown>;

/** Zod schema for structured output in profile mode (open object of fields). */
export const ProfileSchema = z.object({
  profile: z.record(z.string(), z.unknown()).describe("the complete updated profile; null removes a field"),
});

/** The profile prompt: current profile plus the new part of the conversation. */
export function profilePrompt(instructions: string | undefined, current: Profile, transcript: string): PromptPair {
  return {
    system: instructions ?? DEFAULT_PROFILE_PROMPT,
    user: `CURRENT profile:\n${JSON.stringify(current, null, 2)}\n\nNEW conversation:\n${transcript}`,
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Reads a profile from structured output or a parsed reply (`{profile: {...}}` or the object itself). */
export function readProfile(value: unknown): Profile | undefined {
  if (!isPlainObject(value)) return undefined;
  const inner = value.profile;
  return isPlainObject(inner) ? inner : value;
}

/** Parses a profile object from a plain-text reply. */
export function parseProfileReply(reply: string, maxChars?: number): Profile | undefined {
  return readProfile(parseJsonFromReply(reply, "object", maxChars));
}

/**
 * Merges the model's profile over the current one: fields it returns win (the
 * most recent value), fields it leaves out are kept, and `null` removes one.
 */
export function mergeProfile(current: Profile, update: Profile): Profile {
  const out: Profile = { ...current };
  for (const [k, v] of Object.entries(update)) {
    if (v === null || v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

function renderValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(renderValue).join(", ");
  if (isPlainObject(v)) return Object.entries(v).map(([k, x]) => `${k}: ${renderValue(x)}`).join("; ");
  return String(v);
}

/** A readable rendering of the profile, stored as `text` so that recall shows it. */
export function renderProfile(profile: Profile): string {
  return Object.entries(profile)
    .map(([k, v]) => `${k.replace(/_/g, " ")}: ${renderValue(v)}`)
    .join("\n");
}
