import type { BaseStore } from "@langchain/langgraph-checkpoint";
import type { FastifyInstance, FastifyReply } from "fastify";
import { InvalidArgumentError, ProcedureChangeRejectedError } from "../../errors.js";
import { runAsActor } from "../../privacy/actor.js";
import { lineDiff } from "../../procedures/diff.js";
import { procedureHistory, restoreProcedure } from "../../procedures/history.js";
import { listProcedureAgents } from "../../procedures/list.js";
import { buildLearnedSection } from "../../procedures/section.js";
import { applyReview, dismissReview, listReviews } from "../../procedures/review.js";
import { getProcedure } from "../../procedures/store.js";
import type { ProcedureScope } from "../../procedures/types.js";

type SendError = (reply: FastifyReply, err: unknown) => FastifyReply;

interface ScopeQuery {
  agent?: string;
  user?: string;
  name?: string;
}

function scopeOf(agent: unknown, user: unknown, name: unknown): ProcedureScope {
  if (typeof agent !== "string" || agent === "") throw new InvalidArgumentError("agent must be a non-empty string");
  if (user !== undefined && user !== null && (typeof user !== "string" || user === "")) throw new InvalidArgumentError("user must be a non-empty string when given");
  if (name !== undefined && name !== null && typeof name !== "string") throw new InvalidArgumentError("name must be a string when given");
  return { agentId: agent, ...(typeof user === "string" ? { userId: user } : {}), ...(typeof name === "string" && name !== "" ? { name } : {}) };
}

