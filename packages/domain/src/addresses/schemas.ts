import { z } from "zod";
import { envelope, nullData } from "../shared/envelope.js";
import { freeTextString, kenyanPhoneField, oneLineString, uncoerced } from "../shared/fields.js";
import { canonicalCounty, counties } from "./counties.js";

/** Kenya's bounding box (docs/addresses.md). */
export const kenyaBounds = { lat: { min: -4.9, max: 5.1 }, lng: { min: 33.8, max: 42.0 } } as const;

export const maxAddressesPerUser = 50;

function requiredText(field: string, max: number) {
  return oneLineString({ error: `${field} is required` })
    .trim()
    .min(1, `${field} is required`)
    .max(max, `${field} must be at most ${max} characters`);
}

/** Absent, null and "" all mean "none" for the optional text fields; free text may span lines. */
function optionalText(field: string, max: number, kind: "one line" | "free text" = "one line") {
  const string = kind === "free text" ? freeTextString : oneLineString;
  return string({ error: `${field} must be a string` })
    .trim()
    .max(max, `${field} must be at most ${max} characters`)
    .transform((value) => value || null)
    .nullable()
    .optional();
}

const countyField = oneLineString({ error: "county is required" })
  .trim()
  .min(1, "county is required")
  .max(50, "county must be one of Kenya's 47 counties")
  .transform((value, ctx) => {
    const county = canonicalCounty(value);
    if (!county) {
      ctx.addIssue({ code: "custom", message: "county must be one of Kenya's 47 counties (GET /api/v1/addresses/counties lists them)" });
      return z.NEVER;
    }
    return county;
  })
  .describe("One of the 47 counties in lower case (e.g. `nairobi`, `homa bay`, `murang'a`); stored in its canonical form.")
  // The document lists the forms a client should send; the service also accepts them in any case and with `-` or `_`.
  .meta({ enum: [...new Set(counties.flatMap((county) => [county.canonical, county.name]))] });

function coordinate(axis: "lat" | "lng") {
  const { min, max } = kenyaBounds[axis];
  return uncoerced(
    z
      .number({ error: `coordinates.${axis} must be a number` })
      .min(min, `coordinates.${axis} must be between ${min} and ${max} (within Kenya)`)
      .max(max, `coordinates.${axis} must be between ${min} and ${max} (within Kenya)`),
  );
}

const coordinatesField = z
  .object({ lat: coordinate("lat"), lng: coordinate("lng") }, { error: "coordinates must be an object { lat, lng }" })
  .nullable()
  .optional();

/** POST and PUT take the same fields (docs/addresses.md); PUT replaces every editable field. */
export const addressFields = z.object({
  label: requiredText("label", 50),
  recipient_name: requiredText("recipient_name", 100),
  phone: kenyanPhoneField,
  street: requiredText("street", 200),
  county: countyField,
  town: optionalText("town", 100),
  landmark: optionalText("landmark", 200, "free text"),
  coordinates: coordinatesField,
  is_default: uncoerced(z.boolean({ error: "is_default must be true or false" })).optional(),
});

export type AddressFields = z.infer<typeof addressFields>;

/** Any string: an id that is not a UUID is simply not found (never a validation error). */
const addressId = oneLineString({ error: "id is required" }).describe("The address id");

export const createAddressInput = addressFields;
export const updateAddressInput = addressFields.extend({ id: addressId });
export const addressIdInput = z.object({ id: addressId });

/** The list shows only these fields (docs/addresses.md). */
export const addressSummary = z.object({
  id: z.uuid(),
  label: z.string(),
  recipient_name: z.string(),
  phone: z.string(),
  street: z.string(),
  county: z.string(),
  town: z.string().nullable(),
  is_default: z.boolean(),
});

export const fullAddress = addressSummary.extend({
  landmark: z.string().nullable(),
  coordinates: z.object({ lat: z.number(), lng: z.number() }).nullable(),
});

export const listAddressesOutput = envelope(z.object({ addresses: z.array(addressSummary) }));
export const addressOutput = envelope(z.object({ address: fullAddress }));
export const removeAddressOutput = nullData;
export const setDefaultOutput = envelope(z.object({ address: z.object({ id: z.uuid(), is_default: z.literal(true) }) }));

export const countiesOutput = envelope(
  z.object({ counties: z.array(z.object({ code: z.string(), name: z.string(), canonical: z.string() })) }),
);
