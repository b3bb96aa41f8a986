/** The example rule set of the schema (issue 22, docs/smart-links.md), already in normalised form. */
export const SCHEMA_EXAMPLE = {
  version: 1,
  rules: [
    { name: 'ios-us', if: { os: ['ios'], country: ['US', 'CA'] }, then: { store: 'https://apps.apple.com/app/id123' } },
    { name: 'ab', if: { params: { utm_source: ['news'] } }, then: { variants: [{ url: 'https://a.example', weight: 70 }, { url: 'https://b.example', weight: 30 }] } },
    { name: 'night', if: { hours: { from: 22, to: 6, tz: 'Europe/Berlin' } }, then: { block: 410 } },
  ],
  fallback: { url: 'https://shop.example.com' },
};
