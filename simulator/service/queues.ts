import { HttpError } from '../../contract/http-error.js';
import type { QueueEvent, QueueEventName } from '../../contract/queue-webhook.js';
import { initialFacts, type CallFacts } from '../calls/call-facts.js';
import type { CodecProfile } from '../media/audio-codec.js';
import type { MediaAddressMode } from '../media/media-address-mode.js';
import { createMediaPeer, type MediaCounts } from '../media/media.js';
import type { CallMixer } from '../media/mixer.js';
import { TERMINAL_GENERIC_STATES, type GenericCallState, type Queue, type QueueCall } from './model.js';
import { QueueBridge, type QueueBridgeDeps } from '../calls/queue-bridge.js';
import { newId, type Owned } from './resources.js';

/**
 * The simulated service's queues (spec 4.8) and the inbound calls waiting in them (spec 3.1): created and listed
 * under the API key that made them, each caller kept in arrival order, and `call.received` / `call.ended` told to
 * the queue's `notifyUrl` (spec 6.1) by the delivery given. A dequeue takes the head caller (first in, first
 * out), `dequeuing`, and bridges it to the claiming agent's page (`QueueBridge`): `established` once the page
 * answers, back at the head of its queue when it does not, `finished` when either side hangs up.
 *
 * @remarks
 * The simulator posts webhooks to loopback only (it runs beside the tests, which must send nothing further): a
 * `notifyUrl` on any other host is refused `400 unsafe_url` when the queue is created.
 */

/** A queue as the service keeps it: with its secret, which no answer carries. */
interface StoredQueue extends Queue {
  notifySecret: string | undefined;
}

/** Sends one webhook; the desk does not wait for it (spec 6.1: best effort). */
export type DeliverEvent = (url: string, secret: string | undefined, event: QueueEvent) => void;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** What the desk needs: webhook delivery, the clock, and what its bridges ring agents with. */
export interface QueueDeskOptions extends Omit<QueueBridgeDeps, 'createMedia'> {
  deliver: DeliverEvent;
  toneMs: number;
  /** Where each bridge's media gathers and whom it may pair with (`selectMediaAddresses`). */
  mediaAddresses: MediaAddressMode;
  /** The codecs the media offers (`CodecProfile`); default `opus`. */
  codecs?: CodecProfile | undefined;
}

/** The agent a dequeue bridges to: its id and the session its page registered under. */
export interface ClaimingAgent {
  agentId: string;
  sessionId: string;
}

/** An inbound call and what the service keeps beside it. */
interface DeskCall extends Owned<QueueCall> {
  facts: CallFacts;
  /** The bridge of the dequeue in progress, and the session of the agent it rings. */
  bridge?: { bridge: QueueBridge; sessionId: string } | undefined;
  /** A hangup is taking the bridge down: the call is `finished` once it is. */
  ending?: boolean;
}

export class QueueDesk {
  private readonly queues = new Map<string, Owned<StoredQueue>>();
  /** Every inbound call, under its queue's owner, in arrival order. */
  private readonly calls = new Map<string, DeskCall>();
  /** Each queue's waiting callers' ids, head first. */
  private readonly waiting = new Map<string, string[]>();

  constructor(private readonly options: QueueDeskOptions) {}

  create(owner: string, input: { name: string; holdAudioUrl: string; notifyUrl: string; notifySecret?: string | undefined }): Queue {
    if (!LOOPBACK_HOSTS.has(new URL(input.notifyUrl).hostname)) {
      throw new HttpError(400, 'unsafe_url', 'notifyUrl: the simulator delivers webhooks to 127.0.0.1 only');
    }
    const queue: StoredQueue = { id: newId('q'), name: input.name, holdAudioUrl: input.holdAudioUrl, notifyUrl: input.notifyUrl, notifySecret: input.notifySecret, createdAt: this.stamp() };
    this.queues.set(queue.id, { owner, value: queue });
    return publicQueue(queue);
  }

  /** The key's queue; `404 not_found` for an unknown id and another key's alike. */
  ownQueue(owner: string, id: string): Queue {
    const queue = this.queues.get(id);
    if (!queue || queue.owner !== owner) throw new HttpError(404, 'not_found', 'no such queue');
    return publicQueue(queue.value);
  }

