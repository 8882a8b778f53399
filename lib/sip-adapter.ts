import { LoggerFactory } from 'sip.js/lib/core/log/logger-factory.js';
import { Levels } from 'sip.js/lib/core/log/levels.js';
import { DigestAuthentication } from 'sip.js/lib/core/messages/digest-authentication.js';
import { IncomingRequestMessage } from 'sip.js/lib/core/messages/incoming-request-message.js';
import { IncomingResponseMessage } from 'sip.js/lib/core/messages/incoming-response-message.js';
import { Parser } from 'sip.js/lib/core/messages/parser.js';
import { createRandomToken } from 'sip.js/lib/core/messages/utils.js';
import { AllowedMethods } from 'sip.js/lib/core/user-agent-core/allowed-methods.js';
import { UserAgentCore } from 'sip.js/lib/core/user-agent-core/user-agent-core.js';
import { Grammar } from 'sip.js/lib/grammar/grammar.js';
import { URI } from 'sip.js/lib/grammar/uri.js';
import { AudioSessionHandler } from './audio-session-handler.js';
import { VoiceBrowserError } from './errors.js';
import { createKeepAlive } from './keep-alive.js';
import { createMediaControls, type MediaControls } from './media-controls.js';
import type { SipLink, SipLinkOptions } from './sip-link.js';
import { watchSession } from './call-watch.js';
import { SUPPORTED_OPTION_TAGS } from './sip-invite-body.js';
import { refreshTarget } from './sip-offer-answer.js';
import { callIdOf, createInvites, hangUp, sendInfo, type Call } from './sip-session.js';
import { createRegistration } from './sip-registration.js';
import { createSipSocket } from './sip-socket.js';

