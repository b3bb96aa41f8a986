import type { Queryable } from '../db/db';
import type { ReportKind } from './privacy-sandbox.model';

/** SQL of the Privacy Sandbox endpoints: campaigns as a source sees them, sources, reports. */

export interface SourceCampaignRow {
  id: string;
  org_id: string;
  /** The store (or web) URL of the campaign's app, if it has one. */
  app_url: string | null;
  /** Destinations of the campaign's active links, newest first. */
  link_destinations: string[];
}

/** How many of a campaign's newest links are tried for a usable destination. */
const LINK_DESTINATIONS_TRIED = 10;

export async function findSourceCampaign(db: Queryable, campaignId: string): Promise<SourceCampaignRow | null> {
  const rows = await db.query<SourceCampaignRow>(
    `SELECT c.id, c.org_id, a.store_url AS app_url,
       COALESCE((SELECT json_agg(newest.destination) FROM (
         SELECT l.destination FROM links l
         WHERE l.campaign_id = c.id AND l.org_id = c.org_id AND l.status = 'active' AND l.destination IS NOT NULL
         ORDER BY l.created_at DESC, l.id DESC LIMIT $2) newest), '[]'::json) AS link_destinations
     FROM campaigns c LEFT JOIN apps a ON a.id = c.app_id AND a.org_id = c.org_id
     WHERE c.id = $1`,
    [campaignId, LINK_DESTINATIONS_TRIED],
  );
  return rows[0] ?? null;
}

export interface SourceRow {
  sourceEventId: string;
  orgId: string;
  linkId: string | null;
  campaignId: string | null;
  destination: string;
  createdAt: Date;
}

/** False when the id is taken (the caller draws another); ids are never reused. */
export async function insertSource(db: Queryable, row: SourceRow): Promise<boolean> {
  const inserted = await db.query(
    `INSERT INTO ara_sources (source_event_id, org_id, link_id, campaign_id, destination, created_at)
     VALUES ($1::numeric, $2, $3, $4, $5, $6)
     ON CONFLICT (source_event_id) DO NOTHING RETURNING 1`,
    [row.sourceEventId, row.orgId, row.linkId, row.campaignId, row.destination, row.createdAt],
  );
  return inserted.length === 1;
}

export interface ReportRow {
  id: string;
  kind: ReportKind;
  debugPath: string | null;
  sourceEventId: string | null;
  /** The report as received, already serialised. */
  bodyJson: string;
  receivedAt: Date;
}

/** Stores a report, tied to the organization of the source it names when this service registered it. */
export async function insertReport(db: Queryable, row: ReportRow): Promise<{ org_id: string | null }> {
  const rows = await db.query<{ org_id: string | null }>(
    `INSERT INTO ara_reports (id, kind, debug_path, org_id, source_event_id, body, received_at)
     VALUES ($1, $2, $3, (SELECT org_id FROM ara_sources WHERE source_event_id = $4::numeric), $4::numeric, $5::jsonb, $6)
     RETURNING org_id`,
    [row.id, row.kind, row.debugPath, row.sourceEventId, row.bodyJson, row.receivedAt],
  );
  return rows[0]!;
}
