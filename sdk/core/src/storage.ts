/**
 * The synchronous key-value storage the SDK reads and writes: localStorage in a page, an
 * in-memory copy of AsyncStorage written through in React Native, a Map in tests.
 */
export interface KeyValue {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** JSON values under one namespace. */
export interface Store {
  get<T>(name: string): T | undefined;
  set(name: string, value: unknown): void;
  remove(name: string): void;
}

/**
 * Values under `namespace` in `backing`, read back from it every time so tabs of one origin see
 * each other's writes. Without storage (blocked, private mode, quota) values live in memory
 * for the session, so the SDK keeps working, only without persistence.
 */
export function createStore(backing: KeyValue | null, namespace: string): Store {
  const memory = new Map<string, string>();
  // A value is in memory only when writing it to the backing failed, so memory comes first.
  const read = (key: string): string | null => {
    const held = memory.get(key);
    if (held !== undefined || !backing) return held ?? null;
    try {
      return backing.getItem(key);
    } catch {
      return null;
    }
  };
  return {
    get<T>(name: string): T | undefined {
      const raw = read(namespace + name);
      if (raw === null) return undefined;
      try {
        return JSON.parse(raw) as T;
      } catch {
        return undefined;
      }
    },
    set(name, value) {
      const key = namespace + name;
      const raw = JSON.stringify(value);
      try {
        if (backing) {
          backing.setItem(key, raw);
          memory.delete(key);
          return;
        }
      } catch {}
      memory.set(key, raw);
    },
    remove(name) {
      const key = namespace + name;
      memory.delete(key);
      try {
        backing?.removeItem(key);
      } catch {}
    },
  };
}

/** The namespace of one app's SDK data (one SDK key) in its storage. */
export function storeNamespace(sdkKey: string): string {
  return `svc_sdk:${sdkKey}:`;
}
