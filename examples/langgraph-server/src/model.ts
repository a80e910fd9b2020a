/**
 * The chat model of both graphs.
 *
 * Without OPENAI_API_KEY: the chatbot example's OFFLINE SCRIPTED STAND-IN, a
 * rule-based fake that is NOT a language model (it replies from templates,
 * and answers the extractor's prompts by rule). Everything else is real:
 * what it extracts is written to the real store, what it is shown was
 * recalled by the real embedder. With OPENAI_API_KEY set, a real model
 * (`OPENAI_MODEL`, default gpt-4o-mini) replaces it.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOpenAI } from "@langchain/openai";
import { OfflineDemoModel } from "../../chatbot/offline-model.js";

export function chatModel(): BaseChatModel {
  if (process.env.OPENAI_API_KEY) return new ChatOpenAI({ model: process.env.OPENAI_MODEL ?? "gpt-4o-mini" });
  return new OfflineDemoModel();
}
