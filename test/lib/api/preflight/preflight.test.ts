// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { PREFLIGHT_BUDGET_MS, runPreflight, type PreflightHost } from '../../../../lib/api/preflight/preflight.js';
import * as linkParts from '../../../../lib/connect-parts.js';
import { FakeBackend, httpError } from '../../../../lib/testing/fake-backend.js';
import { FakeClock } from '../../../../lib/testing/fake-clock.js';
import { FakeSip } from '../../../../lib/testing/fake-sip.js';
import type { PreflightReport } from '../../../../lib/core/helper-types.js';
import type { CallQuality } from '../../../../lib/core/types.js';
import { createVoiceBrowserWith } from '../../../../lib/voice-browser.js';
import { watchSession } from '../../../../lib/platform/web/sip/call-watch.js';
import { FakeCallPeerConnection, fakeSession, quietMedia } from '../../../support/fake-call-media.js';
import { fakeWebAudio } from '../../../support/fake-web-audio.js';
import { CALL, START, setup } from '../../../support/helper-world.js';
import { rejection } from '../../../support/rejection.js';

const GOOD: CallQuality = { rttMs: 40, jitterMs: 2.5, packetsReceived: 100, packetsLost: 0, lossPercent: 0, packetsSent: 101, mos: 4.4, codec: 'PCMU', microphoneLevel: 0.08, path: 'host/udp' };

/** A preflight over fakes: the service, the SIP peer, the clock, and a microphone that records its release. */
function preflightWorld(microphone?: () => Promise<MediaStream>) {
  const journal: string[] = [];
  const backend = new FakeBackend(journal);
  const sip = new FakeSip(journal);
  const clock = new FakeClock(START);
  const released: string[] = [];
  const stream = { getTracks: () => [{ stop: () => released.push('microphone') }] } as unknown as MediaStream;
  const host: PreflightHost = {
    helper: (report) => createVoiceBrowserWith({ backend, ...report }, { clock, sipParts: { ...linkParts, openSipLink: sip.openSipLink }, tabs: null }),
    clock,
    openMicrophone: microphone ?? (() => Promise.resolve(stream)),
  };
  return { backend, sip, clock, journal, released, host };
}

type PreflightWorld = ReturnType<typeof preflightWorld>;

/**
 * Moves fake time in small steps until the report comes (the probe's reads and timers need it), playing the
 * service's part meanwhile: a call hung up (`ending`) has ended by the next step.
 */
async function verdict(world: PreflightWorld, pending: Promise<PreflightReport>): Promise<PreflightReport> {
  let report: PreflightReport | undefined;
  let failure: unknown;
  pending.then((r) => (report = r), (e: unknown) => (failure = e));
  for (let waited = 0; !report && !failure && waited < 30_000; waited += 100) {
    for (const call of world.backend.calls.values()) if (call.state === 'ending') world.backend.setCall(call.id, { state: 'ended', endReason: 'hangup' });
    await world.clock.advance(100);
  }
  if (failure) throw failure;
  if (!report) throw new Error('no verdict in 30 s of fake time');
  return report;
}

/** The service rings the probe's call, its media connects 300 ms later, then a quality sample arrives. */
async function answerTestCall(world: PreflightWorld, quality: CallQuality = GOOD): Promise<void> {
  await world.clock.flush();
  world.sip.invite('call-1');
  await world.clock.advance(300);
  world.sip.events.onMediaConnected('call-1');
  await world.clock.advance(2000);
  world.sip.events.onQuality('call-1', quality);
}

/**
 * The service rings the probe's call and its media runs in Firefox: sip-session.ts follows a session whose
 * statistics carry no microphone level, with a microphone sending `level`, and tells the helper as SIP.js would.
 * Returns the end of that session.
 */
async function answerInFirefox(world: PreflightWorld, level: number) {
  const audio = fakeWebAudio(world.clock);
  await world.clock.flush();
  world.sip.invite('call-1');
  await world.clock.advance(300);
  const { session, enter } = fakeSession(new FakeCallPeerConnection('firefox', world.clock));
  watchSession(session, 'call-1', { emit: (event) => world.sip.emit(event), media: quietMedia(), clock: world.clock, onTerminated: () => undefined, audio: () => Object.assign(audio.open(), { level }) });
  enter('established');
  return { audio, end: () => enter('terminated') };
}

