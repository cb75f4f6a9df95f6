/**
 * oidc-provider's storage for one simulator: a map per model in this instance (the library's own
 * memory adapter keeps one map for the whole process). Clients are added by the simulator's owner.
 */
type Payload = Record<string, unknown> & { uid?: string; userCode?: string; grantId?: string; consumed?: number };

interface Entry {
  payload: Payload;
  expiresAt: number | undefined;
}

export interface SimAdapter {
  upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Payload | undefined>;
  findByUid(uid: string): Promise<Payload | undefined>;
  findByUserCode(userCode: string): Promise<Payload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

export function createSimStore(now: () => number = Date.now): { adapter(model: string): SimAdapter } {
  const models = new Map<string, Map<string, Entry>>();
  const modelMap = (model: string) => {
    let map = models.get(model);
    if (!map) models.set(model, (map = new Map()));
    return map;
  };
  const live = (entry: Entry | undefined) => (entry && (entry.expiresAt === undefined || entry.expiresAt > now()) ? entry.payload : undefined);
  return {
    adapter(model) {
      const entries = modelMap(model);
      const findWhere = (test: (payload: Payload) => boolean) => {
        for (const entry of entries.values()) if (test(entry.payload)) return live(entry);
        return undefined;
      };
      return {
        async upsert(id, payload, expiresIn) {
          entries.set(id, { payload, expiresAt: expiresIn === undefined ? undefined : now() + expiresIn * 1000 });
        },
        async find(id) {
          return live(entries.get(id));
        },
        async findByUid(uid) {
          return findWhere((payload) => payload.uid === uid);
        },
        async findByUserCode(userCode) {
          return findWhere((payload) => payload.userCode === userCode);
        },
        async consume(id) {
          const entry = entries.get(id);
          if (entry) entry.payload.consumed = Math.floor(now() / 1000);
        },
        async destroy(id) {
          entries.delete(id);
        },
        async revokeByGrantId(grantId) {
          for (const map of models.values()) {
            for (const [id, entry] of map) if (entry.payload.grantId === grantId) map.delete(id);
          }
        },
      };
    },
  };
}
