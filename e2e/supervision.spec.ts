import type { Browser, BrowserContext, Page } from '@playwright/test';
import { axeViolations, expect, logIn, logInAndConnect, pageAudioStats, recordPeerConnections, test, userOfThisRun } from './fixtures.js';

/**
 * Supervisors and recordings (docs/desk.md, "Supervisors and recordings"), in real browsers
 * against the demo server and its simulator. The demo's login makes a user whose name starts with `lead` a
 * supervisor of every other user it has seen. A supervisor's page lists its agents' calls, listens in on one
 * (the monitor leg rings the page and is answered listen-only: audio comes in, nothing goes out, no microphone
 * opens), while the agent's page shows nothing of it; the leg ends with the call. The agent records from the
 * call card; the WAV the proxy streams lasts as long as the service recorded and holds the far party's tone.
 * Any other user gets 404 for the monitor and the download.
 */

/** The simulator's test number that answers at once with its 440 Hz tone (docs/simulator.md, the test numbers). */
const TONE_NUMBER = '+12025550100';
const TONE_HZ = 440;
/** One frame of the service's mix (RFC 3551 section 4.5 default packetization): a WAV may end within one. */
const FRAME_MS = 20;
/** How long the agent records. */
const RECORDED_MS = 2500;
/** Long enough for the supervisor's list (read every few seconds) to show a new call. */
const LISTED_MS = 15_000;

/** A user: a browser context of its own (its own login cookie), with its peer connections and getUserMedia calls recorded. */
interface User {
  context: BrowserContext;
  page: Page;
}

/** Run in a page before its scripts: counts its getUserMedia calls (`window.__gum`), and keeps the uncounted one for the test. */
function countMicrophoneRequests(): void {
  const w = window as unknown as { __gum: number; __uncountedGetUserMedia: MediaDevices['getUserMedia'] };
  w.__gum = 0;
  const media = navigator.mediaDevices;
  if (!media) return;
  const original = media.getUserMedia.bind(media);
  w.__uncountedGetUserMedia = original;
  media.getUserMedia = (constraints) => {
    w.__gum += 1;
    return original(constraints);
  };
}

async function openUser(browser: Browser, username: string, connect = true): Promise<User> {
  const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL, permissions: ['microphone'] });
  await context.addInitScript(recordPeerConnections);
  await context.addInitScript(countMicrophoneRequests);
  const page = await context.newPage();
  if (connect) await logInAndConnect(page, username);
  else await logIn(page, username);
  return { context, page };
}

/** Calls the tone number from the agent's page; resolves with the call id once connected. */
async function placeCall(page: Page): Promise<string> {
  await page.getByLabel('Number to call').fill(TONE_NUMBER);
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  return (await page.getByTestId('call-id').textContent()) ?? '';
}

/** The supervisor's row of call `callId`, once listed. */
const supervisedRow = (page: Page, callId: string) => page.getByTestId('supervisor-panel').locator(`[data-testid="supervised-call"][data-call-id="${callId}"]`);

/**
 * The warnings that are times (a slow round trip, loss over one sample): a busy machine's loopback raises and
 * clears them by itself at any moment, so they say nothing of what the monitor did.
 */
const TIMING_WARNINGS: Record<string, string> = { high_rtt: 'The network is slow', high_packet_loss: 'The network is losing some of the audio' };

/** What the agent's page tells of its call: the status the demo shows, and its card's words, timing warnings aside. */
async function agentView(page: Page): Promise<Record<string, string | null>> {
  const view: Record<string, string | null> = {};
  for (const id of ['call-id', 'call-state', 'busy', 'audio', 'attempt', 'call-words']) view[id] = await page.getByTestId(id).textContent();
  const warnings = ((await page.getByTestId('warnings').textContent()) ?? '').split(' ').filter((code) => code !== '—' && !(code in TIMING_WARNINGS));
  view.warnings = warnings.join(' ');
  const cardWords = await page.getByTestId('call-warnings').locator('li').allTextContents();
  view.cardWarnings = String(cardWords.filter((words) => !Object.values(TIMING_WARNINGS).some((start) => words.startsWith(start))).length);
  view.peerConnections = String(await page.evaluate(() => (window as unknown as { __pcs: unknown[] }).__pcs.length));
  return view;
}

