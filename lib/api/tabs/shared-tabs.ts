import { toVoiceError, VoiceBrowserError, type VoiceErrorCode } from '../../core/errors.js';
import { LEADER_METHODS } from '../../core/helper-methods.js';
import type { Phone, TabAnswer, TabChannel, TabEnvironment, TabMessage, TabMethod } from '../../runtime/tab-ports.js';
import { setMuted } from '../calls/in-call-controls.js';
import { deepFreeze, INITIAL_STATUS } from '../../core/status-snapshot.js';
import { canConnect } from '../../core/status-rules.js';
import type { VoiceBrowserOptions } from '../../core/helper-types.js';
import type { Connection, VoiceBrowserStatus } from '../../core/types.js';

/**
 * Many tabs, one phone (`tabs: 'shared'`): the tabs of one origin elect a leader with a lock; the leader alone
 * holds a helper (session, registration, microphone, audio) and tells every tab its status; a method called in
 * any tab runs in the leader's helper. A tab that is not the leader keeps nothing but the last status it heard
 * and the calls it is waiting on.
 *
 * @remarks
 * When the leader goes, the next tab in the lock's queue leads. It picks up from the last status it heard
 * (spec 4.9: audio is never reattached): a call or an unfinished cleanup is recovered (`recovery_required`),
 * an idle phone that was connected connects again, anything else waits for the page.
 */

/** Where the tabs meet: the lock and the channel share this name. */
const TABS_NAME = 'voice-browser';

/** A call to a leader that went before answering: its outcome is unknown, told with the code its method uses for that. */
const UNANSWERED: Partial<Record<TabMethod, VoiceErrorCode>> = {
  startCall: 'call_outcome_unknown',
  answerNext: 'dequeue_outcome_unknown',
  accept: 'dequeue_outcome_unknown',
  monitor: 'monitor_outcome_unknown',
  startRecording: 'recording_outcome_unknown',
  stopRecording: 'recording_outcome_unknown',
  hangup: 'cleanup_unknown',
  disconnect: 'cleanup_unknown',
  sendDtmf: 'dtmf_outcome_unknown',
};

/** Left by a leader in these, the new leader recovers what it held: a call, or a session it was ending. */
const RECOVER_AFTER = new Set<Connection>(['recovery_required', 'disconnecting']);
/** Left idle in these, the new leader connects. */
const CONNECT_AFTER = new Set<Connection>(['connecting', 'ready', 'reconnecting', 'offline', 'renewing']);

/** A call made in this tab for the leader: sent to `to`, or waiting for a leader to be known. */
export interface Pending {
  method: TabMethod;
  args: unknown[];
  to?: string;
  settle(answer: TabAnswer): void;
}

/**
 * What a new leader does with the phone the last one left, from the last status it heard (none when it heard
 * none): recover a call or an unfinished cleanup, connect an idle phone that was connected, or nothing.
 */
export function takeover(before: VoiceBrowserStatus | undefined): 'recover' | 'connect' | undefined {
  if (before && (before.busy || RECOVER_AFTER.has(before.connection))) return 'recover';
  return before && CONNECT_AFTER.has(before.connection) ? 'connect' : undefined;
}

/**
 * Where a call waiting on a leader goes once `next` is known to lead (undefined: none, or none yet): `keep` where
 * it is; `lost` when it went to another leader, which will never answer now (outcome unknown); else `run` here,
 * where this tab leads, or `send` to the new leader.
 */
export function redirect(call: Pending, next: string | undefined, leads: boolean): 'keep' | 'lost' | 'run' | 'send' {
  if (call.to === next || (!call.to && !next)) return 'keep';
  if (call.to) return 'lost';
  return leads ? 'run' : 'send';
}

/** The answer of a call whose leader went before answering: outcome unknown, with its method's code. */
export function unanswered(method: TabMethod): TabAnswer {
  return { error: { code: UNANSWERED[method] ?? 'browser_session_unavailable', message: `${method}(): the tab holding the phone closed before answering` } };
}

