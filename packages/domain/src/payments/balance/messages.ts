/**
 * The balance's own messages (docs/i18n.md#a-flows-own-messages): declared in its folder, not in the
 * catalogue, so the flow comes and goes with them. Every message has both languages; flow.ts hands
 * them to the registry, whose test holds them to the catalogue's rules.
 */
import type { Bilingual, OwnText } from "@mteja/i18n";

const own = (text: Bilingual): OwnText => ({ own: text });

export const balanceMessages = {
  neverAsked: own({
    en: "This shop has not asked for its M-Pesa balance yet.",
    sw: "Duka hili bado halijaomba salio lake la M-Pesa.",
  }),
  notConfigured: own({
    en: "The M-Pesa account balance is not configured on this service.",
    sw: "Salio la akaunti ya M-Pesa halijawekwa kwenye huduma hii.",
  }),
  initiatorMissing: own({
    en: "The M-Pesa account balance needs the shop's initiator (B2C) credentials.",
    sw: "Salio la akaunti ya M-Pesa linahitaji vitambulisho vya mwanzilishi (B2C) vya duka.",
  }),
} as const satisfies Readonly<Record<string, OwnText>>;
