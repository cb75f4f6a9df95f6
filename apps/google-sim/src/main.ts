import { googleSimulatorDefaults } from "./defaults.js";
import { buildGoogleSimulator } from "./server.js";

/** `npm run google-sim`: the simulator alone, with the dev client for a service on GOOGLE_SIM_SERVICE_URL. */
async function main(): Promise<void> {
  const env = process.env;
  const sim = buildGoogleSimulator({ logger: (line) => console.log(line) });
  const issuer = await sim.listen({ host: env.GOOGLE_SIM_HOST ?? "127.0.0.1", port: Number(env.GOOGLE_SIM_PORT ?? googleSimulatorDefaults.port) });
  const service = env.GOOGLE_SIM_SERVICE_URL ?? "http://localhost:3000";
  await sim.addClient({
    clientId: googleSimulatorDefaults.clientId,
    clientSecret: googleSimulatorDefaults.clientSecret,
    redirectUris: [`${service}/api/v1/auth/oidc/google/callback`],
  });
  console.log(`Google simulator: OIDC_GOOGLE_ISSUER=${issuer}`);
  const close = () => {
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", close);
  process.once("SIGTERM", close);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
