/**
 * Texts (SMS). Texts are short: one sentence per fact, no greeting, the shop's name first so a
 * shared phone's owner knows who wrote. `{shop}`, `{code}` and `{minutes}` as in the mails.
 */
import type { Bilingual } from "../catalogue.js";

export const smsMessages = {} as const satisfies Record<string, Bilingual>;
