// @ts-check
/**
 * One hashing process of the pool (process-pool.ts forks it): runs argon2 for the requests its parent
 * sends over IPC, one at a time, and answers each with its id. Plain JavaScript, so that it starts the
 * same from the TypeScript sources (tests) and from dist (tsc copies it).
 */
import argon2 from "argon2";

/** The parameters of new hashes, from the parent (argon2-parameters.ts), so they live in one place. */
const parameters = { ...JSON.parse(process.argv[2] ?? "{}"), type: argon2.argon2id };

/** @param {{ id: number, op: "hash" | "verify", password: string, hash?: string }} request */
async function answer(request) {
  if (request.op === "hash") return argon2.hash(request.password, parameters);
  try {
    return await argon2.verify(request.hash ?? "", request.password);
  } catch {
    return false; // a hash argon2 cannot read matches no password
  }
}

process.on("message", (/** @type {any} */ request) => {
  answer(request).then(
    (value) => process.send?.({ id: request.id, value }),
    (error) => process.send?.({ id: request.id, error: String(error?.message ?? error) }),
  );
});
// The parent is gone (or closed the pool): nothing more will come.
process.on("disconnect", () => process.exit(0));
