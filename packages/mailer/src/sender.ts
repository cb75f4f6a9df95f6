import addressparser from "nodemailer/lib/addressparser";

const BARE_ADDRESS = /^[^\s@<>"(),;:]+@[^\s@<>"(),;:]+\.[^\s@<>"(),;:]+$/;

/** The sender of every mail: MAIL_FROM's address, and its display name when it has one (else ""). */
export interface Sender {
  name: string;
  address: string;
}

/**
 * MAIL_FROM as operators write it (RFC 5322): `no-reply@shop.co.ke`, `Shop <no-reply@shop.co.ke>`
 * or `"Shop, Inc." <no-reply@shop.co.ke>`, read by nodemailer's own address parser — the one that
 * writes the From header. Undefined when the text is not exactly one address: a list, a group, a
 * name without an address, or words the parser would take as a name although they are not one
 * (`Shop no-reply@x`, `Shop <no reply@x>`).
 */
export function parseSender(text: string): Sender | undefined {
  const parsed = addressparser(text.trim());
  if (parsed.length !== 1) return undefined;
  const [entry] = parsed;
  if (!entry || !("address" in entry)) return undefined;
  const { name = "", address = "" } = entry;
  if (!BARE_ADDRESS.test(address)) return undefined;
  // The parser is lenient: words before a bare address, or inside the brackets, become the name.
  if (text.includes("<") ? !text.includes(`<${address}>`) : name !== "") return undefined;
  return { name, address };
}

/** parseSender, for the transports: a sender that does not parse stops their creation. */
export function requireSender(text: string): Sender {
  const sender = parseSender(text);
  if (!sender) throw new TypeError(`Mail sender must be an address like no-reply@example.com or Shop <no-reply@example.com>, got "${text}"`);
  return sender;
}

/**
 * The From of one mail: the shop's display name (each mail carries its tenant's), else MAIL_FROM's
 * own display name, at MAIL_FROM's address. A shop's name overrides the process default, as the
 * per-tenant settings do everywhere.
 */
export function senderOf(mailFromName: string, configured: Sender): Sender {
  return { name: mailFromName.trim() || configured.name, address: configured.address };
}

/** `"Name" <address>` (or the bare address without a name) for logs and the dev outbox page; real mails use nodemailer's address object. */
export function formatSender(sender: Sender): string {
  return sender.name ? `"${sender.name.replace(/["\\]/g, "\\$&")}" <${sender.address}>` : sender.address;
}

/**
 * A Message-ID derived from the outbox row, so every retry of one mail carries the same id and
 * receiving servers that de-duplicate by Message-ID drop a second copy.
 */
export function outboxMessageId(mailId: string, from: string): string {
  const domain = from.slice(from.lastIndexOf("@") + 1);
  return `<outbox.${mailId.replace(/[^A-Za-z0-9.-]/g, "_")}@${domain}>`;
}
