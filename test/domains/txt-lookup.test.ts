import { describe, expect, test } from 'bun:test';
import { lookupTokens, txtName, txtRecord } from '../../src/domains/txt-lookup';

const failingWith = (code: unknown) => async () => {
  throw Object.assign(new Error('lookup failed'), { code });
};

describe('TXT lookup for domain verification', () => {
  test('the record lives under _svc-verify. and the host name without its port', () => {
    expect(txtName('go.example.com')).toBe('_svc-verify.go.example.com');
    expect(txtName('go.example.com:8443')).toBe('_svc-verify.go.example.com');
    expect(txtRecord('go.example.com', 'abc')).toEqual({ type: 'TXT', name: '_svc-verify.go.example.com', value: 'svc-verify=abc' });
  });

  test('tokens come from the records that carry the prefix, with their character strings joined', async () => {
    const resolve = async () => [['v=spf1 -all'], ['svc-verify=', 'abc'], [' svc-verify=def '], ['other=svc-verify=ghi']];
    expect(await lookupTokens(resolve, 'x')).toEqual({ kind: 'found', tokens: ['abc', 'def'] });
  });

  test('no such name or no TXT data is a definite absence; anything else is a failed lookup', async () => {
    expect(await lookupTokens(failingWith('ENOTFOUND'), 'x')).toEqual({ kind: 'absent' });
    expect(await lookupTokens(failingWith('ENODATA'), 'x')).toEqual({ kind: 'absent' });
    expect(await lookupTokens(failingWith('ESERVFAIL'), 'x')).toEqual({ kind: 'failed', code: 'ESERVFAIL' });
    expect(await lookupTokens(failingWith('ECONNREFUSED'), 'x')).toEqual({ kind: 'failed', code: 'ECONNREFUSED' });
    expect(await lookupTokens(failingWith(undefined), 'x')).toEqual({ kind: 'failed', code: 'EUNKNOWN' });
  });

  test('a resolver that never answers fails the lookup after the timeout', async () => {
    const never = () => new Promise<string[][]>(() => {});
    expect(await lookupTokens(never, 'x', 20)).toEqual({ kind: 'failed', code: 'ETIMEOUT' });
  });
});
