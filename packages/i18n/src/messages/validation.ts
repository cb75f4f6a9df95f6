/**
 * `details[].message` of an input that fails its schema, in Swahili: written from the zod issue's
 * kind and bounds (packages/domain/src/shared/i18n/validation-details.ts), so every rule of every schema has
 * one without a translation per schema. English answers keep the message the schema states.
 * `{field}` is the field's name as the API spells it (names never change with the language).
 */
import type { Bilingual } from "../catalogue.js";

export const validationMessages = {
  "validation.missing_or_wrong_type": {
    en: "{field} is required and must be a {expected}",
    sw: "{field} inahitajika na lazima iwe ya aina {expected}",
  },
  "validation.too_short": { en: "{field} must be at least {min} characters", sw: "{field} lazima iwe na angalau herufi {min}" },
  "validation.too_long": { en: "{field} must be at most {max} characters", sw: "{field} isizidi herufi {max}" },
  "validation.required": { en: "{field} is required", sw: "{field} inahitajika" },
  "validation.too_small": { en: "{field} must be at least {min}", sw: "{field} lazima iwe angalau {min}" },
  "validation.too_big": { en: "{field} must be at most {max}", sw: "{field} isizidi {max}" },
  "validation.too_few_items": { en: "{field} must have at least {min} items", sw: "{field} lazima iwe na angalau vipengee {min}" },
  "validation.too_many_items": { en: "{field} must have at most {max} items", sw: "{field} isiwe na vipengee zaidi ya {max}" },
  "validation.not_email": { en: "{field} is not a valid email address", sw: "{field} si anwani sahihi ya barua pepe" },
  "validation.not_url": { en: "{field} is not a valid URL", sw: "{field} si URL sahihi" },
  "validation.not_uuid": { en: "{field} is not a valid id", sw: "{field} si kitambulisho sahihi" },
  "validation.bad_format": { en: "{field} is not in the expected format", sw: "{field} haiko katika muundo unaotarajiwa" },
  "validation.not_one_of": { en: "{field} must be one of: {values}", sw: "{field} lazima iwe mojawapo ya: {values}" },
  "validation.unknown_fields": { en: "unknown fields: {keys}", sw: "sehemu hizi hazijulikani: {keys}" },
  "validation.control_characters": { en: "{field} must not contain control characters", sw: "{field} isiwe na herufi za udhibiti" },
  "validation.phone": {
    en: "{field} must be a Kenyan mobile number (07…, 01…, 2547…, 2541… or +254…)",
    sw: "{field} lazima iwe nambari ya simu ya mkononi ya Kenya (07…, 01…, 2547…, 2541… au +254…)",
  },
  "validation.invalid": { en: "{field} is not valid", sw: "{field} si sahihi" },
} as const satisfies Record<string, Bilingual>;
