import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { parsePreview } from '../../src/links/link-preview';

describe('parsePreview', () => {
  test('keeps a valid preview as given; every key is optional', () => {
    for (const preview of [
      {},
      { title: 'Spring sale' },
      { title: 'T'.repeat(200), description: 'D'.repeat(500), image: 'https://cdn.example.com/og.png?v=2' },
    ]) {
      expect(parsePreview(preview)).toEqual({ value: preview });
    }
  });

  test('names the exact key of each error', () => {
    const cases: [unknown, Record<string, string[]>][] = [
      [{ title: '' }, { 'preview.title': ['must be 1 to 200 characters'] }],
      [{ title: 'x'.repeat(201) }, { 'preview.title': ['must be 1 to 200 characters'] }],
      [{ title: 5 }, { 'preview.title': ['must be 1 to 200 characters'] }],
      [{ title: 'a\u0000b' }, { 'preview.title': ['must not contain control characters'] }],
      [{ description: 'x'.repeat(501) }, { 'preview.description': ['must be 1 to 500 characters'] }],
      [{ description: 'line\nbreak' }, { 'preview.description': ['must not contain control characters'] }],
      [{ image: 'http://cdn.example.com/a.png' }, { 'preview.image': ['must be an absolute https URL of at most 2048 characters'] }],
      [{ image: 'javascript:alert(1)' }, { 'preview.image': ['must be an absolute http(s) URL'] }],
      [{ image: `https://cdn.example.com/${'a'.repeat(2048)}` }, { 'preview.image': ['must be an absolute https URL of at most 2048 characters'] }],
      [{ image: 'https://user:pw@cdn.example.com/a.png' }, { 'preview.image': ['must not contain credentials'] }],
      [{ titel: 'typo' }, { 'preview.titel': ['unknown field'] }],
      [['title'], { preview: ['must be an object {title, description, image} or null'] }],
      ['title', { preview: ['must be an object {title, description, image} or null'] }],
    ];
    for (const [raw, errors] of cases) expect(parsePreview(raw)).toEqual({ errors });
  });

  test('property: an accepted image is an https URL', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl(), fc.string()), (image) => {
        const parsed = parsePreview({ image });
        if ('value' in parsed) expect(new URL(image).protocol).toBe('https:');
      }),
      { numRuns: 1000 },
    );
  });
});
