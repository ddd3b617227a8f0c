/**
 * Deploys app/ to a custom app that already exists in Make, through Make's API with @makehq/sdk
 * (Make's TypeScript SDK; its `sdk.*` endpoints are the ones Make's own VS Code extension uses).
 * One plan drives both the dry run, which prints every call, and the real run, which makes them in
 * the same order. Components whose names Make assigns (the connection, the webhook) are found by
 * label and created when missing; modules and the RPC keep the local ids as their names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Make, MakeError } from '@makehq/sdk';
import { parse } from 'jsonc-parser';

export const APP_DIR = join(__dirname, '..', 'app');
/**
 * The app's logo: a 512 x 512 PNG, the one form Make's API takes for an app icon (@makehq/sdk's
 * setIcon refuses anything else before sending). Outside app/, since makecomapp.json names no icon.
 */
export const LOGO_FILE = join(__dirname, '..', 'assets', 'logo.png');

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH';

interface Names {
  connection?: string;
  webhook?: string;
}

/** One call of the deploy. `ifMissing` calls run only when the lookup before them found nothing. */
export interface Step {
  method: Method;
  /** The API path after /api/v2; `names` fills in what Make assigned. */
  path: (names: Names) => string;
  what: string;
  ifMissing?: boolean;
  run: (make: Make, names: Names) => Promise<'found' | 'missing' | void>;
}

interface ComponentMeta {
  label?: string;
  description?: string;
  moduleType?: string;
  actionCrud?: string;
  connectionType?: string;
  webhookType?: string;
  connection?: string | null;
  webhook?: string | null;
  codeFiles: Record<string, string | null>;
}

interface Makecomapp {
  generalCodeFiles: Record<'base' | 'common' | 'readme' | 'groups', string>;
  components: Record<'connection' | 'webhook' | 'module' | 'rpc' | 'function', Record<string, ComponentMeta>>;
  origins: { appId: string; appVersion: number }[];
}

// Module type ids of Make's API, as Make's VS Code extension maps them (services/module-types-naming.ts there).
const MODULE_TYPE_IDS: Record<string, number> = {
  trigger: 1,
  action: 4,
  search: 9,
  instant_trigger: 10,
  responder: 11,
  universal: 12,
};

const text = (rel: string) => readFileSync(join(APP_DIR, rel), 'utf8');
const jsonc = (rel: string) => parse(text(rel)) as unknown;

export function readMakecomapp(): Makecomapp {
  return jsonc('makecomapp.json') as Makecomapp;
}

const isNotFound = (err: unknown) => err instanceof MakeError && err.statusCode === 404;

/** Looks a component up; a 404 means it is missing, anything else stops the deploy. */
async function exists(get: () => Promise<unknown>): Promise<'found' | 'missing'> {
  try {
    await get();
    return 'found';
  } catch (err) {
    if (isNotFound(err)) return 'missing';
    throw err;
  }
}

function need(value: string | undefined, what: string): string {
  if (!value) throw new Error(`${what} is not known yet (its lookup or creation did not run)`);
  return value;
}

