import { LoggerFactory } from 'sip.js/lib/core/log/logger-factory.js';
import { Levels } from 'sip.js/lib/core/log/levels.js';
import { createRandomToken } from 'sip.js/lib/core/messages/utils.js';
import { AllowedMethods } from 'sip.js/lib/core/user-agent-core/allowed-methods.js';
import { UserAgentCore } from 'sip.js/lib/core/user-agent-core/user-agent-core.js';
import { Grammar } from 'sip.js/lib/grammar/grammar.js';
import { URI } from 'sip.js/lib/grammar/uri.js';
import { AudioSessionHandler } from '../media/audio-session-handler.js';
import { VoiceBrowserError } from '../../../core/errors.js';
import { createKeepAlive, type KeepAlive } from './keep-alive.js';
import { opening, reconnects, transition, type LinkEffect, type LinkPhaseEvent, type LinkState } from '../../../core/machines/link-machine.js';
import { createMediaControls, type MediaControls } from '../media/media-controls.js';
import type { SipLink, SipLinkOptions } from '../../../runtime/sip-link.js';
import { watchSession } from './call-watch.js';
import { SUPPORTED_OPTION_TAGS } from './sip-invite-body.js';
import { refreshTarget } from './sip-offer-answer.js';
import { callIdOf, createInvites, hangUp, sendInfo, type Call } from './sip-session.js';
import { coreCredentials, DigestCredentials } from './sip-digest.js';
import { createReconnection, type Reconnection } from './sip-reconnect.js';
import { createRegistration, isFinalRefusal, type Registration } from './sip-registration.js';
import { failTransactionsInFlight, routeFrame } from './sip-flow.js';
import { createSipSocket, type SipSocket } from './sip-socket.js';

/**
 * The SIP link over SIP.js's core (`SipLink` says what it offers): a registered user agent over WebSocket that
 * reconnects after a drop, reports INVITEs and registration, and closes. A call's dialog and its media are this
 * folder's and the media folder's; with them, the only code that imports SIP.js. It decides nothing: the link's
 * phases are a pure machine (the link machine's `transition`), which this adapter feeds what befalls the socket,
 * the registration, the reconnection and the page, and whose effects it runs; the helper's runtime decides the rest.
 *
 * @remarks
 * Loaded with a dynamic `import()` from `connect()`, so a page that only recovers or cleans up never downloads
 * SIP.js. It speaks to SIP.js's core (the `UserAgentCore`: parsing, transactions, dialogs, digest auth) and not to
 * its API layer (UserAgent, Registerer, Invitation, Session) nor its web transport, which together weigh a large
 * share of the script tag and mostly do what the helper does not need. What they did for the helper is here: the
 * REGISTER and its refresh timing, the Contact and instance id, each frame to the core, a transaction's end when
 * its socket closes; the WebSocket is `createSipSocket`'s.
 */

/** How long close() waits for the registrar to answer the un-REGISTER: a stalled socket never does. */
export const UNREGISTER_WAIT_MS = 1000;

/** Where the link machine's events go: the one loop of the link. */
type Dispatch = (event: LinkPhaseEvent) => void;

/** The call this link answered, while it runs: the one its UPDATEs, BYE, DTMF and target refresh are for. */
interface Answered {
  current?: Call;
}

/** One link's parts over SIP.js's core; each tells what befalls it as an event of the link machine. */
interface LinkParts {
  core: UserAgentCore;
  socket: SipSocket;
  registration: Registration;
  keepAlive: KeepAlive;
  reconnection: Reconnection;
  invites: ReturnType<typeof createInvites>;
  media: MediaControls;
  answered: Answered;
  /** Listens to the page's events, or stops. */
  listen(on: boolean): void;
  /** The link's end, once close() began it: BYE, un-REGISTER, the socket closed. */
  ended?: Promise<void>;
}

/** What the browser says of its network now: only an explicit `false` is offline. */
const browserOffline = () => globalThis.navigator?.onLine === false;

/**
 * Registers the session's temporary credentials over WebSocket; resolves once registered. Rejects
 * `connection_failed` when the socket does not open, or with the registrar's refusal.
 */
