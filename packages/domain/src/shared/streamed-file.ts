/**
 * A success answered as a file rather than the JSON envelope (docs/reports.md): its text comes in
 * chunks, made as they are sent, so a file of any size is never whole in memory. The procedure that
 * answers one declares it (`answers` in operation-meta.ts); the REST adapter streams the chunks as the
 * body, in the declared media type; over tRPC the chunks stream with a streaming link (httpBatchStreamLink).
 */
import { z } from "zod";

export interface StreamedFile {
  /** The name a download is saved under (Content-Disposition). */
  filename: string;
  /** The file's text, in order. Made lazily: nothing is read before the first chunk is asked for. */
  chunks: AsyncIterable<string>;
}

function isStreamedFile(value: unknown): value is StreamedFile {
  const file = value as Partial<StreamedFile> | null;
  return typeof file?.filename === "string" && typeof file.chunks?.[Symbol.asyncIterator] === "function";
}

/**
 * The output schema of an operation that answers a file. The document shows the file's media type instead
 * (apps/api's document.ts); the description only lets the generator pass over a schema it cannot draw.
 */
export const streamedFileOutput = z
  .custom<StreamedFile>(isStreamedFile, "a streamed file")
  .meta({ description: "A file, streamed." });
