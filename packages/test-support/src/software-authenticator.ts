/**
 * A passkey authenticator in software, for the tests of docs/sign-in.md#passkeys: it answers the
 * WebAuthn options the service hands out as a browser with a platform authenticator would, built by
 * hand from the WebAuthn Level 3 spec (§6.1 authenticator data, §6.5 attestation, §5.8.1 client data)
 * — attestation "none", an ES256 key of node:crypto, discoverable credentials — so the service's
 * library is checked against an independent writer of the format, not against itself.
 *
 * Every answer can be bent (another origin, another RP ID's hash, a counter, no user verification)
 * to see the service refuse it.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";

/** CBOR (RFC 8949) as much as attestation objects and COSE keys need: integers, byte and text strings, maps. */
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor> | { [key: string]: Cbor };

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  const out = Buffer.alloc(5);
  out[0] = (major << 5) | 26;
  out.writeUInt32BE(length, 1);
  return out;
}

export function encodeCbor(value: Cbor): Buffer {
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new Error("only integers");
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([key, item]) => [encodeCbor(key), encodeCbor(item)])]);
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url");
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest();

/** Authenticator data flags (WebAuthn §6.1). */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface StoredCredential {
  id: Buffer;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  /** The signature counter the next assertion carries (after incrementing). */
  counter: number;
}

/** How one answer is bent, to see the service refuse it. */
export interface Bend {
  /** The origin the client data names (default: the authenticator's). */
  origin?: string;
  /** The RP ID whose hash the authenticator data carries (default: the options'). */
  rpIdHashOf?: string;
  /** The counter this assertion carries (default: one more than the last). */
  counter?: number;
  /** Whether the authenticator verified its user (default: true). */
  userVerified?: boolean;
  /** The credential to answer with (default: the newest for the RP ID). */
  credential?: StoredCredential;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  pubKeyCredParams: { alg: number; type: string }[];
  excludeCredentials?: { id: string }[];
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export class SoftwareAuthenticator {
  readonly credentials: StoredCredential[] = [];

  /** The origin this "browser" runs on: the client data names it. */
  constructor(readonly origin: string) {}

  private rpIdOf(options: { rp?: { id?: string }; rpId?: string }): string {
    return options.rp?.id ?? options.rpId ?? new URL(this.origin).hostname;
  }

  /** navigator.credentials.create(): a new ES256 discoverable credential, attestation "none". */
  create(options: CreationOptions, bend: Bend = {}) {
    const rpId = this.rpIdOf(options);
    if (!options.pubKeyCredParams.some((param) => param.alg === -7)) throw new Error("ES256 not offered");
    const excluded = new Set((options.excludeCredentials ?? []).map((credential) => credential.id));
    if (this.credentials.some((credential) => credential.rpId === rpId && excluded.has(b64url(credential.id)))) {
      throw new Error("InvalidStateError: a credential of this authenticator is excluded");
    }
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const coseKey = new Map<Cbor, Cbor>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]);
    const id = randomBytes(32);
    const credential: StoredCredential = { id, rpId, userHandle: options.user.id, privateKey, counter: 0 };
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const attestedCredentialData = Buffer.concat([Buffer.alloc(16), idLength, id, encodeCbor(coseKey)]);
    const authData = this.authenticatorData(bend.rpIdHashOf ?? rpId, flagsOf(bend) | AT, bend.counter ?? 0, attestedCredentialData);
    const clientDataJSON = this.clientData("webauthn.create", options.challenge, bend);
    this.credentials.push(credential);
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key" as const,
      authenticatorAttachment: "platform" as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(encodeCbor({ fmt: "none", attStmt: {}, authData })),
        transports: ["internal"],
      },
    };
  }

  /** navigator.credentials.get(): an assertion by a discoverable credential of the options' RP ID. */
  get(options: RequestOptions, bend: Bend = {}) {
    const rpId = this.rpIdOf(options);
    const allowed = new Set((options.allowCredentials ?? []).map((credential) => credential.id));
    const candidates = this.credentials.filter((credential) => credential.rpId === rpId && (allowed.size === 0 || allowed.has(b64url(credential.id))));
    const credential = bend.credential ?? candidates[candidates.length - 1];
    if (!credential) throw new Error("NotAllowedError: no credential for this RP ID");
    const counter = bend.counter ?? credential.counter + 1;
    credential.counter = Math.max(credential.counter, counter);
    const authData = this.authenticatorData(bend.rpIdHashOf ?? rpId, flagsOf(bend), counter);
    const clientDataJSON = this.clientData("webauthn.get", options.challenge, bend);
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: "public-key" as const,
      authenticatorAttachment: "platform" as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
    };
  }

  private clientData(type: string, challenge: string, bend: Bend): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: bend.origin ?? this.origin, crossOrigin: false }), "utf8");
  }

  private authenticatorData(rpId: string, flags: number, counter: number, attested: Buffer = Buffer.alloc(0)): Buffer {
    const signCount = Buffer.alloc(4);
    signCount.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), signCount, attested]);
  }
}

function flagsOf(bend: Bend): number {
  return UP | (bend.userVerified === false ? 0 : UV);
}
