/** Rendering a message of the catalogue in a language. */
import { interpolate, type Bilingual, type ParamValue, type PlaceholderNames } from "./catalogue.js";
import type { Locale } from "./locale.js";
import { messages } from "./messages/index.js";

export type MessageKey = keyof typeof messages;

/** The params a message needs: one per placeholder of its English text (the test checks the Swahili one has the same). */
export type ParamsOf<K extends MessageKey> = { readonly [P in PlaceholderNames<(typeof messages)[K]["en"]>]: ParamValue };

/**
 * A message to render later, in the language of whoever reads it: a key, or a key with its params.
 * Keys whose text has placeholders can only be given with their params (checked at compile time).
 */
export type Text = KeyedText | OwnText;

type KeyedText = {
  [K in MessageKey]: PlaceholderNames<(typeof messages)[K]["en"]> extends never ? K | { readonly key: K } : { readonly key: K; readonly params: ParamsOf<K> };
}[MessageKey];

/**
 * A message declared beside the code that raises it instead of in the catalogue: a payment flow's own,
 * in its folder (docs/i18n.md#a-flows-own-messages). Both languages, as every message; no placeholders.
 */
export type OwnText = { readonly own: Bilingual };

function parts(text: KeyedText): { key: MessageKey; params: Readonly<Record<string, ParamValue>> | undefined } {
  return typeof text === "string" ? { key: text, params: undefined } : { key: text.key, params: "params" in text ? text.params : undefined };
}

export function translate(locale: Locale, text: Text): string {
  if (typeof text === "object" && "own" in text) return text.own[locale];
  const { key, params } = parts(text);
  return interpolate(messages[key][locale], params);
}

/** Same as translate, for a key and params given apart (templates that build their params). */
export function t<K extends MessageKey>(locale: Locale, key: K, ...params: PlaceholderNames<(typeof messages)[K]["en"]> extends never ? [] : [ParamsOf<K>]): string {
  return interpolate(messages[key][locale], params[0]);
}

export function isMessageKey(value: string): value is MessageKey {
  return Object.hasOwn(messages, value);
}
