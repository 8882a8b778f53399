import { HttpError } from '../../contract/http-error.js';
import type { CallFacts } from './call-facts.js';
import { CallRunner, type CallRunnerDeps } from './call-runner.js';
import type { Impairment, MediaDirection } from '../media/impairment.js';
import type { CodecProfile } from '../media/audio-codec.js';
import type { MediaAddressMode } from '../media/media-address-mode.js';
import { createMediaPeer, type MediaCounts } from '../media/media.js';
import type { CallMixer } from '../media/mixer.js';
import { TERMINAL_STATES, type BrowserCall, type BrowserSession } from '../service/model.js';
import { newId, type Owned } from '../service/resources.js';
import type { SipServer } from '../sip/sip-server.js';

/**
 * The simulated service's browser calls (spec 4.7 `/browser-calls`): each call's record and the runner that
 * drives its two legs. Admission (the session, its registration, the recipient) is the service's
 * (`VoiceService`); `BrowserCalls` starts what was admitted and answers for the calls it holds.
 *
 * @remarks
 * Every change of a call's record goes through one place, which bumps `revision` and derives `busy` from the
 * state (spec 3.2).
 */

/** What `POST /browser-calls` asks for, validated at the edge (`createRestApp`). */
export interface CreateCallInput {
  sessionId: string;
  from: string;
  to: string;
  maxDurationSeconds?: number | undefined;
  record?: boolean | undefined;
  customData?: Record<string, string> | undefined;
}

/** What the calls need beyond their records: the registrar that rings agents, the media and the timings. */
export interface BrowserCallsOptions {
  sip: SipServer;
  toneMs: number;
  /** Where each call's media gathers and whom it may pair with (`selectMediaAddresses`). */
  mediaAddresses: MediaAddressMode;
  /** The codecs the media offers (`CodecProfile`); default `opus`. */
  codecs?: CodecProfile | undefined;
  timings: CallRunnerDeps['timings'];
  now: () => number;
  /** The recipient answered a call placed with `record: true` (spec 2.6): its recording starts. */
  onRecordedCallConnected?(owner: string, callId: string): void;
}

/** A new call of `session`, `waiting_agent` and busy, as `POST /browser-calls` records it. */
function newCall(session: BrowserSession, input: CreateCallInput, createdAt: string): BrowserCall {
  return {
    id: newId('bc'),
    sessionId: session.id,
    agentId: session.agentId,
    externalSubject: session.externalSubject,
    from: input.from,
    to: input.to,
    state: 'waiting_agent',
    busy: true,
    endReason: null,
    error: null,
    maxDurationSeconds: input.maxDurationSeconds ?? null,
    // spec 2.6: honoured only when the account supports recording; the REST edge passes false otherwise.
    record: input.record ?? false,
    customData: input.customData ?? {},
    createdAt,
    answeredAt: null,
    endedAt: null,
    revision: 1,
  };
}

/** Every call the service placed, each under the key that placed it, with its runner. */
export class BrowserCalls {
  private readonly calls = new Map<string, Owned<BrowserCall>>();
  private readonly runners = new Map<string, CallRunner>();

  constructor(private readonly options: BrowserCallsOptions) {}

  /** Records an admitted call and sends its INVITE; resolves with the call as it is once the INVITE is out. */
  async create(owner: string, session: BrowserSession, input: CreateCallInput): Promise<BrowserCall> {
    const { sip, toneMs, mediaAddresses, codecs, timings, now } = this.options;
    const call = newCall(session, input, new Date(now()).toISOString());
    this.calls.set(call.id, { owner, value: call });
    const runner = new CallRunner(call, {
      sip,
      createMedia: () => createMediaPeer({ toneMs, now, addresses: mediaAddresses, codecs }),
      // A runner still finishing after reset() updates a call the service has forgotten: let it be.
      update: (callId, patch) => (this.calls.has(callId) ? this.update(callId, patch) : { ...call, ...patch }),
      timings,
      now,
    });
    this.runners.set(call.id, runner);
    // The INVITE goes out before this request answers: the page must cope with it arriving first (docs/simulator.md).
    await runner.start();
    return this.calls.get(call.id)?.value ?? call;
  }

  /** The key's call; `404 not_found` for an unknown id and for another key's call alike (spec 4.7). */
  get(owner: string, id: string): BrowserCall {
    const call = this.calls.get(id);
    if (!call || call.owner !== owner) throw new HttpError(404, 'not_found', 'no such browser call');
    return call.value;
  }

  /** Requests the end of both legs; answers at once with the call as it is now (`ending` until both are down). */
  hangup(owner: string, id: string): BrowserCall {
    const call = this.get(owner, id);
    if (!TERMINAL_STATES.has(call.state)) this.runners.get(id)?.hangup('api_hangup');
    return this.get(owner, id);
  }

  /** A call as the service sees it, with SIP and media facts (any owner). */
  inspect(id: string): { call: BrowserCall; facts: CallFacts; media: MediaCounts | null } | undefined {
    const call = this.calls.get(id);
    const runner = this.runners.get(id);
    if (!call || !runner) return undefined;
    return { call: call.value, facts: runner.facts, media: runner.counts() };
  }

