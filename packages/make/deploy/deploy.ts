/**
 * Deploys app/ to a custom app that already exists in Make, through Make's API with @makehq/sdk
 * (Make's TypeScript SDK; its `sdk.*` endpoints are the ones Make's own VS Code extension uses).
 * One plan drives both the dry run, which prints every call, and the real run, which makes them in
 * the same order. Components whose names Make assigns (the connection, the webhook) are found by
 * label and created when missing; modules and the RPC keep the local ids as their names.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Make, MakeError } from '@makehq/sdk';
import { parse } from 'jsonc-parser';
import { baseUrlProblem } from '@evf/client';
import { withServiceAddress } from './service-address';

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

interface Plan {
  appName: string;
  /** The app version. */
  V: number;
  /** The app name as a path segment. */
  N: string;
  app: Makecomapp;
}

/** The app itself: it must exist; then base (with the service address), groups, common data, docs and logo. */
function generalSteps({ appName, V, N, app }: Plan, baseUrl: string): Step[] {
  const steps: Step[] = [];
  const g = app.generalCodeFiles;
  steps.push({
    method: 'GET',
    path: () => `/sdk/apps/${N}/${V}`,
    what: 'the app exists (create it once in Make)',
    run: (m) => m.sdk.apps.get(appName, V).then(() => undefined),
  });
  steps.push({
    method: 'PUT',
    path: () => `/sdk/apps/${N}/${V}/base`,
    what: `${g.base} with baseUrl ${baseUrl}`,
    run: (m) => m.sdk.apps.setSection(appName, V, 'base', withServiceAddress(text(g.base), baseUrl)),
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

  return steps;
}

/** The connection, found by label or created, then its code (its test call with the service address). */
function connectionSteps({ appName, N, app }: Plan, baseUrl: string): Step[] {
  const steps: Step[] = [];
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
    const withAddress = code === 'communication';
    steps.push({
      method: 'PUT',
      path: (n) => `${connPath(n)}/${section}`,
      what: withAddress ? `${file} with its test call to ${baseUrl}` : file,
      run: (m, n) =>
        m.sdk.connections.setSection(
          need(n.connection, 'connection'),
          section,
          withAddress ? withServiceAddress(text(file), baseUrl) : text(file),
        ),
    });
  }

  return steps;
}

/** Each webhook, found by label or created, then its label and code. */
function webhookSteps({ appName, N, app }: Plan): Step[] {
  const steps: Step[] = [];
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
      what: 'label (no connection: the webhook never calls the service)',
      run: (m, n) =>
        m.fetch(hookPath(n), { method: 'PATCH', body: { label, connection: null } }).then(() => undefined),
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

  return steps;
}

/** Each RPC, created when missing, then its label, connection and code. */
function rpcSteps({ appName, V, N, app }: Plan): Step[] {
  const steps: Step[] = [];
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

  return steps;
}

/** Each module, created when missing, then its metadata and code. */
function moduleSteps({ appName, V, N, app }: Plan): Step[] {
  const steps: Step[] = [];
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
        'label, description, ' +
        (mod.moduleType === 'instant_trigger' ? 'webhook (no connection)' : 'connection') +
        (mod.actionCrud ? ', crud' : ''),
      run: (m, n) => {
        // The instant trigger makes no request, so it carries no connection (nor does its webhook).
        const body: Record<string, string | null> = {
          label: mod.label ?? moduleId,
          description: mod.description ?? '',
          connection: mod.moduleType === 'instant_trigger' ? null : need(n.connection, 'connection'),
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

/**
 * Every call of a deploy, in order. `baseUrl` is the service address the app calls, written as a
 * literal into the base and the connection's test call (the connection asks for the key alone).
 */
export function planDeploy(
  appName: string,
  appVersion: number,
  baseUrl: string,
  app: Makecomapp = readMakecomapp(),
): Step[] {
  const functions = Object.keys(app.components.function ?? {});
  if (functions.length > 0) {
    // Make refuses custom IML functions unless it has enabled them for the app; this app needs none.
    throw new Error(
      `The app defines custom IML functions (${functions.join(', ')}); Make must enable them first, and this app is meant to work without them.`,
    );
  }
  const plan: Plan = { appName, V: appVersion, N: encodeURIComponent(appName), app };
  return [
    ...generalSteps(plan, baseUrl),
    ...connectionSteps(plan, baseUrl),
    ...webhookSteps(plan),
    ...rpcSteps(plan),
    ...moduleSteps(plan),
  ];
}

export interface DeployEnv {
  token?: string;
  zone?: string;
  appName?: string;
  appVersion?: string;
  /** EVF_BASE_URL: the service address the app calls, ending in /api. */
  baseUrl?: string;
  /** A development build may call a sandbox on this machine over http; a release never does. */
  development?: boolean;
  /** A dry run sends nothing, so it may show the plan before EVF_BASE_URL is chosen. */
  dryRun?: boolean;
}

/** What a dry run without EVF_BASE_URL shows where the address goes. */
const UNSET_SERVICE_ADDRESS = '<EVF_BASE_URL>';

export interface Target {
  zone: string;
  appName: string;
  appVersion: number;
  baseUrl: string;
}

/**
 * The address the deployed app calls: https and ending in /api (the client's rule, baseUrlProblem);
 * plain http to this machine (the local sandbox) only in a development build.
 */
function serviceAddress(env: DeployEnv): string {
  const baseUrl = (env.baseUrl ?? '').trim().replace(/\/$/, '');
  const problem = baseUrlProblem(baseUrl, { allowLoopbackHttp: env.development === true });
  if (problem?.rule === 'required')
    throw new Error("Set EVF_BASE_URL to the service's API address (https://<host>/api)");
  if (problem?.rule === 'https')
    throw new Error(
      env.development
        ? `EVF_BASE_URL must use https:// (http:// only to this machine); got ${problem.got}`
        : `EVF_BASE_URL must use https:// in a release (a sandbox on this machine only with --development); got ${problem.got}`,
    );
  if (problem) throw new Error(`EVF_BASE_URL is not a usable address (${problem.rule})`);
  if (!baseUrl.endsWith('/api')) throw new Error(`EVF_BASE_URL must end in /api; got ${baseUrl}`);
  return baseUrl;
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
  const unset = (env.baseUrl ?? '').trim() === '';
  const baseUrl = env.dryRun && unset ? UNSET_SERVICE_ADDRESS : serviceAddress(env);
  return { zone, appName, appVersion, baseUrl };
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

const USAGE = `Usage: npm run deploy -w @evf/make [-- --dry-run] [--development]
Environment:
  EVF_BASE_URL      the service's API address the app calls, https://<host>/api (required; with
                    --development also http:// to this machine, for a local sandbox)
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
  const development = argv.includes('--development');
  const unknown = argv.filter((a) => a !== '--dry-run' && a !== '--development');
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
      baseUrl: env.EVF_BASE_URL,
      development,
      dryRun,
    });
    steps = planDeploy(t.appName, t.appVersion, t.baseUrl);
  } catch (e) {
    err(`Cannot deploy: ${(e as Error).message}.\n${USAGE}`);
    return 2;
  }
  if (dryRun) {
    out(
      `Dry run: nothing is sent. Deploying app "${t.appName}" version ${t.appVersion} would make these ${steps.length} calls (those marked "only if missing" run only when the lookup before them finds nothing):`,
    );
    for (const line of describePlan(steps, t)) out(line);
    if (t.baseUrl === UNSET_SERVICE_ADDRESS)
      out(
        "EVF_BASE_URL is not set: a real run refuses without it (the service's API address, https://<host>/api, written into the base and the connection).",
      );
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
  for (const file of writeReadyBlueprints(t.appName))
    out(`Wrote ${file}: import it into this app's account.`);
  return 0;
}

export const EXAMPLES_DIR = join(__dirname, '..', 'examples');
/** What the shipped blueprints name the app by; Make gives the real ID when the app is created. */
export const APP_ID_PLACEHOLDER = 'app#your-app-id:';

/**
 * The example blueprints with the deployed app's ID in place of the placeholder, written to
 * examples/ready/ (not committed): those import into the account that owns the app, or any it is
 * shared with. Returns the files written.
 */
export function writeReadyBlueprints(appName: string, dir = join(EXAMPLES_DIR, 'ready')): string[] {
  mkdirSync(dir, { recursive: true });
  return readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith('.blueprint.json'))
    .map((f) => {
      const text = readFileSync(join(EXAMPLES_DIR, f), 'utf8')
        .split(APP_ID_PLACEHOLDER)
        .join(`app#${appName}:`);
      writeFileSync(join(dir, f), text);
      return join(dir, f);
    });
}
