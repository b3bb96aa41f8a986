import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_INVALID_THRESHOLD, RISK_SIGNALS } from '../../../src/tracking/risk/risk-signals';

const doc = readFileSync(join(import.meta.dir, '../../../docs/protect.md'), 'utf8');

test('docs/protect.md lists the signal table exactly as the code weighs it, in its order', () => {
  const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d+) \| (click|install|beacon) \|/gm)].map(([, name, weight, family]) => ({ name, weight: Number(weight), family }));
  expect(rows).toEqual(RISK_SIGNALS.map(({ name, weight, family }) => ({ name, weight, family })));
});

test('docs/protect.md states the default threshold the code uses', () => {
  expect(doc).toContain(`default **${DEFAULT_INVALID_THRESHOLD}**`);
});