  /** The key's queues, oldest first. */
  list(owner: string): Queue[] {
    return [...this.queues.values()].filter((queue) => queue.owner === owner).map((queue) => publicQueue(queue.value));
  }

  /**
   * The queue a control request names: by id, else by name (the names a person sees, such as the demo's
   * "Support"). `404 not_found` naming the queues there are when none matches; `409 queue_ambiguous` naming their
   * ids when several queues (of several keys, or proxies that each made their own) share the name.
   */
  named(reference: string): Owned<StoredQueue> {
    const byId = this.queues.get(reference);
    if (byId) return byId;
    const all = [...this.queues.values()];
    const byName = all.filter((queue) => queue.value.name === reference);
    if (byName.length === 1 && byName[0]) return byName[0];
    if (byName.length > 1) throw new HttpError(409, 'queue_ambiguous', `${byName.length} queues are named "${reference}" (${byName.map((queue) => queue.value.id).join(', ')}); name one by its id`);
    const known = all.map((queue) => `${queue.value.name} (${queue.value.id})`).join(', ');
    throw new HttpError(404, 'not_found', `no such queue "${reference}"; ${known ? `the queues are ${known}` : 'there are no queues yet'}`);
  }

  /** An inbound caller reaches a queue, named by id or name (the control API acts the caller): `queued`, and `call.received` sent. */
  arrive(input: { queueId: string; from: string; to: string }): QueueCall {
    const queue = this.named(input.queueId);
    const call: QueueCall = { id: newId('c'), direction: 'inbound', queueId: queue.value.id, from: input.from, to: input.to, state: 'queued', agentId: null, createdAt: this.stamp(), answeredAt: null, endedAt: null };
    this.calls.set(call.id, { owner: queue.owner, value: call, facts: initialFacts(call) });
    this.waitingIn(call.queueId).push(call.id);
    this.tell('call.received', call);
    return { ...call };
  }

  /**
   * Claims the head caller of the key's queue for `agent` (spec 3.1: `queued` → `dequeuing`) and rings the
   * agent's page; resolves once the INVITE is out, as a browser call does. `409 queue_empty` when nobody waits,
   * `409 browser_session_unavailable` (the caller stays at the head) when the agent's page is not registered.
   */
  async dequeue(owner: string, queueId: string, agent: ClaimingAgent): Promise<QueueCall> {
    this.ownQueue(owner, queueId);
    const id = this.waitingIn(queueId).shift();
    const found = id === undefined ? undefined : this.calls.get(id);
    if (!found) throw new HttpError(409, 'queue_empty', 'nobody is waiting in this queue');
    this.set(found, 'dequeuing', { agentId: agent.agentId, answeredAt: null });
    const bridge = new QueueBridge(found.value.id, found.facts, { ...this.options, createMedia: () => createMediaPeer({ toneMs: this.options.toneMs, now: this.options.now, addresses: this.options.mediaAddresses, codecs: this.options.codecs }) }, {
      answered: () => this.set(found, 'established', { answeredAt: this.stamp() }),
      unanswered: () => this.requeue(found),
      ended: () => void this.finish(found),
    });
    found.bridge = { bridge, sessionId: agent.sessionId };
    const rung = await bridge.start(agent.sessionId, found.value.from).catch(() => false);
    if (!rung && !found.ending) {
      this.requeue(found);
      throw new HttpError(409, 'browser_session_unavailable', 'the browser agent is not registered; connect it first');
    }
    return { ...found.value };
  }

  /** The agent's call that a dequeue bridged and that is not over, if any: the agent is busy with it. */
  bridgedCallOf(agentId: string): QueueCall | undefined {
    for (const call of this.calls.values()) if (call.bridge && call.value.agentId === agentId) return { ...call.value };
    return undefined;
  }

  /** The agent's session ended: its bridged call is hung up, as a browser call of the session would be. */
  hangupBridgedOf(sessionId: string): void {
    for (const call of this.calls.values()) if (call.bridge?.sessionId === sessionId) void this.finish(call);
  }

  /** A call as the service sees it, with its bridge's SIP and media facts (any owner), for the control API. */
  inspect(id: string): { call: QueueCall; facts: CallFacts; media: MediaCounts | null } | undefined {
    const call = this.calls.get(id);
    if (!call) return undefined;
    return { call: { ...call.value }, facts: call.facts, media: call.bridge?.bridge.counts() ?? call.facts.media };
  }