/** The supervisor's last peer connection as its page holds it: whether its answer is recvonly, and whether any sender has a track. */
async function legMedia(page: Page): Promise<{ recvonly: boolean; senderTracks: number; microphoneRequests: number }> {
  return JSON.parse(
    await page.evaluate(() => {
      const w = window as unknown as { __pcs: RTCPeerConnection[]; __gum: number };
      const pc = w.__pcs[w.__pcs.length - 1];
      const audio = pc?.localDescription?.sdp.split(/^m=/m).find((section) => section.startsWith('audio')) ?? '';
      return JSON.stringify({
        recvonly: /^a=recvonly/m.test(audio),
        senderTracks: pc ? pc.getSenders().filter((sender) => sender.track !== null).length : -1,
        microphoneRequests: w.__gum,
      });
    }),
  ) as { recvonly: boolean; senderTracks: number; microphoneRequests: number };
}

/** The amplitude of the `hz` component of `samples` (Goertzel: one bin of a DFT), as the simulator's audio tests measure it. */
function amplitudeAt(samples: Int16Array, hz: number, sampleRate: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * hz) / sampleRate);
  let previous = 0;
  let beforePrevious = 0;
  for (const sample of samples) {
    const current = sample + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  const power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
  return (2 * Math.sqrt(Math.max(0, power))) / samples.length;
}

/** The strongest `hz` over consecutive 100 ms windows. */
function peakAmplitudeAt(samples: Int16Array, hz: number, sampleRate: number): number {
  const window = sampleRate / 10;
  let peak = 0;
  for (let start = 0; start + window <= samples.length; start += window) peak = Math.max(peak, amplitudeAt(samples.subarray(start, start + window), hz, sampleRate));
  return peak;
}

