import type { Db } from '../../src/db/db';
import type { LinkChanges } from '../../src/tracking/redirect/link-cache/link-changes';
import { newId } from '../../src/shared/ids';

/**
 * Records every link id delivered to this node's subscribers: once locally when published,
 * and once more when the NOTIFY comes back from the database. `settle()` publishes a marker and
 * waits for its echo; notifications arrive in order, so every earlier one has arrived by then.
 */
export function recordPublishes(linkChanges: LinkChanges) {
  const seen: string[] = [];
  const markers = new Map<string, { count: number; done: () => void }>();
  const unsubscribe = linkChanges.subscribe((id) => {
    const marker = markers.get(id);
    if (marker) {
      if (++marker.count === 2) marker.done();
      return;
    }
    seen.push(id);
  });
  return {
    seen,
    async settle(): Promise<void> {
      const id = `marker-${newId()}`;
      const echoed = new Promise<void>((done) => markers.set(id, { count: 0, done }));
      await linkChanges.publish(id);
      await echoed;
      markers.delete(id);
    },
    /** Settles, then forgets everything seen so far. */
    async reset(): Promise<void> {
      await this.settle();
      seen.length = 0;
    },
    stop: unsubscribe,
  };
}

export async function auditRows(db: Db, keyId: string) {
  return db.query<{ action: string; entity: string; entity_id: string; api_key_id: string; org_id: string }>(
    'SELECT action, entity, entity_id, api_key_id, org_id FROM audit_log WHERE api_key_id = $1 ORDER BY created_at, id',
    [keyId],
  );
}

/** Every management row of an organization, to prove a rejected request changed nothing. */
export async function orgSnapshot(db: Db, orgId: string) {
  const [apps, campaigns, links, audit] = await Promise.all([
    db.query('SELECT * FROM apps WHERE org_id = $1 ORDER BY id', [orgId]),
    db.query('SELECT * FROM campaigns WHERE org_id = $1 ORDER BY id', [orgId]),
    db.query('SELECT * FROM links WHERE org_id = $1 ORDER BY id', [orgId]),
    db.query('SELECT * FROM audit_log WHERE org_id = $1 ORDER BY id', [orgId]),
  ]);
  return { apps, campaigns, links, audit };
}

/** A link's stored row, as the database holds it. */
export async function storedLink(db: Db, id: string): Promise<Record<string, unknown> | undefined> {
  return (await db.query<Record<string, unknown>>('SELECT * FROM links WHERE id = $1', [id]))[0];
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
