/**
 * A small PNG encoder (8-bit greyscale, one IDAT, a tEXt chunk) for the simulated Dynamic QR: a real PNG
 * of the requested size whose picture looks like a QR code but encodes nothing (Daraja does not document
 * the text inside its QR codes, so the simulator claims no format), and whose tEXt chunk carries what
 * the code was made for, so that a simulated scan can read it back.
 */
import { createHash } from "node:crypto";
import { crc32, deflateSync, inflateSync } from "node:zlib";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Modules on a side, as a version-2 QR code has. */
const MODULES = 25;

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed) >>> 0);
  return Buffer.concat([length, typed, crc]);
}

/** Whether module (x, y) is dark: the three finder squares of a QR code, the rest from the payload's hash. */
function darkModule(x: number, y: number, bits: Buffer): boolean {
  for (const [fx, fy] of [
    [0, 0],
    [MODULES - 7, 0],
    [0, MODULES - 7],
  ] as const) {
    const dx = x - fx;
    const dy = y - fy;
    if (dx >= -1 && dx <= 7 && dy >= -1 && dy <= 7) {
      if (dx < 0 || dy < 0 || dx > 6 || dy > 6) return false;
      const ring = Math.min(dx, dy, 6 - dx, 6 - dy);
      return ring !== 1;
    }
  }
  const index = y * MODULES + x;
  return ((bits[index % bits.length]! >> index % 8) & 1) === 1;
}

/** A `size` × `size` greyscale PNG of a QR-like pattern seeded by `text`, kept in its tEXt chunk under `keyword`. */
export function qrLikePng(size: number, keyword: string, text: string): Buffer {
  const bits = Buffer.concat([0, 1, 2].map((round) => createHash("sha256").update(`${round}:${text}`).digest()));
  const quiet = Math.max(1, Math.floor(size / (MODULES + 8)) * 4);
  const moduleSize = Math.max(1, Math.floor((size - 2 * quiet) / MODULES));
  const offset = Math.floor((size - moduleSize * MODULES) / 2);
  const raw = Buffer.alloc((size + 1) * size, 255);
  for (let y = 0; y < size; y++) {
    raw[y * (size + 1)] = 0; // filter: none
    const my = Math.floor((y - offset) / moduleSize);
    if (my < 0 || my >= MODULES) continue;
    for (let x = 0; x < size; x++) {
      const mx = Math.floor((x - offset) / moduleSize);
      if (mx >= 0 && mx < MODULES && darkModule(mx, my, bits)) raw[y * (size + 1) + 1 + x] = 0;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  return Buffer.concat([
    SIGNATURE,
    chunk("IHDR", header),
    chunk("tEXt", Buffer.from(`${keyword}\u0000${text}`, "latin1")),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** What a PNG says of itself: its size and its tEXt entries; null when it is not a PNG whose chunks check out. */
export function readPng(png: Buffer): { width: number; height: number; text: Record<string, string> } | null {
  if (png.length < SIGNATURE.length || !png.subarray(0, 8).equals(SIGNATURE)) return null;
  const text: Record<string, string> = {};
  let width = 0;
  let height = 0;
  const data: Buffer[] = [];
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString("latin1");
    const body = png.subarray(at + 8, at + 8 + length);
    if (at + 12 + length > png.length) return null;
    if (crc32(png.subarray(at + 4, at + 8 + length)) >>> 0 !== png.readUInt32BE(at + 8 + length)) return null;
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
    } else if (type === "tEXt") {
      const nul = body.indexOf(0);
      if (nul > 0) text[body.subarray(0, nul).toString("latin1")] = body.subarray(nul + 1).toString("latin1");
    } else if (type === "IDAT") data.push(body);
    else if (type === "IEND") {
      try {
        inflateSync(Buffer.concat(data));
      } catch {
        return null;
      }
      return { width, height, text };
    }
    at += 12 + length;
  }
  return null;
}
