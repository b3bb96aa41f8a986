import { afterAll } from 'bun:test';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import type { Db } from '../../src/db/db';
import type { Clock } from '../../src/shared/ids';
import { createUninstallChecker, DEFAULT_CHECKER_OPTIONS, HOUR_MS, type UninstallCheckerOptions } from '../../src/uninstalls/checker';
import type { PushClient } from '../../src/uninstalls/push.model';
import { pushClientsFor } from '../../src/uninstalls/uninstalls.boot';
import { body, type TestApp } from '../support/app';
import { onBeforeClose } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { hashedDeviceId, sdkApp } from '../support/sdk-fixtures';
import { tempDir } from '../support/temp-dir';
import { installIdOf, sdkCall } from '../sdk/support';

const TLS_DIR = join(import.meta.dir, 'tls');
export const TEST_CA_PATH = join(TLS_DIR, 'ca.pem');
export const APNS_KEY_ID = 'KEY1234567';
export const APNS_TEAM_ID = 'TEAM123456';

/** An APNs `.p8` key written to a temporary file, with the public half the fake checks JWTs with. */
export function apnsKey(): { path: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const path = join(tempDir('apns-key'), 'AuthKey.p8');
  writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  return { path, publicKey };
}

export interface TestServiceAccount {
  path: string;
  publicKey: KeyObject;
  projectId: string;
  clientEmail: string;
}

/** A Google service-account key file as Google issues it, with a fresh RSA key. */
export function serviceAccount(projectId = 'svc-test-project'): TestServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = `uninstalls@${projectId}.iam.gserviceaccount.com`;
  const path = join(tempDir('fcm-credentials'), 'service-account.json');
  writeFileSync(
    path,
    JSON.stringify({
      type: 'service_account',
      project_id: projectId,
      private_key_id: 'key-1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: clientEmail,
      token_uri: 'https://oauth2.googleapis.com/token',
    }),
  );
  return { path, publicKey, projectId, clientEmail };
}

/** What a fake answers one push: a status, a body and headers (after `delayMs`), or 'hang' to never answer. */
export type FakeAnswer = { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number } | 'hang';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * APNs as Apple runs it, on HTTP/2 over TLS (a certificate of the test CA): it checks the
 * provider JWT (ES256, kid, iss, age) and answers 403 InvalidProviderToken to a bad one; other
 * pushes get `answer(deviceToken)`.
 */
export async function fakeApns(expect: { publicKey: KeyObject; keyId?: string; teamId?: string }, answer: (token: string) => FakeAnswer = () => ({ status: 200 })) {
  const requests: RecordedRequest[] = [];
  const jwtsSeen: { kid: string | undefined; iss: unknown; iat: unknown }[] = [];
  const counts = { connections: 0 };
  const server: Http2SecureServer = createSecureServer({
    cert: await Bun.file(join(TLS_DIR, 'localhost.pem')).text(),
    key: await Bun.file(join(TLS_DIR, 'localhost.key')).text(),
  });
  server.on('session', () => counts.connections++);
  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    let body = '';
    stream.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    stream.on('end', async () => {
      const recorded: RecordedRequest = {
        method: String(headers[':method']),
        path: String(headers[':path']),
        headers: Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(':')).map(([name, value]) => [name, String(value)])),
        body,
      };
      requests.push(recorded);
      const respond = (status: number, json?: unknown) => {
        if (stream.closed) return;
        stream.respond({ ':status': status, 'apns-id': crypto.randomUUID(), ...(json ? { 'content-type': 'application/json' } : {}) });
        stream.end(json ? JSON.stringify(json) : undefined);
      };
      const jwt = (recorded.headers.authorization ?? '').replace(/^bearer /, '');
      try {
        const header = decodeProtectedHeader(jwt);
        const { payload } = await jwtVerify(jwt, expect.publicKey, { algorithms: ['ES256'], issuer: expect.teamId ?? APNS_TEAM_ID, maxTokenAge: '1h' });
        jwtsSeen.push({ kid: header.kid, iss: payload.iss, iat: payload.iat });
        if (header.kid !== (expect.keyId ?? APNS_KEY_ID)) return respond(403, { reason: 'InvalidProviderToken' });
      } catch {
        return respond(403, { reason: 'InvalidProviderToken' });
      }
      const result = answer(recorded.path.replace('/3/device/', ''));
      if (result === 'hang') return;
      if (result.delayMs) await Bun.sleep(result.delayMs);
      respond(result.status, result.body);
    });
    stream.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  afterAll(close);
  return { url: `https://localhost:${port}`, port, requests, jwtsSeen, counts, close };
}

