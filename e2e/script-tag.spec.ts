import { expect, test, userOfThisRun } from './fixtures.js';

/**
 * The script-tag build is one self-contained file: loaded alone, `window.VoiceBrowser` connects for real
 * (SIP.js inlined, no chunk to fetch) and disconnects cleanly.
 */
test('window.VoiceBrowser from the minified script connects and disconnects', async ({ page }) => {
  const login = await page.request.post('/auth/login', { data: { username: userOfThisRun('e2e-script-tag') } });
  expect(login.status()).toBe(200);
  await page.goto('/auth/me');
  const requested: string[] = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  await page.addScriptTag({ url: '/lib/voice-browser.min.js' });

  const result = await page.evaluate(async () => {
    const api = window.VoiceBrowser;
    const seen: string[] = [];
    const voice = api.createVoiceBrowser({ backend: api.createFetchBackend(), onStatus: (s) => seen.push(s.connection) });
    await voice.connect();
    const ready = voice.status();
    await voice.disconnect();
    return { exports: Object.keys(api).sort(), ready: ready.connection, session: ready.session?.id ?? '', after: voice.status().connection, seen };
  });

  expect(result.exports).toEqual(['VoiceBrowserError', 'createFetchBackend', 'createVoiceBrowser', 'isVoiceBrowserError', 'listAudioDevices']);
  expect(result.ready).toBe('ready');
  expect(result.session).toMatch(/^bs_/);
  expect(result.after).toBe('disconnected');
  const transitions = result.seen.filter((connection, i) => connection !== result.seen[i - 1]);
  // The first status says this tab took the phone (shared tabs, the default: `tabs.leader`), still disconnected.
  expect(transitions).toEqual(['disconnected', 'connecting', 'ready', 'disconnecting', 'disconnected']);
  // Self-contained: nothing but the script itself and the proxy's routes was fetched.
  expect(requested.filter((path) => path.endsWith('.js'))).toEqual(['/lib/voice-browser.min.js']);
});

test('the trimmed script-tag bundle answers a call, reports its quality, sends a digit and hangs up (no SIP.js part it needs is missing)', async ({ page, simulator }) => {
  const login = await page.request.post('/auth/login', { data: { username: userOfThisRun('e2e-script-tag-call') } });
  expect(login.status()).toBe(200);
  await page.goto('/auth/me');
  await page.addScriptTag({ url: '/lib/voice-browser.min.js' });

  const callId = await page.evaluate(async () => {
    const api = window.VoiceBrowser;
    const timings: unknown[] = [];
    const voice = api.createVoiceBrowser({
      backend: api.createFetchBackend(),
      remoteAudio: document.body.appendChild(document.createElement('audio')),
      onTiming: (event) => timings.push(event),
    });
    Object.assign(window, { voice, timings });
    await voice.connect();
    const call = await voice.startCall({ from: '+12025550199', to: '+12025550100' }, { idempotencyKey: crypto.randomUUID() });
    return call.id;
  });
  await expect.poll(() => page.evaluate(() => (window as unknown as { voice: { status(): { call: { state: string } | null } } }).voice.status().call?.state)).toBe('connected');
  // Quality samples from the call's WebRTC statistics: packets grow, nothing lost on loopback, every figure read.
  const samples = () =>
    page.evaluate(() =>
      ((window as unknown as { timings: Array<{ name: string; callId?: string; quality?: Record<string, unknown> }> }).timings)
        .filter((event) => event.name === 'call_quality')
        .map((event) => ({ callId: event.callId, ...event.quality })),
    );
  await expect.poll(async () => (await samples()).length).toBeGreaterThanOrEqual(2);
  const [first, second] = (await samples()) as Array<{ callId: string; packetsReceived: number; packetsSent: number; rttMs: number | null; jitterMs: number | null; lossPercent: number | null; mos: number | null; codec: string | null }>;
  expect(first).toMatchObject({ callId, codec: 'opus', lossPercent: 0 });
  expect(second?.packetsReceived).toBeGreaterThan(first?.packetsReceived ?? 0);
  expect(second?.packetsSent).toBeGreaterThan(first?.packetsSent ?? 0);
  // The score is read; how high it comes on loopback (a busy machine's jitter lowers it) is the bench's.
  for (const figure of [second?.rttMs, second?.jitterMs, second?.mos]) expect(typeof figure).toBe('number');
  await page.evaluate(() => (window as unknown as { voice: { sendDtmf(d: string): Promise<void> } }).voice.sendDtmf('7'));
  const digits = async () => (await simulator.call(callId)).facts.dtmf;
  await expect.poll(digits).toEqual([expect.objectContaining({ digit: '7', method: 'rfc4733' })]);
  await page.evaluate(() => (window as unknown as { voice: { disconnect(): Promise<void> } }).voice.disconnect());
  expect((await simulator.call(callId)).call).toMatchObject({ state: 'ended', busy: false });
});
