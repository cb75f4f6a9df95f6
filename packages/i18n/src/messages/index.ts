/**
 * The whole catalogue: one object per part. To add a message, add `"area.name": { en, sw }` to the
 * part it belongs to (docs/i18n.md#adding-a-message); a key used twice fails to compile below.
 */
import { detailMessages } from "./details.js";
import { errorMessages } from "./errors.js";
import { mailMessages } from "./mail.js";
import { signInMessages } from "./sign-in.js";
import { smsMessages } from "./sms.js";
import { validationMessages } from "./validation.js";

export const messages = { ...errorMessages, ...detailMessages, ...validationMessages, ...mailMessages, ...smsMessages, ...signInMessages } as const;

type Parts = [typeof errorMessages, typeof detailMessages, typeof validationMessages, typeof mailMessages, typeof smsMessages, typeof signInMessages];
type KeysOf<T extends unknown[]> = { [I in keyof T]: keyof T[I] };
type Overlap<T extends unknown[]> = T extends [infer Head, ...infer Tail] ? (keyof Head & KeysOf<Tail>[number]) | Overlap<Tail> : never;
/** Compiles only while no key is in two parts (a spread would silently keep the later one). */
export const noKeyInTwoParts: [Overlap<Parts>] extends [never] ? true : Overlap<Parts> = true;
