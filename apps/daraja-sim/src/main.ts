import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { createSimulatorKeyFiles } from "./key-files.js";
import { simulatorSettingsFromEnv } from "./env.js";
import { buildDarajaSimulator } from "./server.js";

async function main(): Promise<void> {
  const settings = simulatorSettingsFromEnv(process.env);
  if (settings.publicKeyPath) {
    const pair = createSimulatorKeyFiles({
      publicKeyPath: settings.publicKeyPath,
      ...(settings.privateKeyPath ? { privateKeyPath: settings.privateKeyPath } : {}),
    });
    settings.options.privateKey = createPrivateKey(pair.privateKeyPem);
  } else if (settings.privateKeyPath) {
    settings.options.privateKey = createPrivateKey(readFileSync(settings.privateKeyPath, "utf8"));
  }

  const app = buildDarajaSimulator(settings.options);
  const close = () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", close);
  process.once("SIGTERM", close);
  await app.listen({ port: settings.port, host: settings.host });
  if (settings.publicKeyPath) app.log.info({ publicKeyPath: settings.publicKeyPath }, "B2C SecurityCredential is checked; encrypt with this public key");
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