export async function openSipLink(options: SipLinkOptions): Promise<SipLink> {
  const uri = Grammar.URIParse(options.transport.sipUri);
  if (!uri) throw new VoiceBrowserError('connection_failed', `the session's SIP URI is not valid: ${options.transport.sipUri}`);
  let state: LinkState = opening;
  /** The loop: the machine decides, the state is kept, then its effects run in order (an effect's own events first). */
  const dispatch: Dispatch = (event) => {
    const [next, effects] = transition(state, event);
    state = next;
    for (const effect of effects) run(parts, effect, options, dispatch);
  };
  const parts = createParts(options, uri, dispatch, () => reconnects(state));
  try {
    await parts.socket.open();
  } catch (cause) {
    throw new VoiceBrowserError('connection_failed', 'could not open the SIP WebSocket to the voice service', { cause });
  }
  await parts.registration.register().catch((error: unknown) => {
    dispatch({ type: 'register_failed' });
    throw error;
  });
  dispatch({ type: 'registered' });
  // A socket lost between the registration's answer and here is reconnected as any drop is.
  if (!parts.socket.isOpen()) dispatch({ type: 'dropped', offline: browserOffline() });
  const { invites, media, answered } = parts;
  return {
    answer: invites.answer,
    decline: invites.decline,
    endSession: () => hangUp(answered.current),
    setMuted: media.setMuted,
    sendDtmf: media.sendDtmf,
    resumeAudio: media.resumeAudio,
    close: () => {
      dispatch({ type: 'close' });
      return parts.ended ?? Promise.resolve();
    },
  };
}

/** Runs one effect of the link machine against the parts (the interpreter). */
function run(parts: LinkParts, effect: LinkEffect, { emit, clock }: SipLinkOptions, dispatch: Dispatch): void {
  const { socket, registration, keepAlive, reconnection, core, answered } = parts;
  switch (effect.type) {
    case 'report':
      return emit(effect.report);
    case 'start_keep_alive':
      return keepAlive.start(registration.outbound);
    case 'stop_keep_alive':
      return keepAlive.stop();
    case 'probe':
      return keepAlive.probe();
    case 'stop_refresh':
      return registration.stop();
    case 'drop_socket':
      return socket.drop();
    case 'close_socket':
      return socket.close();
    case 'fail_in_flight':
      return failTransactionsInFlight(core);
    case 'reconnect':
      return void reconnection.run().then(({ restored, final }) => dispatch(restored ? { type: 'reconnected' } : { type: 'reconnect_ended', final: final !== undefined }));
    case 'wake_reconnection':
      return void reconnection.wake();
    case 'refresh_target':
      // A call in progress goes on over the new flow from here: a re-INVITE refreshes its target (RFC 3261 section 12.2, RFC 5626 section 5.3).
      return answered.current && refreshTarget(answered.current, clock);
    case 'listen_page':
    case 'unlisten_page':
      return parts.listen(effect.type === 'listen_page');
    case 'unregister':
      parts.ended = end(parts);
      return;
    case 'dispose':
      return core.dispose();
  }
}

/** The link's end: the call hung up, the INVITEs refused, the binding removed; the socket and core go whatever failed. */
async function end({ answered, invites, registration, socket, core }: LinkParts): Promise<void> {
  try {
    hangUp(answered.current);
    invites.close();
    await registration.unregister(UNREGISTER_WAIT_MS);
  } finally {
    socket.close();
    core.dispose();
  }
}

/** The parts of one link: the call's, the core, the flow's (socket, registration, keep-alive, reconnection) and the page's. */
function createParts(options: SipLinkOptions, uri: URI, dispatch: Dispatch, reconnecting: () => boolean): LinkParts {
  const { transport, clock } = options;
  const answered: Answered = {};
  const { invites, media } = createCallParts(options, answered, () => headers);
  const { core, contact, parserLog } = createCore(transport, uri, () => socket, (request) => invites.received(request));
  const headers = [`Contact: <${contact}>`, `Allow: ${[...AllowedMethods, 'UPDATE'].join(', ')}`];
  const socket = createSipSocket(transport.websocketUrl, 5000, clock, {
    onFrame: (frame) => {
      keepAlive.heard();
      routeFrame(core, frame, parserLog, answered.current, () => headers);
    },
    onDrop: () => dispatch({ type: 'dropped', offline: browserOffline() }),
  });
  const registration = createRegistration(core, uri, contact, {
    expires: transport.registrationExpiresSeconds ?? 600,
    clock,
    onLost: (why) => dispatch({ type: why === 'lapsed' ? 'lapsed' : 'refresh_refused' }),
  });
  const keepAlive = createKeepAlive({ clock, ping: (question) => ping(core, socket, uri, question === 'query'), onDead: () => dispatch({ type: 'silent' }) });
  /** The session's end: past it, no registrar takes the credentials, and the link stops trying. */
  const sessionEnds = Date.parse(String(transport.expiresAt ?? ''));
  const reconnection = createReconnection({
    clock,
    attempt: async () => {
      await socket.open();
      await registration.register();
      // A socket closed as soon as it registered (Safari's, killed at once) is this attempt's failure.
      if (!socket.isOpen()) throw new Error('dropped');
    },
    wanted: () => reconnecting() && !(clock.now() >= sessionEnds),
    final: isFinalRefusal,
  });
  const listen = pageListener(dispatch, answered);
  return { core, socket, registration, keepAlive, reconnection, invites, media, answered, listen };
}

