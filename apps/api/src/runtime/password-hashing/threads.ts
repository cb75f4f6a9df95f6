import type { PasswordHashing } from "@mteja/domain";
import argon2 from "argon2";
import { argon2Parameters } from "./argon2-parameters.js";

const parameters = { ...argon2Parameters, type: argon2.argon2id } as const;

/** argon2id on libuv's thread pool, in the service's own process: its threads compete with the event loop for the cores. */
export function createThreadHashing(): PasswordHashing {
  return {
    hash: (password) => argon2.hash(password, parameters),
    verify: async (hash, password) => {
      try {
        return await argon2.verify(hash, password);
      } catch {
        return false; // a hash argon2 cannot read matches no password
      }
    },
  };
}
