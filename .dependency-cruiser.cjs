/**
 * `npm run check:deps` (run first by `npm test`): no import cycle in src/, type-only imports
 * included, and only the composition root (src/main.ts, src/app.ts) imports src/services.ts;
 * every other module declares the dependencies it needs. swc parses the TypeScript.
 */
// Without its parser, dependency-cruiser reads no TypeScript module and reports no violation.
require('@swc/core').parseSync('export {};', { syntax: 'typescript' });

// The layers, lowest first. A module may import from its own layer and the layers below it,
// never from one above: shared knows nothing of the store, the store nothing of the settings,
// the HTTP kit nothing of who is signed in, and the click path nothing of the features built
// on it. CONTRIBUTING.md ("Layers") draws the same ladder.
const LAYERS = [
  ['shared', '^src/shared/'],
  ['db', '^src/db/'],
  ['config', '^src/config/'],
  ['http', '^src/http/'],
  ['auth', '^src/auth/'],
  ['ipintel', '^src/ipintel/'],
  ['tracking', '^src/tracking/'],
];
const layerRules = LAYERS.map(([name, path], index) => ({
  name: `layer-${name}`,
  severity: 'error',
  comment: `src/${name}/ may import only from ${LAYERS.slice(0, index + 1).map(([n]) => n).join(', ')}: move what it needs down, or the code up.`,
  from: { path },
  to: { path: '^src/', pathNot: LAYERS.slice(0, index + 1).map(([, p]) => p) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle, through types too, means a type lives in the wrong module: move it to the module that owns it.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'services-only-in-the-root',
      severity: 'error',
      comment: 'Only src/main.ts and src/app.ts compose the services; a module declares what it needs (see LinksDeps).',
      from: { path: '^src/', pathNot: '^src/(main|app)\\.ts$' },
      to: { path: '^src/services\\.ts$' },
    },
    ...layerRules,
    {
      name: 'layer-features',
      severity: 'error',
      comment: 'The files at the top of src/ compose the node; a feature module never imports them.',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/[^/]+\\.ts$' },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  },
};
