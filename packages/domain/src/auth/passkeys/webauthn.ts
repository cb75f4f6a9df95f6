/**
 * @simplewebauthn/server, loaded by the first passkey ceremony rather than at start: with the ASN.1
 * parsers it brings for attestation certificates it is about a third of the modules a start loads
 * (0.4 s of every start of the service and of each `mteja` command). The module system keeps it once loaded.
 */
export const webauthn = () => import("@simplewebauthn/server");

/** Its helpers (the client data's decoding), likewise. */
export const webauthnHelpers = () => import("@simplewebauthn/server/helpers");
