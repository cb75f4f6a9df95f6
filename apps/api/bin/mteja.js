#!/usr/bin/env node
// The `mteja` command (src/cli/main.ts, built to dist/). A file of its own that exists before the build,
// so a fresh install links the workspace's `mteja` bin without a warning.
await import("../dist/cli/main.js");
