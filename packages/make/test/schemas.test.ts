/**
 * Every app file parses as JSON with comments and validates against the schema Make's editor
 * applies to it; makecomapp.json names every file and every file it names exists.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { APP_DIR, components, listAppFiles, makecomapp, readJsonc, type ComponentType } from './support/app-files';
import { schemaNameFor, validateAgainst } from './support/make-schemas';

const namedFiles = (): string[] => {
  const general = Object.values(makecomapp.generalCodeFiles).filter((f): f is string => typeof f === 'string');
  const types: ComponentType[] = ['connection', 'webhook', 'module', 'rpc', 'function', 'endpoint'];
  const own = types.flatMap((t) =>
    components(t).flatMap(([, meta]) => Object.values(meta.codeFiles).filter((f): f is string => typeof f === 'string')),
  );
  return [...general, ...own];
};

describe('Make app files', () => {
  it('makecomapp.json validates against the local-development schema', () => {
    expect(schemaNameFor('makecomapp.json')).toBe('makecomapp.schema.json');
    expect(validateAgainst('makecomapp.schema.json', makecomapp)).toEqual([]);
  });

  it('names every file under app/, and every named file exists', () => {
    const named = namedFiles();
    expect(new Set(named).size).toBe(named.length);
    for (const f of named) expect(existsSync(join(APP_DIR, f))).toBe(true);
    const unnamed = listAppFiles().filter((f) => f !== 'makecomapp.json' && !named.includes(f));
    expect(unnamed).toEqual([]);
  });

  const jsonFiles = listAppFiles().filter((f) => f.endsWith('.json'));

  it.each(jsonFiles)('%s parses and validates against its Make schema', (file) => {
    const value = readJsonc(file);
    const schema = schemaNameFor(file);
    if (file === 'general/common.json' || file === 'modules/groups.json' || file === 'makecomapp.json') {
      expect(schema).toBeDefined();
    }
    expect(schema).toBeDefined();
    expect(validateAgainst(schema!, value)).toEqual([]);
  });

  it('the schemas do reject a broken file (the check can fail)', () => {
    expect(validateAgainst('api.json', { url: '/v1/verify/single', method: 'POST' })).not.toEqual([]);
    expect(validateAgainst('parameters.json', [{ name: 'x', type: 'no-such-type' }])).not.toEqual([]);
    expect(validateAgainst('base.json', { response: { error: { '429': { type: 'RateLimitError' } } } })).not.toEqual([]);
    expect(validateAgainst('makecomapp.schema.json', { ...makecomapp, origins: [{}] })).not.toEqual([]);
  });

  it('every module names a connection that exists; the instant trigger names the webhook', () => {
    const connections = components('connection').map(([id]) => id);
    const webhooks = components('webhook').map(([id]) => id);
    for (const [, meta] of [...components('module'), ...components('rpc'), ...components('webhook')]) {
      expect(connections).toContain(meta.connection);
    }
    const instant = components('module').filter(([, m]) => m.moduleType === 'instant_trigger');
    expect(instant).toHaveLength(1);
    expect(webhooks).toContain(instant[0][1].webhook);
  });
});
