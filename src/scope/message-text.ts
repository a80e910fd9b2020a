import type { BaseMessage } from "@langchain/core/messages";

/** Joins the text parts of a message content (a string or an array of parts). */
export function contentText(content: unknown, separator = "\n"): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === "string") return part;
        if (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string") {
          return (part as { text: string }).text;
        }
        return "";
      })
      .filter((s) => s.length > 0)
      .join(separator);
  }
  return "";
}

/** The plain text of a message's content (text parts joined by spaces), for queries. */
export function messageText(message: BaseMessage): string {
  return contentText(message.content, " ");
}
