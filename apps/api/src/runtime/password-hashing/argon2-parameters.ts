/** OWASP Password Storage Cheat Sheet, argon2id first option (m = 19 MiB, t = 2, p = 1). */
export const argon2Parameters = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
