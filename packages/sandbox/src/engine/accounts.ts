import { randomBytes } from 'node:crypto';
import { HttpError } from '../http/errors';
import { KEY_PREFIX, SECRET_PREFIX } from '../rules';
import { CreditLedger } from './ledger';
import { allowanceFor, isPlanName, PLAN_NAMES, type Allowance, type PlanName } from './plans';
import { UsageWindow } from './usage-window';

/** How an account is described in options or a JSON config file. */
export interface AccountSeed {
  id?: string;
  name?: string;
  email?: string;
  /** One of starter, growth, plus, pro, scale, scale_max; null or absent = no plan. */
  plan?: PlanName | null;
  /** Total credits ever bought as top-ups (drives the top-up allowance table). */
  topUpTotal?: number;
  /** Starting balance. */
  credits?: number;
  keys?: KeySeed[];
  /** The account's webhook signing secret, whsec_...; generated when absent. */
  webhookSecret?: string;
}

export interface KeySeed {
  id?: string;
  /** The key value, evf_...; generated when absent. */
  key?: string;
  revoked?: boolean;
}

export interface ApiKeyRecord {
  id: string;
  key: string;
  createdAt: number;
  revokedAt: number | null;
}

export interface Account {
  id: string;
  name: string;
  email: string;
  plan: PlanName | null;
  topUpTotal: number;
  createdAt: number;
  allowance: Allowance | null;
  ledger: CreditLedger;
  usage: UsageWindow;
  keys: ApiKeyRecord[];
  webhookSecret: string;
}

/** Credentials of one account, for tests and the CLI (never logged by the sandbox). */
export interface AccountCredentials {
  accountId: string;
  apiKey: string;
  keyId: string;
  webhookSecret: string;
}

