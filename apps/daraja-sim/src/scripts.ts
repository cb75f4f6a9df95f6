/**
 * Scripting a simulator from the process that runs it (tests): what it received, and the next answer
 * of an operation replaced by another (a gateway's HTML page, a 5xx, an unparseable body, Daraja's
 * refusal), given late (a time-out), or preceded by whatever the script does first (a callback
 * delivered before the answer). Without a script the simulator answers as it always does: a script
 * replaces an answer after the simulator has acted on the request, as a gateway in front of Daraja would.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { SIM_OPERATIONS, type SimOperation } from "@mteja/simulated-daraja";

export type { SimOperation };

export interface SimAnswer {
  status?: number;
  /** A string is sent as it is; anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ReceivedRequest {
  operation: SimOperation;
  /** The JSON body (the query string for oauth); undefined when it does not parse. */
  body: any;
  headers: Record<string, string | string[] | undefined>;
  /** The status the simulator answered (the script's, when one answered). */
  status: number;
  scripted: boolean;
}

/**
 * Runs before the simulator's own answer goes out; may wait, deliver callbacks, and return the answer
 * to send instead (nothing: the simulator's). `answer` is the simulator's own, its JSON parsed.
 */
export type SimScript = (request: ReceivedRequest, answer: SimAnswer) => Promise<SimAnswer | void> | SimAnswer | void;

export interface SimScripts {
  /** Every request to a Daraja path, in arrival order. */
  readonly received: ReceivedRequest[];
  /** Queues a one-shot script for the next request to `operation` the simulator accepts. */
  next(operation: SimOperation, script: SimScript): void;
  /** A script consulted for every accepted request to `operation` (after the one-shot ones): answering nothing leaves it to the simulator. */
  always(operation: SimOperation, script: SimScript): void;
}

/** The simulator's side: the scripts that apply to a request, one-shot first. */
export interface SimScriptBook extends SimScripts {
  take(operation: SimOperation): SimScript[];
}

export function createSimScripts(): SimScriptBook {
  const queued = new Map<SimOperation, SimScript[]>();
  const standing = new Map<SimOperation, SimScript[]>();
  return {
    received: [],
    next: (operation, script) => void queued.set(operation, [...(queued.get(operation) ?? []), script]),
    always: (operation, script) => void standing.set(operation, [...(standing.get(operation) ?? []), script]),
    take(operation) {
      const next = queued.get(operation)?.shift();
      return [...(next ? [next] : []), ...(standing.get(operation) ?? [])];
    },
  };
}

function parsed(payload: unknown): unknown {
  if (typeof payload !== "string") return payload;
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return payload;
  }
}

function requestBody(request: FastifyRequest, operation: SimOperation): unknown {
  if (operation === "oauth") return request.query;
  const body = parsed(request.body);
  return typeof body === "object" && body !== null ? body : undefined;
}

/**
 * Daraja's refusals of the request itself (400: a field; 404: the access token) are never scripted
 * away: the script waits for a request the simulator accepts.
 */
const refused = (status: number) => status === 400 || status === 404;

async function scripted(scripts: SimScriptBook, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const operation = SIM_OPERATIONS[request.url.split("?")[0] ?? ""];
  if (!operation) return payload;
  const received: ReceivedRequest = { operation, body: requestBody(request, operation), headers: request.headers, status: reply.statusCode, scripted: false };
  scripts.received.push(received);
  if (refused(reply.statusCode)) return payload;
  const own: SimAnswer = { status: reply.statusCode, body: parsed(payload), headers: { "content-type": String(reply.getHeader("content-type") ?? "application/json") } };
  for (const script of scripts.take(operation)) {
    const answer = await script(received, own);
    if (!answer) continue;
    received.status = answer.status ?? 200;
    received.scripted = true;
    const body = answer.body ?? "";
    reply.code(received.status);
    reply.header("content-type", answer.headers?.["content-type"] ?? (typeof body === "string" ? "text/plain" : "application/json; charset=utf-8"));
    for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value);
    return typeof body === "string" ? body : JSON.stringify(body);
  }
  return payload;
}

export function registerSimScripts(app: FastifyInstance, scripts: SimScriptBook): void {
  app.addHook("onSend", async (request, reply, payload) => scripted(scripts, request, reply, payload));
}
