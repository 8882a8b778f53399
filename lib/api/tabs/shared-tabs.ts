import { toVoiceError, VoiceBrowserError, type VoiceErrorCode } from '../../core/errors.js';
import type { Phone, TabAnswer, TabEnvironment, TabMethod } from '../../runtime/tab-ports.js';
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
interface Pending {
  method: TabMethod;
  args: unknown[];
  to?: string;
  settle(answer: TabAnswer): void;
}

/** The methods that run in the leader, whichever tab calls them. */
const FORWARDED = ['recover', 'connect', 'disconnect', 'startCall', 'answerNext', 'setAvailability', 'accept', 'decline', 'monitor', 'startRecording', 'stopRecording', 'hangup', 'sendDtmf', 'renew', 'preflight'] as const;

/**
 * The helper of one tab among shared tabs. `makeLeader` makes the real helper, once this tab leads. One
 * closure past 40 lines: the leader's and the followers' halves share who leads and what was last shown.
 */
export function createSharedTabs(options: VoiceBrowserOptions, env: TabEnvironment, makeLeader: (options: VoiceBrowserOptions) => Phone): Phone {
  const me = Math.random().toString(36).slice(2);
  const channel = env.open(TABS_NAME);
  /** The tab whose status this one shows: itself once it leads, unknown until one is heard. */
  let leader: string | undefined;
  /** Whether a leader's status was ever shown here: what a new leader picks up from. */
  let heard = false;
  let helper: Phone | undefined;
  let left = false;
  let shown = withTab(INITIAL_STATUS, false);
  let nextId = 0;
  const pending = new Map<number, Pending>();

  const show = (status: VoiceBrowserStatus, leads: boolean) => {
    shown = withTab(status, leads);
    options.onStatus?.(shown);
  };
  /** This tab leads: the others show what it shows. */
  const announce = (status: VoiceBrowserStatus) => channel.post({ kind: 'status', from: me, status });

  /** Runs a method in this tab's helper: the leader's own calls and the ones other tabs send it. */
  const run = (method: TabMethod, args: unknown[]): Promise<unknown> => {
    const own = helper as Phone;
    const status = own.status();
    // In shared tabs recover() asks what the phone holds: once the leader holds anything, its status is the answer.
    if (method === 'recover' && !canConnect(status)) return Promise.resolve(status);
    // mute() throws at once on bad input: a rejection here, as for the others.
    return Promise.resolve().then(() => (own[method] as (...given: unknown[]) => unknown)(...args));
  };
  const answer = (method: TabMethod, args: unknown[], settle: (answer: TabAnswer) => void) =>
    run(method, args).then(
      (value) => settle({ value: value as undefined }),
      (cause: unknown) => {
        const { code, message, status, retryAfterMs } = toVoiceError(cause, 'invalid_argument', `${method}() failed`);
        settle({ error: { code, message, status, retryAfterMs } });
      },
    );

  /**
   * A leader is known (or none, `next` undefined): calls sent to another leader get no answer now and fail,
   * outcome unknown; calls waiting for a leader go to this one.
   */
  const follow = (next: string | undefined) => {
    leader = next;
    for (const [id, call] of pending) {
      if (call.to === next || (!call.to && !next)) continue;
      if (call.to) {
        pending.delete(id);
        const code = UNANSWERED[call.method] ?? 'browser_session_unavailable';
        call.settle({ error: { code, message: `${call.method}(): the tab holding the phone closed before answering` } });
      } else if (helper) {
        pending.delete(id);
        void answer(call.method, call.args, call.settle);
      } else {
        call.to = next;
        channel.post({ kind: 'call', from: me, to: next as string, id, method: call.method, args: call.args });
      }
    }
  };

  /** A method called in this tab: run here when it leads, else sent to the leader (or kept until one is known). */
  const call = (method: TabMethod, args: unknown[]): Promise<unknown> => {
    if (left) return Promise.reject(new VoiceBrowserError('browser_session_unavailable', `${method}() on a destroyed helper`));
    if (helper) return run(method, args);
    return new Promise<TabAnswer>((settle) => {
      pending.set(++nextId, { method, args, settle });
      follow(leader);
    }).then((answered) => {
      if ('error' in answered) {
        const { code, message, status, retryAfterMs } = answered.error;
        throw new VoiceBrowserError(code, message, { status, retryAfterMs });
      }
      return method === 'recover' ? shown : answered.value;
    });
  };

  const lead = () => {
    const before = heard ? shown : undefined;
    const publish = (status: VoiceBrowserStatus) => {
      show(status, true);
      announce(status);
    };
    helper = makeLeader({
      ...options,
      onStatus: publish,
      onTiming(event) {
        options.onTiming?.(event);
        channel.post({ kind: 'timing', from: me, event });
      },
    });
    follow(me);
    publish(helper.status());
    // Errors of the takeover show in the status, as every failure does.
    if (before && (before.busy || RECOVER_AFTER.has(before.connection))) helper.recover().catch(() => undefined);
    else if (before && CONNECT_AFTER.has(before.connection)) helper.connect().catch(() => undefined);
  };

  channel.listen((message) => {
    const { kind, from } = message;
    if (kind === 'hello') {
      if (helper) announce(helper.status());
    } else if (kind === 'status') {
      if (helper) return;
      heard = true;
      if (from !== leader) follow(from);
      show(message.status, false);
    } else if (kind === 'timing') {
      if (from === leader && !helper) options.onTiming?.(message.event);
    } else if (kind === 'bye') {
      if (from === leader) follow(undefined);
    } else if (kind === 'call') {
      if (helper && message.to === me) void answer(message.method, message.args, (answered) => channel.post({ kind: 'answer', from: me, to: from, id: message.id, ...answered }));
    } else if (message.to === me) {
      pending.get(message.id)?.settle(message);
      pending.delete(message.id);
    }
  });
  const release = env.lead(TABS_NAME, lead);
  channel.post({ kind: 'hello', from: me });
  // A leader that leaves says so: the others keep their calls until the next one leads instead of losing them.
  const bye = () => helper && channel.post({ kind: 'bye', from: me });
  env.page?.addEventListener('pagehide', bye);

  const shared = {
    mute(muted: boolean) {
      if (helper) return helper.mute(muted);
      // Checked as the leader checks it (this tab has no link to mute): bad input throws here at once; a failure
      // in the leader shows in the status, as it does there.
      setMuted(undefined, muted);
      call('mute', [muted]).catch(() => undefined);
    },
    resumeAudio() {
      if (helper) return helper.resumeAudio();
      // Autoplay is unlocked by a click in the page that plays: this tab's click cannot reach the leader's audio.
      const error = new VoiceBrowserError('audio_playback_blocked', 'the call plays in the tab holding the phone: click there to resume it');
      show({ ...shown, error: error.toStatus() }, false);
      return Promise.reject(error);
    },
    status: () => shown,
    async destroy() {
      if (left) return;
      // Only the leader holds anything; a follower's disconnect() would end every tab's phone.
      await helper?.disconnect();
      left = true;
      bye();
      env.page?.removeEventListener('pagehide', bye);
      release();
      channel.close();
      follow(undefined);
    },
  };
  for (const method of FORWARDED) Object.assign(shared, { [method]: (...args: unknown[]) => call(method, args) });
  return shared as Phone;
}

/** The status as this tab shows it: the leader's, with which tab holds the phone. */
function withTab(status: VoiceBrowserStatus, leads: boolean): VoiceBrowserStatus {
  return deepFreeze({ ...status, tabs: { mode: 'shared', leader: leads } });
}
