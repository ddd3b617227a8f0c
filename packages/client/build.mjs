// Builds CommonJS (n8n and Zapier load with require) and ESM bundles, plus type declarations.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true });
for (const [entry, source] of [
  ['index', 'src/index.ts'],
  ['node', 'src/node/index.ts'],
]) {
  for (const [format, ext] of [
    ['cjs', 'cjs'],
    ['esm', 'mjs'],
  ]) {
    await build({
      entryPoints: [source],
      outfile: `dist/${entry}.${ext}`,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format,
      sourcemap: true,
      logLevel: 'warning',
    });
  }
}
execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
