import type { Server } from 'bun';
import { pathOf } from './http.plugin';

/**
 * Routes served by Bun's own router (Bun.serve `routes`), and the same routing in process for
 * requests that reach a node without passing that router: those a tracking listener thread
 * forwards, paths Bun matches only after normalising them, and the tests' in-process requests.
 */

/** What a native handler reads of its server: the socket's peer. */
export type PeerSource = Pick<Server<undefined>, 'requestIP'>;

type Answer = Response | Promise<Response>;

/** The form of Bun route this project uses: a handler per method, `:name` path segments. */
export type NativeRoutes = Record<string, { GET?(request: Request & { params: Record<string, string> }, server: PeerSource): Answer }>;

/** Every method a native route answers, as the 405 logic lists routes (Bun answers HEAD with GET). */
export function declaredRoutes(routes: NativeRoutes): { method: string; path: string }[] {
  return Object.entries(routes).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method, path })));
}

interface CompiledRoute {
  segments: { literal?: string; param?: string }[];
  methods: NativeRoutes[string];
}

function compile(routes: NativeRoutes): CompiledRoute[] {
  return Object.entries(routes).map(([path, methods]) => ({
    methods,
    segments: path
      .split('/')
      .slice(1)
      .map((segment) => {
        if (segment.includes('*')) throw new Error(`native routes: wildcard paths are not routed in process: ${path}`);
        return segment.startsWith(':') ? { param: segment.slice(1) } : { literal: segment };
      }),
  }));
}

/**
 * Routes `request` as Bun's router would: on the raw path, segment by segment (case-sensitive,
 * no trailing slash, a parameter never empty), HEAD to GET, parameters decoded (decodeParam);
 * what no route takes goes to `fallback`. `server` is what the handler's requestIP() asks.
 */
export function routeInProcess(routes: NativeRoutes, fallback: (request: Request) => Answer, server: () => PeerSource) {
  const compiled = compile(routes);
  return (request: Request): Answer => {
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (method !== 'GET') return fallback(request);
    const parts = pathOf(request.url).split('/').slice(1);
    for (const route of compiled) {
      const handler = route.methods.GET;
      if (!handler || route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const matched = route.segments.every((segment, i) => {
        const part = parts[i]!;
        if (segment.param === undefined) return part === segment.literal;
        if (part === '') return false;
        params[segment.param] = decodeParam(part);
        return true;
      });
      if (matched) return handler(Object.assign(request, { params }), server());
    }
    return fallback(request);
  };
}

const HEX_PAIR = /^[0-9a-fA-F]{2}$/;

/**
 * A path parameter as Bun decodes it: percent escapes as UTF-8; a malformed escape ('%' and two
 * characters that are not hex, or a '%' too near the end) and each ill-formed UTF-8 sequence
 * (a stray byte, a truncated, overlong or surrogate sequence) become one U+FFFD.
 */
export function decodeParam(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return decodeLeniently(raw);
  }
}

function decodeLeniently(raw: string): string {
  const MALFORMED = -1;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < raw.length; ) {
    if (raw[i] === '%') {
      if (i + 2 < raw.length) {
        const pair = raw.slice(i + 1, i + 3);
        bytes.push(HEX_PAIR.test(pair) ? parseInt(pair, 16) : MALFORMED);
        i += 3;
      } else {
        bytes.push(MALFORMED);
        i += 1;
      }
      continue;
    }
    const character = String.fromCodePoint(raw.codePointAt(i)!);
    bytes.push(...encoder.encode(character));
    i += character.length;
  }
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    if (lead >= 0 && lead < 0x80) {
      out += String.fromCharCode(lead);
      i++;
      continue;
    }
    const length = lead >= 0xc0 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf7 ? 4 : 0;
    if (length === 0) {
      out += '\uFFFD';
      i++;
      continue;
    }
    let codePoint = lead & (0xff >> (length + 1));
    let end = i + 1;
    while (end < i + length && end < bytes.length && bytes[end]! >= 0 && (bytes[end]! & 0xc0) === 0x80) {
      codePoint = (codePoint << 6) | (bytes[end]! & 0x3f);
      end++;
    }
    const shortest = [0, 0, 0x80, 0x800, 0x10000][length]!;
    const wellFormed = end - i === length && codePoint >= shortest && codePoint <= 0x10ffff && !(codePoint >= 0xd800 && codePoint <= 0xdfff);
    out += wellFormed ? String.fromCodePoint(codePoint) : '\uFFFD';
    i = end;
  }
  return out;
}
