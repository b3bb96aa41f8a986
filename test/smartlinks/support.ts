/** A smart link's rules that route by OS, country, hour and parameter: one of each kind of target. */
export const ROUTED_RULES = {
  version: 1,
  rules: [
    { name: 'android-de', if: { os: ['android'], country: ['DE'] }, then: { store: 'https://play.google.com/store/apps/details?id=com.example' } },
    { name: 'night', if: { hours: { from: 22, to: 6, tz: 'Europe/Berlin' } }, then: { block: 410 } },
    { name: 'news', if: { params: { utm_source: ['news'] } }, then: { url: 'https://news.example.com/' } },
    { name: 'ios-app', if: { os: 'ios' }, then: { deep_link: 'myapp://home', fallback: 'https://shop.example.com/' } },
  ],
  fallback: { url: 'https://fallback.example.com/' },
};
