/**
 * The workspace's dependency rules (docs/architecture.md#dependency-rules), checked by `npm test`
 * (scripts/test/import-cycles.test.ts and scripts/test/layers.test.ts) and usable from the command
 * line, e.g. `pnpm exec depcruise --config scripts/dependency-rules.mjs packages/domain/src`.
 * Each rule says why it exists; each has a fixture in scripts/test/fixtures/layers/ that breaks it.
 */

import { readdirSync } from "node:fs";

const domain = "^packages/domain/src/";

/**
 * The payment flows: every folder of payments/ but its shared folder, each one Daraja API (and the refunds
 * to come). Read from the tree, so a new flow folder is ruled as one the moment it exists
 * (docs/mpesa.md#the-flow-registry).
 */
export const paymentFlows = [
  ...new Set([
    ...readdirSync(new URL("../packages/domain/src/payments/", import.meta.url), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "shared")
      .map((entry) => entry.name),
    "refunds",
  ]),
].sort();

/**
 * The areas of packages/domain, bottom to top. An area imports only areas of lower ranks (never one
 * of its own rank, never one above), so no ring of areas can form, however long. `payments` is the
 * payments folder's own files (the callback dispatcher, the reconciler, the status stream); its
 * sub-folders are areas of their own.
 */
export const domainRanks = [
  // Building blocks: errors, envelopes, fields, paging, limits, ports, secrets, request and tenant
  // types, operation facts, languages.
  ["shared"],
  // Identity: who the customer is and what happened to their account.
  ["security-events", "sms"],
  ["auth"],
  ["addresses", "api-keys", "profile"],
  // Money: the signed event feed, then payments from their shared folder up to the flows that settle them.
  ["webhooks"],
  ["payments/shared"],
  ["intents"],
  paymentFlows.map((flow) => `payments/${flow}`),
  ["payments"],
  // Above both: the shops' administration, the customer's data rights, retention, and the reports,
  // which read every kind of money movement (the flows' rows) and are read by nothing below them.
  ["tenants", "data-rights", "retention", "reports"],
];

/** Areas that know who a customer is, and areas that move money: the first never import the second. */
export const identityAreas = ["auth", "addresses", "api-keys", "profile", "security-events", "sms"];
export const moneyAreas = ["payments", "intents", "webhooks"];


/**
 * The API layer of the domain: the procedure ladder (trpc.ts), the routers, the context the
 * composition root fills in (context.ts), the package's exports (index.ts), the webhook event
 * catalogue (event-catalogue.ts: each event's data, read by the document) and the payment flows'
 * registry (payments/flows.ts: each flow with its routers, so adding a flow names it there only). It
 * may import every area; no area imports it: what an area needs of the registry (the dispatcher's
 * routes, the reconciler's sweeps, retention's callback kinds) the composition root hands it.
 */
const apiLayerFiles = "(trpc|router|index|context|event-catalogue|payments/flows)";
export const apiLayer = `${domain}(${apiLayerFiles}\\.ts|.+/(router|index)\\.ts)$`;

/**
 * The simulators: the simulated Daraja (test mode's provider, no HTTP listener, shipped) and the two
 * HTTP simulators (development and tests only). Code that ships is every package's and app's `src`,
 * the simulators' own and the tests' shared support (never built) aside.
 */
const simulatedDaraja = "^packages/simulated-daraja/";
const httpSimulators = "^apps/(daraja|sms|google|captcha)-sim/";
const shippedCode = "^(packages|apps)/[^/]+/src/";
const notShipped = ["^packages/test-support/", simulatedDaraja, httpSimulators];
/** The one seam that picks a Daraja per use (docs/mpesa.md#providers). */
const darajaSeam = "^apps/api/src/runtime/daraja-provider\\.ts$";
/** The dev start's wiring of the HTTP simulators. */
const devSimulators = "^apps/api/src/runtime/dev-simulators\\.ts$";
/** Libraries of rare operations, resolved (node_modules/…) or as a fixture names them. */
const rareLibraries = "(^|node_modules/)(@simplewebauthn/server|qrcode)(/|$)";

/** The files of one area (a folder; `payments` alone is the payments folder's own files). */
export function areaPath(area) {
  return area === "payments" ? `${domain}payments/[^/]+$` : `${domain}${area}/`;
}

function either(patterns) {
  return `(${patterns.join("|")})`;
}

/** One rule per area: it imports no area of its rank or above, and not the API layer. */
function areaOrderRules() {
  return domainRanks.flatMap((rank, index) =>
    rank.map((area) => ({
      name: "area-order",
      comment:
        "Below the API layer the areas import each other in one direction only (domainRanks, bottom to top): " +
        "an area that imports one above it (or beside it) ties them into a ring no layer picture can draw.",
      severity: "error",
      from: { path: areaPath(area), pathNot: apiLayer },
      to: { path: either([...domainRanks.slice(index).flat().filter((other) => other !== area).map(areaPath), apiLayer]) },
    })),
  );
}

