#!/usr/bin/env node
// The README's commands. Needs only Node 20 and npm: pnpm is installed into .tools/ on first use,
// then dependencies are installed, the Prisma client generated and the packages built as needed.
//
//   node scripts/run.mjs start   build, then run the service (embedded database + Daraja simulator by default)
//   node scripts/run.mjs test    every test (vitest), embedded database and PostgreSQL
//   node scripts/run.mjs bench   the benchmarks in bench/ (bench/all.mjs: --quick, --only <parts>, --large)
//   node scripts/run.mjs build   install and build the service (what a production host runs: apps/api/dist/main.js)
//   node scripts/run.mjs client-pack   build @mteja/client and pack it into the folder npm was run from
//   node scripts/run.mjs daraja-sim    the Daraja simulator on its own (SIM_PORT, default 4010)
//   node scripts/run.mjs sms-sim       the SMS simulator on its own (SMS_SIM_PORT)
//   node scripts/run.mjs google-sim    the Google simulator (an OpenID provider) on its own (GOOGLE_SIM_PORT, default 4030)
//   node scripts/run.mjs chaos         two instances through a crash, a database restart and a rolling deploy (scripts/chaos)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pnpmVersion = "10.34.9";
const toolsDir = path.join(root, ".tools");
const toolsBin = path.join(toolsDir, "node_modules", ".bin");
const env = {
  ...process.env,
  PATH: `${toolsBin}${path.delimiter}${path.join(root, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`,
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
  npm_config_update_notifier: "false",
};

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env, ...options });
  if (result.status !== 0) {
    console.error(`\n✖ ${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

function step(title) {
  console.log(`\n▸ ${title}`);
}

function ensurePnpm() {
  if (existsSync(path.join(toolsBin, "pnpm"))) return;
  step(`installing pnpm ${pnpmVersion} into .tools/`);
  run("npm", ["install", "--prefix", toolsDir, "--no-audit", "--no-fund", "--loglevel=error", `pnpm@${pnpmVersion}`]);
}

function install() {
  step("installing dependencies (pnpm install)");
  run("pnpm", ["install", "--frozen-lockfile", "--prefer-offline", "--reporter=append-only"]);
  // argon2's prebuilt binary crashes on some machines; the install builds it from source. Check it loads.
  run("node", ["-e", "require('argon2')"], { cwd: path.join(root, "apps", "api") });
}

function build() {
  step("generating the Prisma client and building the packages");
  run("pnpm", ["exec", "turbo", "run", "build", "--filter=@mteja/api...", "--output-logs=errors-only"]);
}

/** The plain closing line CI reads, counting failures outside tests too (scripts/test-summary.mjs). */
async function printSummary(reportPath, exitCode) {
  const { summarize } = await import("./test-summary.mjs");
  let report;
  try {
    report = JSON.parse(readFileSync(reportPath, "utf8"));
  } catch {
    report = undefined;
  }
  const summary = summarize(report, exitCode);
  console.log("");
  for (const line of summary.lines) console.log(line);
  return summary;
}

function forward(child) {
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
}

const command = process.argv[2];
ensurePnpm();
install();

switch (command) {
  case "start": {
    build();
    step("starting Mteja");
    // The only start that is not production (the service's default). Outside production the service
    // listens on 127.0.0.1 unless HOST is set, and without ADMIN_API_KEY it takes a known admin key
    // that answers loopback connections only (it prints it at start).
    const devEnv = { ...env, MTEJA_DEV_START: "1", NODE_ENV: env.NODE_ENV || "development" };
    // The verification and reset mails link to APP_URL/verify-email and /reset-password: the demo serves both (not in production).
    // PUBLIC_URL (the OpenAPI document's server) falls back to APP_URL: keep it on the origin itself.
    if (!env.APP_URL && env.NODE_ENV !== "production") {
      devEnv.APP_URL = `http://localhost:${env.PORT ?? 3000}/demo`;
      devEnv.PUBLIC_URL ??= `http://localhost:${env.PORT ?? 3000}`;
    }
    forward(spawn("node", ["apps/api/dist/main.js"], { cwd: root, stdio: "inherit", env: devEnv }));
    break;
  }
  case "test": {
    // Built too: tests start the built service as a real process (kill -9, SIGTERM).
    build();
    step("running every test (vitest: unit, embedded database, PostgreSQL)");
    const report = path.join(root, "node_modules", ".cache", "vitest-report.json");
    rmSync(report, { force: true });
    const result = spawnSync("pnpm", ["exec", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(3)], { cwd: root, stdio: "inherit", env });
    const summary = await printSummary(report, result.status ?? 1);
    process.exit(summary.failed > 0 ? 1 : (result.status ?? 1));
  }
  case "bench": {
    build();
    step("running the benchmarks");
    run("node", ["bench/all.mjs", ...process.argv.slice(3)]);
    break;
  }
  case "build": {
    build();
    break;
  }
  case "client-pack": {
    step("building and packing @mteja/client");
    run("pnpm", ["exec", "turbo", "run", "build", "--filter=@mteja/client", "--output-logs=errors-only"]);
    // npm sets INIT_CWD to the folder `npm run` was typed in: the tarball lands there.
    const destination = env.INIT_CWD || root;
    run("pnpm", ["pack", "--pack-destination", destination], { cwd: path.join(root, "packages", "client") });
    break;
  }
  case "daraja-sim":
  case "sms-sim":
  case "google-sim": {
    const name = `@mteja/${command}`;
    step(`building and starting ${name}`);
    run("pnpm", ["exec", "turbo", "run", "build", `--filter=${name}...`, "--output-logs=errors-only"]);
    forward(spawn("pnpm", ["--filter", name, "start"], { cwd: root, stdio: "inherit", env }));
    break;
  }
  case "chaos": {
    // The production entry of apps/api and the HTTP Daraja simulator, both built by build().
    build();
    step("the chaos run: two instances behind a balancer, a crash, a database restart, a rolling deploy");
    forward(spawn("node", ["scripts/chaos/main.mjs", ...process.argv.slice(3)], { cwd: root, stdio: "inherit", env }));
    break;
  }
  default:
    console.error("usage: node scripts/run.mjs start|test|bench|build|client-pack|daraja-sim|sms-sim|google-sim|chaos");
    process.exit(2);
}
