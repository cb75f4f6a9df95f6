/**
 * The erased customer's phone masked in the evidence Mteja keeps (docs/data-rights.md#erasure): stored
 * callbacks, webhook event bodies, sent texts. Pure: what to mask and how, never where the rows are.
 * Every phone comes out as payments show it (maskPhone: `254******678`).
 */
import { maskPhone } from "./mask-phone.js";

/** A Kenyan MSISDN as Daraja writes it, alone: `2547XXXXXXXX`, `+2547…`, `07…` (also `1` for `7`). */
const msisdn = /^(?:\+?254|0)([17]\d{8})$/;
/** A party's public name: `2547XXXXXXXX - NAME` (B2C ReceiverPartyPublicName, reversal CreditPartyPublicName, Transaction Status names). */
const msisdnThenName = /^(?:\+?254|0)([17]\d{8})(\s+-\s[\s\S]*)$/;
/** C2B's MSISDN as a hash: a hash of a phone is the phone (there are only 2×10⁸ of them to try). */
const hashed = /^[0-9a-f]{32,128}$/i;

const masked = (subscriber: string) => maskPhone(`254${subscriber}`);

/** The phone in one callback value (after `key`), masked; undefined when there is none. */
function maskedCallbackValue(key: string | undefined, value: unknown): string | undefined {
  if (typeof value === "number") {
    const digits = Number.isInteger(value) ? msisdn.exec(String(value)) : null;
    return digits ? masked(digits[1]!) : undefined;
  }
  if (typeof value !== "string") return undefined;
  const alone = msisdn.exec(value.trim());
  if (alone) return masked(alone[1]!);
  const named = msisdnThenName.exec(value.trim());
  if (named) return `${masked(named[1]!)}${named[2]}`;
  if (key === "MSISDN" && hashed.test(value.trim())) return "hashed";
  return undefined;
}

/**
 * Reads the tokens of a JSON text: a string (quotes and escapes included) or a number at a position.
 * Sticky patterns carry their position, so each call of maskPhonesInJsonText makes its own.
 */
function jsonTokens(json: string) {
  const stringToken = /"(?:[^"\\]|\\.)*"/y;
  const numberToken = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const keyFollows = /\s*:/y;
  return {
    tokenAt(at: number): string | undefined {
      const char = json[at]!;
      const pattern = char === '"' ? stringToken : char === "-" || (char >= "0" && char <= "9") ? numberToken : undefined;
      if (!pattern) return undefined;
      pattern.lastIndex = at;
      return pattern.exec(json)?.[0];
    },
    /** A string token that ends at `at` is a key when ':' follows it. */
    keyEndsAt(at: number): boolean {
      keyFollows.lastIndex = at;
      return keyFollows.test(json);
    },
  };
}

/**
 * A callback body that is valid JSON, every phone in its values masked, and every other byte as
 * received: the tokens holding a phone are replaced where they stand (a number becomes a string, since
 * a masked phone is not a number), keys and the rest are copied. Re-serialising the parsed body instead
 * would also rewrite what is not a phone (`1.00` → `1`), and evidence is kept as it came.
 */
export function maskPhonesInJsonText(json: string): string {
  let out = "";
  let at = 0;
  let lastKey: string | undefined;
  const tokens = jsonTokens(json);
  while (at < json.length) {
    const token = tokens.tokenAt(at);
    if (token === undefined) {
      out += json[at];
      at += 1;
      continue;
    }
    at += token.length;
    const value = JSON.parse(token) as unknown;
    // A string followed by ':' is a key: never masked, remembered for the value after it.
    if (typeof value === "string" && tokens.keyEndsAt(at)) {
      lastKey = value;
      out += token;
      continue;
    }
    const replacement = maskedCallbackValue(lastKey, value);
    out += replacement === undefined ? token : JSON.stringify(replacement);
  }
  return out;
}

/** The subscriber number of a Kenyan phone in any of its written forms (`254…`, `+254…`, `0…`), else the digits. */
export function subscriberOf(phone: string): string {
  const digits = phone.replace(/\D/g, "");
  if (digits.length === 12 && digits.startsWith("254")) return digits.slice(3);
  if (digits.length === 10 && digits.startsWith("0")) return digits.slice(1);
  return digits;
}

/** The forms a phone is stored in: `2547…` (accounts, payments, codes) and `+2547…` (texts' recipients). */
export function storedPhoneForms(phones: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const phone of phones) {
    const subscriber = subscriberOf(phone);
    if (subscriber.length === 0) continue;
    forms.add(`254${subscriber}`).add(`+254${subscriber}`);
  }
  return [...forms];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Free text (a text's body, a stored body that is not JSON) with the given phones masked wherever they
 * stand in one of their written forms, as a whole number (not inside a longer run of digits). Only
 * these phones: free text has no fields to tell a phone from another number by.
 */
export function maskKnownPhones(text: string, phones: Iterable<string>): string {
  const subscribers = [...new Set([...phones].map(subscriberOf).filter((subscriber) => subscriber.length >= 7))];
  if (subscribers.length === 0) return text;
  const pattern = new RegExp(`(?<!\\d)(?:\\+?254|0)(${subscribers.map(escapeRegExp).join("|")})(?!\\d)`, "g");
  return text.replace(pattern, (_match, subscriber: string) => masked(subscriber));
}

/**
 * A stored callback's body with the phone masked: inside the JSON values when it is JSON (every phone
 * there: a callback of the customer's payment names no other person's number), else — a body that was
 * refused as malformed keeps no structure — the customer's known phones wherever they stand.
 */
export function maskStoredCallbackBody(raw: string, knownPhones: Iterable<string>): string {
  try {
    JSON.parse(raw);
  } catch {
    return maskKnownPhones(raw, knownPhones);
  }
  return maskPhonesInJsonText(raw);
}

/**
 * A webhook event's body with the `phone` of the given payments masked, wherever a payment object
 * stands in it (`data.payment`, an intent's `payments[]`); other payments (another customer's, paid
 * from the same phone) are left as they are. The body was written by JSON.stringify, so writing it
 * again changes nothing else.
 */
export function maskPaymentPhonesInEvent(body: string, paymentIds: ReadonlySet<string>): string {
  let changed = false;
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== "object") return value;
    const object = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(object)) out[key] = visit(child);
    if (typeof object["id"] === "string" && paymentIds.has(object["id"]) && typeof object["phone"] === "string") {
      const phone = maskPhone(object["phone"]);
      if (phone !== object["phone"]) {
        out["phone"] = phone;
        changed = true;
      }
    }
    return out;
  };
  const masked = visit(JSON.parse(body));
  return changed ? JSON.stringify(masked) : body;
}
