import { randomInt } from 'node:crypto';
import { BlockList, isIP, isIPv6 } from 'node:net';
import { HttpError } from '../../contract/http-error.js';

/**
 * Accounts and API keys of the simulated service (spec 2.1, 3.3, 5): who a credential belongs to, what it
 * may do, and every reason to refuse it.
 *
 * @remarks
 * The registry is live: pausing a key or suspending an account takes effect on the next request (spec 3.3,
 * 5.4), with no cache in between.
 *
 * @example
 * ```ts
 * const registry = new KeyRegistry();
 * registry.addAccount({ id: 'acct_1', recordingSupported: true });
 * const key = registry.addKey({ accountId: 'acct_1', scopes: ['voice_calls.read'], allowList: ['10.0.0.0/8'] });
 * registry.updateAccount('acct_1', { suspended: true }); // every request of key.value: 403 account_suspended
 * ```
 */

/** spec 2.1, 5.6: the voice scopes a key may hold. */
export type Scope = 'voice_calls.read' | 'voice_calls.write';
/** Both voice scopes: what a key holds unless it is created with fewer. */
export const VOICE_SCOPES: readonly Scope[] = ['voice_calls.read', 'voice_calls.write'];

/** A customer of the service: what it is allowed and how much (spec 3.3, 5.4, 5.5, 8). */
export interface Account {
  id: string;
  /** spec 3.3: every request of every key of the account answers `403 account_suspended` while set. */
  suspended: boolean;
  /** spec 5.5: without it every voice request answers `403 voice_not_entitled`. */
  voiceEntitled: boolean;
  /** spec 2.6: `record: true` of a browser call is honoured only when set. */
  recordingSupported: boolean;
  /** spec 8: ceiling on the account's active browser calls; one more is `429 concurrency_limit`. */
  maxActiveCalls: number;
}

/** spec 3.3: a paused or deleted key is refused like an unknown one. */
export type KeyStatus = 'active' | 'paused' | 'deleted';

/** Requests a key may make per window (spec 8, "Voice key quota"). */
export interface Quota {
  perMinute: number;
  perHour: number;
}

/** An API key of an account (spec 2.1): the fields the voice endpoints look at. */
export interface ApiKey {
  /** spec 2.1: a fixed prefix plus 32 alphanumeric characters. */
  value: string;
  accountId: string;
  scopes: readonly Scope[];
  status: KeyStatus;
  /** spec 2.1: addresses or CIDR ranges, IPv4 or IPv6; absent or empty: any address. */
  allowList?: readonly string[];
  /** Overrides the service-wide default quota for this key. */
  quota?: Partial<Quota>;
}

/** A key that passed the credential checks, and its account. */
export interface Principal {
  key: Readonly<ApiKey>;
  account: Readonly<Account>;
}

/** An account to create: its id, and any setting that differs from the defaults. */
export type AccountInput = Pick<Account, 'id'> & Partial<Omit<Account, 'id'>>;
/** A key to create: its account, and any field that differs from the defaults (a fresh value, both scopes, active). */
export type KeyInput = Pick<ApiKey, 'accountId'> & Partial<Omit<ApiKey, 'accountId'>>;

/** spec 2.1, 5.2: the simulator's prefix (`vsk_`) plus 32 letters or digits. */
export const API_KEY_FORMAT = /^vsk_[A-Za-z0-9]{32}$/;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A fresh key value in {@link API_KEY_FORMAT}. */
export function generateApiKey(): string {
  return `vsk_${Array.from({ length: 32 }, () => ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]).join('')}`;
}

const ACCOUNT_DEFAULTS: Omit<Account, 'id'> = {
  suspended: false,
  voiceEntitled: true,
  recordingSupported: false,
  // spec 8 names the ceiling but not its number; this one leaves room for parallel tests and benches.
  maxActiveCalls: 50,
};

const invalidCredentials = () => new HttpError(401, 'invalid_credentials', 'missing or invalid API key');

/**
 * The credential of a request: exactly one of `X-Api-Key` or `Authorization: Bearer` (spec 5.1).
 * @returns the key value, or the `401 invalid_credentials` to answer.
 */
export function readCredential(apiKey: string | undefined, authorization: string | undefined): string | HttpError {
  // spec 5.1: `X-Api-Key` with a nonempty `Authorization` is refused (an older text gave X-Api-Key precedence).
  if (apiKey !== undefined && authorization) {
    return new HttpError(401, 'invalid_credentials', 'send only one credential header: X-Api-Key or Authorization');
  }
  if (apiKey) return apiKey.trim();
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return bearer?.[1] ?? invalidCredentials();
}

interface AllowListEntry {
  address: string;
  type: 'ipv4' | 'ipv6';
  /** Prefix length of a CIDR range; undefined for a single address. */
  bits: number | undefined;
}

/** An allow-list entry as an address or a range (spec 2.1), or undefined when it is neither. */
function parseAllowListEntry(entry: string): AllowListEntry | undefined {
  const [address = '', prefix, extra] = entry.trim().split('/');
  const family = isIP(address);
  const bits = prefix === undefined ? undefined : Number(prefix);
  const maxBits = family === 6 ? 128 : 32;
  if (!family || extra !== undefined || (bits !== undefined && (!/^\d{1,3}$/.test(prefix ?? '') || bits > maxBits))) return undefined;
  return { address, type: family === 6 ? 'ipv6' : 'ipv4', bits };
}

/** Whether `entry` is an IP address or a CIDR range, IPv4 or IPv6 (spec 2.1), as an allow-list takes it. */
export function isAllowListEntry(entry: string): boolean {
  return parseAllowListEntry(entry) !== undefined;
}