  /** Both parties' audio of the call `id` mixed, while its bridge's media runs (`CallMixer`). */
  mixerOf(id: string): CallMixer | undefined {
    return this.calls.get(id)?.bridge?.bridge.mixer();
  }

  /** One of the key's calls; another key's is the same 404 as none (spec 4.7). */
  get(owner: string, id: string): QueueCall {
    return { ...this.found(id, owner).value };
  }

  /** The key's calls, oldest first; `active` keeps only those in a non-terminal state (spec 3.1). */
  listCalls(owner: string, active: boolean): QueueCall[] {
    return [...this.calls.values()]
      .filter((call) => call.owner === owner && (!active || !TERMINAL_GENERIC_STATES.has(call.value.state)))
      .map((call) => ({ ...call.value }));
  }

  /** Ends one of the key's calls (`finished`, `call.ended` sent); an ended one is answered as it is. */
  hangup(owner: string, id: string): QueueCall {
    const found = this.found(id, owner);
    void this.finish(found);
    return { ...found.value };
  }

  /** The caller hangs up (the control API acts the caller): as {@link hangup}, from the far end. */
  callerHangup(id: string): QueueCall {
    const found = this.found(id);
    void this.finish(found);
    return { ...found.value };
  }

  /** The call `id`, of `owner` when one is given; `404 not_found` otherwise, another key's call alike. */
  private found(id: string, owner?: string): DeskCall {
    const call = this.calls.get(id);
    if (!call || (owner !== undefined && call.owner !== owner)) throw new HttpError(404, 'not_found', 'no such call');
    return call;
  }

  /** Stops every bridge, then forgets every queue and call (simulator reset). */
  async clear(): Promise<void> {
    const bridges = [...this.calls.values()].flatMap((call) => (call.bridge ? [call.bridge.bridge] : []));
    this.queues.clear();
    this.calls.clear();
    this.waiting.clear();
    await Promise.all(bridges.map((bridge) => bridge.end()));
  }

  /**
   * Ends the call: a waiting caller at once; a bridged one once its leg and media are down, so that `finished`,
   * like a browser call's terminal state, proves both sides stopped. `call.ended` follows.
   */
  private async finish(call: DeskCall): Promise<void> {
    if (TERMINAL_GENERIC_STATES.has(call.value.state) || call.ending) return;
    this.unwait(call.value);
    const bridged = call.bridge;
    if (bridged) {
      call.ending = true;
      await bridged.bridge.end();
      call.bridge = undefined;
    }
    this.set(call, 'finished', { endedAt: this.stamp() });
    this.tell('call.ended', call.value);
  }

  /** The agent did not take the call: the caller is `queued` again, at the head, for the next dequeue. */
  private requeue(call: DeskCall): void {
    call.bridge = undefined;
    if (call.ending || TERMINAL_GENERIC_STATES.has(call.value.state)) return;
    this.set(call, 'queued');
    this.waitingIn(call.value.queueId).unshift(call.value.id);
  }

  private set(call: DeskCall, state: GenericCallState, patch: Partial<QueueCall> = {}): void {
    if (state !== call.value.state) call.facts.history.push({ state, at: this.stamp() });
    call.value = { ...call.value, ...patch, state };
  }

  private waitingIn(queueId: string): string[] {
    let ids = this.waiting.get(queueId);
    if (!ids) this.waiting.set(queueId, (ids = []));
    return ids;
  }

  private unwait(call: QueueCall): void {
    const ids = this.waitingIn(call.queueId);
    const at = ids.indexOf(call.id);
    if (at >= 0) ids.splice(at, 1);
  }

  private tell(event: QueueEventName, call: QueueCall): void {
    const queue = this.queues.get(call.queueId)?.value;
    if (!queue) return;
    this.options.deliver(queue.notifyUrl, queue.notifySecret, { event, callId: call.id, queueId: queue.id, from: call.from, to: call.to, state: call.state });
  }

  private stamp(): string {
    return new Date(this.options.now()).toISOString();
  }
}

/** A queue as answers show it: everything but its secret. */
function publicQueue({ notifySecret: _, ...queue }: StoredQueue): Queue {
  return { ...queue };
}
