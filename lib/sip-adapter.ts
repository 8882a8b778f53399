import type { Invitation } from 'sip.js/lib/api/invitation.js';
import { Registerer } from 'sip.js/lib/api/registerer.js';
import { RegistererState } from 'sip.js/lib/api/registerer-state.js';
import type { Session } from 'sip.js/lib/api/session.js';
import { SessionState } from 'sip.js/lib/api/session-state.js';
import { UserAgent } from 'sip.js/lib/api/user-agent.js';
import { IncomingResponseMessage } from 'sip.js/lib/core/messages/incoming-response-message.js';
import type { Transport as WebTransport } from 'sip.js/lib/platform/web/transport/transport.js';
import { AudioSessionHandler } from './audio-session-handler.js';
import { VoiceBrowserError } from './errors.js';
import { createKeepAlive } from './keep-alive.js';
import { createMediaControls, type MediaControls } from './media-controls.js';
import type { SipLink, SipLinkOptions } from './sip-link.js';
import { callIdOf, createInvites, handlerOf, sendInfo, watchSession } from './sip-session.js';

// Loaded in the same download as the link, as they only act with one (sip-chunk.ts lists them).
export * from './sip-chunk.js';

/**
 * The SIP link over SIP.js (sip-link.ts says what it offers): a registered user agent over WebSocket that
 * reconnects after a drop, reports INVITEs and registration, and closes. A call's dialog is in
 * sip-session.ts and its media in audio-session-handler.ts; with them, the only files that import SIP.js.
 * It decides nothing; the runtime does.
 *
 * @remarks
 * Loaded with a dynamic `import()` from `connect()`, so a page that only recovers or cleans up never
 * downloads SIP.js. Deep imports keep the parts of SIP.js we do not use out of the bundle.
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
 * The registration is refreshed halfway through its time (SIP.js's earliest), so a refresh whose timer a hidden
 * page runs a minute late is still well before the registrar's expiry.
 */
const REFRESH_AT_PERCENT = 50;

/** Registers (or refreshes) once; rejects with the registrar's refusal. */
function register(registerer: Registerer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (why: string) => reject(new VoiceBrowserError('connection_failed', `SIP registration failed: ${why}`));
    registerer
      .register({
        requestDelegate: {
          onAccept: () => resolve(),
          onReject: (response) => fail(`${response.message.statusCode} ${response.message.reasonPhrase}`),
        },
      })
      .catch((error: unknown) => fail(String(error)));
  });
}

/**
 * Fails a REGISTER still waiting for its answer when its socket closed. A response goes back on the connection its
 * request came on, or on a new one to the client (RFC 3261 section 18.2.2), and a browser takes no incoming
 * connection (RFC 7118 section 5): that answer will never come. SIP.js waits for Timer F (RFC 3261 section
 * 17.1.2.2) all the same, and its registerer sends no REGISTER meanwhile (RFC 3261 section 10.2), so connect() and
 * every reconnection attempt would hang that long. The transaction is given the 503 SIP.js itself makes up when a
 * send fails, through the core's public API.
 */
function failRegistrationsInFlight(ua: UserAgent): void {
  for (const client of [...ua.userAgentCore.userAgentClients.values()]) {
    if (client.message.method !== 'REGISTER') continue;
    const lost = new IncomingResponseMessage();
    lost.statusCode = 503;
    lost.reasonPhrase = 'Service Unavailable';
    client.transaction.receiveResponse(lost);
  }
}

/**
 * Closes a socket the keep-alive found dead, without waiting on it: SIP.js's disconnect() waits for the close
 * event, which a dead path never brings (nobody answers the closing handshake; browsers give it up to a
 * minute). The socket is given that close event at once, abnormal (1006), so the transport lets it go and the
 * link reconnects as it does after a drop, in this same wake-up of a hidden page; the socket's own close, if it
 * ever comes, is for a socket SIP.js no longer holds, and ignored.
 */
function dropDeadSocket(transport: WebTransport): void {
  const socket = transport.ws;
  void transport.disconnect().catch(() => undefined);
  socket?.dispatchEvent(new CloseEvent('close', { code: 1006 }));
}

/**
 * Registers the session's temporary credentials over WebSocket; resolves once registered.
 * One closure past 40 lines: the user agent, its registerer and the reconnection share the link's phase
 * ({@link LinkPhase}) and the answered session.
 */
