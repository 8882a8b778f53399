import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { HttpError } from '../../contract/http-error.js';
import { isAllowListEntry, VOICE_SCOPES, type Account, type ApiKey, type KeyRegistry, type KeyStatus, type Quota } from '../service/accounts.js';
import { parseControlInput } from './control-input.js';

/**
 * Keys in the spec's states through the control API (`POST /__sim/keys`, `PATCH /__sim/keys/:key`), so that a
 * test in another process can prove what a paused key, a suspended account or a missing scope does (spec 3.3,
 * 5), without a registry of its own.
 *
 * @remarks
 * Each key made here gets an account of its own, so one test's suspension touches no other test's key. A
 * change is live: it applies from the next request (spec 3.3, 5.4). {@link KeyControl.reset} forgets what was
 * made here and puts back what was changed of the keys and accounts the simulator started with.
 *
 * @example
 * ```ts
 * const control = new KeyControl(registry, DEFAULT_QUOTA);
 * const made = control.create({ account: { suspended: true }, quota: { perMinute: 2 } });
 * control.update(made.key, { account: { suspended: false } });
 * ```
 */

const accountSettings = z.strictObject({
  suspended: z.boolean().optional(),
  voiceEntitled: z.boolean().optional(),
  recordingSupported: z.boolean().optional(),
  maxActiveCalls: z.number().int().min(0).optional(),
});

/** Body of `POST /__sim/keys`: every field optional, `{}` is a key in the default state. */
export const keyInput = z.strictObject({
  scopes: z.array(z.enum(VOICE_SCOPES)).optional(),
  paused: z.boolean().optional(),
  allowList: z.array(z.string().refine(isAllowListEntry, 'must be an IP address or a CIDR range such as 10.0.0.0/8')).optional(),
  quota: z.strictObject({ perMinute: z.number().int().min(1).optional(), perHour: z.number().int().min(1).optional() }).optional(),
  account: accountSettings.optional(),
});

/** Body of `PATCH /__sim/keys/:key`: what can change of a live key and its account. */
export const keyPatch = z.strictObject({ paused: z.boolean().optional(), account: accountSettings.optional() });

/** A key as the control API answers it: the value, its settings, and its account's. */
export interface KeyView {
  key: string;
  accountId: string;
  scopes: ApiKey['scopes'];
  paused: boolean;
  allowList: readonly string[];
  /** The quota the key runs under: its own, over the service's default. */
  quota: Quota;
  account: Omit<Account, 'id'>;
}

/** The keys of the control API: those it made, and what it changed of the others, so that reset undoes both. */
export class KeyControl {
  /** Accounts made here, each holding the one key made with it. */
  private readonly made = new Set<string>();
  /** The status of each key the simulator started with, before it was first changed here. */
  private readonly originalStatuses = new Map<string, KeyStatus>();
  /** Each account the simulator started with, before it was first changed here (several keys may share it). */
  private readonly originalAccounts = new Map<string, Account>();

  /** @param defaultQuota - the quota of a key that sets none, to answer the one a key runs under. */
  constructor(
    private readonly registry: KeyRegistry,
    private readonly defaultQuota: Quota,
  ) {}

  /** `POST /__sim/keys`: a new account and a new key in the spec's format (spec 2.1), in the state `body` asks. */
  create(body: unknown): KeyView {
    const input = parseControlInput(keyInput, body);
    const accountId = `acct_${randomBytes(12).toString('hex')}`;
    this.registry.addAccount({ ...input.account, id: accountId });
    this.made.add(accountId);
    const key = this.registry.addKey({
      accountId,
      scopes: input.scopes ? [...new Set(input.scopes)] : VOICE_SCOPES,
      status: input.paused ? 'paused' : 'active',
      ...(input.allowList ? { allowList: input.allowList } : {}),
      ...(input.quota ? { quota: input.quota } : {}),
    });
    return this.view(key.value);
  }

  /** `PATCH /__sim/keys/:key`: pauses or resumes the key, changes its account; `404 not_found` for no such key. */
  update(value: string, body: unknown): KeyView {
    const key = this.liveKey(value);
    const patch = parseControlInput(keyPatch, body);
    const account = this.registry.getAccount(key.accountId);
    if (!this.made.has(key.accountId) && account) {
      if (!this.originalStatuses.has(value)) this.originalStatuses.set(value, key.status);
      if (!this.originalAccounts.has(account.id)) this.originalAccounts.set(account.id, account);
    }
    if (patch.paused !== undefined) this.registry.setKeyStatus(value, patch.paused ? 'paused' : 'active');
    if (patch.account) this.registry.updateAccount(key.accountId, patch.account);
    return this.view(value);
  }

  /** `POST /__sim/reset`: forgets the keys made here and undoes the changes to the others. */
  reset(): void {
    for (const accountId of this.made) this.registry.removeAccount(accountId);
    this.made.clear();
    for (const [value, status] of this.originalStatuses) this.registry.setKeyStatus(value, status);
    for (const { id, ...settings } of this.originalAccounts.values()) this.registry.updateAccount(id, settings);
    this.originalStatuses.clear();
    this.originalAccounts.clear();
  }

  /** The key unless it is unknown or deleted: a deleted key is gone for good (spec 3.3). */
  private liveKey(value: string): ApiKey {
    const key = this.registry.getKey(value);
    if (!key || key.status === 'deleted') throw new HttpError(404, 'not_found', 'no such API key');
    return key;
  }

  private view(value: string): KeyView {
    const key = this.liveKey(value);
    const account = this.registry.getAccount(key.accountId);
    if (!account) throw new Error(`key without account ${key.accountId}`);
    const { id: accountId, ...settings } = account;
    return {
      key: key.value,
      accountId,
      scopes: key.scopes,
      paused: key.status === 'paused',
      allowList: key.allowList ?? [],
      quota: { ...this.defaultQuota, ...key.quota },
      account: settings,
    };
  }
}