/** The status as this tab shows it: the leader's, with which tab holds the phone. */
function withTab(status: VoiceBrowserStatus, leads: boolean): VoiceBrowserStatus {
  return deepFreeze({ ...status, tabs: { mode: 'shared', leader: leads } });
}

/** One tab among shared tabs: what it shows, who leads, and the calls it waits on. */
interface Tab {
  me: string;
  options: VoiceBrowserOptions;
  channel: TabChannel;
  /** The tab whose status this one shows: itself once it leads, unknown until one is heard. */
  leader?: string;
  /** Whether a leader's status was ever shown here: what a new leader picks up from. */
  heard: boolean;
  /** The helper, once this tab leads. */
  helper?: Phone;
  left: boolean;
  shown: VoiceBrowserStatus;
  nextId: number;
  pending: Map<number, Pending>;
}

/** Shows `status` in this tab, and tells the page. */
function show(tab: Tab, status: VoiceBrowserStatus, leads: boolean): void {
  tab.shown = withTab(status, leads);
  tab.options.onStatus?.(tab.shown);
}

/** Runs a method in this tab's helper (it leads): its own calls and the ones other tabs send it. */
function run(helper: Phone, method: TabMethod, args: unknown[]): Promise<unknown> {
  const status = helper.status();
  // In shared tabs recover() asks what the phone holds: once the leader holds anything, its status is the answer.
  if (method === 'recover' && !canConnect(status)) return Promise.resolve(status);
  // mute() throws at once on bad input: a rejection here, as for the others.
  return Promise.resolve().then(() => (helper[method] as (...given: unknown[]) => unknown)(...args));
}

/** Runs a method in this tab's helper and settles its answer as the channel carries it: a value, or a coded error. */
function answer(helper: Phone, method: TabMethod, args: unknown[], settle: (answer: TabAnswer) => void): Promise<void> {
  return run(helper, method, args).then(
    (value) => settle({ value: value as undefined }),
    (cause: unknown) => {
      const { code, message, status, retryAfterMs } = toVoiceError(cause, 'invalid_argument', `${method}() failed`);
      settle({ error: { code, message, status, retryAfterMs } });
    },
  );
}

/** A leader is known (or none, `next` undefined): each call waiting on one goes where {@link redirect} says. */
function follow(tab: Tab, next: string | undefined): void {
  const { pending, helper } = tab;
  tab.leader = next;
  for (const [id, call] of pending) {
    const where = redirect(call, next, !!helper);
    if (where === 'lost' || where === 'run') pending.delete(id);
    if (where === 'lost') call.settle(unanswered(call.method));
    else if (where === 'run') void answer(helper!, call.method, call.args, call.settle);
    else if (where === 'send') {
      call.to = next;
      tab.channel.post({ kind: 'call', from: tab.me, to: next!, id, method: call.method, args: call.args });
    }
  }
}

/** A method called in this tab: run here when it leads, else sent to the leader (or kept until one is known). */
function call(tab: Tab, method: TabMethod, args: unknown[]): Promise<unknown> {
  const { helper } = tab;
  if (tab.left) return Promise.reject(new VoiceBrowserError('browser_session_unavailable', `${method}() on a destroyed helper`));
  if (helper) return run(helper, method, args);
  return new Promise<TabAnswer>((settle) => {
    tab.pending.set(++tab.nextId, { method, args, settle });
    follow(tab, tab.leader);
  }).then((answered) => {
    if ('error' in answered) {
      const { code, message, status, retryAfterMs } = answered.error;
      throw new VoiceBrowserError(code, message, { status, retryAfterMs });
    }
    return method === 'recover' ? tab.shown : answered.value;
  });
}

/** This tab holds the lock: it makes the helper, tells the others its status, and picks up what the last leader left. */
function lead(tab: Tab, makeLeader: (options: VoiceBrowserOptions) => Phone): void {
  const { options, channel, me } = tab;
  const next = takeover(tab.heard ? tab.shown : undefined);
  const publish = (status: VoiceBrowserStatus) => {
    show(tab, status, true);
    channel.post({ kind: 'status', from: me, status });
  };
  const helper = makeLeader({
    ...options,
    onStatus: publish,
    onTiming(event) {
      options.onTiming?.(event);
      channel.post({ kind: 'timing', from: me, event });
    },
  });
  tab.helper = helper;
  follow(tab, me);
  publish(helper.status());
  // Errors of the takeover show in the status, as every failure does.
  if (next) helper[next]().catch(() => undefined);
}

