/**
 * Step-up is declared on every operation that needs it (docs/step-up.md#which-operations), and on no
 * operation that could not enforce it. Two checks:
 *
 * - the list: each sensitive operation of the contract declares `stepUp`, of the kind it must have;
 * - the walk: EVERY procedure of appRouter is called, as an attacker holding only the access token of a
 *   session that is no longer fresh would call it, with input that would be valid (the account's real
 *   password, the codes texted and mailed to it and to a new phone, the TOTP code of its pending and
 *   enabled secrets, its reset and verification tokens). After each call the account's sign-in factors
 *   are compared with what they were: an operation that changed one must declare `stepUp`, or be on the
 *   allow-list below with its reason. So a new operation that writes a factor fails here by what it
 *   does, whether or not anyone remembered to list it.
 *
 * A new kind of factor (passkeys, linked Google accounts) goes into `factorsOf`; a new proof that
 * arrives by mail or text is harvested by `harvest` (every code and `token=` sent to the account's
 * addresses and to the new ones); an operation that needs a preparation the walk cannot guess (a
 * pending change started elsewhere) adds it to the fixtures, as the pending phone and email changes are.
 */
import { generateSync } from "otplib";
import type { AnyProcedure } from "@trpc/server";
import { vi, afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { appRouter } from "../../src/router.js";
import { adminProcedure, authProcedure, createCallerFactory, createTRPCRouter, protectedProcedure } from "../../src/trpc.js";
import { cryptoRandom } from "../../src/shared/ports.js";
import type { OperationMeta, StepUp } from "../../src/shared/operation-meta.js";
import { clientOf, createServiceDeps, requestOf, type Client, type ServiceDeps } from "../support/caller.js";

/** The contract's sensitive operations (decisions: "Sensitive changes need a fresh proof") as today's procedures, with the kind each must declare. */
const sensitiveOperations: Record<string, "always" | "orBodyProof" | "when"> = {
  "profile.changePassword": "orBodyProof",
  "otp.setup": "always",
  "otp.verify": "always",
  "otp.disable": "orBodyProof",
  "phone.meStart": "when",
  "phone.meVerify": "when",
  "email.start": "when",
  "dataRights.exportMyData": "always",
  "dataRights.eraseMyAccount": "orBodyProof",
  "passkeys.registerOptions": "always",
  "passkeys.registerVerify": "always",
  "passkeys.remove": "always",
};

/** Operations that may change a sign-in factor without step-up, each with its reason. */
const allowedWithoutStepUp: Record<string, string> = {
  "auth.register": "creates an account: its first factors, before any session exists",
  "auth.resetPassword": "the proof is the emailed reset token (control of the mailbox), not a session",
  "auth.verifyEmail": "the proof is the emailed verification token; it only marks the account's own email verified",
  "phone.verify": "phone sign-up: creates the account with the phone whose texted code it proves",
  "email.verify":
    "finishes a change me/email/start began under step-up (or a phone-only account's first email), and proves control of the new mailbox with the mailed token",
};

/** The account's sign-in factors, as the walk compares them. */
async function factorsOf(service: ServiceDeps, userId: string) {
  const user = await service.deps.db.unscoped("test").user.findUniqueOrThrow({ where: { id: userId } });
  return {
    password: user.passwordHash,
    email: user.email,
    emailVerified: user.emailVerified,
    emailResetsPassword: user.emailResetsPassword,
    verifiedPhone: user.phoneVerified ? user.phone : null,
    otpEnabled: user.otpEnabled,
    otpSecret: user.otpSecretEnc,
    // The account's passkeys, as one comparable value.
    passkeys: (await service.deps.db.unscoped("test").passkey.findMany({ where: { userId }, select: { credentialId: true } }))
      .map((row) => row.credentialId)
      .sort()
      .join(" "),
  };
}
type Factors = Awaited<ReturnType<typeof factorsOf>>;

const window = 300;
const password = "correct horse battery";

interface Fixture {
  kind: string;
  userId: string;
  /** The stolen token: its session is past fresh_until. */
  attacker: Client;
  candidates: Record<string, Array<() => unknown>>;
}

/** A procedure's path, builder credential and declared facts, from the router itself. */
function proceduresOf(): Array<{ path: string; type: string; meta: OperationMeta | undefined; input: z.ZodType | undefined }> {
  const procedures = appRouter._def.procedures as unknown as Record<string, AnyProcedure>;
  return Object.entries(procedures).map(([path, procedure]) => {
    const def = procedure._def as unknown as { type: string; meta?: OperationMeta; inputs: unknown[] };
    return { path, type: def.type, meta: def.meta, input: def.inputs[0] as z.ZodType | undefined };
  });
}

function kindOf(stepUp: StepUp): "always" | "orBodyProof" | "when" {
  return stepUp === "always" ? "always" : "when" in stepUp ? "when" : "orBodyProof";
}

describe("step-up declarations", () => {
  it("every sensitive operation of the contract declares stepUp, of its kind", () => {
    const declared = Object.fromEntries(proceduresOf().map(({ path, meta }) => [path, meta?.stepUp ? kindOf(meta.stepUp) : undefined]));
    expect(Object.fromEntries(Object.keys(sensitiveOperations).map((path) => [path, declared[path]]))).toEqual(sensitiveOperations);
  });

  it("only procedures with a session (bearer) declare stepUp; every allow-listed procedure exists", () => {
    const procedures = proceduresOf();
    expect(procedures.filter(({ meta }) => meta?.stepUp && meta.credential !== "bearer").map(({ path }) => path)).toEqual([]);
    const paths = new Set(procedures.map(({ path }) => path));
    expect(Object.keys(allowedWithoutStepUp).filter((path) => !paths.has(path))).toEqual([]);
  });
});

describe("the walk: no procedure changes a sign-in factor on a stale session unless it declares stepUp", () => {
  let service: ServiceDeps;
  let counter = 0;
  beforeAll(async () => {
    service = await createServiceDeps({ random: cryptoRandom });
  });
  afterAll(() => service?.close());

  const unique = () => {
    counter += 1;
    return counter;
  };
  const newPhone = () => {
    const digits = String(10_000_000 + unique() * 7919).slice(-8);
    return { local: `07${digits}`, stored: `2547${digits}`, international: `+2547${digits}` };
  };
  const totp = (secret: string) => generateSync({ secret, epoch: Math.floor(service.clock.now().getTime() / 1000) });

  /** The code of the newest text to a phone, once the text exists (some are written after the answer). */
  async function codeTextedTo(international: string, after = 0): Promise<string> {
    return vi.waitFor(async () => {
      const texts = await service.deps.db.unscoped("test").smsOutbox.findMany({ where: { toPhone: international }, orderBy: { createdAt: "asc" } });
      if (texts.length <= after) throw new Error(`no text to ${international} yet`);
      return /\b(\d{6})\b/.exec(texts[texts.length - 1]!.body)![1]!;
    });
  }

  /** Every token of a link mailed to the address. */
  async function tokensMailedTo(email: string, atLeast: number): Promise<string[]> {
    return vi.waitFor(async () => {
      const mails = await service.deps.db.unscoped("test").mailOutbox.findMany({ where: { toAddress: email } });
      const tokens = mails.flatMap((mail) => [...mail.textBody.matchAll(/token=([0-9a-f]{64})/g)].map((match) => match[1]!));
      if (tokens.length < atLeast) throw new Error(`fewer than ${atLeast} tokens mailed to ${email}`);
      return tokens;
    });
  }

  const stale = () => service.clock.advance((window + 1) * 1000);

  async function signUpByPhone(phone: ReturnType<typeof newPhone>): Promise<Client> {
    const client = clientOf(service.deps);
    await client.call.phone.start({ phone: phone.local });
    const code = await codeTextedTo(phone.international);
    const signedIn = await client.call.phone.verify({ phone: phone.local, code });
    if (signedIn.data.requires_otp) throw new Error("unexpected two-factor step");
    client.accessToken = signedIn.data.access_token;
    return client;
  }

  const userIdOf = async (client: Client) => (await client.call.profile.me()).data.id;

  /**
   * An email change started by the owner on the fresh session, where the service has one (me/email/start):
   * the link mailed to the new address is then a candidate token for every operation.
   */
  async function startedEmailChange(client: Client): Promise<{ email: string; tokens: string[] }> {
    const email = `new-address-${unique()}@example.com`;
    const start = proceduresOf().find(({ meta }) => meta?.openapi?.path === "/api/v1/auth/me/email/start");
    if (!start) return { email, tokens: [] };
    await callByPath(client, start.path, { email }).catch((error: unknown) => {
      throw new Error(`the walk's preparation could not start an email change with ${start.path}({ email }): ${String(error)}`);
    });
    return { email, tokens: await tokensMailedTo(email, 1) };
  }

  /** An email and password account with a verified phone, two-factor being set up, a code to a new phone pending, reset and verification links mailed. */
  async function passwordAccount(): Promise<Fixture> {
    const client = clientOf(service.deps);
    const email = `walk-${unique()}@example.com`;
    client.accessToken = (await client.call.auth.register({ name: "Wanjiku Kamau", email, password })).data.access_token;
    const own = newPhone();
    await client.call.phone.meStart({ phone: own.local });
    await client.call.phone.meVerify({ code: await codeTextedTo(own.international) });
    const pendingSecret = (await client.call.otp.setup()).data.secret;
    const other = newPhone();
    await client.call.phone.meStart({ phone: other.local });
    const otherCode = await codeTextedTo(other.international);
    await clientOf(service.deps).call.auth.forgotPassword({ email });
    const tokens = await tokensMailedTo(email, 2);
    const change = await startedEmailChange(client);
    stale();
    return {
      kind: "password account",
      userId: await userIdOf(client),
      attacker: client,
      candidates: {
        password: [() => password],
        current_password: [() => password],
        new_password: [() => "the attacker's new passphrase"],
        phone: [() => other.local],
        email: [() => email, () => change.email],
        code: [() => totp(pendingSecret), () => otherCode],
        sms_code: [() => otherCode],
        token: [...tokens, ...change.tokens].map((token) => () => token),
      },
    };
  }

  /** An account made by phone sign-in (no password), two-factor on, a code to its verified phone pending. */
  async function phoneAccountWithTwoFactor(): Promise<Fixture> {
    const own = newPhone();
    const client = await signUpByPhone(own);
    const secret = (await client.call.otp.setup()).data.secret;
    const recoveryCodes = (await client.call.otp.verify({ code: totp(secret) })).data.recovery_codes;
    await client.call.phone.meStart({});
    const ownCode = await codeTextedTo(own.international, 1);
    stale();
    return {
      kind: "phone-only account with two-factor",
      userId: await userIdOf(client),
      attacker: client,
      candidates: {
        password: [() => password],
        current_password: [() => password],
        new_password: [() => "the attacker's new passphrase"],
        phone: [() => newPhone().local],
        email: [() => `attacker-${unique()}@example.com`],
        code: [() => totp(secret), () => ownCode, () => recoveryCodes[0]],
        sms_code: [() => ownCode],
      },
    };
  }

  /** An account made by phone sign-in, without two-factor, a code to a new phone pending. */
  async function phoneAccount(): Promise<Fixture> {
    const own = newPhone();
    const client = await signUpByPhone(own);
    await client.call.phone.meStart({});
    const ownCode = await codeTextedTo(own.international, 1);
    const change = await startedEmailChange(client);
    stale();
    return {
      kind: "phone-only account",
      userId: await userIdOf(client),
      attacker: client,
      candidates: {
        new_password: [() => "the attacker's new passphrase"],
        phone: [() => newPhone().local],
        email: [() => change.email],
        code: [() => ownCode],
        sms_code: [() => ownCode],
        token: change.tokens.map((token) => () => token),
      },
    };
  }

  const proofFields = new Set(["password", "current_password", "sms_code", "code", "token"]);

  /** Inputs to try, the bare one first (no proof at all: a declared step-up must answer 403 to it), then the candidates' combinations. */
  function inputsFor(schema: z.ZodType | undefined, fixture: Fixture): Array<Record<string, unknown> | undefined> {
    const shape = schema ? objectShape(schema) : undefined;
    if (!shape) return [undefined];
    const fields = Object.entries(shape).map(([name, field]) => {
      const optional = field.safeParse(undefined).success;
      const values = (fixture.candidates[name] ?? []).map((make) => make);
      if (!values.length && !optional) values.push(() => exampleOf(field));
      return { name, values: optional ? [...values, () => undefined] : values };
    });
    const combos: Array<Record<string, unknown>> = [{}];
    for (const { name, values } of fields) {
      const next: Array<Record<string, unknown>> = [];
      for (const combo of combos) for (const value of values) next.push({ ...combo, [name]: value });
      combos.splice(0, combos.length, ...next.slice(0, 48));
    }
    const bare = Object.fromEntries(fields.filter(({ name }) => !proofFields.has(name)).map(({ name, values }) => [name, values[0]!]));
    return [bare, ...combos].map((combo) =>
      Object.fromEntries(Object.entries(combo).flatMap(([name, make]) => {
        const value = (make as () => unknown)();
        return value === undefined ? [] : [[name, value]];
      })),
    );
  }

  interface Outcome {
    path: string;
    kind: string;
    changed: string[];
    answers: string[];
  }

  async function walk(path: string, meta: OperationMeta | undefined, schema: z.ZodType | undefined, fixture: Fixture): Promise<Outcome> {
    const signedIn = meta?.credential === "bearer" || meta?.credential === "apiKeyOrAdmin";
    const caller = signedIn ? fixture.attacker : clientOf(service.deps);
    const answers: string[] = [];
    for (const input of inputsFor(schema, fixture)) {
      const before = await factorsOf(service, fixture.userId);
      const answer = await callByPath(caller, path, input).then(
        () => "ok",
        (error: { cause?: { code?: string }; code?: string }) => error.cause?.code ?? error.code ?? "error",
      );
      answers.push(answer);
      const changed = changedFactors(before, await factorsOf(service, fixture.userId));
      if (changed.length) return { path, kind: fixture.kind, changed, answers };
    }
    return { path, kind: fixture.kind, changed: [], answers };
  }

  it("every builder that reads the session enforces a declaration (auth, protected, admin)", async () => {
    const router = createTRPCRouter({
      auth: authProcedure.meta({ stepUp: "always" }).query(() => "ok"),
      protected: protectedProcedure.meta({ stepUp: "always" }).query(() => "ok"),
      admin: adminProcedure.meta({ stepUp: "always" }).query(() => "ok"),
    });
    const client = clientOf(service.deps);
    const email = `builders-${unique()}@example.com`;
    const registered = await client.call.auth.register({ name: "Wanjiku Kamau", email, password });
    await service.deps.db.unscoped("test").user.update({ where: { id: registered.data.user.id }, data: { role: "admin" } });
    // The role is read from the token: sign in again for one that says admin.
    const signedIn = await client.call.auth.login({ email, password });
    if (signedIn.data.requires_otp) throw new Error("unexpected two-factor step");
    client.accessToken = signedIn.data.access_token;
    const caller = createCallerFactory(router)({ deps: service.deps, request: requestOf(client) });
    expect(await Promise.all([caller.auth(), caller.protected(), caller.admin()])).toEqual(["ok", "ok", "ok"]);
    stale();
    const refused = await Promise.all([caller.auth(), caller.protected(), caller.admin()].map((call) => call.catch((error: { cause?: { code?: string } }) => error.cause?.code)));
    expect(refused).toEqual(["STEP_UP_REQUIRED", "STEP_UP_REQUIRED", "STEP_UP_REQUIRED"]);
  });

  it("changes a factor only through operations that declare stepUp (or are allowed with their reason)", { timeout: 600_000 }, async () => {
    const fixtures = [passwordAccount, phoneAccountWithTwoFactor, phoneAccount];
    const outcomes: Outcome[] = [];
    for (const { path, type, meta, input } of proceduresOf()) {
      if (type === "subscription") continue;
      const signedIn = meta?.credential === "bearer" || meta?.credential === "apiKeyOrAdmin";
      // Without a session, the account's own tokens and codes are what an attacker would try: the password account has them all.
      for (const fixture of signedIn ? fixtures : fixtures.slice(0, 1)) outcomes.push(await walk(path, meta, input, await fixture()));
    }
    const stepUpOf = new Map(proceduresOf().map(({ path, meta }) => [path, meta?.stepUp]));

    const undeclared = outcomes
      .filter(({ path, changed }) => changed.length && !stepUpOf.get(path) && !(path in allowedWithoutStepUp))
      .map(({ path, kind, changed }) => `${path} changed ${changed.join(", ")} of a ${kind} on a session that is not fresh, and declares no stepUp`);
    expect(undeclared).toEqual([]);

    // Each declaration is enforced: some call of the walk was answered 403 STEP_UP_REQUIRED.
    const unenforced = [...stepUpOf]
      .filter(([path, stepUp]) => stepUp && !outcomes.some((outcome) => outcome.path === path && outcome.answers.includes("STEP_UP_REQUIRED")))
      .map(([path]) => `${path} declares stepUp but never answered STEP_UP_REQUIRED on a stale session`);
    expect(unenforced).toEqual([]);

    // The walk reaches the changes it guards against (else it would prove nothing): these do change factors when their proof is complete.
    const changers = new Set(outcomes.filter(({ changed }) => changed.length).map(({ path }) => path));
    expect([...changers].sort()).toEqual(expect.arrayContaining(["auth.resetPassword", "auth.verifyEmail", "dataRights.eraseMyAccount", "otp.disable", "profile.changePassword"]));
  });
});

function changedFactors(before: Factors, after: Factors): string[] {
  return (Object.keys(before) as Array<keyof Factors>).filter((key) => before[key] !== after[key]);
}

function callByPath(client: Client, path: string, input: unknown): Promise<unknown> {
  const target = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], client.call) as (input: unknown) => Promise<unknown>;
  return target(input);
}

