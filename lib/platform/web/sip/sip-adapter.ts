import { LoggerFactory } from 'sip.js/lib/core/log/logger-factory.js';
import { Levels } from 'sip.js/lib/core/log/levels.js';
import { createRandomToken } from 'sip.js/lib/core/messages/utils.js';
import { AllowedMethods } from 'sip.js/lib/core/user-agent-core/allowed-methods.js';
import { UserAgentCore } from 'sip.js/lib/core/user-agent-core/user-agent-core.js';
import { Grammar } from 'sip.js/lib/grammar/grammar.js';
import { URI } from 'sip.js/lib/grammar/uri.js';
import { AudioSessionHandler } from '../media/audio-session-handler.js';
import { VoiceBrowserError } from '../../../core/errors.js';
import { createKeepAlive } from './keep-alive.js';
import { createMediaControls, type MediaControls } from '../media/media-controls.js';
import type { SipLink, SipLinkOptions } from '../../../runtime/sip-link.js';
import { watchSession } from './call-watch.js';
import { SUPPORTED_OPTION_TAGS } from './sip-invite-body.js';
import { answerUpdate, refreshTarget } from './sip-offer-answer.js';
import { callIdOf, createInvites, hangUp, sendInfo, type Call } from './sip-session.js';
import { DigestCredentials } from './sip-digest.js';
import { createReconnection } from './sip-reconnect.js';
import { createRegistration, isFinalRefusal } from './sip-registration.js';
import { failTransactionsInFlight, receiveFrame } from './sip-flow.js';
import { createSipSocket } from './sip-socket.js';

/**
 * The SIP link over SIP.js's core (sip-link.ts says what it offers): a registered user agent over WebSocket that
 * reconnects after a drop, reports INVITEs and registration, and closes. A call's dialog is in sip-session.ts and
 * its media in audio-session-handler.ts; with them, the only files that import SIP.js. It decides nothing; the
 * runtime does.
 *
 * @remarks
 * Loaded with a dynamic `import()` from `connect()`, so a page that only recovers or cleans up never downloads
 * SIP.js. It speaks to SIP.js's core (the `UserAgentCore`: parsing, transactions, dialogs, digest auth) and not to
 * its API layer (UserAgent, Registerer, Invitation, Session) nor its web transport, which together weigh a large
 * share of the script tag and mostly do what the helper does not need. What they did for the helper is here: the
 * REGISTER and its refresh timing, the Contact and instance id, each frame to the core, a transaction's end when
 * its socket closes; the WebSocket is sip-socket.ts.
 */

/**
 * The link's own life, one phase at a time:
 * ```
 *            registered          dropped, or the binding lapsed
 *  opening ─────────────▶ up ◀───────────────────────▶ reconnecting ──credentials refused, session over──▶ gone
 *                          │ │        restored               ▲
 *                          │ │ into the back/forward         │ back from the cache
 *                          │ ▼ cache, idle                   │
 *                          │ suspended ──────────────────────┘
 *                          └──a refresh refused for good──▶ gone
 *  close(), or connect()'s registration refused (from every phase) ──▶ closed
 * ```
 * A move is taken only from the phase it is drawn from: a drop while reconnecting is that attempt's failure, a
 * drop while registering the first time is connect()'s, and nothing comes back from `gone` or `closed`.
 */
type LinkPhase = 'opening' | 'up' | 'reconnecting' | 'suspended' | 'gone' | 'closed';

/** The registrar refused the session's credentials, on a refresh or a reconnection. */
const REGISTRATION_ENDED = { code: 'browser_session_unavailable', message: 'the SIP registration ended; renew() the session to take calls again' };

/** How long close() waits for the registrar to answer the un-REGISTER: a stalled socket never does. */
export const UNREGISTER_WAIT_MS = 1000;

/**
 * Registers the session's temporary credentials over WebSocket; resolves once registered.
 * One closure past 40 lines: the core, the registration and the reconnection share the link's phase
 * ({@link LinkPhase}) and the answered call.
 */
