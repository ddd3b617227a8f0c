/**
 * The release path: `npm run deploy -w @evf/make` deploys app/ through Make's API with @makehq/sdk.
 * The dry run prints every call and sends nothing; a run without a token or zone refuses before any
 * request; a real run makes exactly the printed calls, in order (Make's API mocked with nock).
 */
import nock from 'nock';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useNock } from '../../../test/support/nock';
import { registerSecret } from '../../../test/support/secret-guard';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  APP_DIR,
  APP_ID_PLACEHOLDER,
  LOGO_FILE,
  main,
  planDeploy,
  readMakecomapp,
  writeReadyBlueprints,
} from '../deploy/deploy';
import { SERVICE_ADDRESS_PLACEHOLDER } from '../deploy/service-address';
import { appModuleId, checkBlueprint, type Blueprint } from './harness/scenario';
import { parse } from 'jsonc-parser';

useNock();

const TOKEN = '3f1c2b4a-9d8e-4f70-8a6b-5c4d3e2f1a0b';
registerSecret(TOKEN);
const ZONE = 'eu1.make.com';
const APP = 'email-verification-app';
const CONNECTION = 'email-verification-app-conn';
const WEBHOOK = 'email-verification-app-hook';
const SERVICE = 'https://api.service.example/api';

interface Outcome {
  code: number;
  out: string[];
  err: string[];
}

async function deploy(argv: string[], env: Record<string, string | undefined>): Promise<Outcome> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    env as NodeJS.ProcessEnv,
    (l) => out.push(l),
    (l) => err.push(l),
  );
  return { code, out, err };
}

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * A stand-in for Make's API: one mock per expected call, answered as Make would (components missing or
 * there), each recording the request it got. Bodies are kept as sent (nock would JSON-parse them in a
 * reply function, and the sections are JSON with comments).
 */
function makeApi(existing: boolean, seen: Seen[]): void {
  const app = readMakecomapp();
  const connLabel = Object.values(app.components.connection)[0]!.label;
  const hookLabel = Object.values(app.components.webhook)[0]!.label;
  let webhookLookups = 0;
  for (const call of expectedCalls(!existing)) {
    const [method, path] = call.split(' ') as [string, string];
    const get = method === 'GET';
    let answer: [number, nock.Body] = [200, { changed: true, appModule: {}, appRpc: {}, appWebhook: {} }];
    if (get && path === `/sdk/apps/${APP}/1`) answer = [200, { app: { name: APP, version: 1 } }];
    else if (get && path === `/sdk/apps/${APP}/connections`)
      answer = [200, { appConnections: existing ? [{ name: CONNECTION, label: connLabel }] : [] }];
    else if (get && path === `/sdk/apps/${APP}/webhooks`)
      answer = [
        200,
        { appWebhooks: existing || webhookLookups++ > 0 ? [{ name: WEBHOOK, label: hookLabel }] : [] },
      ];
    else if (get) answer = existing ? [200, { appModule: {}, appRpc: {} }] : [404, { message: 'Not found' }];
    else if (method === 'POST' && path === `/sdk/apps/${APP}/connections`)
      answer = [200, { appConnection: { name: CONNECTION, label: connLabel } }];
    else if (method === 'POST' && path === `/sdk/apps/${APP}/webhooks`)
      answer = [200, { appWebhook: { label: hookLabel, type: 'web' } }];
    nock(`https://${ZONE}`)
      .intercept(`/api/v2${path}`, method)
      .reply(answer[0], answer[1])
      .on('request', (req: { headers: Seen['headers'] }, _i: unknown, body: string) => {
        seen.push({
          method,
          path,
          headers: req.headers,
          body: body !== '' && req.headers['content-type'] === 'application/json' ? JSON.parse(body) : body,
        });
      });
  }
}

/** The calls the plan says a run makes, with the names Make assigns filled in. */
function expectedCalls(includeCreates: boolean): string[] {
  return planDeploy(APP, 1, SERVICE)
    .filter((s) => includeCreates || !s.ifMissing)
    .map((s) => `${s.method} ${s.path({ connection: CONNECTION, webhook: WEBHOOK })}`);
}

