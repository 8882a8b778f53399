import type { Availability, BrowserCall, BrowserSession, CallInput, SessionTransport } from './types.js';

/**
 * What the helper asks of the integrator's server: the six callbacks of spec 4.9, the optional ones of support
 * desks, offers, supervisors and recordings, and the records they answer with. `createFetchBackend()` speaks
 * them to our proxy.
 */

/** Options every backend callback receives: abort it when the helper no longer needs the answer. */
export interface CallbackOptions {
  signal: AbortSignal;
}

/**
 * The six calls the helper makes to the integrator's server. Each resolves the parsed envelope
 * and rejects with an error carrying the safe `code`.
 */
export interface VoiceBackend {
  createSession(options: CallbackOptions): Promise<{ session: BrowserSession; transport: SessionTransport }>;
  getCurrentSession(options: CallbackOptions): Promise<{ session: BrowserSession | null; call: BrowserCall | null }>;
  createCall(input: CallInput & { sessionId: string }, options: CallbackOptions & { idempotencyKey: string }): Promise<{ call: BrowserCall }>;
  getCall(id: string, options: CallbackOptions): Promise<{ call: BrowserCall }>;
  hangupCall(id: string, options: CallbackOptions): Promise<{ call: BrowserCall }>;
  endSession(id: string, options: CallbackOptions): Promise<{ session: BrowserSession }>;
  /**
   * Support desks (optional, beside spec 4.9's six): claims the head caller of `queueId` for the user's agent
   * (`dequeue`), reads and hangs up a claimed caller, lists the user's own claimed callers that are active (to
   * reconcile a lost dequeue answer), and where the waiting callers stream from (Server-Sent Events).
   * `createFetchBackend()` speaks to the proxy's queue routes.
   */
  dequeue?(queueId: string, options: CallbackOptions): Promise<{ call: QueueCall }>;
  getQueueCall?(id: string, options: CallbackOptions): Promise<{ call: QueueCall }>;
  hangupQueueCall?(id: string, options: CallbackOptions): Promise<{ call: QueueCall }>;
  listQueueCalls?(options: CallbackOptions): Promise<{ calls: QueueCall[] }>;
  queueEventsUrl?: string;
  /**
   * Offers (optional): whether the user's agent takes callers offered by the server (`setAvailability`, `PUT
   * /availability` of the proxy), and what the server holds (`getAvailability`, read on connect()).
   */
  setAvailability?(availability: Availability, options: CallbackOptions): Promise<{ availability: Availability }>;
  getAvailability?(options: CallbackOptions): Promise<{ availability: Availability }>;
  /**
   * Supervisors (optional): a monitor leg of call `callId` that rings the user's own page, read and hung up as a
   * queue's caller is (`getQueueCall`, `hangupQueueCall`, and `listQueueCalls` after a lost answer).
   */
  monitorCall?(callId: string, options: CallbackOptions): Promise<{ call: QueueCall }>;
  /** Recording (optional): starts and stops recording call `callId`, one of the user's own. */
  startRecording?(callId: string, options: CallbackOptions): Promise<{ recording: Recording }>;
  stopRecording?(callId: string, recordingId: string, options: CallbackOptions): Promise<{ recording: Recording }>;
}

/** A recording as the service returns it (`recording` while it runs, then `completed`); unknown fields are kept. */
export interface Recording {
  id: string;
  callId: string;
  state: string;
  [field: string]: unknown;
}


/**
 * An inbound call from a queue, as the service returns it (spec 3.1's generic states: `queued`, `dequeuing`,
 * `established`, `finished`, ...). The helper shows a claimed one as `status().call` in the browser call's
 * states (`dequeuing` as `waiting_agent`, `established` as `connected`, an end as `ended` or `failed`), with
 * `queueId` set, every field kept, and the service's own state in `serviceState` (`queued` after the end: the
 * agent did not answer in time and the caller is back in the queue).
 */
export interface QueueCall {
  id: string;
  state: string;
  queueId: string;
  from?: string;
  to?: string;
  /** The agent the last dequeue bridged it to. */
  agentId?: string | null;
  [field: string]: unknown;
}