/** Parses an allow-list once, at key creation; a bad entry is a configuration error, thrown at once. */
function compileAllowList(entries: readonly string[] | undefined): BlockList | undefined {
  if (!entries?.length) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = parseAllowListEntry(entry);
    if (!parsed) throw new Error(`allow-list entry "${entry}" is not an IP address or CIDR range`);
    if (parsed.bits === undefined) list.addAddress(parsed.address, parsed.type);
    else list.addSubnet(parsed.address, parsed.bits, parsed.type);
  }
  return list;
}

interface KeyEntry {
  key: ApiKey;
  allow: BlockList | undefined;
}

/** The service's accounts and their keys. */
export class KeyRegistry {
  private readonly accounts = new Map<string, Account>();
  private readonly keys = new Map<string, KeyEntry>();

  /**
   * A registry of one account with default settings holding each of `keys` with its scopes: the shape
   * `createRestApp(service, keys)` has always taken. The values keep whatever form they have.
   */
  static fromScopes(keys: ReadonlyMap<string, { scopes: readonly Scope[]; quota?: Partial<Quota> }>, account: AccountInput = { id: 'acct_default' }): KeyRegistry {
    const registry = new KeyRegistry();
    registry.addAccount(account);
    for (const [value, { scopes, quota }] of keys) registry.addKey({ value, accountId: account.id, scopes, ...(quota ? { quota } : {}) }, { anyFormat: true });
    return registry;
  }

  addAccount(input: AccountInput): Account {
    if (this.accounts.has(input.id)) throw new Error(`account ${input.id} exists`);
    const account: Account = { ...ACCOUNT_DEFAULTS, ...input };
    this.accounts.set(account.id, account);
    return { ...account };
  }

  /** Changes an account in place: suspension, entitlement and limits apply from the next request. */
  updateAccount(id: string, patch: Partial<Omit<Account, 'id'>>): Account {
    const account = this.accounts.get(id);
    if (!account) throw new Error(`no account ${id}`);
    Object.assign(account, patch);
    return { ...account };
  }

  /**
   * Adds a key (a fresh value unless one is given) to an existing account.
   * @param options.anyFormat - accept a value outside {@link API_KEY_FORMAT} (keys of older tests and tools).
   */
  addKey(input: KeyInput, options: { anyFormat?: boolean } = {}): ApiKey {
    if (!this.accounts.has(input.accountId)) throw new Error(`no account ${input.accountId}`);
    const value = input.value ?? generateApiKey();
    if (!options.anyFormat && !API_KEY_FORMAT.test(value)) throw new Error('an API key is "vsk_" followed by 32 letters or digits');
    if (!value.trim() || /\s/.test(value)) throw new Error('an API key has no spaces');
    if (this.keys.has(value)) throw new Error('that API key exists');
    const key: ApiKey = { scopes: VOICE_SCOPES, status: 'active', ...input, value };
    this.keys.set(value, { key, allow: compileAllowList(key.allowList) });
    return { ...key };
  }

  /** The account, as it is now; undefined for an unknown id. */
  getAccount(id: string): Account | undefined {
    const account = this.accounts.get(id);
    return account && { ...account };
  }

  /** The key, as it is now; undefined for an unknown value. */
  getKey(value: string): ApiKey | undefined {
    const entry = this.keys.get(value);
    return entry && { ...entry.key };
  }

  /** Forgets an account and every key of it: their next request is `401 invalid_credentials`, as for a deleted key. */
  removeAccount(id: string): void {
    for (const [value, entry] of this.keys) if (entry.key.accountId === id) this.keys.delete(value);
    this.accounts.delete(id);
  }

  /** spec 3.3: pause, resume or delete a key; deletion is permanent. */
  setKeyStatus(value: string, status: KeyStatus): void {
    const entry = this.keys.get(value);
    if (!entry) throw new Error('no such API key');
    if (entry.key.status === 'deleted' && status !== 'deleted') throw new Error('a deleted key stays deleted');
    entry.key = { ...entry.key, status };
  }

  /**
   * The principal behind a credential from `address`, or the `401 invalid_credentials` to answer (spec 5.3):
   * unknown, paused and deleted keys and addresses outside the allow-list all look the same to the caller.
   */
  authenticate(credential: string, address: string | undefined): Principal | HttpError {
    const entry = this.keys.get(credential);
    const account = entry && this.accounts.get(entry.key.accountId);
    if (!entry || !account || entry.key.status !== 'active') return invalidCredentials();
    // An allow-listed key whose caller's address is unknown is refused: the list fails closed. The answer
    // is word for word the unknown key's, so that it does not confirm the key to whoever holds it.
    if (entry.allow && (address === undefined || !entry.allow.check(address, isIPv6(address) ? 'ipv6' : 'ipv4'))) {
      return invalidCredentials();
    }
    return { key: entry.key, account: { ...account } };
  }
}

/** spec 5.4, 5.5: what an authenticated key's account refuses, checked on every request. */
export function assertAccountAllowsVoice(account: Readonly<Account>): void {
  if (account.suspended) throw new HttpError(403, 'account_suspended', 'the account is suspended; contact support to reinstate it');
  if (!account.voiceEntitled) throw new HttpError(403, 'voice_not_entitled', 'voice is not enabled for this account');
}

/** spec 5.6: reads need `voice_calls.read`, creation and cleanup `voice_calls.write`. */
export function assertScope(principal: Principal, scope: Scope): void {
  if (!principal.key.scopes.includes(scope)) {
    throw new HttpError(403, 'insufficient_scope', `this operation needs the ${scope} scope; add it to the key in the dashboard`);
  }
}
