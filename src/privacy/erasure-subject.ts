import ipaddr from 'ipaddr.js';
import { validationError } from '../http/errors';
import { deviceIdHash } from '../sdk/device-id';
import { canonicalIp } from '../shared/crypto/ip-hash';
import { hmacSha256Hex } from '../shared/crypto/secrets';
import { parseDay } from '../shared/timestamp';
import { MAX_IP_RANGE_DAYS, SUBJECT_KINDS, type ErasureBody, type Subject } from './erasure.model';

const DAY_MS = 86_400_000;
export const ONE_SUBJECT = `exactly one of ${SUBJECT_KINDS.join(', ')} is required`;

/**
 * The subject of a request body, checked beyond its schema: exactly one subject, a real address
 * and a day range with `ip` (and no range without it). Throws the spec's 400 otherwise.
 */
export function parseSubject(body: ErasureBody): Subject {
  const named = SUBJECT_KINDS.filter((kind) => body[kind] !== undefined);
  const fieldErrors: Record<string, string[]> = {};
  if (named.length !== 1) throw validationError({}, [ONE_SUBJECT]);
  const kind = named[0]!;
  const raw = body[kind]!.trim();
  if (raw === '') throw validationError({ [kind]: ['must not be blank'] });
  if (kind !== 'ip') {
    for (const field of ['from', 'to'] as const) if (body[field] !== undefined) fieldErrors[field] = ['only with ip'];
    if (Object.keys(fieldErrors).length > 0) throw validationError(fieldErrors);
    if (kind === 'device_id') return { kind, value: deviceIdHash(raw) };
    // Advertising ids are UUIDs that platforms spell in either case (IDFA upper, GAID lower).
    if (kind === 'advertising_id') return { kind, value: raw.toLowerCase() };
    return { kind, value: raw };
  }
  if (!ipaddr.isValid(raw)) fieldErrors.ip = ['must be an IPv4 or IPv6 address'];
  const from = body.from === undefined ? { error: 'required with ip' } : parseDay(body.from);
  const to = body.to === undefined ? { error: 'required with ip' } : parseDay(body.to);
  if ('error' in from) fieldErrors.from = [from.error];
  if ('error' in to) fieldErrors.to = [to.error];
  if ('value' in from && 'value' in to) {
    const span = (Date.parse(`${to.value}T00:00:00Z`) - Date.parse(`${from.value}T00:00:00Z`)) / DAY_MS + 1;
    if (span < 1) fieldErrors.to = ['must be on or after from'];
    else if (span > MAX_IP_RANGE_DAYS) fieldErrors.to = [`at most ${MAX_IP_RANGE_DAYS} days after from`];
  }
  if (Object.keys(fieldErrors).length > 0 || !('value' in from) || !('value' in to)) throw validationError(fieldErrors);
  return { kind, value: canonicalIp(raw), fromDay: from.value, toDay: to.value };
}

/** Every UTC day of an ip subject's range, both ends included. */
export function daysOf(subject: Extract<Subject, { kind: 'ip' }>): Date[] {
  const days: Date[] = [];
  const end = Date.parse(`${subject.toDay}T00:00:00Z`);
  for (let at = Date.parse(`${subject.fromDay}T00:00:00Z`); at <= end; at += DAY_MS) days.push(new Date(at));
  return days;
}

/**
 * The keyed hash a request is known by: the same subject in the same scope (an app, for the SDK's
 * requests) always gives the same key, and without the service secret the key gives nothing away.
 */
export function subjectKey(secret: string, subject: Subject, scopeAppId: string | null): string {
  const range = subject.kind === 'ip' ? `${subject.fromDay}|${subject.toDay}` : '';
  return hmacSha256Hex(`${secret}|svc erasure subject v1`, `${subject.kind}|${subject.value}|${range}|${scopeAppId ?? ''}`);
}
