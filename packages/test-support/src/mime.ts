// A small MIME reader for the mails the mailer sends (multipart/alternative with quoted-printable
// or base64 parts, RFC 2047 encoded headers), enough for tests to read what a user would see.

export interface ParsedMessage {
  /** Header names lower-cased; values unfolded and decoded; repeated headers keep the first. */
  headers: Record<string, string>;
  /** The same headers before RFC 2047 decoding, for structured values such as addresses. */
  rawHeaders: Record<string, string>;
  text: string | undefined;
  html: string | undefined;
}

export function parseMessage(raw: string | Buffer): ParsedMessage {
  const entity = parseEntity(Buffer.isBuffer(raw) ? raw.toString("latin1") : raw);
  const leaves = flatten(entity);
  return {
    rawHeaders: entity.headers,
    headers: Object.fromEntries(Object.entries(entity.headers).map(([name, value]) => [name, decodeWords(value)])),
    text: leaves.find((leaf) => leaf.type === "text/plain")?.body,
    html: leaves.find((leaf) => leaf.type === "text/html")?.body,
  };
}

interface Entity {
  headers: Record<string, string>;
  type: string;
  body: string;
  parts: Entity[];
}

// Works on latin1 strings (one char per byte) so decoding can rebuild the exact bytes.
function parseEntity(source: string): Entity {
  const split = source.search(/\r?\n\r?\n/);
  const headerBlock = split === -1 ? source : source.slice(0, split);
  const rawBody = split === -1 ? "" : source.slice(split).replace(/^\r?\n\r?\n/, "");
  const headers: Record<string, string> = {};
  for (const line of headerBlock.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] ??= line.slice(colon + 1).trim();
  }
  const contentType = headers["content-type"] ?? "text/plain";
  const type = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  const boundary = headerParam(contentType, "boundary");
  if (type.startsWith("multipart/") && boundary !== undefined) {
    return { headers, type, body: "", parts: splitParts(rawBody, boundary).map(parseEntity) };
  }
  const charset = headerParam(contentType, "charset") ?? "utf-8";
  const bytes = decodeTransfer(rawBody, (headers["content-transfer-encoding"] ?? "7bit").toLowerCase());
  // SMTP carries CRLF line ends; tests compare against the "\n" the templates produce.
  const body = new TextDecoder(charset).decode(bytes).replace(/\r\n/g, "\n");
  return { headers, type, body, parts: [] };
}

function flatten(entity: Entity): Entity[] {
  return entity.parts.length === 0 ? [entity] : entity.parts.flatMap(flatten);
}

function splitParts(body: string, boundary: string): string[] {
  const parts: string[] = [];
  const delimiter = `--${boundary}`;
  const lines = body.split(/\r?\n/);
  let current: string[] | undefined;
  for (const line of lines) {
    if (line === `${delimiter}--`) break;
    if (line === delimiter) {
      if (current) parts.push(current.join("\r\n"));
      current = [];
    } else {
      current?.push(line);
    }
  }
  if (current) parts.push(current.join("\r\n"));
  return parts;
}

function headerParam(value: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, "i").exec(value);
  return match ? (match[1] ?? match[2]) : undefined;
}

function decodeTransfer(body: string, encoding: string): Uint8Array {
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64");
  if (encoding === "quoted-printable") return decodeQuotedPrintable(body);
  return Buffer.from(body, "latin1");
}

export function decodeQuotedPrintable(body: string): Buffer {
  // Soft line breaks join lines; whitespace at the end of an encoded line is padding, not content.
  return decodeHexEscapes(body.replace(/=\r?\n/g, "").replace(/[ \t]+(?=\r?\n|$)/g, ""));
}

function decodeHexEscapes(text: string): Buffer {
  const withHex = text.replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(withHex, "latin1");
}

/** Decodes RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) in a header value. */
export function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[QqBb]\?[^?]*\?=)\s+(?==\?[^?]+\?[QqBb]\?[^?]*\?=)/g, "$1")
    .replace(/=\?([^?*]+)(?:\*[^?]+)?\?([QqBb])\?([^?]*)\?=/g, (_, charset: string, encoding: string, text: string) => {
      const bytes =
        encoding.toUpperCase() === "B"
          ? Buffer.from(text, "base64")
          : decodeHexEscapes(text.replace(/_/g, " "));
      return new TextDecoder(charset).decode(bytes);
    });
}