function versionOf(raw: unknown, what: string): number {
  const n = typeof raw === "string" ? Number(raw) : raw;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`${what} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * The inspector's JSON routes for procedural memory, registered on the
 * inspector plugin's instance after its auth hook, like its other
 * `/inspector/api/` routes (services and admins only, never end users):
 * - `GET  /inspector/api/procedures`: agents with learned instructions;
 * - `GET  /inspector/api/procedures/history?agent=&user=&name=`: every version, newest first;
 * - `GET  /inspector/api/procedures/diff?agent=&user=&from=&to=`: the line diff of two versions (`to` defaults to the current one);
 * - `GET  /inspector/api/procedures/section?agent=&user=&name=&maxTokens=`: the section a model call gets (agent-wide, then the user's layer) and how many lines of each were left out at that budget (default 1000 tokens);
 * - `POST /inspector/api/procedures/restore` `{ agent, user?, name?, version, reason? }`: put a version back, as a new one;
 * - `GET  /inspector/api/procedures/reviews?agent=&user=`: proposals kept for a person (`listReviews`);
 * - `POST /inspector/api/procedures/reviews/apply` `{ agent, user?, feedback, reason?, force? }`: apply one (`applyReview`);
 * - `POST /inspector/api/procedures/reviews/dismiss` `{ agent, user?, feedback, reason? }`: dismiss one (`dismissReview`).
 */
const service = { access: "service" } as const;

export function registerProcedureRoutes(app: FastifyInstance, store: BaseStore, send: SendError): void {
  // A refused change is a conflict with the rules, not a server fault.
  const sendError: SendError = (reply, err) =>
    err instanceof ProcedureChangeRejectedError ? reply.code(409).send({ error: err.name, reason: err.reason, message: err.message }) : send(reply, err);
  app.get("/inspector/api/procedures", { config: service }, async (_req, reply) => {
    try {
      return { agents: await listProcedureAgents(store) };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get<{ Querystring: ScopeQuery }>("/inspector/api/procedures/history", { config: service }, async (req, reply) => {
    try {
      const scope = scopeOf(req.query.agent, req.query.user, req.query.name);
      return { scope, history: await procedureHistory(store, scope) };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get<{ Querystring: ScopeQuery & { from?: string; to?: string } }>("/inspector/api/procedures/diff", { config: service }, async (req, reply) => {
    try {
      const scope = scopeOf(req.query.agent, req.query.user, req.query.name);
      const from = versionOf(req.query.from, "from");
      const history = await procedureHistory(store, scope);
      const to = req.query.to === undefined ? history[0]?.version : versionOf(req.query.to, "to");
      const a = history.find((r) => r.version === from);
      const b = history.find((r) => r.version === to);
      if (!a || !b) throw new InvalidArgumentError(`no version ${!a ? from : to} of these instructions (versions: ${history.map((r) => r.version).join(", ") || "none"})`);
      return { from: a.version, to: b.version, ...lineDiff(a.instructions, b.instructions) };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get<{ Querystring: ScopeQuery & { maxTokens?: string } }>("/inspector/api/procedures/section", { config: service }, async (req, reply) => {
    try {
      const scope = scopeOf(req.query.agent, req.query.user, req.query.name);
      const maxTokens = req.query.maxTokens === undefined ? 1000 : versionOf(req.query.maxTokens, "maxTokens");
      const name = scope.name === undefined ? {} : { name: scope.name };
      const agent = await getProcedure(store, { agentId: scope.agentId, ...name });
      const user = scope.userId === undefined ? undefined : await getProcedure(store, scope);
      return { maxTokens, ...buildLearnedSection(agent?.instructions, user?.instructions, maxTokens) };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.post<{ Body: { agent?: unknown; user?: unknown; name?: unknown; version?: unknown; reason?: unknown } }>("/inspector/api/procedures/restore", { config: service }, async (req, reply) => {
    try {
      const body = req.body ?? {};
      const scope = scopeOf(body.agent, body.user, body.name);
      const version = versionOf(body.version, "version");
      if (body.reason !== undefined && typeof body.reason !== "string") throw new InvalidArgumentError("reason must be a string when given");
      const change = await runAsActor({ source: "inspector" }, () => restoreProcedure(store, scope, version, typeof body.reason === "string" && body.reason ? { reason: body.reason } : {}));
      return { record: change.record, changed: change.changed, diff: change.diff };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get<{ Querystring: ScopeQuery }>("/inspector/api/procedures/reviews", { config: service }, async (req, reply) => {
    try {
      const scope = scopeOf(req.query.agent, req.query.user, undefined);
      return { reviews: await listReviews(store, scope) };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  type ReviewBody = { agent?: unknown; user?: unknown; feedback?: unknown; reason?: unknown; force?: unknown };
  const reviewTarget = (body: ReviewBody) => {
    const scope = scopeOf(body.agent, body.user, undefined);
    if (typeof body.feedback !== "string" || body.feedback === "") throw new InvalidArgumentError("feedback must be a feedback id");
    if (body.reason !== undefined && typeof body.reason !== "string") throw new InvalidArgumentError("reason must be a string when given");
    return { target: { ...scope, feedbackId: body.feedback }, reason: typeof body.reason === "string" && body.reason.trim() ? { reason: body.reason } : {} };
  };

  app.post<{ Body: ReviewBody }>("/inspector/api/procedures/reviews/apply", { config: service }, async (req, reply) => {
    try {
      const body = req.body ?? {};
      const { target, reason } = reviewTarget(body);
      if (body.force !== undefined && typeof body.force !== "boolean") throw new InvalidArgumentError("force must be a boolean when given");
      const change = await runAsActor({ source: "inspector" }, () => applyReview(store, target, { ...reason, ...(body.force === true ? { force: true } : {}) }));
      return { record: change.record, changed: change.changed, diff: change.diff, feedbackIds: change.feedbackIds };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.post<{ Body: ReviewBody }>("/inspector/api/procedures/reviews/dismiss", { config: service }, async (req, reply) => {
    try {
      const { target, reason } = reviewTarget(req.body ?? {});
      return await runAsActor({ source: "inspector" }, () => dismissReview(store, target, reason));
    } catch (err) {
      return sendError(reply, err);
    }
  });
}