/** A PCM WAV file's canonical 44-byte header and samples. */
function readWav(file: Buffer): { format: number; channels: number; sampleRate: number; bitsPerSample: number; dataBytes: number; samples: Int16Array } {
  expect([file.toString('ascii', 0, 4), file.toString('ascii', 8, 12), file.toString('ascii', 12, 16), file.toString('ascii', 36, 40)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data']);
  const dataBytes = file.readUInt32LE(40);
  const samples = new Int16Array(Math.floor(Math.min(dataBytes, file.length - 44) / 2));
  for (let i = 0; i < samples.length; i++) samples[i] = file.readInt16LE(44 + i * 2);
  return { format: file.readUInt16LE(20), channels: file.readUInt16LE(22), sampleRate: file.readUInt32LE(24), bitsPerSample: file.readUInt16LE(34), dataBytes, samples };
}

test.describe('supervisors and recordings', () => {
  // Two or three users' pages, each its own browser context, around a call: on a busy machine that outlasts the
  // default test time without anything being wrong.
  test.slow();
  test('a supervisor hears both sides of an agent call, sends nothing, and the agent is not told; the monitor ends with the call', async ({ browser, simulator }) => {
    const agent = await openUser(browser, 'sup-agent');
    const callId = await placeCall(agent.page);
    // The supervisor's page opens on a call in progress: its first read of the calls lists it.
    const lead = await openUser(browser, 'lead-sup');
    const agentName = userOfThisRun('sup-agent');
    try {
      const row = supervisedRow(lead.page, callId);
      await expect(row).toBeVisible({ timeout: LISTED_MS });
      await expect(row.getByTestId('supervised-agent')).toHaveText(agentName);
      await expect(row.getByTestId('supervised-state')).toHaveText('connected');
      // Let the agent's page settle into the call (its audio playing) before taking what it shows.
      await expect(agent.page.getByTestId('audio')).toHaveText('playing');
      const before = await agentView(agent.page);

      if (test.info().project.name === 'firefox') {
        // Firefox offers its 127.0.0.1 candidate only to a page that captures (or holds a microphone permission);
        // a page that never did offers only its default-route address, which the loopback-only simulator cannot
        // reach (the simulator's Firefox preferences). So the test, not the page's code, holds a fake capture in that page;
        // the counted getUserMedia below stays the page's own.
        await lead.page.evaluate(async () => {
          const w = window as unknown as { __uncountedGetUserMedia: MediaDevices['getUserMedia']; __held: MediaStream };
          w.__held = await w.__uncountedGetUserMedia({ audio: true });
        });
      }
      await row.getByRole('button', { name: `Listen in to ${agentName}` }).click();
      await expect(lead.page.getByTestId('call-words')).toHaveText(`Listening to ${agentName}`);
      await expect(lead.page.getByTestId('call-state')).toHaveText('connected');
      const legId = (await lead.page.getByTestId('call-id').textContent()) ?? '';
      expect(legId).not.toBe(callId);
      // Listen only: Stop listening, no mute, no keypad, no record.
      await expect(lead.page.getByRole('button', { name: 'Stop listening' })).toBeEnabled();
      for (const name of ['Mute', 'Keypad', 'Record', 'Hang up']) await expect(lead.page.getByRole('button', { name, exact: true })).toHaveCount(0);
      await expect(lead.page.getByTestId('listen-only')).toBeVisible();

      // The supervisor hears the call: packets keep arriving at its page, and it sends none.
      await expect.poll(async () => (await pageAudioStats(lead.page)).received).toBeGreaterThan(25);
      const first = await pageAudioStats(lead.page);
      await expect.poll(async () => (await pageAudioStats(lead.page)).received).toBeGreaterThan(first.received + 50);
      expect((await pageAudioStats(lead.page)).sent).toBe(0);
      // No microphone was opened for the leg: the page's answer is recvonly, no sender has a track, getUserMedia never ran.
      expect(await legMedia(lead.page)).toEqual({ recvonly: true, senderTracks: 0, microphoneRequests: 0 });
      // The service's side of the leg: it sent the mix, and got nothing from the page.
      const leg = await simulator.call(legId);
      expect(leg.media?.packetsToBrowser ?? 0).toBeGreaterThan(50);
      expect(leg.media?.packetsFromBrowser ?? -1).toBe(0);
      // Both sides reach the supervisor: the agent's page sends its microphone and the far party answers it.
      const call = await simulator.call(callId);
      expect(call.media?.packetsFromBrowser ?? 0).toBeGreaterThan(50);
      expect(call.media?.packetsToBrowser ?? 0).toBeGreaterThan(50);

      // The agent's page is told nothing: the same call, state, audio, no warning, no new peer connection.
      expect(await agentView(agent.page)).toEqual(before);

      expect(await axeViolations(lead.page)).toEqual([]);

      // The call ends: so does the monitor, and the supervisor's page is idle again, still connected.
      await agent.page.getByRole('button', { name: 'Hang up' }).click();
      await expect(agent.page.getByTestId('busy')).toHaveText('false');
      await expect(lead.page.getByTestId('busy')).toHaveText('false');
      await expect(lead.page.getByTestId('call-words')).toHaveText(`${agentName}'s call ended, so listening stopped`);
      await expect(lead.page.getByTestId('connection')).toHaveText('ready');
      await expect(row.getByTestId('supervised-state')).toHaveText('ended', { timeout: LISTED_MS });
    } finally {
      await Promise.all([agent.context.close(), lead.context.close()]);
    }
  });

  test('recording from the agent card leaves a WAV as long as recorded, with the tone; others get 404', async ({ browser }) => {
    const agent = await openUser(browser, 'rec-agent');
    const other = await openUser(browser, 'rec-other', false);
    let lead: User | undefined;
    try {
      // Record is pressed the moment the card offers it, while the far party still plays its tone (its first
      // second): a click from the page itself, as Playwright's next round trip may come later than that.
      await agent.page.evaluate(() => {
        const timer = setInterval(() => {
          const button = [...document.querySelectorAll('button')].find((candidate) => candidate.textContent === 'Record' && !candidate.disabled);
          if (!button) return;
          clearInterval(timer);
          button.click();
        }, 5);
      });
      const placedAt = Date.now();
      const started = agent.page.waitForResponse((response) => response.request().method() === 'POST' && /^\/voice\/calls\/[^/]+\/recordings$/.test(new URL(response.url()).pathname));
      const callId = await placeCall(agent.page);
      const startAnswer = await started;
      const startedAt = Date.now();
      expect(new URL(startAnswer.url()).pathname).toBe(`/voice/calls/${callId}/recordings`);
      expect(startAnswer.status()).toBe(201);
      const startedRecording = ((await startAnswer.json()) as { recording: { id: string; startedAt: string } }).recording;
      const recordingId = startedRecording.id;
      await expect(agent.page.getByTestId('recording')).toHaveText('● Recording');
      lead = await openUser(browser, 'lead-rec', false);
      await expect(supervisedRow(lead.page, callId)).toBeVisible({ timeout: LISTED_MS });

      // A couple of seconds of conversation in the recording.
      await agent.page.waitForTimeout(Math.max(0, startedAt + RECORDED_MS - Date.now()));
      const stopped = agent.page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === `/voice/calls/${callId}/recordings/${recordingId}/stop`);
      await agent.page.getByRole('button', { name: 'Stop recording' }).click();
      const stopAnswer = await stopped;
      const stopAnsweredAt = Date.now();
      expect(stopAnswer.status()).toBe(200);
      const stoppedRecording = ((await stopAnswer.json()) as { recording: { state: string; stoppedAt: string } }).recording;
      expect(stoppedRecording.state).toBe('completed');
      await expect(agent.page.getByTestId('recording')).toHaveCount(0);
      await expect(agent.page.getByRole('button', { name: 'Record', exact: true })).toBeEnabled();

      // The supervisor's page lists the recording with a player and a download link, both at the proxy.
      const row = supervisedRow(lead.page, callId);
      await row.getByRole('button', { name: /^Recordings/ }).click();
      const item = row.locator(`[data-testid="recording-item"][data-recording-id="${recordingId}"]`);
      await expect(item).toBeVisible();
      const audioUrl = `/voice/recordings/${recordingId}/audio`;
      await expect(item.locator('audio')).toHaveAttribute('src', audioUrl);
      await expect(item.getByRole('link', { name: /^Download/ })).toHaveAttribute('href', audioUrl);
      expect(await axeViolations(lead.page)).toEqual([]);

      const download = await lead.page.request.get(audioUrl);
      expect(download.status()).toBe(200);
      expect(download.headers()['content-type']).toMatch(/^audio\/(x-)?wav/);
      const wav = readWav(await download.body());
      expect([wav.format, wav.channels, wav.bitsPerSample]).toEqual([1, 1, 16]);
      const wavMs = (wav.dataBytes / 2 / wav.sampleRate) * 1000;
      const tone = peakAmplitudeAt(wav.samples, TONE_HZ, wav.sampleRate);
      const serviceMs = Date.parse(stoppedRecording.stoppedAt) - Date.parse(startedRecording.startedAt);
      test.info().annotations.push({ type: 'recording', description: `wav ${Math.round(wavMs)} ms; the service's start and stop ${serviceMs} ms apart; ${TONE_HZ} Hz peak ${Math.round(tone)}` });
      // The WAV holds the recording, not a moment of it nor padding. Every bound is an order of events on this
      // machine's one clock, whatever its load: the service began mixing before it answered the start and mixed
      // until it took the stop, which the test sent RECORDED_MS after that answer came; the mix emits every frame
      // that fell due, however late its timer (a frame of slack where a recording begins mid-frame). So the WAV
      // covers the time the test held the recording open, and is no longer than the service ran nor than the
      // test's whole span around it. How close it comes is the bench's (recording part).
      expect(serviceMs).toBeGreaterThanOrEqual(RECORDED_MS);
      expect(wavMs).toBeLessThanOrEqual(serviceMs + FRAME_MS);
      expect(wavMs).toBeLessThanOrEqual(stopAnsweredAt - placedAt);
      expect(wavMs).toBeGreaterThanOrEqual(RECORDED_MS - FRAME_MS);
      expect(wav.samples.length).toBe(wav.dataBytes / 2);
      expect(tone).toBeGreaterThan(2000);
      // The agent fetches its own call's recording too.
      expect((await agent.page.request.get(audioUrl)).status()).toBe(200);

      // Anyone else: the same 404 as for nothing at all.
      const missing = await other.page.request.get('/voice/recordings/rec_doesnotexist/audio');
      expect(missing.status()).toBe(404);
      const refusedDownload = await other.page.request.get(audioUrl);
      expect(refusedDownload.status()).toBe(404);
      expect(await refusedDownload.json()).toEqual(await missing.json());
      const refusedMonitor = await other.page.request.post(`/voice/calls/${callId}/monitor`, { data: {} });
      expect(refusedMonitor.status()).toBe(404);
      expect((await other.page.request.get('/voice/supervised-calls')).status()).toBe(404);
      // An agent does not monitor their own call either.
      expect((await agent.page.request.post(`/voice/calls/${callId}/monitor`, { data: {} })).status()).toBe(404);
    } finally {
      await Promise.all([agent.context.close(), lead?.context.close(), other.context.close()]);
    }
  });
});