/** The object an input schema describes, through optional/pipe wrappers; undefined when it is not one. */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let current: z.ZodType = schema;
  for (let depth = 0; depth < 5; depth++) {
    if (current instanceof z.ZodObject) return current.shape as Record<string, z.ZodType>;
    const def = (current as unknown as { _zod: { def: { innerType?: z.ZodType; in?: z.ZodType } } })._zod.def;
    const inner = def.innerType ?? def.in;
    if (!inner) return undefined;
    current = inner;
  }
  return undefined;
}

/** A value a required field without a candidate accepts, from its JSON Schema: enough to get past validation. */
function exampleOf(field: z.ZodType): unknown {
  const json = z.toJSONSchema(field, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return exampleOfJson(json);
}

function exampleOfJson(json: Record<string, unknown>): unknown {
  if (Array.isArray(json.enum)) return json.enum[0];
  if (json.const !== undefined) return json.const;
  const branches = (json.anyOf ?? json.oneOf) as Array<Record<string, unknown>> | undefined;
  if (branches?.length) return exampleOfJson(branches.find((branch) => branch.type !== "null") ?? branches[0]!);
  switch (json.type) {
    case "string":
      if (json.format === "email") return "walk@example.com";
      if (json.format === "uuid") return "6f1c0e56-3b1a-4c52-9d0e-2f4b8a7c1d90";
      if (json.format === "uri") return "https://example.com/walk";
      return "x".repeat(Math.max(Number(json.minLength ?? 1), 1));
    case "integer":
    case "number":
      return Math.max(Number(json.minimum ?? 1), 1);
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return Object.fromEntries(
        ((json.required as string[] | undefined) ?? []).map((key) => [key, exampleOfJson(((json.properties as Record<string, Record<string, unknown>>) ?? {})[key] ?? {})]),
      );
    default:
      return null;
  }
}
