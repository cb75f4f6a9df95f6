/**
 * The way to the simulated Daraja inside this process: a DarajaTransport (what @mteja/daraja's
 * client sends its requests through) that hands each request to the simulation instead of the
 * network. Bodies are copied as JSON both ways, so both sides see exactly what the wire would carry.
 */
import type { DarajaRequest, DarajaTransport } from "@mteja/daraja";
import { darajaError, invalidAccessToken, invalidField, type DarajaAnswer, type JsonBody } from "./answers.js";
import { OAUTH_PATH } from "./apis.js";
import type { DarajaSimulation } from "./simulation.js";

const header = (request: DarajaRequest, name: string) =>
  Object.entries(request.headers).find(([key]) => key.toLowerCase() === name)?.[1];

const overTheWire = (value: unknown): unknown =>
  value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);

async function answer(simulation: DarajaSimulation, request: DarajaRequest): Promise<DarajaAnswer> {
  const path = request.path.startsWith("/") ? request.path : `/${request.path}`;
  if (path === OAUTH_PATH && request.method === "GET") {
    return simulation.tokens.issue(header(request, "authorization"), request.searchParams?.["grant_type"]);
  }
  const endpoint = simulation.endpoint(path);
  if (!endpoint) return darajaError(404, "404.001.01", "Resource not found");
  if (request.method !== "POST") return darajaError(405, "405.001", "Method Not Allowed");
  if (!simulation.tokens.accepts(header(request, "authorization"))) return invalidAccessToken();
  const refused = endpoint.refusal();
  if (refused) return refused;
  const body = overTheWire(request.json);
  if (typeof body !== "object" || body === null || Array.isArray(body)) return invalidField(endpoint.firstField);
  return endpoint.answer(body as JsonBody);
}

export function inProcessTransport(simulation: DarajaSimulation): DarajaTransport {
  return {
    async send(request) {
      const { status, body } = await answer(simulation, request);
      return { status, body: overTheWire(body) };
    },
  };
}
