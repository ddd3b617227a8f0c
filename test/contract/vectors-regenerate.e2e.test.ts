/**
 * shared/test-vectors/webhook-vectors.json is what generate.sh writes: regenerating it with openssl gives
 * the same file byte for byte. A child process (sh, openssl), so e2e; vectors.test.ts checks the file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebhookVector as Vector } from '@evf/contract/test-vectors';
import { describeWhenPresent } from '../support/optional-suite';

const DIR = join(__dirname, '../../shared/test-vectors');
const FILE = join(DIR, 'webhook-vectors.json');

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

describeWhenPresent(
  'webhook test vectors',
  hasOpenssl ? undefined : "webhook vectors: openssl not found (install Debian's openssl) to regenerate them",
  () => {
    it('regenerating with generate.sh gives the same file', () => {
      const vectors: Vector[] = JSON.parse(readFileSync(FILE, 'utf8'));
      const dir = mkdtempSync(join(tmpdir(), 'evf-vectors-'));
      try {
        const out = join(dir, 'v.json');
        execFileSync('sh', [join(DIR, 'generate.sh'), out], { stdio: 'pipe' });
        const regenerated: Vector[] = JSON.parse(readFileSync(out, 'utf8'));
        expect(regenerated.map((v) => [v.name, v.expect, v.reason])).toEqual(
          vectors.map((v) => [v.name, v.expect, v.reason]),
        );
        expect(readFileSync(out, 'utf8')).toBe(readFileSync(FILE, 'utf8'));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