export function planDeploy(appName: string, appVersion: number, app: Makecomapp = readMakecomapp()): Step[] {
  const N = encodeURIComponent(appName);
  const V = appVersion;
  const steps: Step[] = [];
  const functions = Object.keys(app.components.function ?? {});
  if (functions.length > 0) {
    // Make refuses custom IML functions unless it has enabled them for the app; this app needs none.
    throw new Error(
      `The app defines custom IML functions (${functions.join(', ')}); Make must enable them first, and this app is meant to work without them.`,
    );
  }

  steps.push({
    method: 'GET',
    path: () => `/sdk/apps/${N}/${V}`,
    what: 'the app exists (create it once in Make)',
    run: (m) => m.sdk.apps.get(appName, V).then(() => undefined),
  });
  const g = app.generalCodeFiles;
  steps.push({
    method: 'PUT',
    path: () => `/sdk/apps/${N}/${V}/base`,
    what: g.base,
    run: (m) => m.sdk.apps.setSection(appName, V, 'base', text(g.base)),
  });
  steps.push({
    method: 'PUT',
    path: () => `/sdk/apps/${N}/${V}/groups`,
    what: g.groups,
    run: (m) => m.sdk.apps.setSection(appName, V, 'groups', text(g.groups)),
  });
  steps.push({
    method: 'PUT',
    path: () => `/sdk/apps/${N}/${V}/common`,
    what: g.common,
    run: (m) =>
      m.sdk.apps.setCommon(appName, V, jsonc(g.common) as Record<string, never>).then(() => undefined),
  });
  steps.push({
    method: 'PUT',
    path: () => `/sdk/apps/${N}/${V}/readme`,
    what: g.readme,
    run: (m) => m.sdk.apps.setDocs(appName, V, text(g.readme)).then(() => undefined),
  });

  steps.push({
    method: 'PUT',
    path: () => `/sdk/apps/${N}/${V}/icon`,
    what: 'assets/logo.png (the app logo, 512 x 512 PNG)',
    run: (m) => m.sdk.apps.setIcon(appName, V, readFileSync(LOGO_FILE)).then(() => undefined),
  });

  const [connId, conn] = Object.entries(app.components.connection)[0]!;
  const connLabel = conn.label ?? connId;
  steps.push({
    method: 'GET',
    path: () => `/sdk/apps/${N}/connections`,
    what: `find the connection labelled "${connLabel}"`,
    run: async (m, names) => {
      names.connection = (await m.sdk.connections.list(appName)).find((c) => c.label === connLabel)?.name;
      return names.connection ? 'found' : 'missing';
    },
  });
  steps.push({
    method: 'POST',
    path: () => `/sdk/apps/${N}/connections`,
    what: `create the connection (type ${conn.connectionType})`,
    ifMissing: true,
    run: async (m, names) => {
      names.connection = (
        await m.sdk.connections.create(appName, {
          type: need(conn.connectionType, 'connectionType'),
          label: connLabel,
        })
      ).name;
    },
  });
  const connPath = (names: Names) =>
    `/sdk/apps/connections/${names.connection ? encodeURIComponent(names.connection) : '<connection>'}`;
  for (const [code, section] of [
    ['communication', 'api'],
    ['params', 'parameters'],
  ] as const) {
    const file = conn.codeFiles[code]!;
    steps.push({
      method: 'PUT',
      path: (n) => `${connPath(n)}/${section}`,
      what: file,
      run: (m, n) => m.sdk.connections.setSection(need(n.connection, 'connection'), section, text(file)),
    });
  }

  for (const [hookId, hook] of Object.entries(app.components.webhook)) {
    const label = hook.label ?? hookId;
    steps.push({
      method: 'GET',
      path: () => `/sdk/apps/${N}/webhooks`,
      what: `find the webhook labelled "${label}"`,
      run: async (m, names) => {
        names.webhook = (await m.sdk.webhooks.list(appName)).find((w) => w.label === label)?.name;
        return names.webhook ? 'found' : 'missing';
      },
    });
    steps.push({
      method: 'POST',
      path: () => `/sdk/apps/${N}/webhooks`,
      what: `create the webhook (type ${hook.webhookType})`,
      ifMissing: true,
      run: (m) =>
        m.sdk.webhooks
          .create(appName, { type: need(hook.webhookType ?? undefined, 'webhookType'), label })
          .then(() => undefined),
    });
    steps.push({
      method: 'GET',
      path: () => `/sdk/apps/${N}/webhooks`,
      what: "read the new webhook's name back (the create answer has only label and type)",
      ifMissing: true,
      run: async (m, names) => {
        names.webhook = (await m.sdk.webhooks.list(appName)).find((w) => w.label === label)?.name;
      },
    });
    const hookPath = (n: Names) =>
      `/sdk/apps/webhooks/${n.webhook ? encodeURIComponent(n.webhook) : '<webhook>'}`;
    steps.push({
      method: 'PATCH',
      path: hookPath,
      what: 'label and connection',
      run: (m, n) =>
        m
          .fetch(hookPath(n), {
            method: 'PATCH',
            body: { label, connection: need(n.connection, 'connection') },
          })
          .then(() => undefined),
    });
    for (const [code, section] of [
      ['communication', 'api'],
      ['params', 'parameters'],
    ] as const) {
      const file = hook.codeFiles[code]!;
      steps.push({
        method: 'PUT',
        path: (n) => `${hookPath(n)}/${section}`,
        what: file,
        run: (m, n) => m.sdk.webhooks.setSection(need(n.webhook, 'webhook'), section, text(file)),
      });
    }
  }

  for (const [rpcId, rpc] of Object.entries(app.components.rpc)) {
    const path = `/sdk/apps/${N}/${V}/rpcs/${encodeURIComponent(rpcId)}`;
    steps.push({
      method: 'GET',
      path: () => path,
      what: `is RPC ${rpcId} there`,
      run: (m) => exists(() => m.sdk.rpcs.get(appName, V, rpcId)),
    });
    steps.push({
      method: 'POST',
      path: () => `/sdk/apps/${N}/${V}/rpcs`,
      what: `create RPC ${rpcId}`,
      ifMissing: true,
      run: (m) =>
        m.sdk.rpcs.create(appName, V, { name: rpcId, label: rpc.label ?? rpcId }).then(() => undefined),
    });
    steps.push({
      method: 'PATCH',
      path: () => path,
      what: 'label and connection',
      run: (m, n) =>
        m.sdk.rpcs
          .update(appName, V, rpcId, {
            label: rpc.label ?? rpcId,
            connection: need(n.connection, 'connection'),
          })
          .then(() => undefined),
    });
    for (const [code, section] of [
      ['communication', 'api'],
      ['params', 'parameters'],
    ] as const) {
      const file = rpc.codeFiles[code]!;
      steps.push({
        method: 'PUT',
        path: () => `${path}/${section}`,
        what: file,
        run: (m) => m.sdk.rpcs.setSection(appName, V, rpcId, section, text(file)),
      });
    }
  }

  const sections = [
    ['communication', 'api'],
    ['staticParams', 'parameters'],
    ['mappableParams', 'expect'],
    ['interface', 'interface'],
    ['samples', 'samples'],
    ['epoch', 'epoch'],
  ] as const;
  for (const [moduleId, mod] of Object.entries(app.components.module)) {
    const path = `/sdk/apps/${N}/${V}/modules/${encodeURIComponent(moduleId)}`;
    const typeId = MODULE_TYPE_IDS[mod.moduleType ?? ''];
    if (typeId === undefined) throw new Error(`Module ${moduleId} has no known moduleType`);
    steps.push({
      method: 'GET',
      path: () => path,
      what: `is module ${moduleId} there`,
      run: (m) => exists(() => m.sdk.modules.get(appName, V, moduleId)),
    });
    steps.push({
      method: 'POST',
      path: () => `/sdk/apps/${N}/${V}/modules`,
      what: `create module ${moduleId} (${mod.moduleType})`,
      ifMissing: true,
      run: (m) => {
        const body = {
          name: moduleId,
          typeId,
          label: mod.label ?? moduleId,
          description: mod.description ?? '',
          moduleInitMode: 'blank' as const,
        };
        // A universal module needs a subtype at creation (as Make's editor extension sends it).
        const extra = mod.moduleType === 'universal' ? { subtype: 'Universal' } : {};
        return m
          .fetch(`/sdk/apps/${N}/${V}/modules`, { method: 'POST', body: { ...body, ...extra } })
          .then(() => undefined);
      },
    });
    steps.push({
      method: 'PATCH',
      path: () => path,
      what:
        'label, description, connection' +
        (mod.moduleType === 'instant_trigger' ? ', webhook' : '') +
        (mod.actionCrud ? ', crud' : ''),
      run: (m, n) => {
        const body: Record<string, string> = {
          label: mod.label ?? moduleId,
          description: mod.description ?? '',
          connection: need(n.connection, 'connection'),
        };
        if (mod.moduleType === 'instant_trigger') body.webhook = need(n.webhook, 'webhook');
        if (mod.actionCrud) body.crud = mod.actionCrud;
        return m.fetch(path, { method: 'PATCH', body }).then(() => undefined);
      },
    });
    for (const [code, section] of sections) {
      const file = mod.codeFiles[code];
      if (!file) continue;
      steps.push({
        method: 'PUT',
        path: () => `${path}/${section}`,
        what: file,
        run: (m) => m.sdk.modules.setSection(appName, V, moduleId, section, text(file)),
      });
    }
  }
  return steps;
}