function token(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

export class AccountStore {
  private readonly accounts = new Map<string, Account>();
  private readonly byKey = new Map<string, { account: Account; record: ApiKeyRecord }>();

  constructor(private readonly now: () => number) {}

  add(seed: AccountSeed): Account {
    const id = seed.id ?? `acct_${token(6)}`;
    const where = `account "${id}"`;
    if (this.accounts.has(id)) throw new TypeError(`${where} is seeded twice; account ids must be unique`);
    const plan = seed.plan ?? null;
    if (plan !== null && !isPlanName(plan)) {
      throw new TypeError(
        `${where}: plan must be one of ${PLAN_NAMES.join(', ')} or null; got "${String(plan)}"`,
      );
    }
    const topUpTotal = seed.topUpTotal ?? 0;
    if (!Number.isSafeInteger(topUpTotal) || topUpTotal < 0)
      throw new TypeError(`${where}: topUpTotal must be a whole number >= 0`);
    const credits = seed.credits ?? 0;
    if (!Number.isSafeInteger(credits) || credits < 0)
      throw new TypeError(`${where}: credits must be a whole number >= 0`);
    const webhookSecret = seed.webhookSecret ?? `${SECRET_PREFIX}${token(24)}`;
    if (!webhookSecret.startsWith(SECRET_PREFIX) || webhookSecret.length < SECRET_PREFIX.length + 8) {
      throw new TypeError(
        `${where}: webhookSecret must start with ${SECRET_PREFIX} and have at least 8 more characters`,
      );
    }
    const createdAt = this.now();
    const account: Account = {
      id,
      name: seed.name ?? id,
      email: seed.email ?? `${id}@sandbox.invalid`,
      plan,
      topUpTotal,
      createdAt,
      allowance: allowanceFor(plan, topUpTotal),
      ledger: new CreditLedger(credits),
      usage: new UsageWindow(),
      keys: [],
      webhookSecret,
    };
    const keySeeds = seed.keys && seed.keys.length > 0 ? seed.keys : [{}];
    const active = keySeeds.filter((k) => !k.revoked).length;
    const allowedKeys = account.allowance?.keys;
    if (allowedKeys !== undefined && allowedKeys !== null && active > allowedKeys) {
      throw new TypeError(`${where}: ${active} active keys, but its plan and top-ups allow ${allowedKeys}`);
    }
    this.accounts.set(id, account);
    for (const k of keySeeds) this.addKey(account, k);
    return account;
  }

  private addKey(account: Account, seed: KeySeed): ApiKeyRecord {
    const key = seed.key ?? `${KEY_PREFIX}${token(20)}`;
    if (!key.startsWith(KEY_PREFIX) || key.length < KEY_PREFIX.length + 8) {
      throw new TypeError(
        `account "${account.id}": every key must start with ${KEY_PREFIX} and have at least 8 more characters`,
      );
    }
    if (this.byKey.has(key)) throw new TypeError(`account "${account.id}": a key value is seeded twice`);
    const id = seed.id ?? `key_${token(6)}`;
    if (this.findKeyById(id)) throw new TypeError(`account "${account.id}": key id "${id}" is seeded twice`);
    const record: ApiKeyRecord = {
      id,
      key,
      createdAt: this.now(),
      revokedAt: seed.revoked ? this.now() : null,
    };
    account.keys.push(record);
    this.byKey.set(key, { account, record });
    return record;
  }

  private findKeyById(keyId: string): { account: Account; record: ApiKeyRecord } | undefined {
    for (const account of this.accounts.values()) {
      const record = account.keys.find((k) => k.id === keyId);
      if (record) return { account, record };
    }
    return undefined;
  }

  get(id: string): Account | undefined {
    return this.accounts.get(id);
  }

  all(): Account[] {
    return [...this.accounts.values()];
  }

  /** Finds an account by its id or by one of its key values (for test assertions). */
  resolve(accountIdOrKey: string): Account | undefined {
    return this.accounts.get(accountIdOrKey) ?? this.byKey.get(accountIdOrKey)?.account;
  }

  credentials(account: Account): AccountCredentials {
    const key = account.keys.find((k) => k.revokedAt === null) ?? account.keys[0]!;
    return { accountId: account.id, apiKey: key.key, keyId: key.id, webhookSecret: account.webhookSecret };
  }

  /** 401 for a missing, malformed, unknown or revoked key; 403 for an account without API access. */
  authenticate(header: string | string[] | undefined): Account {
    const value = Array.isArray(header) ? header[0] : header;
    if (value === undefined || value.trim() === '') {
      throw new HttpError(401, 'missing_api_key', 'Send your API key in the X-API-Key header.');
    }
    if (!value.startsWith(KEY_PREFIX)) {
      throw new HttpError(
        401,
        'malformed_api_key',
        `API keys start with ${KEY_PREFIX}; check that the whole key was copied.`,
      );
    }
    const found = this.byKey.get(value);
    if (!found)
      throw new HttpError(
        401,
        'invalid_api_key',
        'This API key is not valid. Create a key in the app under Profile, then API.',
      );
    if (found.record.revokedAt !== null) {
      throw new HttpError(
        401,
        'revoked_api_key',
        'This API key has been revoked. Create a new key in the app under Profile, then API.',
      );
    }
    if (!found.account.allowance) {
      throw new HttpError(
        403,
        'no_api_access',
        'API access needs a paid account: any plan or a single top-up.',
      );
    }
    return found.account;
  }

  /**
   * Revokes one of the account's own keys; another account's key id is "no such key" (isolation).
   * Revoking a key that is already revoked succeeds again: the key exists and the outcome is the same.
   */
  revoke(account: Account, keyId: string): boolean {
    const record = account.keys.find((k) => k.id === keyId);
    if (!record) return false;
    record.revokedAt ??= this.now();
    return true;
  }

  rotateWebhookSecret(account: Account, secret?: string): string {
    const next = secret ?? `${SECRET_PREFIX}${token(24)}`;
    if (!next.startsWith(SECRET_PREFIX))
      throw new TypeError(`a webhook secret must start with ${SECRET_PREFIX}`);
    account.webhookSecret = next;
    return next;
  }
}
