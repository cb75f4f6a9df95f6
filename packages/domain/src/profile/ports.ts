/** What the profile area needs from the composition root: auth's (it confirms changes and ends sessions through auth). */
import type { AuthedCtx as AuthedCtxOf } from "../shared/request-context.js";
import type { AuthPorts } from "../auth/ports.js";

export type ProfilePorts = AuthPorts;

export type AuthedCtx = AuthedCtxOf<ProfilePorts>;
