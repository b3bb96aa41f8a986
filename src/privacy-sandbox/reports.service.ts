import type { Db } from '../db/db';
import { notFound, validationError } from '../http/errors';
import { newId, type Clock } from '../shared/ids';
import type { ReportKind } from './privacy-sandbox.model';
import { insertReport } from './privacy-sandbox.repo';

/**
 * The reporting endpoints: what browsers post is stored as received, with its kind and arrival
 * time, and tied to an organization when it names a source registered here (docs/privacy-sandbox.md,
 * "Reports").
 */

export interface ReportsDeps {
  db: Db;
  clock: Clock;
}

/** A path under debug/: lowercase words joined by `-`, such as `verbose` or `report-event-attribution`. */
const DEBUG_PATH = /^[a-z0-9-]+(\/[a-z0-9-]+)*$/;
const MAX_DEBUG_PATH = 64;
const UINT64_MAX = 2n ** 64n - 1n;

export interface ReportInput {
  kind: ReportKind;
  /** The path under debug/ of a debug report; null for the others. */
  debugPath: string | null;
  body: unknown;
}

export async function storeReport(deps: ReportsDeps, input: ReportInput): Promise<{ ok: true }> {
  if (input.debugPath !== null && !(input.debugPath.length <= MAX_DEBUG_PATH && DEBUG_PATH.test(input.debugPath))) throw notFound();
  checkReportShape(input.kind, input.body);
  await insertReport(deps.db, {
    id: newId(),
    kind: input.kind,
    debugPath: input.debugPath,
    sourceEventId: sourceEventIdOf(input.body),
    bodyJson: JSON.stringify(input.body),
    receivedAt: deps.clock(),
  });
  return { ok: true };
}

/**
 * A JSON object; on debug/ also a non-empty list of objects, the form of the API's verbose debug
 * reports. Anything else is a 400 (the reader has bounded its nesting, report-body.ts).
 */
function checkReportShape(kind: ReportKind, body: unknown): void {
  const listAllowed = kind === 'debug';
  const shaped = isObject(body) || (listAllowed && Array.isArray(body) && body.length > 0 && body.every(isObject));
  if (!shaped) throw validationError({}, [listAllowed ? 'must be a JSON object or a non-empty list of objects' : 'must be a JSON object']);
}

/**
 * The source a report names: `source_event_id` at the top (event-level reports), or in a verbose
 * debug report's `body`, the first one found in a list. Null when none is a uint64.
 */
export function sourceEventIdOf(body: unknown): string | null {
  const reports = Array.isArray(body) ? body : [body];
  for (const report of reports) {
    if (!isObject(report)) continue;
    const inner = isObject(report.body) ? report.body.source_event_id : undefined;
    const id = uint64Text(report.source_event_id) ?? uint64Text(inner);
    if (id !== null) return id;
  }
  return null;
}

/** A uint64 in its canonical decimal form, from the API's string (or a plain JSON integer). */
function uint64Text(value: unknown): string | null {
  let parsed: bigint;
  if (typeof value === 'string' && /^[0-9]{1,20}$/.test(value)) parsed = BigInt(value);
  else if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) parsed = BigInt(value);
  else return null;
  return parsed <= UINT64_MAX ? parsed.toString() : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
