// Builds CommonJS and ESM bundles, plus type declarations. @evf/client stays external: whoever
// bundles this package (the Zapier app) bundles the client once beside it.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true });
for (const [format, ext] of [
  ['cjs', 'cjs'],
  ['esm', 'mjs'],
]) {
  await build({
    entryPoints: ['src/index.ts'],
    outfile: `dist/index.${ext}`,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format,
    external: ['@evf/client'],
    sourcemap: true,
    logLevel: 'warning',
  });
}
execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