// Loaded in the same download as the link, as they only act with one (sip-chunk.ts lists them).
export * from './sip-chunk.js';

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
 *            registered                 dropped
 *  opening ─────────────▶ up ◀───────────────────────▶ reconnecting ──gave up──▶ gone
 *                          │          restored               ▲
 *                          │ into the back/forward           │ back from the cache
 *                          ▼ cache, idle                     │
 *                       suspended ───────────────────────────┘
 *  close(), or connect()'s registration refused (from every phase) ──▶ closed
 * ```
 * A move is taken only from the phase it is drawn from: a drop while reconnecting is that attempt's failure, a
 * drop while registering the first time is connect()'s, and nothing comes back from `gone` or `closed`.
 */
type LinkPhase = 'opening' | 'up' | 'reconnecting' | 'suspended' | 'gone' | 'closed';

/**
 * Reconnection after a dropped WebSocket: attempts and the wait before each (ms). The first goes at once: a hidden
 * page's timer would make it wait for the browser's next wake-up, a minute away.
 */
const RECONNECT_DELAYS_MS = [0, 1000, 3000];
/**
 * How long a restored link must stay up before a drop starts the attempts afresh. A socket the network kills as
 * soon as it is up (Safari closes it 1006 at once, say) goes on with the attempts left, so the link ends `offline`
 * instead of being restored and lost again for ever.
 */
const SETTLED_MS = 10_000;

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
  /** The reconnection attempts spent since the link last settled, and when it was last restored. */
  let attempts = 0;
  let restoredAt = -Infinity;
  // Always the session's ICE servers: a handler of SIP.js's would otherwise use a public STUN server.
  const makeHandler = () => new AudioSessionHandler({ iceServers: transport.iceServers, iceGatheringTimeoutMs: 1000, relayGatheringTimeoutMs: 5000, clock });
  const onAccept = (call: Call) => {
    current = call;
    // Followed from its first state change; once it ends, no call is current.
    watchSession(call, callIdOf(call.request.message), { emit, media, clock, onTerminated: () => current === call && (current = undefined) });
  };
  const headers = () => [`Contact: <${contact}>`, `Allow: ${AllowedMethods.join(', ')}`];
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
      const message = frame.trim() ? Parser.parseMessage(frame, parserLog) : undefined;
      if (message instanceof IncomingRequestMessage) core.receiveIncomingRequestFromTransport(message);
      else if (message instanceof IncomingResponseMessage) core.receiveIncomingResponseFromTransport(message);
    },
    onDrop: () => {
      keepAlive.stop();
      registration.stop();
      if (move('up', 'reconnecting')) void reconnect();
      // After reconnect() began: the registration's refusal is then part of the reconnection, not its end.
      failRegistrationsInFlight();
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
      authenticationFactory: () => new DigestAuthentication(loggerFactory, undefined, transport.authorizationUsername, transport.authorizationPassword),
      transportAccessor: () => socket,
    },
    // Checked, rung and told to the helper (sip-session.ts); nothing thrown there reaches the page.
    { onInvite: (request) => invites.received(request) },
  );

  /**
   * Fails a REGISTER still waiting for its answer when its socket closed. A response goes back on the connection
   * its request came on, or on a new one to the client (RFC 3261 section 18.2.2), and a browser takes no incoming
   * connection (RFC 7118 section 5): that answer will never come. The core waits for Timer F (RFC 3261 section
   * 17.1.2.2) all the same, and no new REGISTER may go meanwhile (RFC 3261 section 10.2), so connect() and every
   * reconnection attempt would hang that long. The transaction is given the 503 SIP.js itself makes up when a
   * send fails, through the core's public API.
   */
  function failRegistrationsInFlight(): void {
    for (const client of [...core.userAgentClients.values()]) {
      if (client.message.method !== 'REGISTER') continue;
      const lost = new IncomingResponseMessage();
      lost.statusCode = 503;
      lost.reasonPhrase = 'Service Unavailable';
      client.transaction.receiveResponse(lost);
    }
  }

  const registration = createRegistration(core, uri, contact, {
    expires: transport.registrationExpiresSeconds ?? 600,
    clock,
    /**
     * The registration ran out (a page the browser froze past its expiry: the timer fires on resume) or the
     * registrar refused a refresh: registered again at once, on the socket it has; refused, no new calls (the
     * registrar never grants past the session). A socket that died meanwhile is the reconnection's business.
     */
    onLost: () => {
      if (phase !== 'up') return;
      registration.register().catch(() => {
        if (phase === 'up') emit({ type: 'link_gone', error: { code: 'browser_session_unavailable', message: 'the SIP registration ended; renew() the session to take calls again' } });
      });
    },
  });

  // A socket that stalls without closing is found by the keep-alive and dropped, so it reconnects as a dropped one.
  const keepAlive = createKeepAlive({
    clock,
    ping: () => void socket.send('\r\n\r\n').catch(() => undefined),
    onDead: () => socket.drop(),
  });
  /** Ends the wait before the next reconnection attempt early: the page is back. */
  let wake: (() => void) | undefined;
  /**
   * The page is back: `online` again (the network changed), shown, or resumed after the browser froze it (Chromium
   * closes a frozen page's socket as it resumes it, and the close comes next). A reconnection waiting for its next
   * attempt makes it now, and a socket that looks up is asked at once whether it is still alive: nothing that
   * works is torn down, a dead one shows `reconnecting` within a probe's wait.
   */
  const verify = () => (wake ? wake() : keepAlive.probe());
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
    failRegistrationsInFlight();
  };
  /** The page is back from the cache: the link reconnects and registers again, as after a drop. */
  const pageshow = (event: PageTransitionEvent) => {
    if (event.persisted && move('suspended', 'reconnecting')) void reconnect();
  };
  // Caught on the window as they go down to the document (capture), where `resume` and `visibilitychange` are fired.
  const pageEvents: Array<[string, EventListener]> = [
    ['online', verify],
    ['visibilitychange', shown],
    ['resume', verify],
    ['pagehide', pagehide as EventListener],
    ['pageshow', pageshow as EventListener],
  ];

  /** A dropped WebSocket: reconnect and register again a few times; the call's media does not need it. */
  async function reconnect(): Promise<void> {
    emit({ type: 'socket_dropped' });
    if (clock.now() - restoredAt >= SETTLED_MS) attempts = 0;
    for (const delay of RECONNECT_DELAYS_MS.slice(attempts)) {
      attempts++;
      if (delay) {
        await new Promise<void>((resolve) => {
          const timer = clock.setTimeout(resolve, delay);
          wake = () => {
            clock.clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      } else await undefined;
      if (phase !== 'reconnecting') return;
      try {
        await socket.open();
        await registration.register();
        // A socket closed as soon as it registered (Safari's, killed at once) is this attempt's failure.
        if (!socket.isOpen()) throw new Error('dropped');
        if (!move('reconnecting', 'up')) return;
        restoredAt = clock.now();
        keepAlive.start();
        emit({ type: 'socket_restored' });
        // A call in progress refreshes its dialog's target on the new flow (sip-offer-answer.ts).
        if (current) refreshTarget(current, clock);
        return;
      } catch {
        // The next attempt waits longer; after the last one the link is gone.
      }
    }
    if (move('reconnecting', 'gone')) emit({ type: 'link_gone', error: { code: 'connection_failed', message: 'the SIP connection to the voice service dropped and could not be restored' } });
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
  keepAlive.start();
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
      wake?.();
      hangUp(current);
      invites.close();
      await registration.unregister();
      socket.close();
      core.dispose();
    },
  };
}
