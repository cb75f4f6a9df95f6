/**
 * The HTTP simulator's Daraja routes are its provider's list of simulated APIs (@mteja/simulated-daraja's
 * apis.ts): every endpoint a simulated API declares is served on its path over HTTP and in-process alike,
 * naming the API's first field for a body it cannot read, and a wrong method there is Daraja's 405.
 */
import {
  createDarajaSimulation,
  createMemoryStore,
  inProcessTransport,
  SIM_CONSUMER_KEY,
  SIM_CONSUMER_SECRET,
  SIMULATED_APIS,
} from "@mteja/simulated-daraja";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw, rawToken, startSimulator, type RunningSimulator } from "./harness.js";

interface Endpoint {
  path: string;
  operation: string;
  firstField: string;
}

const endpoints = SIMULATED_APIS.flatMap((api): Endpoint[] => [...api.endpoints]);
const unreadable = (field: string) => [
  400,
  expect.objectContaining({ errorMessage: `Bad Request - Invalid ${field}` }),
];

describe("the simulator's Daraja routes", () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());

  it("lists every API the simulator answers", () => {
    const operations = new Set(endpoints.map((endpoint) => endpoint.operation));
    for (const operation of ["stkpush", "b2c", "reversal", "accountbalance", "c2bregister", "pullquery", "qrcode"]) {
      expect(operations).toContain(operation);
    }
  });

  it("serves each declared endpoint over HTTP: an unreadable body names its first field; GET is a 405", async () => {
    const token = await rawToken(sim.url);
    for (const { path, firstField } of endpoints) {
      const headers = { Authorization: `Bearer ${token}` };
      const answer = await raw(`${sim.url}${path}`, { headers, body: "not json" });
      // The C2B register URL of a version the app lacks is refused before the body: v1 and v2 are both on here.
      expect([answer.status, answer.json], path).toEqual(unreadable(firstField));
      expect((await raw(`${sim.url}${path}`, { method: "GET", headers })).status, path).toBe(405);
    }
  });

  it("answers each declared endpoint in-process the same way", async () => {
    const simulation = createDarajaSimulation({}, { store: createMemoryStore() });
    const transport = inProcessTransport(simulation);
    try {
      const basic = Buffer.from(`${SIM_CONSUMER_KEY}:${SIM_CONSUMER_SECRET}`).toString("base64");
      const issued = await transport.send({
        method: "GET",
        path: "/oauth/v1/generate",
        headers: { authorization: `Basic ${basic}` },
        searchParams: { grant_type: "client_credentials" },
      });
      const headers = { authorization: `Bearer ${(issued.body as { access_token: string }).access_token}` };
      for (const { path, firstField } of endpoints) {
        const answer = await transport.send({ method: "POST", path, headers, json: "not an object" });
        expect([answer.status, answer.body], path).toEqual(unreadable(firstField));
      }
    } finally {
      simulation.close();
    }
  });
});
