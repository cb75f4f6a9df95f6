/**
 * The way to the simulated Daraja inside this process: a DarajaTransport (what @mteja/daraja's
 * client sends its requests through) that hands each request to the simulation instead of the
 * network. Bodies are copied as JSON both ways, so both sides see exactly what the wire would carry.
 */
import type { DarajaRequest, DarajaTransport } from "@mteja/daraja";
import { darajaError, invalidAccessToken, invalidField, type DarajaAnswer, type JsonBody } from "./answers.js";
import type { DarajaSimulation } from "./simulation.js";

interface Operation {
  /** The field Daraja's gateway names when it cannot read the body at all. */
  firstField: string;
  /** What the gateway refuses before reading the body. */
  refusal?(simulation: DarajaSimulation): DarajaAnswer | null;
  answer(simulation: DarajaSimulation, body: JsonBody): Promise<DarajaAnswer>;
}

const OPERATIONS: Readonly<Record<string, Operation>> = {
  "/mpesa/stkpush/v1/processrequest": { firstField: "BusinessShortCode", answer: (sim, body) => sim.stkPush(body) },
  "/mpesa/stkpushquery/v1/query": { firstField: "BusinessShortCode", answer: (sim, body) => sim.stkQuery(body) },
  "/mpesa/b2c/v1/paymentrequest": { firstField: "InitiatorName", answer: (sim, body) => sim.b2cPayment(body, "v1") },
  "/mpesa/b2c/v3/paymentrequest": { firstField: "InitiatorName", answer: (sim, body) => sim.b2cPayment(body, "v3") },
  "/mpesa/transactionstatus/v1/query": { firstField: "Initiator", answer: (sim, body) => sim.transactionStatus(body) },
  "/mpesa/reversal/v1/request": { firstField: "Initiator", answer: (sim, body) => sim.reversal(body) },
  "/mpesa/accountbalance/v1/query": { firstField: "Initiator", answer: (sim, body) => sim.accountBalance(body) },
  "/pulltransactions/v1/register": { firstField: "ShortCode", answer: (sim, body) => sim.pullRegister(body) },
  "/pulltransactions/v1/query": { firstField: "ShortCode", answer: (sim, body) => sim.pullQuery(body) },
  "/mpesa/qrcode/v1/generate": { firstField: "MerchantName", answer: (sim, body) => sim.dynamicQr(body) },
  "/mpesa/c2b/v1/registerurl": {
    firstField: "ShortCode",
    refusal: (sim) => sim.c2bProductRefusal("v1"),
    answer: (sim, body) => sim.registerC2bUrls(body, "v1"),
  },
  "/mpesa/c2b/v2/registerurl": {
    firstField: "ShortCode",
    refusal: (sim) => sim.c2bProductRefusal("v2"),
    answer: (sim, body) => sim.registerC2bUrls(body, "v2"),
  },
};

const header = (request: DarajaRequest, name: string) =>
  Object.entries(request.headers).find(([key]) => key.toLowerCase() === name)?.[1];

const overTheWire = (value: unknown): unknown =>
  value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);

async function answer(simulation: DarajaSimulation, request: DarajaRequest): Promise<DarajaAnswer> {
  const path = request.path.startsWith("/") ? request.path : `/${request.path}`;
  if (path === "/oauth/v1/generate" && request.method === "GET") {
    return simulation.tokens.issue(header(request, "authorization"), request.searchParams?.["grant_type"]);
  }
  const operation = OPERATIONS[path];
  if (!operation) return darajaError(404, "404.001.01", "Resource not found");
  if (request.method !== "POST") return darajaError(405, "405.001", "Method Not Allowed");
  if (!simulation.tokens.accepts(header(request, "authorization"))) return invalidAccessToken();
  const refused = operation.refusal?.(simulation);
  if (refused) return refused;
  const body = overTheWire(request.json);
  if (typeof body !== "object" || body === null || Array.isArray(body)) return invalidField(operation.firstField);
  return operation.answer(simulation, body as JsonBody);
}

export function inProcessTransport(simulation: DarajaSimulation): DarajaTransport {
  return {
    async send(request) {
      const { status, body } = await answer(simulation, request);
      return { status, body: overTheWire(body) };
    },
  };
}
