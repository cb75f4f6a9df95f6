import { mkdir, open, readFile, rm } from "node:fs/promises";
import path from "node:path";

export interface EmbeddedDirectory {
  pgdataPath: string;
  release(): Promise<void>;
}

/**
 * Claims the embedded database directory for this process. PGlite is single-process: a second
 * process opening the same files would corrupt them, so a pid lock file guards it (a lock left by
 * a process that no longer exists, e.g. after kill -9, is taken over).
 */
export async function openEmbeddedDirectory(dataDir: string): Promise<EmbeddedDirectory> {
  const root = path.resolve(dataDir);
  await mkdir(root, { recursive: true, mode: 0o700 });
  const lockPath = path.join(root, "mteja.lock");
  await claimLock(lockPath);
  return {
    pgdataPath: path.join(root, "pgdata"),
    release: () => rm(lockPath, { force: true }),
  };
}

async function claimLock(lockPath: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, "wx", 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number((await readFile(lockPath, "utf8").catch(() => "")).trim());
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `The embedded database in ${path.dirname(lockPath)} is in use by process ${owner}. ` +
            "Stop it, or set DATA_DIR to another directory, or DATABASE_URL to use PostgreSQL.",
        );
      }
      await rm(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock ${lockPath}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