/** The call's parts: the INVITEs' keeper and the media controls of the call answered. */
function createCallParts(options: SipLinkOptions, answered: Answered, headers: () => string[]) {
  const { emit, clock, transport } = options;
  // Always the session's ICE servers: a handler of SIP.js's would otherwise use a public STUN server.
  const makeHandler = () => new AudioSessionHandler({ iceServers: transport.iceServers, iceTransportPolicy: transport.iceTransportPolicy, iceGatheringTimeoutMs: 1000, relayGatheringTimeoutMs: 5000, clock });
  const onAccept = (call: Call) => {
    answered.current = call;
    // Followed from its first state change; once it ends, no call is current.
    watchSession(call, callIdOf(call.request.message), { emit, media, clock, onTerminated: () => answered.current === call && (answered.current = undefined) });
  };
  const invites = createInvites({ emit, microphone: options.audioDevices?.microphoneId, clock, onAccept, makeHandler, headers });
  const media: MediaControls = createMediaControls({
    peerConnection: () => answered.current?.handler?.peerConnection,
    sendInfo: (contentType, content) => sendInfo(answered.current, contentType, content),
    remoteAudio: options.remoteAudio,
    speakerId: options.audioDevices?.speakerId,
    onAudio: (audio) => emit({ type: 'audio', audio }),
    clock,
  });
  return { invites, media };
}

/** SIP.js's core for the session's address-of-record, sending on `socket`, with a Contact of its own. */
function createCore(transport: SipLinkOptions['transport'], uri: URI, socket: () => SipSocket, onInvite: (request: Parameters<ReturnType<typeof createInvites>['received']>[0]) => void) {
  const loggerFactory = new LoggerFactory();
  loggerFactory.level = Levels.error;
  // The Contact a call's requests reach this page at: a name of its own on a host that resolves nowhere (RFC 7118
  // section 5: a browser takes no connection; the edge sends down this socket).
  const viaHost = `${createRandomToken(12)}.invalid`;
  const contact = new URI('sip', createRandomToken(8), viaHost, undefined, { transport: 'ws' });
  const core = new UserAgentCore(
    {
      aor: uri,
      contact: { pubGruu: undefined, tempGruu: undefined, uri: contact, toString: () => `<${contact}>` },
      displayName: '',
      loggerFactory,
      hackViaTcp: false,
      routeSet: [],
      sipjsId: createRandomToken(5),
      supportedOptionTags: ['outbound'],
      // In every response, the INVITE's 2xx and 180 among them (RFC 3262 section 3: `Supported: 100rel`).
      supportedOptionTagsResponse: SUPPORTED_OPTION_TAGS,
      userAgentHeaderFieldValue: 'voice-browser',
      viaForceRport: false,
      viaHost,
      authenticationFactory: () => coreCredentials(new DigestCredentials(transport.authorizationUsername, transport.authorizationPassword)),
      transportAccessor: socket,
    },
    // Checked, rung and told to the helper (`createInvites`); nothing thrown there reaches the page.
    { onInvite },
  );
  return { core, contact, parserLog: loggerFactory.getLogger('sip.parser') };
}

/**
 * One question of the keep-alive: a double-CRLF ping, or an OPTIONS to the edge with Max-Forwards 0, which the
 * edge answers itself instead of passing it on (RFC 3261 section 16.3 item 3).
 */
function ping(core: UserAgentCore, socket: SipSocket, uri: URI, query: boolean): void {
  if (!query) return void socket.send('\r\n\r\n').catch(() => undefined);
  const registrar = uri.clone();
  registrar.user = undefined;
  const question = core.makeOutgoingRequestMessage('OPTIONS', registrar, uri, uri, {});
  question.setHeader('max-forwards', '0');
  core.request(question);
}

/**
 * The page's events, as the link machine's: `online` and `offline`; shown, or resumed after the browser froze it
 * (Chromium closes a frozen page's socket as it resumes it, and the close comes next); into the back/forward
 * cache and back (its socket does not come back alive: Chromium closes it, and one kept open would be long dead).
 * Caught on the window as they go down to the document (capture), where `resume` and `visibilitychange` are fired.
 */
function pageListener(dispatch: Dispatch, answered: Answered): (on: boolean) => void {
  const events: Array<[string, EventListener]> = [
    ['offline', () => dispatch({ type: 'browser_offline' })],
    ['online', () => dispatch({ type: 'browser_online' })],
    ['visibilitychange', () => document.hidden || dispatch({ type: 'page_back' })],
    ['resume', () => dispatch({ type: 'page_back' })],
    ['pagehide', (event) => (event as PageTransitionEvent).persisted && dispatch({ type: 'page_cached', inCall: !!answered.current })],
    ['pageshow', (event) => (event as PageTransitionEvent).persisted && dispatch({ type: 'page_restored', offline: browserOffline() })],
  ];
  return (on) => {
    for (const [name, listener] of events) {
      if (on) addEventListener(name, listener, true);
      else removeEventListener(name, listener, true);
    }
  };
}
