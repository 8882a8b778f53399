import type { Page } from '@playwright/test';
import { expect, logIn, screenshot, test } from './fixtures.js';

/**
 * "Test my setup" (preflight()): on a fresh page, a verdict on the microphone, the connection and a
 * short call to the simulator's echo number, each with its figures; and nothing left behind: no session at the
 * service, no open WebSocket, no live microphone track, the page's own helper still disconnected.
 */

/** Records every WebSocket and microphone track the page opens, to see that the test closed them all. */
async function recordWhatOpens(page: Page, options: { blockMicrophone?: boolean } = {}): Promise<void> {
  await page.addInitScript((blockMicrophone) => {
    const opened = { sockets: [] as WebSocket[], tracks: [] as MediaStreamTrack[] };
    (window as unknown as { __opened: typeof opened }).__opened = opened;
    const NativeSocket = window.WebSocket;
    window.WebSocket = class extends NativeSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        opened.sockets.push(this);
      }
    };
    const devices = navigator.mediaDevices;
    const getUserMedia = devices.getUserMedia.bind(devices);
    devices.getUserMedia = async (constraints) => {
      // The user clicks "Block" on the permission prompt.
      if (blockMicrophone) throw new DOMException('Permission denied', 'NotAllowedError');
      const stream = await getUserMedia(constraints);
      opened.tracks.push(...stream.getTracks());
      return stream;
    };
  }, options.blockMicrophone ?? false);
}

/** What the page opened and what of it is still open. */
function openedAndLeft(page: Page): Promise<{ sockets: number; openSockets: number; tracks: number; liveTracks: number }> {
  return page.evaluate(() => {
    const { sockets, tracks } = (window as unknown as { __opened: { sockets: WebSocket[]; tracks: MediaStreamTrack[] } }).__opened;
    return {
      sockets: sockets.length,
      openSockets: sockets.filter((socket) => socket.readyState !== WebSocket.CLOSED).length,
      tracks: tracks.length,
      liveTracks: tracks.filter((track) => track.readyState === 'live').length,
    };
  });
}

const currentSession = (page: Page) => page.evaluate(async () => (await (await fetch('/voice/browser-sessions')).json()) as { session: unknown; call: unknown });

test('Test my setup says ready with every figure, then leaves no session, socket or microphone behind', async ({ page }) => {
  await recordWhatOpens(page);
  await logIn(page, 'e2e-preflight-ok');
  const button = page.getByRole('button', { name: 'Test my setup' });
  await expect(button).toBeEnabled();
  await button.click();

  // A verdict, not a hang; how long it takes is the bench's. The signalling's and the media's warnings are
  // their times (slow signalling, rtt, jitter), which a busy machine meets on loopback too: there they may warn,
  // never fail, and the microphone is fine whatever the load.
  const verdict = page.getByTestId('preflight-verdict');
  await expect(verdict).toHaveAttribute('data-verdict', /^(ok|warning)$/, { timeout: 20_000 });
  const ok = (await verdict.getAttribute('data-verdict')) === 'ok';
  await expect(verdict).toHaveText(ok ? 'Ready for calls' : 'Calls will work, with a problem');
  await expect(page.getByTestId('preflight-microphone')).toHaveAttribute('data-status', 'ok');
  for (const part of ['signalling', 'media']) await expect(page.getByTestId(`preflight-${part}`)).toHaveAttribute('data-status', ok ? 'ok' : /^(ok|warning)$/);
  // The fake microphone's beep is heard in the test call; the echo brings the audio back measured.
  await expect(page.getByTestId('preflight-microphone')).toContainText(/level -\d+ dBFS/);
  await expect(page.getByTestId('preflight-signalling')).toContainText(/session \d+ ms, registration \d+ ms/);
  await expect(page.getByTestId('preflight-media')).toContainText(/setup \d+ ms, rtt [\d.]+ ms, jitter [\d.]+ ms, loss [\d.]+ %, MOS [\d.]+/);
  await screenshot(page, 'preflight');

  // Nothing left: the test's session ended at the service, its socket closed, the microphone let go.
  expect(await currentSession(page)).toEqual({ session: null, call: null });
  expect(await openedAndLeft(page)).toMatchObject({ sockets: 1, openSockets: 0, liveTracks: 0 });
  expect((await openedAndLeft(page)).tracks).toBeGreaterThanOrEqual(2);
  // The page's own helper never held the test's session: it connects as usual afterwards.
  await expect(page.getByTestId('connection')).toHaveText('disconnected');
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByTestId('connection')).toHaveText('ready');
});

test('Test my setup with a blocked microphone fails it with advice, still tests the connection, places no call', async ({ page }) => {
  await recordWhatOpens(page, { blockMicrophone: true });
  await logIn(page, 'e2e-preflight-blocked');
  await page.getByRole('button', { name: 'Test my setup' }).click();

  await expect(page.getByTestId('preflight-verdict')).toHaveAttribute('data-verdict', 'failed', { timeout: 20_000 });
  await expect(page.getByTestId('preflight-verdict')).toHaveText('Calls will not work yet');
  const microphone = page.getByTestId('preflight-microphone');
  await expect(microphone).toHaveAttribute('data-status', 'failed');
  await expect(microphone).toContainText("allow it in this site's settings");
  // Slow signalling is a warning a busy machine earns on loopback too: the connection was tested either way.
  await expect(page.getByTestId('preflight-signalling')).toHaveAttribute('data-status', /^(ok|warning)$/);
  await expect(page.getByTestId('preflight-media')).toHaveAttribute('data-status', 'skipped');
  await expect(page.getByTestId('preflight-media')).toContainText('Not tested');

  expect(await currentSession(page)).toEqual({ session: null, call: null });
  expect(await openedAndLeft(page)).toMatchObject({ sockets: 1, openSockets: 0, tracks: 0 });
});