/** Google's OAuth token endpoint: checks the service account's assertion and issues access tokens. */
export function fakeOAuth(account: TestServiceAccount, options: { status?: number; expiresIn?: number } = {}) {
  const requests: RecordedRequest[] = [];
  const issued: string[] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = await request.text();
      requests.push({ method: request.method, path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers), body });
      if (options.status && options.status !== 200) return Response.json({ error: 'invalid_grant' }, { status: options.status });
      const form = new URLSearchParams(body);
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return Response.json({ error: 'unsupported_grant_type' }, { status: 400 });
      try {
        const { payload, protectedHeader } = await jwtVerify(form.get('assertion') ?? '', account.publicKey, {
          algorithms: ['RS256'],
          issuer: account.clientEmail,
          audience: url,
        });
        if (payload.scope !== 'https://www.googleapis.com/auth/firebase.messaging' || protectedHeader.kid !== 'key-1') throw new Error('scope or kid');
      } catch {
        return Response.json({ error: 'invalid_grant' }, { status: 400 });
      }
      const token = `ya29.${crypto.randomUUID()}`;
      issued.push(token);
      return Response.json({ access_token: token, expires_in: options.expiresIn ?? 3599, token_type: 'Bearer' });
    },
  });
  const url = `http://127.0.0.1:${server.port}/token`;
  afterAll(() => server.stop(true));
  return { url, requests, issued, stop: () => server.stop(true) };
}

/**
 * FCM HTTP v1: a push needs an access token the fake OAuth server issued (else 401
 * UNAUTHENTICATED); the rest get `answer(registrationToken)`.
 */
export function fakeFcm(oauth: { issued: string[] }, answer: (token: string) => FakeAnswer = () => ({ status: 200 })) {
  const requests: RecordedRequest[] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = await request.text();
      requests.push({ method: request.method, path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers), body });
      const bearer = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
      if (!oauth.issued.includes(bearer)) return Response.json({ error: { code: 401, status: 'UNAUTHENTICATED' } }, { status: 401 });
      const token = (JSON.parse(body) as { message: { token: string } }).message.token;
      const result = answer(token);
      if (result === 'hang') return new Promise<Response>(() => {});
      if (result.delayMs) await Bun.sleep(result.delayMs);
      return Response.json(result.body ?? { name: `projects/p/messages/${crypto.randomUUID()}` }, { status: result.status, headers: result.headers });
    },
  });
  afterAll(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

/** FCM's error body for `errorCode` (as details[].errorCode of an FcmError). */
export const fcmError = (status: number, errorCode: string, grpcStatus = 'NOT_FOUND') => ({
  status,
  body: { error: { code: status, status: grpcStatus, details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] } },
});

/** A 64-hex APNs device token. */
export const apnsToken = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('');
/** An FCM registration token's shape: long, with ':' and '-'. */
export const fcmToken = () => `${crypto.randomUUID()}:APA91b${crypto.randomUUID().replaceAll('-', '_')}`;

export async function installState(db: Db, installId: string) {
  const [row] = await db.query<{ uninstalled_at: Date | null; uninstall_checked_at: Date | null }>(
    'SELECT uninstalled_at, uninstall_checked_at FROM installs WHERE id = $1',
    [installId],
  );
  return row!;
}

export async function uninstallEvents(db: Db, installId: string) {
  return db.query<{ name: string; org_id: string; app_id: string; params: Record<string, unknown>; occurred_at: Date }>(
    "SELECT name, org_id, app_id, params, occurred_at FROM events WHERE install_id = $1 AND name = 'uninstall'",
    [installId],
  );
}

/** An app (with a bundle id unless null), a device's install through the SDK, and its push token. */
export async function deviceWithToken(t: TestApp, input: { platform: string; token: string; bundleId?: string | null; orgId?: string }) {
  const orgId = input.orgId ?? (await orgWithKey(t.db)).orgId;
  const app = await sdkApp(t.db, orgId, { platform: input.platform });
  if (input.bundleId !== null) await t.db.query('UPDATE apps SET bundle_id = $2 WHERE id = $1', [app.appId, input.bundleId ?? 'com.example.game']);
  const call = sdkCall(t, app.sdkKey);
  const deviceId = hashedDeviceId();
  const installId: string = await installIdOf(call, deviceId, input.platform);
  const stored = await call('push-token', { device_id: deviceId, push_token: input.token, platform: input.platform });
  if (stored.status !== 200) throw new Error(`push-token answered ${stored.status}`);
  return { orgId, ...app, call, deviceId, installId, token: input.token };
}

/** A clock the test moves. */
export function testClock(start = new Date('2026-09-02T10:00:00Z')) {
  let now = start.getTime();
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms) };
}

/**
 * A checker on the test app's configured providers, as services.ts builds it but with the
 * test's clock, short timeouts and no delay; its log lines are collected in `logs`.
 */
export function testChecker(t: TestApp, input: { clock?: Clock; timeoutMs?: number; clients?: PushClient[]; options?: Partial<UninstallCheckerOptions> } = {}) {
  const logs: string[] = [];
  const clients = input.clients ?? pushClientsFor(t.config, input.timeoutMs ?? 3000);
  const checker = createUninstallChecker(
    { db: t.db, clock: input.clock ?? (() => new Date()), clients, log: (line) => logs.push(line) },
    { ...DEFAULT_CHECKER_OPTIONS, intervalMs: 24 * HOUR_MS, roundEveryMs: HOUR_MS, firstRoundAfterMs: 0, ...input.options },
  );
  onBeforeClose(t.db, () => checker.stop());
  return { checker, logs };
}