export interface DeployEnv {
  token?: string;
  zone?: string;
  appName?: string;
  appVersion?: string;
}

export interface Target {
  zone: string;
  appName: string;
  appVersion: number;
}

/** Reads the target from the environment; the zone is a host such as eu1.make.com. */
export function target(env: DeployEnv, app: Makecomapp = readMakecomapp()): Target {
  const zone = (env.zone ?? '')
    .trim()
    .replace(/^https:\/\//, '')
    .replace(/\/api\/?$/, '')
    .replace(/\/$/, '');
  const origin = app.origins[0];
  const appName = env.appName || origin?.appId || '';
  const appVersion = Number(env.appVersion || origin?.appVersion || 1);
  if (!Number.isInteger(appVersion) || appVersion < 1)
    throw new Error(`MAKE_APP_VERSION must be a whole number from 1 (got ${env.appVersion})`);
  if (!appName) throw new Error('Set MAKE_APP_NAME to the app name Make shows for your custom app');
  return { zone, appName, appVersion };
}

/** Text of the dry run: every call, in order, with its full URL. */
export function describePlan(steps: Step[], t: Target): string[] {
  const host = t.zone || '<MAKE_ZONE>';
  const names: Names = {};
  return steps.map(
    (s) =>
      `${s.method.padEnd(5)} https://${host}/api/v2${s.path(names)}  ${s.ifMissing ? '(only if missing) ' : ''}${s.what}`,
  );
}

/** Makes the calls. Returns the steps actually run, in order, for the caller's log. */
export async function executePlan(steps: Step[], make: Make, log: (line: string) => void): Promise<string[]> {
  const names: Names = {};
  const done: string[] = [];
  let missing = false;
  for (const s of steps) {
    if (s.ifMissing && !missing) continue;
    const outcome = await s.run(make, names);
    const line = `${s.method} ${s.path(names)}`;
    done.push(line);
    log(`${line}${outcome === 'missing' ? ' (missing)' : ''}  ${s.what}`);
    if (!s.ifMissing) missing = outcome === 'missing';
  }
  return done;
}

const USAGE = `Usage: npm run deploy -w @evf/make [-- --dry-run]
Environment:
  MAKE_API_TOKEN    a Make API token with the sdk-apps:read and sdk-apps:write scopes (required unless --dry-run)
  MAKE_ZONE         your Make zone host, for example eu1.make.com or us1.make.com (required unless --dry-run)
  MAKE_APP_NAME     the custom app's name in Make (default: origins[0].appId in app/makecomapp.json)
  MAKE_APP_VERSION  the app version (default: origins[0].appVersion, else 1)`;

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  const dryRun = argv.includes('--dry-run');
  const unknown = argv.filter((a) => a !== '--dry-run');
  if (unknown.length > 0 || argv.includes('--help')) {
    err(`Unknown argument ${unknown.join(' ')}.\n${USAGE}`);
    return 2;
  }
  let t: Target;
  let steps: Step[];
  try {
    t = target({
      token: env.MAKE_API_TOKEN,
      zone: env.MAKE_ZONE,
      appName: env.MAKE_APP_NAME,
      appVersion: env.MAKE_APP_VERSION,
    });
    steps = planDeploy(t.appName, t.appVersion);
  } catch (e) {
    err(`Cannot deploy: ${(e as Error).message}.\n${USAGE}`);
    return 2;
  }
  if (dryRun) {
    out(
      `Dry run: nothing is sent. Deploying app "${t.appName}" version ${t.appVersion} would make these ${steps.length} calls (those marked "only if missing" run only when the lookup before them finds nothing):`,
    );
    for (const line of describePlan(steps, t)) out(line);
    return 0;
  }
  const missing = [!env.MAKE_API_TOKEN && 'MAKE_API_TOKEN', !t.zone && 'MAKE_ZONE'].filter(Boolean);
  if (missing.length > 0) {
    err(
      `Cannot deploy: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set. Nothing was sent.\n${USAGE}`,
    );
    return 2;
  }
  if (!/^[A-Za-z0-9.-]+$/.test(t.zone)) {
    err(`Cannot deploy: MAKE_ZONE must be a host such as eu1.make.com (got "${t.zone}"). Nothing was sent.`);
    return 2;
  }
  const make = new Make(env.MAKE_API_TOKEN!, t.zone);
  out(`Deploying app "${t.appName}" version ${t.appVersion} to ${t.zone}:`);
  try {
    await executePlan(steps, make, out);
  } catch (e) {
    // MakeError carries Make's own reason and status; the token is never part of it.
    const status = e instanceof MakeError ? ` (HTTP ${e.statusCode})` : '';
    err(
      `Deploy stopped: ${(e as Error).message}${status}. Calls before this one were made; run the deploy again once fixed (every call is idempotent).`,
    );
    return 1;
  }
  out('Deployed.');
  return 0;
}
