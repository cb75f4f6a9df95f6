import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { generateSimulatorKeyPair, publicKeyPemFor, type SimulatorKeyPair } from "@mteja/simulated-daraja";

export interface SimulatorKeyFiles {
  /** Loaded if it exists; otherwise a new key is generated and written there. Omit to keep it in memory. */
  privateKeyPath?: string;
  /** Where the public key PEM is written for clients. */
  publicKeyPath: string;
}

/** Loads or creates the simulator's RSA key and writes its public key PEM for clients to encrypt with. */
export function createSimulatorKeyFiles(files: SimulatorKeyFiles): SimulatorKeyPair {
  let pair: SimulatorKeyPair;
  if (files.privateKeyPath && existsSync(files.privateKeyPath)) {
    const privateKeyPem = readFileSync(files.privateKeyPath, "utf8");
    pair = { privateKeyPem, publicKeyPem: publicKeyPemFor(privateKeyPem) };
  } else {
    pair = generateSimulatorKeyPair();
    if (files.privateKeyPath) {
      mkdirSync(dirname(files.privateKeyPath), { recursive: true });
      writeFileSync(files.privateKeyPath, pair.privateKeyPem, { mode: 0o600 });
    }
  }
  mkdirSync(dirname(files.publicKeyPath), { recursive: true });
  writeFileSync(files.publicKeyPath, pair.publicKeyPem);
  return pair;
}
