/** What the data-rights area needs from the composition root: auth's (it confirms the owner and ends sessions through auth). */
import type { AuthedCtx as AuthedCtxOf, TenantCtx as TenantCtxOf } from "../shared/request-context.js";
import type { AuthPorts } from "../auth/ports.js";

export type DataRightsPorts = AuthPorts;

export type TenantCtx = TenantCtxOf<DataRightsPorts>;
export type AuthedCtx = AuthedCtxOf<DataRightsPorts>;