export async function openSipLink(options: SipLinkOptions): Promise<SipLink> {
  const { transport, emit, clock } = options;
  const uri = UserAgent.makeURI(transport.sipUri);
  if (!uri) throw new VoiceBrowserError('connection_failed', `the session's SIP URI is not valid: ${transport.sipUri}`);
  const microphone = options.audioDevices?.microphoneId;
  let current: Session | undefined;
  let phase: LinkPhase = 'opening';
  /** Moves the link from `from` to `to`, if it is in `from` (an arrow of {@link LinkPhase}'s diagram); says whether it did. */
  const move = (from: LinkPhase, to: LinkPhase) => phase === from && !!(phase = to);
  /** The reconnection attempts spent since the link last settled, and when it was last restored. */
  let attempts = 0;
  let restoredAt = -Infinity;
  const invites = createInvites(emit, microphone, clock, (invitation) => {
    current = invitation;
    // Followed from its first state change; once it ends, no session is current.
    watchSession(invitation, callIdOf(invitation.request), { emit, media, clock, onTerminated: () => current === invitation && (current = undefined) });
  });
  const media: MediaControls = createMediaControls({
    peerConnection: () => handlerOf(current)?.peerConnection,
    sendInfo: (contentType, content) => sendInfo(current, contentType, content),
    remoteAudio: options.remoteAudio,
    speakerId: options.audioDevices?.speakerId,
    onAudio: (audio) => emit({ type: 'audio', audio }),
    clock,
  });

  const ua = new UserAgent({
    uri,
    authorizationUsername: transport.authorizationUsername,
    authorizationPassword: transport.authorizationPassword,
    transportOptions: { server: transport.websocketUrl, connectionTimeout: 5 },
    logLevel: 'error',
    // Always the session's ICE servers: SIP.js's own handler would otherwise use a public STUN server.
    sessionDescriptionHandlerFactory: () => new AudioSessionHandler({ iceServers: transport.iceServers, iceGatheringTimeoutMs: 1000, clock }),
    delegate: {
      onInvite: (invitation: Invitation) => invites.received(invitation),
      onDisconnect: () => {
        keepAlive.stop();
        if (move('up', 'reconnecting')) void reconnect();
        // After reconnect() began: the registration's refusal is then part of the reconnection, not its end.
        failRegistrationsInFlight(ua);
      },
    },
  });

  // A socket that stalls without closing is found by the keep-alive and closed, so it reconnects as a dropped one.
  const keepAlive = createKeepAlive({
    clock,
    ping: () => void ua.transport.send('\r\n\r\n').catch(() => undefined),
    onDead: () => dropDeadSocket(ua.transport as WebTransport),
  });
  /**
   * The keep-alive watches the socket the link is up on, hearing every frame it receives, pongs included, which
   * SIP.js's transport takes in without telling anyone: through a listener of our own on the socket the transport
   * holds (its public `ws`), added on each new socket.
   */
  const watch = () => {
    (ua.transport as WebTransport).ws?.addEventListener('message', keepAlive.heard);
    keepAlive.start();
  };

  // RFC 5626 outbound: `reg-id` and the user agent's `+sip.instance` on the Contact make this page one agent
  // across its sockets, so a proxy sends a call's BYE down the new socket after a reconnect.
  const registerer = new Registerer(ua, { expires: transport.registrationExpiresSeconds ?? 600, refreshFrequency: REFRESH_AT_PERCENT, regId: 1 });
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
    emit({ type: 'socket_dropped' });
    void ua.transport.disconnect().catch(() => undefined);
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
        await ua.reconnect();
        await register(registerer);
        if (!move('reconnecting', 'up')) return;
        restoredAt = clock.now();
        watch();
        emit({ type: 'socket_restored' });
        return;
      } catch {
        // The next attempt waits longer; after the last one the link is gone.
      }
    }
    if (move('reconnecting', 'gone')) emit({ type: 'link_gone', error: { code: 'connection_failed', message: 'the SIP connection to the voice service dropped and could not be restored' } });
  }

  /**
   * The registration ran out (a page the browser froze past its expiry: SIP.js's timer fires on resume) or the
   * registrar refused a refresh: registered again at once, on the socket it has; refused, no new calls (the
   * registrar never grants past the session). A socket that died meanwhile is the reconnection's business.
   */
  registerer.stateChange.addListener((state) => {
    if (state !== RegistererState.Unregistered || phase !== 'up') return;
    // After SIP.js has done with the refusal (its REGISTER still counts as waiting while it tells us).
    void Promise.resolve(registerer).then(register).catch(() => {
      if (phase === 'up') emit({ type: 'link_gone', error: { code: 'browser_session_unavailable', message: 'the SIP registration ended; renew() the session to take calls again' } });
    });
  });

  try {
    await ua.start();
  } catch (cause) {
    throw new VoiceBrowserError('connection_failed', 'could not open the SIP WebSocket to the voice service', { cause });
  }
  await register(registerer).catch(async (error: unknown) => {
    phase = 'closed';
    await ua.stop().catch(() => undefined);
    throw error;
  });
  move('opening', 'up');
  watch();
  // A socket lost between the registration's answer and here is reconnected as any drop is.
  if (!ua.transport.isConnected() && move('up', 'reconnecting')) void reconnect();
  for (const [name, listener] of pageEvents) addEventListener(name, listener, true);

  return {
    answer: invites.answer,
    decline: invites.decline,
    endSession: () => {
      if (current?.state === SessionState.Established) void current.bye().catch(() => undefined);
    },
    setMuted: media.setMuted,
    sendDtmf: media.sendDtmf,
    resumeAudio: media.resumeAudio,
    close: async () => {
      phase = 'closed';
      keepAlive.stop();
      for (const [name, listener] of pageEvents) removeEventListener(name, listener, true);
      wake?.();
      if (current?.state === SessionState.Established) await current.bye().catch(() => undefined);
      if (registerer.state === RegistererState.Registered) await registerer.unregister().catch(() => undefined);
      await registerer.dispose().catch(() => undefined);
      await ua.stop().catch(() => undefined);
    },
  };
}
