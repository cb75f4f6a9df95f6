/**
 * The part of oidc-provider's API the simulator uses. Its published types (@types/oidc-provider) pull
 * in @types/express, which changes how pnpm resolves @trpc/server's optional peer and splits
 * @trpc/client into two copies for the API's tests; these few lines do instead.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export interface Interaction {
    uid: string;
    params: Record<string, unknown>;
  }

  export interface Configuration {
    adapter?: (model: string) => unknown;
    jwks?: { keys: object[] };
    cookies?: { keys: string[] };
    claims?: Record<string, string[]>;
    scopes?: string[];
    conformIdTokenClaims?: boolean;
    features?: Record<string, { enabled: boolean }>;
    pkce?: { required: () => boolean };
    ttl?: Record<string, number>;
    interactions?: { url: (ctx: unknown, interaction: Interaction) => string };
    findAccount?: (ctx: unknown, sub: string) => { accountId: string; claims: () => Record<string, unknown> } | undefined;
    renderError?: (ctx: { type: string; body: unknown }, out: { error: string; error_description?: string }) => void;
  }

  export class Grant {
    constructor(properties: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    Grant: typeof Grant;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<Interaction>;
    interactionFinished(request: IncomingMessage, response: ServerResponse, result: object, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  }
}