/** Nothing left: the microphone let go, the link closed, the session ended, no timer set. */
function expectNothingLeft(world: PreflightWorld) {
  expect(world.released).toEqual(['microphone']);
  expect(world.sip.links.every((link) => link.closed)).toBe(true);
  expect([...world.backend.sessions.values()].every((session) => session.ended)).toBe(true);
  expect(world.clock.pendingTimers).toBe(0);
}

describe('runPreflight', () => {
  it('says ok with every figure from a call whose audio flows, and leaves nothing behind', async () => {
    const world = preflightWorld();
    const pending = runPreflight(CALL, world.host);
    await answerTestCall(world);
    const report = await verdict(world, pending);

    expect(report).toMatchObject({
      verdict: 'ok',
      microphone: { status: 'ok', code: null, advice: null, level: 0.08 },
      signalling: { status: 'ok', sessionMs: 0, registrationMs: 0 },
      media: { status: 'ok', setupMs: 300, rttMs: 40, jitterMs: 2.5, lossPercent: 0, mos: 4.4 },
    });
    expect(report.durationMs).toBeLessThanOrEqual(10_000);
    // The test call went to the number named, and was hung up.
    expect(world.backend.requestsOf('createCall')[0]?.input).toMatchObject({ to: CALL.to, from: CALL.from });
    expect(world.journal).toContain('backend hangupCall call-1');
    expectNothingLeft(world);
  });

  it('fails the microphone with its code and advice when the browser blocks it, and skips the call', async () => {
    const blocked = Object.assign(new Error('Permission denied'), { name: 'NotAllowedError' });
    const world = preflightWorld(() => Promise.reject(blocked));
    const report = await verdict(world, runPreflight(CALL, world.host));

    expect(report.verdict).toBe('failed');
    expect(report.microphone).toMatchObject({ status: 'failed', code: 'microphone_permission_denied', level: null });
    expect(report.microphone.advice).toMatch(/allow it/);
    // The connection is still tested; the call that needs the microphone is not placed.
    expect(report.signalling.status).toBe('ok');
    expect(report.media).toMatchObject({ status: 'skipped', code: null, setupMs: null, mos: null });
    expect(world.backend.requestsOf('createCall')).toHaveLength(0);
    expect([...world.backend.sessions.values()].every((session) => session.ended)).toBe(true);
    expect(world.clock.pendingTimers).toBe(0);
  });

  it('fails the microphone as in use, with advice to close the other application, when another one holds it', async () => {
    const held = new DOMException('Failed to allocate audiosource', 'AbortError');
    const world = preflightWorld(() => Promise.reject(held));
    const report = await verdict(world, runPreflight(CALL, world.host));

    expect(report.microphone).toMatchObject({ status: 'failed', code: 'microphone_in_use', level: null });
    expect(report.microphone.advice).toMatch(/Another application or tab is using the microphone: close it/);
    expect(report.media.status).toBe('skipped');
  });

  it('fails signalling with the service code when no session can be made', async () => {
    const world = preflightWorld();
    world.backend.fail('createSession', httpError(403, 'voice_not_entitled'));
    const report = await verdict(world, runPreflight(CALL, world.host));

    expect(report).toMatchObject({ verdict: 'failed', signalling: { status: 'failed', code: 'voice_not_entitled', sessionMs: null }, media: { status: 'skipped' } });
    expect(report.signalling.advice).toBeTruthy();
    expect(world.backend.sessions.size).toBe(0);
    expect(world.clock.pendingTimers).toBe(0);
  });

  it('fails signalling with advice about the network when the SIP WebSocket cannot open', async () => {
    const world = preflightWorld();
    world.sip.failOpenWith = new Error('WebSocket closed');
    const report = await verdict(world, runPreflight(CALL, world.host));

    expect(report.signalling).toMatchObject({ status: 'failed', code: 'connection_failed' });
    expect(report.signalling.advice).toMatch(/firewall or proxy/);
    expectNothingLeft(world);
  });

  it('warns about the network with the figure that is off: loss over 5 %, round trip over 400 ms, jitter over 30 ms', async () => {
    const cases: Array<[Partial<CallQuality>, string]> = [
      [{ lossPercent: 12, mos: 3.1 }, 'high_packet_loss'],
      [{ rttMs: 650, mos: 3.6 }, 'high_rtt'],
      [{ jitterMs: 45 }, 'high_jitter'],
    ];
    for (const [figures, code] of cases) {
      const world = preflightWorld();
      const pending = runPreflight(CALL, world.host);
      await answerTestCall(world, { ...GOOD, ...figures });
      const report = await verdict(world, pending);
      expect(report.verdict).toBe('warning');
      expect(report.media).toMatchObject({ status: 'warning', code, ...figures });
      expect(report.media.advice).toBeTruthy();
    }
  });

  it('warns when the microphone opens but sends silence', async () => {
    const world = preflightWorld();
    const pending = runPreflight(CALL, world.host);
    await answerTestCall(world, { ...GOOD, microphoneLevel: 0.0002 });
    const report = await verdict(world, pending);
    expect(report).toMatchObject({ verdict: 'warning', microphone: { status: 'warning', code: 'silent_microphone', level: 0.0002 }, media: { status: 'ok' } });
  });

  it("shows the microphone's level in Firefox, measured from the test call's own track where the statistics carry none", async () => {
    const world = preflightWorld();
    const pending = runPreflight(CALL, world.host);
    const call = await answerInFirefox(world, 0.05);
    const report = await verdict(world, pending);
    call.end();

    expect(report).toMatchObject({ verdict: 'ok', microphone: { status: 'ok', level: 0.05 }, media: { status: 'ok', rttMs: 20, jitterMs: 2.5, lossPercent: 0 } });
    expect(call.audio.made.map((context) => context.state)).toEqual(['closed']);
  });

  it('warns of a silent microphone in Firefox from the measured level', async () => {
    const world = preflightWorld();
    const pending = runPreflight(CALL, world.host);
    const call = await answerInFirefox(world, 0.0002);
    const report = await verdict(world, pending);
    call.end();

    expect(report).toMatchObject({ verdict: 'warning', microphone: { status: 'warning', code: 'silent_microphone', level: 0.0002 } });
  });

  it('fails the media when no audio comes back', async () => {
    const world = preflightWorld();
    const pending = runPreflight(CALL, world.host);
    await answerTestCall(world, { ...GOOD, packetsReceived: 0, jitterMs: null, lossPercent: null, mos: null });
    const report = await verdict(world, pending);
    expect(report.media).toMatchObject({ status: 'failed', code: 'media_failed' });
  });

  it('gives its verdict within 10 s when the test call never rings, and still cleans up', async () => {
    const world = preflightWorld();
    const report = await verdict(world, runPreflight(CALL, world.host));

    expect(report.media).toMatchObject({ status: 'failed', code: 'media_failed', setupMs: null });
    expect(report.durationMs).toBeGreaterThanOrEqual(PREFLIGHT_BUDGET_MS);
    expect(report.durationMs).toBeLessThanOrEqual(10_000);
    expectNothingLeft(world);
  });

  it('tells why the service refused the test call', async () => {
    const world = preflightWorld();
    world.backend.fail('createCall', httpError(403, 'compliance_blocked_number'));
    const report = await verdict(world, runPreflight(CALL, world.host));
    expect(report.media).toMatchObject({ status: 'failed', code: 'compliance_blocked_number' });
    expectNothingLeft(world);
  });
});