export async function openSipLink(options: SipLinkOptions): Promise<SipLink> {
  const { transport, emit, clock } = options;
  const uri = Grammar.URIParse(transport.sipUri);
  if (!uri) throw new VoiceBrowserError('connection_failed', `the session's SIP URI is not valid: ${transport.sipUri}`);
  const microphone = options.audioDevices?.microphoneId;
  let current: Call | undefined;
  let phase: LinkPhase = 'opening';
  /** Moves the link from `from` to `to`, if it is in `from` (an arrow of {@link LinkPhase}'s diagram); says whether it did. */
  const move = (from: LinkPhase, to: LinkPhase) => phase === from && !!(phase = to);
  // Always the session's ICE servers: a handler of SIP.js's would otherwise use a public STUN server.
  const makeHandler = () => new AudioSessionHandler({ iceServers: transport.iceServers, iceGatheringTimeoutMs: 1000, relayGatheringTimeoutMs: 5000, clock });
  const onAccept = (call: Call) => {
    current = call;
    // Followed from its first state change; once it ends, no call is current.
    watchSession(call, callIdOf(call.request.message), { emit, media, clock, onTerminated: () => current === call && (current = undefined) });
  };
  const headers = () => [`Contact: <${contact}>`, `Allow: ${[...AllowedMethods, 'UPDATE'].join(', ')}`];
  const invites = createInvites({ emit, microphone, clock, onAccept, makeHandler, headers });
  const media: MediaControls = createMediaControls({
    peerConnection: () => current?.handler?.peerConnection,
    sendInfo: (contentType, content) => sendInfo(current, contentType, content),
    remoteAudio: options.remoteAudio,
    speakerId: options.audioDevices?.speakerId,
    onAudio: (audio) => emit({ type: 'audio', audio }),
    clock,
  });

  const loggerFactory = new LoggerFactory();
  loggerFactory.level = Levels.error;
  const parserLog = loggerFactory.getLogger('sip.parser');
  const socket = createSipSocket(transport.websocketUrl, 5000, clock, {
    onFrame: (frame) => {
      keepAlive.heard();
      // An UPDATE (RFC 3311), which SIP.js's core cannot answer, is the call's if it came in the call's dialog.
      receiveFrame(core, frame, parserLog, (message, dialog) => answerUpdate(current?.dialog?.id === dialog.id ? current : undefined, message, (options) => core.replyStateless(message, options), headers()));
    },
    onDrop: () => {
      keepAlive.stop();
      registration.stop();
      if (move('up', 'reconnecting')) void reconnect();
      // After reconnect() began: the registration's refusal is then part of the reconnection, not its end.
      failTransactionsInFlight(core);
    },
  });
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
      authenticationFactory: () => new DigestCredentials(loggerFactory, transport.authorizationUsername, transport.authorizationPassword),
      transportAccessor: () => socket,
    },
    // Checked, rung and told to the helper (sip-session.ts); nothing thrown there reaches the page.
    { onInvite: (request) => invites.received(request) },
  );

  const registration = createRegistration(core, uri, contact, {
    expires: transport.registrationExpiresSeconds ?? 600,
    clock,
    /**
     * The registrar refused a refresh for good: no new calls (the registrar never grants past the session). The
     * binding lapsed instead (every refresh failed, or a page the browser froze past its expiry: the timer fires
     * on resume): the socket is let go and the link registers afresh on a new one, as after a drop.
     */
    onLost: (why) => {
      if (why === 'lapsed') return socket.drop();
      if (!move('up', 'gone')) return;
      keepAlive.stop();
      emit({ type: 'link_gone', error: REGISTRATION_ENDED });
    },
  });

  const registrar = uri.clone();
  registrar.user = undefined;
  // A socket that stalls without closing is found by the keep-alive and dropped, so it reconnects as a dropped one.
  const keepAlive = createKeepAlive({
    clock,
    ping: (question) => {
      if (question === 'ping') return void socket.send('\r\n\r\n').catch(() => undefined);
      // Max-Forwards 0: the edge answers it itself instead of passing it on (RFC 3261 section 16.3 item 3).
      const query = core.makeOutgoingRequestMessage('OPTIONS', registrar, uri, uri, {});
      query.setHeader('max-forwards', '0');
      core.request(query);
    },
    onDead: () => socket.drop(),
  });

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
    wanted: () => phase === 'reconnecting' && !(clock.now() >= sessionEnds),
    final: isFinalRefusal,
  });
  /** The browser said it is offline, and the status says so (only while reconnecting). */
  let offline = false;
  /** Shows whether the browser is offline, while the link reconnects: the only time the status says it. */
  const showOffline = (now: boolean) => {
    if (phase !== 'reconnecting' || now === offline) return;
    offline = now;
    emit({ type: now ? 'browser_offline' : 'browser_online' });
  };

  /**
   * The page is back: `online` again (the network changed), shown, or resumed after the browser froze it (Chromium
   * closes a frozen page's socket as it resumes it, and the close comes next). A reconnection waiting for its next
   * attempt makes it now, and a socket that looks up is asked at once whether it is still alive: nothing that
   * works is torn down, a dead one shows `reconnecting` within a probe's wait.
   */
  const verify = () => reconnection.wake() || keepAlive.probe();
  const shown = () => !document.hidden && verify();
  /**
   * The page goes into the back/forward cache: its socket does not come back alive (Chromium closes it; one
   * kept open would be long dead), so an idle link closes it itself, the same way in every browser, and shows
   * `reconnecting` from now (a call's peer connection keeps the page out of the cache, so a link in a call is
   * left as it is).
   */
  const pagehide = (event: PageTransitionEvent) => {
    if (!event.persisted || current || !move('up', 'suspended')) return;
    keepAlive.stop();
    registration.stop();
    emit({ type: 'socket_dropped' });
    socket.close();
    failTransactionsInFlight(core);
  };
  /** The page is back from the cache: the link reconnects and registers again, as after a drop. */
  const pageshow = (event: PageTransitionEvent) => {
    if (event.persisted && move('suspended', 'reconnecting')) void reconnect();
  };
  // Caught on the window as they go down to the document (capture), where `resume` and `visibilitychange` are fired.
  const pageEvents: Array<[string, EventListener]> = [
    ['offline', () => showOffline(true)],
    [
      'online',
      () => {
        showOffline(false);
        verify();
      },
    ],
    ['visibilitychange', shown],
    ['resume', verify],
    ['pagehide', pagehide as EventListener],
    ['pageshow', pageshow as EventListener],
  ];

  /**
   * The one point where the link is back: registered on a new socket, after a drop, a lapse or the back/forward
   * cache. A call in progress goes on over the new flow from here.
   */
  function restored(): void {
    keepAlive.start(registration.outbound);
    offline = false;
    emit({ type: 'socket_restored' });
    // A call in progress refreshes its dialog's target on the new flow (sip-offer-answer.ts).
    if (current) refreshTarget(current, clock);
  }

  /**
   * A dropped WebSocket: reconnect and register again until it works, the session is over or the registrar
   * refuses the credentials (reconnection in sip-reconnect.ts); the call's media does not need it.
   */
  async function reconnect(): Promise<void> {
    emit({ type: 'socket_dropped' });
    offline = false;
    showOffline(navigator.onLine === false);
    const { restored: back, final } = await reconnection.run();
    if (back && move('reconnecting', 'up')) return restored();
    if (!move('reconnecting', 'gone')) return;
    emit({ type: 'link_gone', error: final ? REGISTRATION_ENDED : { code: 'browser_session_unavailable', message: 'the session is over; renew() it to take calls again' } });
  }

  try {
    await socket.open();
  } catch (cause) {
    throw new VoiceBrowserError('connection_failed', 'could not open the SIP WebSocket to the voice service', { cause });
  }
  await registration.register().catch((error: unknown) => {
    phase = 'closed';
    registration.stop();
    socket.close();
    core.dispose();
    throw error;
  });
  move('opening', 'up');
  keepAlive.start(registration.outbound);
  // A socket lost between the registration's answer and here is reconnected as any drop is.
  if (!socket.isOpen() && move('up', 'reconnecting')) void reconnect();
  for (const [name, listener] of pageEvents) addEventListener(name, listener, true);

  return {
    answer: invites.answer,
    decline: invites.decline,
    endSession: () => hangUp(current),
    setMuted: media.setMuted,
    sendDtmf: media.sendDtmf,
    resumeAudio: media.resumeAudio,
    close: async () => {
      phase = 'closed';
      keepAlive.stop();
      for (const [name, listener] of pageEvents) removeEventListener(name, listener, true);
      reconnection.wake();
      try {
        hangUp(current);
        invites.close();
        await registration.unregister(UNREGISTER_WAIT_MS);
      } finally {
        socket.close();
        core.dispose();
      }
    },
  };
}
