/**
 * @simplewebauthn/server, loaded by the first passkey ceremony rather than at start: with the ASN.1
 * parsers it brings for attestation certificates it was a quarter of the files a start loaded (299 of
 * 1,261; 0.2 s of each `mteja` command, 25 MiB of a process). The module system keeps it once loaded;
 * the first ceremony of a process waits for it (0.34 s here), the event loop at most 66 ms at a time.
 */
export const webauthn = () => import("@simplewebauthn/server");

/** Its helpers (the client data's decoding), likewise. */
export const webauthnHelpers = () => import("@simplewebauthn/server/helpers");