describe('preflight()', () => {
  it('is refused once the helper holds a session, and for numbers that are not E.164', async () => {
    const world = setup();
    expect((await rejection(world.voice.preflight({ from: '+1', to: 'x' }))).code).toBe('invalid_argument');
    await world.voice.connect();
    expect((await rejection(world.voice.preflight(CALL))).code).toBe('browser_session_unavailable');
    expect(world.voice.status().error?.code).toBe('browser_session_unavailable');
  });

  it('runs on a session of its own: the page helper stays disconnected, and connect() waits for it', async () => {
    const world = setup();
    const seen: string[] = [];
    const report = world.voice.preflight(CALL);
    const connecting = world.voice.connect().then(() => seen.push('connected'));
    void report.then((r) => seen.push(`preflight ${r.verdict}`));
    // happy-dom has no microphone: the verdict says so, and the connection is still tested.
    for (let i = 0; i < 100 && seen.length < 2; i++) await world.clock.advance(100);
    await connecting;

    expect(seen).toEqual(['preflight failed', 'connected']);
    expect((await report).microphone.status).toBe('failed');
    // The page's own helper showed nothing of the preflight's session before connect() began.
    const before = world.statuses.slice(0, world.statuses.findIndex((s) => s.connection === 'connecting'));
    expect(before.every((s) => s.session === null)).toBe(true);
    expect(world.backend.requestsOf('createSession')).toHaveLength(2);
    expect(world.backend.requestsOf('endSession').map((r) => r.id)).toEqual(['session-1']);
    expect(world.voice.status()).toMatchObject({ connection: 'ready', session: { id: 'session-2' } });
  });
});
