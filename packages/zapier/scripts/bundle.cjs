// Bundles the app and the shared client into one CommonJS file, so Zapier's runtime (and `zapier-platform
// push`, which zips the package folder) never has to resolve a workspace symlink. zapier-platform-core
// stays external: Zapier requires the app's own pinned copy.
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');
esbuild
  .build({
    entryPoints: [path.join(root, 'src/index.ts')],
    outfile: path.join(root, 'dist/index.js'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    conditions: ['source'],
    external: ['zapier-platform-core'],
    sourcemap: true,
    logLevel: 'warning',
  })
  .catch(() => process.exit(1));
