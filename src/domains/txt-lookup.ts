/**
 * The DNS side of domain verification: where an organization's TXT record lives, what it holds,
 * and one lookup that tells "no such record" from "the lookup failed". The resolver is a
 * dependency (Services.resolveTxt), so tests answer from memory.
 */
import { resolveTxt } from 'node:dns/promises';

/** node:dns resolveTxt: each record as the character strings it is made of. */
export type TxtResolver = (name: string) => Promise<string[][]>;

export const systemTxtResolver: TxtResolver = (name) => resolveTxt(name);

const RECORD_PREFIX = '_svc-verify.';
const VALUE_PREFIX = 'svc-verify=';
/** A lookup still unanswered after this counts as failed (a check is made while an API call waits). */
export const LOOKUP_TIMEOUT_MS = 10_000;

/** The TXT record that proves control of `domain` (a port, if any, is not part of the DNS name). */
export function txtRecord(domain: string, token: string): { type: 'TXT'; name: string; value: string } {
  return { type: 'TXT', name: txtName(domain), value: `${VALUE_PREFIX}${token}` };
}

export function txtName(domain: string): string {
  return `${RECORD_PREFIX}${domain.replace(/:\d+$/, '')}`;
}

export type TxtLookup =
  /** The tokens the records name, whoever they belong to. */
  | { kind: 'found'; tokens: string[] }
  /** The name has no TXT record (NXDOMAIN or no data): a definite answer. */
  | { kind: 'absent' }
  /** No answer to rely on (server failure, refusal, timeout). */
  | { kind: 'failed'; code: string };

/** Answers that say the record does not exist, as node:dns (and Bun's) report them. */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

export async function lookupTokens(resolve: TxtResolver, name: string, timeoutMs = LOOKUP_TIMEOUT_MS): Promise<TxtLookup> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('TXT lookup timed out'), { code: 'ETIMEOUT' })), timeoutMs);
  });
  try {
    const records = await Promise.race([resolve(name), timeout]);
    const tokens = records
      .map((chunks) => chunks.join('').trim())
      .filter((value) => value.startsWith(VALUE_PREFIX))
      .map((value) => value.slice(VALUE_PREFIX.length));
    return { kind: 'found', tokens };
  } catch (error) {
    const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'EUNKNOWN';
    return ABSENT.has(code) ? { kind: 'absent' } : { kind: 'failed', code };
  } finally {
    clearTimeout(timer);
  }
}
