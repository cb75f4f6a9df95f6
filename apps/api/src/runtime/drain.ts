/**
 * Whether this instance is draining (docs/operations.md#draining): set when a stop begins,
 * before the port closes. From then on `/readyz` answers 503, so the balancer stops sending new work, and
 * every answer carries `Connection: close`, so the balancer's kept-alive connections end with it.
 */
export interface Drain {
  readonly draining: boolean;
  begin(): void;
}

export function createDrain(): Drain {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    begin() {
      draining = true;
    },
  };
}
