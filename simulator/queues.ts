import { HttpError } from '../contract/http-error.js';
import type { QueueEvent, QueueEventName } from '../contract/queue-webhook.js';
import { TERMINAL_GENERIC_STATES, type Queue, type QueueCall } from './model.js';
import { newId, type Owned } from './resources.js';

/**
 * The simulated service's queues (spec 4.8) and the inbound calls waiting in them (spec 3.1): created and listed
 * under the API key that made them, each caller kept in arrival order, and `call.received` / `call.ended` told to
 * the queue's `notifyUrl` (spec 6.1) by the delivery given. The dequeue that bridges a caller to a browser agent
 * comes on top of this.
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

export class QueueDesk {
  private readonly queues = new Map<string, Owned<StoredQueue>>();
  /** Every inbound call, under its queue's owner, in arrival order. */
  private readonly calls = new Map<string, Owned<QueueCall>>();

  constructor(
    private readonly deliver: DeliverEvent,
    private readonly now: () => number,
  ) {}

  create(owner: string, input: { name: string; holdAudioUrl: string; notifyUrl: string; notifySecret?: string | undefined }): Queue {
    if (!LOOPBACK_HOSTS.has(new URL(input.notifyUrl).hostname)) {
      throw new HttpError(400, 'unsafe_url', 'notifyUrl: the simulator delivers webhooks to 127.0.0.1 only');
    }
    const queue: StoredQueue = { id: newId('q'), name: input.name, holdAudioUrl: input.holdAudioUrl, notifyUrl: input.notifyUrl, notifySecret: input.notifySecret, createdAt: this.stamp() };
    this.queues.set(queue.id, { owner, value: queue });
    return publicQueue(queue);
  }

  /** The key's queues, oldest first. */
  list(owner: string): Queue[] {
    return [...this.queues.values()].filter((queue) => queue.owner === owner).map((queue) => publicQueue(queue.value));
  }

  /** An inbound caller reaches a queue (the control API acts the caller): `queued`, and `call.received` sent. */
  arrive(input: { queueId: string; from: string; to: string }): QueueCall {
    const queue = this.queues.get(input.queueId);
    if (!queue) throw new HttpError(404, 'not_found', 'no such queue');
    const call: QueueCall = { id: newId('c'), direction: 'inbound', queueId: queue.value.id, from: input.from, to: input.to, state: 'queued', createdAt: this.stamp(), endedAt: null };
    this.calls.set(call.id, { owner: queue.owner, value: call });
    this.tell('call.received', call);
    return { ...call };
  }

  /** One of the key's calls; another key's is the same 404 as none (spec 4.7). */
  get(owner: string, id: string): QueueCall {
    const call = this.calls.get(id);
    if (!call || call.owner !== owner) throw new HttpError(404, 'not_found', 'no such call');
    return { ...call.value };
  }

  /** The key's calls, oldest first; `active` keeps only those in a non-terminal state (spec 3.1). */
  listCalls(owner: string, active: boolean): QueueCall[] {
    return [...this.calls.values()]
      .filter((call) => call.owner === owner && (!active || !TERMINAL_GENERIC_STATES.has(call.value.state)))
      .map((call) => ({ ...call.value }));
  }

  /** Ends one of the key's calls (`finished`, `call.ended` sent); an ended one is answered as it is. */
  hangup(owner: string, id: string): QueueCall {
    const found = this.calls.get(id);
    if (!found || found.owner !== owner) throw new HttpError(404, 'not_found', 'no such call');
    return this.end(found.value);
  }

  /** The caller hangs up (the control API acts the caller): as {@link hangup}, from the far end. */
  callerHangup(id: string): QueueCall {
    const found = this.calls.get(id);
    if (!found) throw new HttpError(404, 'not_found', 'no such call');
    return this.end(found.value);
  }

  /** Forgets every queue and call (simulator reset). */
  clear(): void {
    this.queues.clear();
    this.calls.clear();
  }

  private end(call: QueueCall): QueueCall {
    if (!TERMINAL_GENERIC_STATES.has(call.state)) {
      call.state = 'finished';
      call.endedAt = this.stamp();
      this.tell('call.ended', call);
    }
    return { ...call };
  }

  private tell(event: QueueEventName, call: QueueCall): void {
    const queue = this.queues.get(call.queueId)?.value;
    if (!queue) return;
    this.deliver(queue.notifyUrl, queue.notifySecret, { event, callId: call.id, queueId: queue.id, from: call.from, to: call.to, state: call.state });
  }

  private stamp(): string {
    return new Date(this.now()).toISOString();
  }
}

/** A queue as answers show it: everything but its secret. */
function publicQueue({ notifySecret: _, ...queue }: StoredQueue): Queue {
  return { ...queue };
}
