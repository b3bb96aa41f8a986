/**
 * `npm run check:deps` (run first by `npm test`): no import cycle in src/, type-only imports
 * included, and only the composition root (src/main.ts, src/app.ts) imports src/services.ts;
 * every other module declares the dependencies it needs. swc parses the TypeScript.
 */
// Without its parser, dependency-cruiser reads no TypeScript module and reports no violation.
require('@swc/core').parseSync('export {};', { syntax: 'typescript' });

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
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  },
};
