#!/usr/bin/env node
// Part of this package's build, after tsc: the migrated empty database a new DATA_DIR starts from
// (dist/embedded-image.tar.gz and its stamp; src/embedded-files.ts).
import { writeEmbeddedImage } from "../dist/embedded-files.js";

await writeEmbeddedImage();
