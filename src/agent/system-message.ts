import { SystemMessage } from "@langchain/core/messages";

/**
 * The agent's system message with the memory block added, as ONE system
 * message (createAgent sends exactly one):
 * - no system prompt: the block alone;
 * - a string prompt: the prompt, a blank line, then the block;
 * - content blocks (e.g. with `cache_control`): yours untouched, then one
 *   more text block, beginning with the memory header, so a cached prefix
 *   stays cached.
 */
export function withMemoryBlock(system: SystemMessage | undefined, block: string): SystemMessage {
  if (!system || (typeof system.content === "string" && system.content === "") || (Array.isArray(system.content) && system.content.length === 0)) {
    return new SystemMessage(block);
  }
  const content = typeof system.content === "string" ? `${system.content}\n\n${block}` : [...system.content, { type: "text" as const, text: block }];
  return new SystemMessage({
    content,
    additional_kwargs: system.additional_kwargs,
    response_metadata: system.response_metadata,
    name: system.name,
    id: system.id,
  });
}