/** What another tab said: a new tab's hello, the leader's status, timing and leaving, a call for this leader, or an answer. */
function receive(tab: Tab, message: TabMessage): void {
  const { helper, me, channel } = tab;
  const { kind, from } = message;
  if (kind === 'hello') {
    if (helper) channel.post({ kind: 'status', from: me, status: helper.status() });
  } else if (kind === 'status') {
    if (helper) return;
    tab.heard = true;
    if (from !== tab.leader) follow(tab, from);
    show(tab, message.status, false);
  } else if (kind === 'timing') {
    if (from === tab.leader && !helper) tab.options.onTiming?.(message.event);
  } else if (kind === 'bye') {
    if (from === tab.leader) follow(tab, undefined);
  } else if (kind === 'call') {
    if (helper && message.to === me) void answer(helper, message.method, message.args, (answered) => channel.post({ kind: 'answer', from: me, to: from, id: message.id, ...answered }));
  } else if (message.to === me) {
    tab.pending.get(message.id)?.settle(message);
    tab.pending.delete(message.id);
  }
}

/**
 * The helper of one tab among shared tabs. `makeLeader` makes the real helper, once this tab leads. The methods
 * that run in the leader ({@link LEADER_METHODS}) are sent there; the rest are this tab's own.
 */
export function createSharedTabs(options: VoiceBrowserOptions, env: TabEnvironment, makeLeader: (options: VoiceBrowserOptions) => Phone): Phone {
  const me = Math.random().toString(36).slice(2);
  const channel = env.open(TABS_NAME);
  const tab: Tab = { me, options, channel, heard: false, left: false, shown: withTab(INITIAL_STATUS, false), nextId: 0, pending: new Map() };
  channel.listen((message) => receive(tab, message));
  const release = env.lead(TABS_NAME, () => lead(tab, makeLeader));
  channel.post({ kind: 'hello', from: me });
  // A leader that leaves says so: the others keep their calls until the next one leads instead of losing them.
  const bye = () => tab.helper && channel.post({ kind: 'bye', from: me });
  env.page?.addEventListener('pagehide', bye);

  // Each method the list says runs in the leader goes there; the list is the helper's own, checked against it.
  const forwarded = {} as Pick<Phone, TabMethod>;
  for (const method of LEADER_METHODS) Object.assign(forwarded, { [method]: (...args: unknown[]) => call(tab, method, args) });
  const own: Omit<Phone, Exclude<TabMethod, 'mute'>> = {
    mute(muted: boolean) {
      if (tab.helper) return tab.helper.mute(muted);
      // Checked as the leader checks it (this tab has no link to mute): bad input throws here at once; a failure
      // in the leader shows in the status, as it does there.
      setMuted(undefined, muted);
      call(tab, 'mute', [muted]).catch(() => undefined);
    },
    resumeAudio() {
      if (tab.helper) return tab.helper.resumeAudio();
      // Autoplay is unlocked by a click in the page that plays: this tab's click cannot reach the leader's audio.
      const error = new VoiceBrowserError('audio_playback_blocked', 'the call plays in the tab holding the phone: click there to resume it');
      show(tab, { ...tab.shown, error: error.toStatus() }, false);
      return Promise.reject(error);
    },
    status: () => tab.shown,
    async destroy() {
      if (tab.left) return;
      // Only the leader holds anything; a follower's disconnect() would end every tab's phone.
      await tab.helper?.disconnect();
      tab.left = true;
      bye();
      env.page?.removeEventListener('pagehide', bye);
      release();
      channel.close();
      follow(tab, undefined);
    },
  };
  return Object.assign(forwarded, own);
}
