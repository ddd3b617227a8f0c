/**
 * makecomapp.json names every file under app/ and every file it names exists; every module names a
 * connection that exists. Needs nothing beside the repository (the schema check is schemas.test.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  APP_DIR,
  components,
  listAppFiles,
  makecomapp,
  readJsonc,
  type ComponentType,
} from './harness/app-files';

const namedFiles = (): string[] => {
  const general = Object.values(makecomapp.generalCodeFiles).filter(
    (f): f is string => typeof f === 'string',
  );
  const types: ComponentType[] = ['connection', 'webhook', 'module', 'rpc', 'function', 'endpoint'];
  const own = types.flatMap((t) =>
    components(t).flatMap(([, meta]) =>
      Object.values(meta.codeFiles).filter((f): f is string => typeof f === 'string'),
    ),
  );
  return [...general, ...own];
};

describe('Make app layout', () => {
  it('names every file under app/, and every named file exists', () => {
    const named = namedFiles();
    expect(new Set(named).size).toBe(named.length);
    for (const f of named) expect(existsSync(join(APP_DIR, f))).toBe(true);
    const unnamed = listAppFiles().filter((f) => f !== 'makecomapp.json' && !named.includes(f));
    expect(unnamed).toEqual([]);
  });

  it.each(listAppFiles().filter((f) => f.endsWith('.json')))('%s parses as JSON with comments', (file) => {
    expect(() => readJsonc(file)).not.toThrow();
  });

  it('every module that calls the service names a connection; the instant trigger and its webhook none', () => {
    const connections = components('connection').map(([id]) => id);
    const webhooks = components('webhook').map(([id]) => id);
    const instant = components('module').filter(([, m]) => m.moduleType === 'instant_trigger');
    expect(instant).toHaveLength(1);
    expect(webhooks).toContain(instant[0][1].webhook);
    // Make's dedicated webhooks that call nothing carry no connection; the trigger makes no request.
    for (const [, meta] of [...instant, ...components('webhook')]) expect(meta.connection).toBeNull();
    for (const [, meta] of [...components('module'), ...components('rpc')])
      if (meta.moduleType !== 'instant_trigger') expect(connections).toContain(meta.connection);
  });
});