export const forbidden = [
  {
    name: "no-circular",
    comment: "A loop of imports (of types too) is one tangle: neither side can be read, tested or moved without the other.",
    severity: "error",
    from: {},
    to: { circular: true },
  },
  {
    name: "payment-flows-apart",
    comment:
      "Each payment flow (STK, B2C payouts, refunds, C2B, balance) is one Daraja API; a flow reaches " +
      "another provider method only through the shared folder's provider-request port, so flows can be added and " +
      "removed alone.",
    severity: "error",
    from: { path: `${domain}payments/${either(paymentFlows)}/` },
    to: { path: `${domain}payments/${either(paymentFlows)}/`, pathNot: `${domain}payments/$1/` },
  },
  {
    name: "shared-imports-no-flow",
    comment: "the payments shared folder is what every flow stands on; a flow hands it its rows, events and objects, never the other way round.",
    severity: "error",
    from: { path: `${domain}payments/shared/` },
    to: { path: `${domain}payments/${either(paymentFlows)}/` },
  },
  {
    name: "shared-is-the-bottom",
    comment:
      "shared/ holds the building blocks every area uses (errors, envelopes, fields, paging, limits, ports, secrets, " +
      "request and tenant types, operation facts); one import of an area from it would tie every area to that one.",
    severity: "error",
    from: { path: `${domain}shared/` },
    to: { path: domain, pathNot: `${domain}shared/` },
  },
  {
    name: "identity-without-money",
    comment:
      "Accounts, sign-in and their records work without payments: an identity area that imports a money area " +
      "could not be reasoned about, tested or run without M-Pesa. Areas that span both (data-rights, tenants, retention) sit above both.",
    severity: "error",
    from: { path: `${domain}${either(identityAreas)}/` },
    to: { path: `${domain}${either(moneyAreas)}/` },
  },
  {
    name: "domain-without-http",
    comment:
      "The domain is transport-free: Fastify and its plugins are apps/api's, and the REST adapter (trpc-to-openapi) " +
      "reads the domain's own operation facts in apps/api/src/http/rest/, so replacing either touches no area.",
    severity: "error",
    from: { path: domain },
    to: { path: "(^|/node_modules/)(fastify|@fastify/[^/]+|trpc-to-openapi)(/|$)" },
  },
  {
    name: "test-support-through-a-package",
    comment:
      "A package's tests are its own: what tests of several packages share lives in packages/test-support, so no " +
      "package's tests reach into another's test folder (which no build, version or dependency list shows).",
    severity: "error",
    from: { path: "^(packages|apps)/([^/]+)/test/" },
    to: { path: "^(packages|apps)/[^/]+/test/", pathNot: "^$1/$2/test/" },
  },
  {
    name: "simulated-daraja-through-the-seam",
    comment:
      "Which Daraja a use talks to (the real one over HTTP, or the simulated provider that answers test mode " +
      "in-process) is decided in one module, apps/api's runtime/daraja-provider.ts: any other import of the " +
      "simulated provider is a second place where test money could take a path live money does not, or the reverse.",
    severity: "error",
    from: { path: shippedCode, pathNot: [darajaSeam, ...notShipped] },
    to: { path: simulatedDaraja },
  },
  {
    name: "http-simulators-dev-only",
    comment:
      "The HTTP simulators (apps/daraja-sim, apps/sms-sim, apps/google-sim, apps/captcha-sim) are development tools, devDependencies of apps/api: " +
      "code that ships never loads them with its own modules, so production neither ships nor runs them. " +
      "The dev start loads them by a dynamic import, when it asks for one.",
    severity: "error",
    from: { path: shippedCode, pathNot: notShipped },
    to: { path: httpSimulators, dynamic: false },
  },
  {
    name: "http-simulators-through-dev-start",
    comment:
      "One module, apps/api's runtime/dev-simulators.ts, starts the HTTP simulators for the dev start; " +
      "a second place that loads one would be a second way for a start to end up on a simulator.",
    severity: "error",
    from: { path: shippedCode, pathNot: [devSimulators, ...notShipped] },
    to: { path: httpSimulators },
  },
  {
    name: "rare-libraries-on-first-use",
    comment:
      "Libraries only rare operations use are loaded by the first of them, not by every start: @simplewebauthn/server " +
      "(passkey ceremonies; with the ASN.1 parsers it brings, a quarter of the files a start loaded) and qrcode " +
      "(a two-factor setup's QR code). Code that ships takes their types by `import type` and the libraries by a " +
      "dynamic import (packages/domain/src/auth/passkeys/webauthn.ts).",
    severity: "error",
    from: { path: shippedCode },
    to: { path: rareLibraries, dynamic: false, dependencyTypesNot: ["type-only"] },
  },
  ...areaOrderRules(),
];

/** How imports are read: as TypeScript resolves them, type-only imports included. */
export const options = {
  tsPreCompilationDeps: true, // keep imports that compile away (`import type`): they are coupling too
  doNotFollow: { path: "node_modules" },
  exclude: { path: ["/generated/", "\\.d\\.ts$"] }, // Prisma's generated client is not ours to shape
  enhancedResolveOptions: {
    exportsFields: ["exports"],
    conditionNames: ["@mteja/source", "import", "node", "default"],
  },
};

export default { forbidden, options };
