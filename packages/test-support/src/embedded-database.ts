/**
 * Embedded test databases, each a copy of one migrated image made once per worker, on first use: a copy
 * saves each database PGlite's initdb and the migrations (two thirds of opening one).
 */
import { createEmbeddedImage, openDatabase, type Database, type EmbeddedImage } from "@mteja/db";

let embeddedImage: Promise<EmbeddedImage> | undefined;

/** A new in-memory embedded database with every migration applied. */
export async function openEmbeddedTestDatabase(): Promise<Database> {
  embeddedImage ??= createEmbeddedImage();
  return openDatabase({ embeddedImage: await embeddedImage });
}