  /** Every call of a session, oldest first (any owner). */
  ofSession(sessionId: string): BrowserCall[] {
    return [...this.calls.values()].map((owned) => owned.value).filter((call) => call.sessionId === sessionId);
  }

  /** The recipient hangs up; undefined for an unknown call. */
  remoteHangup(id: string): BrowserCall | undefined {
    const call = this.calls.get(id);
    if (!call) return undefined;
    if (!TERMINAL_STATES.has(call.value.state)) this.runners.get(id)?.hangup('recipient_hangup');
    return this.calls.get(id)?.value;
  }

  /**
   * Withdraws the INVITE of a call the page has not answered (CANCEL, then `failed`); undefined for an unknown
   * call, `409 invite_not_ringing` when the INVITE is not ringing.
   */
  async withdrawInvite(id: string): Promise<BrowserCall | undefined> {
    const runner = this.runners.get(id);
    if (!this.calls.has(id) || !runner) return undefined;
    if (!(await runner.withdrawInvite())) {
      throw new HttpError(409, 'invite_not_ringing', 'the INVITE of this call is not ringing: not sent yet, answered by the browser, or the call is over');
    }
    return this.calls.get(id)?.value;
  }

  /**
   * The far end asks the page to transfer call `id` to `target` (a REFER); the page's final status code.
   * Undefined for an unknown call, `409 call_not_answered` when its leg is not up.
   */
  async refer(id: string, target: string): Promise<number | undefined> {
    const runner = this.runners.get(id);
    if (!this.calls.has(id) || !runner) return undefined;
    const status = await runner.refer(target);
    if (status === undefined) throw new HttpError(409, 'call_not_answered', "this call's leg to the browser is not up: a REFER goes only in an answered dialog");
    return status;
  }

  /**
   * The service holds call `id` (a re-INVITE `a=sendonly`, no audio to the page) or takes it off hold; the page's
   * final status code. Undefined for an unknown call, `409 call_not_answered` when its leg is not up.
   */
  async hold(id: string, held: boolean): Promise<number | undefined> {
    const runner = this.runners.get(id);
    if (!this.calls.has(id) || !runner) return undefined;
    const status = await runner.hold(held);
    if (status === undefined) throw new HttpError(409, 'call_not_answered', "this call's leg to the browser is not up: a hold goes only in an answered dialog");
    return status;
  }

  /** Both parties' audio of the call `id` mixed, while its media runs (`CallMixer`). */
  mixerOf(id: string): CallMixer | undefined {
    return this.runners.get(id)?.mixer();
  }

  /** Blackholes the media of the call `id`, or of every call still busy, for `ms` (the `media-blackhole` fault). */
  blackholeMedia(ms: number, id?: string): void {
    for (const [callId, runner] of this.runners) {
      if ((id === undefined || callId === id) && this.calls.get(callId)?.value.busy) runner.blackholeMedia(ms);
    }
  }

  /** Impairs `direction` of the media of the call `id`, or of every call still busy (the `media-impair` fault). */
  impairMedia(direction: MediaDirection, impairment: Impairment | undefined, seed: number, id?: string): void {
    for (const [callId, runner] of this.runners) {
      if ((id === undefined || callId === id) && this.calls.get(callId)?.value.busy) runner.impairMedia(direction, impairment, seed);
    }
  }

  /** The session's call that is still busy, if any: a session has at most one (spec 3.2). */
  activeCallOf(sessionId: string): BrowserCall | undefined {
    for (const call of this.calls.values()) if (call.value.sessionId === sessionId && call.value.busy) return call.value;
    return undefined;
  }

  /** The agent's call that is still busy, whichever of its sessions placed it. */
  activeCallOfAgent(agentId: string): BrowserCall | undefined {
    for (const call of this.calls.values()) if (call.value.agentId === agentId && call.value.busy) return call.value;
    return undefined;
  }

  /** Hangs up the session's active call, if any: both legs go down, `endReason: session_ended`. */
  hangupCallOf(sessionId: string): void {
    const call = this.activeCallOf(sessionId);
    if (call) this.runners.get(call.id)?.hangup('session_ended');
  }

  /** Stops every call, then forgets them all. */
  async reset(): Promise<void> {
    await Promise.all([...this.runners.values()].map((runner) => runner.dispose()));
    this.calls.clear();
    this.runners.clear();
  }

  private update(id: string, patch: Partial<BrowserCall>): BrowserCall {
    const owned = this.calls.get(id);
    if (!owned) throw new Error(`unknown call ${id}`);
    const state = patch.state ?? owned.value.state;
    // spec 3.2: busy is true until both legs are down, which only a terminal state records.
    const answered = state === 'connected' && owned.value.state !== 'connected';
    owned.value = { ...owned.value, ...patch, state, busy: !TERMINAL_STATES.has(state), revision: owned.value.revision + 1 };
    if (answered && owned.value.record) this.options.onRecordedCallConnected?.(owned.owner, id);
    return owned.value;
  }
}