describe('npm run deploy -w @evf/make', () => {
  it('--dry-run prints every call, in order, and sends nothing (no token needed)', async () => {
    const r = await deploy(['--dry-run'], { MAKE_ZONE: ZONE, EVF_BASE_URL: SERVICE });
    expect(r.code).toBe(0);
    const calls = r.out.slice(1).map((l) => {
      const [method, url] = l.split(/\s+/);
      return `${method} ${url!.replace(`https://${ZONE}/api/v2`, '').replace('<connection>', CONNECTION).replace('<webhook>', WEBHOOK)}`;
    });
    expect(calls).toEqual(expectedCalls(true));
    // Every module's communication, parameters and interface are among the calls.
    for (const id of Object.keys(readMakecomapp().components.module)) {
      for (const section of ['api', 'expect', 'interface', 'samples'])
        expect(calls).toContain(`PUT /sdk/apps/${APP}/1/modules/${id}/${section}`);
    }
    expect(r.out.join('\n')).toMatch(/only if missing/);
    // The logo is uploaded, right after the app's general files.
    expect(calls).toContain(`PUT /sdk/apps/${APP}/1/icon`);
    expect(r.out.join('\n')).toMatch(/assets\/logo\.png/);
  });

  it('the logo is a 512 x 512 PNG, the form Make takes for an app icon', () => {
    const png = readFileSync(LOGO_FILE);
    expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
  });

  it('refuses clearly without a token or a zone, before any request', async () => {
    const noToken = await deploy([], { MAKE_ZONE: ZONE, EVF_BASE_URL: SERVICE });
    expect(noToken.code).toBe(2);
    expect(noToken.err.join('\n')).toMatch(/MAKE_API_TOKEN is not set\. Nothing was sent/);
    const noZone = await deploy([], { MAKE_API_TOKEN: TOKEN, EVF_BASE_URL: SERVICE });
    expect(noZone.code).toBe(2);
    expect(noZone.err.join('\n')).toMatch(/MAKE_ZONE is not set/);
    const badZone = await deploy([], {
      MAKE_API_TOKEN: TOKEN,
      MAKE_ZONE: 'eu1.make.com/evil?x=',
      EVF_BASE_URL: SERVICE,
    });
    expect(badZone.code).toBe(2);
    expect(await deploy(['--force'], {})).toMatchObject({ code: 2 });
  });

  it('into an empty app: creates every component, then writes every file, in the printed order', async () => {
    const seen: Seen[] = [];
    makeApi(false, seen);
    const r = await deploy([], {
      MAKE_API_TOKEN: TOKEN,
      MAKE_ZONE: `https://${ZONE}/api`,
      EVF_BASE_URL: SERVICE,
    });
    expect(r.err).toEqual([]);
    expect(r.code).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(expectedCalls(true));
    // Authorised with the token (an API key shape is sent as "Token"), which is never printed.
    expect(seen.every((s) => s.headers.authorization === `Token ${TOKEN}`)).toBe(true);
    expect([...r.out, ...r.err].join('\n')).not.toContain(TOKEN);
    // Sections are the files as they are, comments included (Make's API takes JSON with comments),
    // except that the base and the connection's test call carry the service address as a literal.
    const base = seen.find((s) => s.path === `/sdk/apps/${APP}/1/base`)!;
    expect(base.headers['content-type']).toBe('application/jsonc');
    const baseFile = readFileSync(join(APP_DIR, 'general/base.iml.json'), 'utf8');
    expect(base.body).toBe(baseFile.split(SERVICE_ADDRESS_PLACEHOLDER).join(SERVICE));
    expect((parse(base.body as string) as { baseUrl: string }).baseUrl).toBe(SERVICE);
    const connApi = seen.find((s) => s.path === `/sdk/apps/connections/${CONNECTION}/api`)!;
    expect((parse(connApi.body as string) as { url: string }).url).toBe(`${SERVICE}/v1/account`);
    for (const s of seen) expect(JSON.stringify(s.body ?? '')).not.toContain(SERVICE_ADDRESS_PLACEHOLDER);
    const created = seen
      .filter((s) => s.method === 'POST' && s.path === `/sdk/apps/${APP}/1/modules`)
      .map((s) => s.body as { name: string; typeId: number });
    expect(created.map((m) => m.name)).toEqual(Object.keys(readMakecomapp().components.module));
    expect(created.find((m) => m.name === 'watchJobFinished')!.typeId).toBe(10);
    const instant = seen.find(
      (s) => s.method === 'PATCH' && s.path === `/sdk/apps/${APP}/1/modules/watchJobFinished`,
    )!;
    // The instant trigger and its webhook make no request, so they carry no connection.
    expect(instant.body).toMatchObject({ connection: null, webhook: WEBHOOK });
    const hook = seen.find((s) => s.method === 'PATCH' && s.path === `/sdk/apps/webhooks/${WEBHOOK}`)!;
    expect(hook.body).toMatchObject({ connection: null });
    // Common data stays what the file says: nothing the app needs to reach the service lives there.
    const common = seen.find((s) => s.path === `/sdk/apps/${APP}/1/common`)!;
    expect(common.body).toEqual({});
  });

  it('the release calls an https service; a sandbox on this machine only in a development build', async () => {
    const env = { MAKE_API_TOKEN: TOKEN, MAKE_ZONE: ZONE };
    // A dry run sends nothing, so it shows the plan without an address and names what a run needs.
    const dry = await deploy(['--dry-run'], { MAKE_ZONE: ZONE });
    expect(dry.code).toBe(0);
    expect(dry.out.join('\n')).toMatch(/EVF_BASE_URL is not set: a real run refuses without it/);
    const none = await deploy([], env);
    expect(none.code).toBe(2);
    expect(none.err.join('\n')).toMatch(/Set EVF_BASE_URL/);
    const local = await deploy([], { ...env, EVF_BASE_URL: 'http://127.0.0.1:8787/api' });
    expect(local.code).toBe(2);
    expect(local.err.join('\n')).toMatch(/https:\/\/ in a release .*--development/);
    expect((await deploy([], { ...env, EVF_BASE_URL: 'http://api.service.example/api' })).code).toBe(2);
    expect((await deploy([], { ...env, EVF_BASE_URL: 'https://api.service.example/v1' })).code).toBe(2);
    const dev = await deploy(['--dry-run', '--development'], {
      MAKE_ZONE: ZONE,
      EVF_BASE_URL: 'http://127.0.0.1:8787/api',
    });
    expect(dev.code).toBe(0);
    expect(dev.out.join('\n')).toMatch(/baseUrl http:\/\/127\.0\.0\.1:8787\/api/);
  });

  it('into an app that has every component: updates them, creates nothing', async () => {
    const seen: Seen[] = [];
    makeApi(true, seen);
    const r = await deploy([], { MAKE_API_TOKEN: TOKEN, MAKE_ZONE: ZONE, EVF_BASE_URL: SERVICE });
    expect(r.code).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(expectedCalls(false));
  });

  it("stops at the first refused call with Make's reason and status", async () => {
    nock(`https://${ZONE}`).get(`/api/v2/sdk/apps/${APP}/1`).reply(401, { message: 'Invalid access token.' });
    const r = await deploy([], { MAKE_API_TOKEN: TOKEN, MAKE_ZONE: ZONE, EVF_BASE_URL: SERVICE });
    expect(r.code).toBe(1);
    expect(r.err.join('\n')).toMatch(/Deploy stopped: Invalid access token\. \(HTTP 401\)/);
    expect(r.err.join('\n')).not.toContain(TOKEN);
  });

  it("writes the example blueprints with the deployed app's ID, ready to import", () => {
    const dir = mkdtempSync(join(tmpdir(), 'evf-make-ready-'));
    const files = writeReadyBlueprints('email-verification-7f3a2c', dir);
    expect(files.length).toBe(2);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain(APP_ID_PLACEHOLDER);
      const bp = JSON.parse(text) as Blueprint;
      const own = bp.flow.filter((m) => m.module.startsWith('app#'));
      expect(own.length).toBeGreaterThan(0);
      for (const m of own) expect(m.module).toMatch(/^app#email-verification-7f3a2c:[A-Za-z]+$/);
      expect(
        checkBlueprint(bp).filter((p) => !/scenario runner knows|the app has no module/.test(p)),
      ).toEqual([]);
      expect(own.every((m) => appModuleId(m.module) === undefined)).toBe(true);
    }
  });
});
