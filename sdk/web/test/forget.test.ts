import { expect, test } from 'bun:test';
import { ERASURE_ID, FakeBrowser } from './support/fakes';

/** forget(): the right to erasure works whatever the consent, and asks the server once. */

const ID = '01HZX3K9Q8W7E6R5T4Y3U2I1O0';

test('after consent is denied, forget() still asks the server to erase the browser, then leaves nothing stored', async () => {
  const browser = new FakeBrowser();
  const sdk = await browser.load({}, `https://shop.example/?svc_click_id=${ID}`);
  await browser.clock.advance(0);
  const deviceId = browser.server.to('install')[0]!.body.device_id;
  sdk.setConsent(false);
  expect(await sdk.forget()).toBe(ERASURE_ID);
  expect(browser.server.to('forget').map((request) => request.body)).toEqual([{ device_id: deviceId }]);
  expect(browser.server.to('forget')[0]!.headers['X-SDK-Key']).toBe('sk_test');
  expect([...browser.storage.map.keys()]).toEqual([]);
  // Stopped: a hidden page sends nothing more.
  const sent = browser.server.requests.length;
  browser.page.hide();
  await browser.clock.advance(60_000);
  expect(browser.server.requests.length).toBe(sent);
});

test('a browser that never sent anything (consent pending) is forgotten locally, without a request', async () => {
  const browser = new FakeBrowser();
  const sdk = await browser.load({ requireConsent: true }, `https://shop.example/?svc_click_id=${ID}`);
  sdk.logEvent('held');
  await browser.clock.advance(0);
  expect([...browser.storage.map.keys()].length).toBeGreaterThan(0);
  expect(await sdk.forget()).toBeNull();
  expect(browser.server.requests).toEqual([]);
  expect([...browser.storage.map.keys()]).toEqual([]);
});

test('a refusal throws and keeps the device id, so the next page view can forget it', async () => {
  const browser = new FakeBrowser();
  const first = await browser.load();
  await browser.clock.advance(0);
  const deviceId = browser.server.to('install')[0]!.body.device_id;
  browser.server.answer('forget', { status: 401, body: { error: 'unauthorized' } });
  const refused = first.forget().then(
    () => 'resolved',
    (error: Error) => error.message,
  );
  await browser.clock.advance(0);
  expect(await refused).toBe('svc: forget failed (status 401)');
  const next = await browser.load({ requireConsent: true });
  expect(await next.forget()).toBe(ERASURE_ID);
  expect(browser.server.to('forget').map((request) => request.body.device_id)).toEqual([deviceId, deviceId]);
});
