import type { FakeClock } from './fake-clock';

export interface SeenRequest {
  path: string;
  body: any;
  headers: Record<string, string>;
  /** Whether the request was sent to outlive the page (the web SDK's hide flush). */
  keepalive: boolean;
  at: number;
}

/** An answer, or `'network'` for a transport error. */
export type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'network';

export const INSTALL_ANSWER = {
  install_id: '01INSTALL0000000000000000A',
  attribution: { method: 'ORGANIC', campaign: null, click_id: null, deep_link_path: null },
  is_reattribution: false,
};
export const INSTALL_ID = INSTALL_ANSWER.install_id;
export const ERASURE_ID = '01ERASURE0000000000000000A';

/**
 * The SDK endpoints as a fake fetch, for the tests of every SDK on sdk/core: records every
 * request; `answer` scripts replies per path, else each endpoint's success.
 */
export class FakeServer {
  readonly requests: SeenRequest[] = [];
  /** Answers to use first, per path, in order. */
  readonly script = new Map<string, Reply[]>();
  /** Every request fails as a transport error while true. */
  offline = false;
  /** Answers wait for this while set: a request under way for as long as the test wants. */
  gate: Promise<void> | null = null;
  /** The deferred deep link the install answer carries. */
  deferredPath: string | null = null;
  private readonly accepted: any[] = [];

  constructor(private readonly clock: FakeClock) {}

  answer(path: string, ...replies: Reply[]): void {
    this.script.set(path, [...(this.script.get(path) ?? []), ...replies]);
  }

  to(path: string): SeenRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Event names in the batches the server accepted (2xx), in order. */
  delivered(): string[] {
    return this.accepted.flatMap((body) => body.events.map((event: { name: string }) => event.name));
  }

  readonly fetch = async (url: string, init: { body?: unknown; headers?: unknown; keepalive?: boolean }): Promise<Response> => {
    const path = new URL(url).pathname.replace('/api/sdk/v1/', '');
    const body = JSON.parse(String(init.body));
    this.requests.push({ path, body, headers: init.headers as Record<string, string>, keepalive: init.keepalive === true, at: this.clock.now() });
    if (this.gate) await this.gate;
    if (this.offline) throw new TypeError('Network request failed');
    const reply = this.script.get(path)?.shift() ?? this.success(path, body);
    if (reply === 'network') throw new TypeError('Network request failed');
    if (path === 'events' && reply.status < 300) this.accepted.push(body);
    return new Response(JSON.stringify(reply.body ?? {}), { status: reply.status, headers: { 'content-type': 'application/json', ...reply.headers } });
  };

  private success(path: string, body: any): Reply {
    if (path === 'install') {
      const method = body.click_id ? 'CLICK_ID' : 'ORGANIC';
      return { status: 201, body: { ...INSTALL_ANSWER, attribution: { ...INSTALL_ANSWER.attribution, method, click_id: body.click_id, deep_link_path: this.deferredPath } } };
    }
    if (path === 'events') return { status: 200, body: { accepted: body.events.length } };
    if (path === 'open') return { status: 200, body: { reengagement_id: '01REENGAGE', attributed: body.click_id !== null, campaign_id: null, deep_link_path: null } };
    if (path === 'push-token') return { status: 200, body: { install_id: INSTALL_ID } };
    if (path === 'subscription') return { status: 200, body: { subscription_id: '01SUB', install_id: INSTALL_ID, linked: true, created: true } };
    if (path === 'ad-revenue') return { status: 200, body: { accepted: body.events.length, install_id: INSTALL_ID } };
    if (path === 'forget') return { status: 202, body: { id: ERASURE_ID, status: 'pending' } };
    return { status: 404, body: { error: 'not found' } };
  }
}
