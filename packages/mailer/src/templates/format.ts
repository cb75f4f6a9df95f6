const MAX_NAME_LENGTH = 80;

/**
 * Reduces a user- or admin-supplied name to one short line. Names land in mail bodies and subjects,
 * so line breaks and control characters would let someone who registers with a victim's address
 * shape the text of a mail sent to that victim.
 */
export function singleLine(value: string): string {
  const flattened = value
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flattened.length > MAX_NAME_LENGTH ? `${flattened.slice(0, MAX_NAME_LENGTH - 1)}…` : flattened;
}

/** Only http(s) links may be rendered: a `javascript:` or `data:` link in a mail is never legitimate. */
export function assertWebLink(link: string): string {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new TypeError("Mail link is not an absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(`Mail link must use http or https, not ${url.protocol}`);
  }
  return link;
}
