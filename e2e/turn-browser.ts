import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, BrowserContextOptions, PlaywrightWorkerArgs } from '@playwright/test';
import { CHROMIUM_LAUNCH, FIREFOX_LAUNCH } from './browsers.js';

/**
 * A browser of the TURN spec's own, which takes the simulator's TURN server's certificate (self-signed, made when
 * coturn starts): Chromium with a switch that takes any certificate, which no other spec's browser has, so the
 * rest of the suite keeps checking; Firefox with that certificate trusted in a profile made for it (NSS's
 * `certutil`, Debian's libnss3-tools), as an administrator would deploy a private CA.
 */

/** The browser's one context, and how to close it. */
export interface TurnBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Starts `browserName` trusting `certificatePem` for TURN over TLS. */
export async function turnBrowser(playwright: PlaywrightWorkerArgs['playwright'], browserName: string, certificatePem: string, options: BrowserContextOptions): Promise<TurnBrowser> {
  if (browserName !== 'firefox') {
    const browser = await playwright.chromium.launch({ ...CHROMIUM_LAUNCH, args: [...CHROMIUM_LAUNCH.args, '--ignore-certificate-errors'] });
    return { context: await browser.newContext(options), close: () => browser.close() };
  }
  const profile = await mkdtemp(join(tmpdir(), 'voice-browser-turn-firefox-'));
  await writeFile(join(profile, 'turn.pem'), certificatePem);
  execFileSync('certutil', ['-N', '--empty-password', '-d', `sql:${profile}`]);
  // `P`: a trusted peer, the trust a self-signed server certificate needs for TLS (NSS certutil -t).
  execFileSync('certutil', ['-A', '-n', 'simulator-turn', '-t', 'P,,', '-i', join(profile, 'turn.pem'), '-d', `sql:${profile}`]);
  const context = await playwright.firefox.launchPersistentContext(profile, { ...FIREFOX_LAUNCH, ...options });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
