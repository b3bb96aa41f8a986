import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The shipped lists of hosting and mobile-carrier ASNs (asn-types/*.json), built by
 * scripts/refresh-asn-types.ts (docs/ip-intelligence.md, "IP type"). An address is `datacenter`
 * when its ASN is on the datacenter list, `mobile` when on the mobile list, else `residential`.
 */
export type IpType = 'residential' | 'mobile' | 'datacenter';
export type ListedType = Exclude<IpType, 'residential'>;
export const LISTED_TYPES: readonly ListedType[] = ['datacenter', 'mobile'];

export interface AsnTypeFile {
  /** Where the list came from: the download URL and/or the offline classifier with its data version. */
  source: string;
  updated_at: string;
  /** Sorted, unique. */
  asns: number[];
}

export class AsnTypeFileError extends Error {}

export const ASN_TYPES_DIR = join(import.meta.dir, 'asn-types');
export const asnTypeFileName = (type: ListedType) => `${type}.json`;

const MAX_ASN = 0xffff_ffff;

/** Validates one list; throws AsnTypeFileError naming the first bad entry. */
export function parseAsnTypeFile(document: unknown, where: string): AsnTypeFile {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new AsnTypeFileError(`${where}: not a JSON object`);
  const { source, updated_at: updatedAt, asns } = document as Record<string, unknown>;
  if (typeof source !== 'string' || source.trim() === '') throw new AsnTypeFileError(`${where}: "source" must be a non-empty string`);
  if (typeof updatedAt !== 'string' || Number.isNaN(Date.parse(updatedAt))) throw new AsnTypeFileError(`${where}: "updated_at" must be a date`);
  if (!Array.isArray(asns) || asns.length === 0) throw new AsnTypeFileError(`${where}: "asns" must be a non-empty array`);
  asns.forEach((asn, index) => {
    if (!Number.isInteger(asn) || (asn as number) < 1 || (asn as number) > MAX_ASN) throw new AsnTypeFileError(`${where}: asns[${index}] is not an AS number`);
  });
  return { source, updated_at: updatedAt, asns: sortedUnique(asns as number[]) };
}

export function sortedUnique(asns: Iterable<number>): number[] {
  return [...new Set(asns)].sort((a, b) => a - b);
}

/** Ten numbers to a line, so a refresh reads well as a diff. */
export function serializeAsnTypeFile(file: AsnTypeFile): string {
  const lines: string[] = [];
  for (let at = 0; at < file.asns.length; at += 10) lines.push(`    ${file.asns.slice(at, at + 10).join(', ')}`);
  return `{\n  "source": ${JSON.stringify(file.source)},\n  "updated_at": ${JSON.stringify(file.updated_at)},\n  "asns": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

export function readAsnTypeFile(type: ListedType, dir = ASN_TYPES_DIR): AsnTypeFile {
  const path = join(dir, asnTypeFileName(type));
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new AsnTypeFileError(`${path}: ${(error as Error).message}`);
  }
  return parseAsnTypeFile(document, path);
}

export interface AsnTypes {
  /** The type of an address whose AS is `asn`; an ASN on both lists is a datacenter. */
  typeOf(asn: number): IpType;
}

const loaded = new Map<string, AsnTypes>();

/** Both lists of `dir`, read once per process: a refresh reaches servers when they restart. */
export function loadAsnTypes(dir = ASN_TYPES_DIR): AsnTypes {
  let types = loaded.get(dir);
  if (!types) {
    const datacenter = new Set(readAsnTypeFile('datacenter', dir).asns);
    const mobile = new Set(readAsnTypeFile('mobile', dir).asns);
    types = { typeOf: (asn) => (datacenter.has(asn) ? 'datacenter' : mobile.has(asn) ? 'mobile' : 'residential') };
    loaded.set(dir, types);
  }
  return types;
}
