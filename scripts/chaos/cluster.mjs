// A throw-away PostgreSQL cluster: Debian's initdb and pg_ctl, its data in the run's directory, on a free
// loopback port with its socket in that directory too, so the machine's own database is never touched.
// initdb refuses to run as root: as root the cluster belongs to the `postgres` system user (runuser).
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The newest /usr/lib/postgresql/<version>/bin with initdb, or undefined. */
export function postgresBinaries(root = "/usr/lib/postgresql") {
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(path.join(root, name, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], "bin") : undefined;
}

/** The uid and gid of a system user, from /etc/passwd. */
function systemUser(name) {
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((entry) => entry.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(":");
  return { name, uid: Number(uid), gid: Number(gid) };
}

export async function createCluster({ dir, port, bin = postgresBinaries() }) {
  if (!bin) throw new Error("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)");
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? systemUser("postgres") : undefined;
  if (asRoot && !owner) throw new Error("running as root, and there is no `postgres` user to own the throw-away cluster");
  const data = path.join(dir, "data");
  const socket = path.join(dir, "socket");
  const log = path.join(dir, "postgres.log");
  mkdirSync(socket, { recursive: true });
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(socket, owner.uid, owner.gid);
  }
  const asOwner = (tool, args) =>
    owner ? run("runuser", ["-u", owner.name, "--", path.join(bin, tool), ...args]) : run(path.join(bin, tool), args);

  await asOwner("initdb", ["-D", data, "-U", "mteja", "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"]);
  const options = `-p ${port} -k ${socket} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  const url = `postgres://mteja@127.0.0.1:${port}/mteja`;

  const cluster = {
    url,
    log,
    bin,
    async start() {
      await asOwner("pg_ctl", ["-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start"]);
    },
    /** A fast stop: sessions are ended, as in a restart or a failover. */
    async stop(mode = "fast") {
      await asOwner("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
    },
    /** The postmaster's pid while it runs (its first line of postmaster.pid). */
    pid() {
      try {
        return Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
      } catch {
        return undefined;
      }
    },
    /** One statement's rows as JSON (`SELECT json_agg(…)`, or any single JSON value), through psql. */
    async json(sql) {
      const { stdout } = await run(path.join(bin, "psql"), ["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql], {
        maxBuffer: 64 * 1024 * 1024,
      });
      const text = stdout.trim();
      return text ? JSON.parse(text) : null;
    },
  };
  await cluster.start();
  await run(path.join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "mteja", "mteja"]);
  return cluster;
}
