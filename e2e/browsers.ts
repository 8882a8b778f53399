import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from '@playwright/test';
import { chromiumArgs, chromiumLaunchOptions } from '../simulator/browsers/chromium-flags.js';
import { firefoxLaunchOptions } from '../simulator/browsers/firefox-prefs.js';

/**
 * How every e2e browser starts: Debian's Chromium with the simulator package's flags, and Debian's Firefox ESR
 * with its preferences (fake media, nothing beyond loopback; `chromiumArgs` and `firefoxUserPrefs` say what each
 * closes): the launch options an integrator's tests get from `@voice-browser/simulator/playwright`.
 */

/** The Chromium binary: `CHROMIUM_PATH`, else Debian's. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The Firefox binary: `FIREFOX_PATH`, else Debian's ESR. */
export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** Chromium's launch options: the simulator's Chromium flags on {@link CHROMIUM_PATH}. */
export const CHROMIUM_LAUNCH = chromiumLaunchOptions({ executablePath: CHROMIUM_PATH });

/** Firefox's launch options: the simulator's Firefox preferences on the `moz-firefox` channel at {@link FIREFOX_PATH}. */
export const FIREFOX_LAUNCH = firefoxLaunchOptions({ executablePath: FIREFOX_PATH });

/** A Chromium started as a user's runs, and how to stop it. */
export interface UserChromium {
  /** Its default context: a tab opened in it goes in front of the others, which are then `hidden`. */
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * A Chromium that throttles and hides as a user's does, for what Playwright's own launch keeps from every other
 * spec: started here without Playwright's switches against background throttling, and reached over CDP with
 * `noDefaults`, so no focus emulation keeps a tab behind another `visible`. A loaded tab hidden for 60 s then runs
 * its chained timers once a minute (intensive wake-up throttling), as in Chrome and Edge.
 */
export async function launchUserChromium(): Promise<UserChromium> {
  const profile = await mkdtemp(join(tmpdir(), 'voice-browser-user-chromium-'));
  const flags = ['--headless', '--remote-debugging-port=0', `--user-data-dir=${profile}`];
  const chromiumProcess = spawn(CHROMIUM_PATH, [...chromiumArgs, ...flags, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let said = '';
    chromiumProcess.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const listening = /DevTools listening on (ws:\S+)/.exec(said);
      if (listening?.[1]) resolve(listening[1]);
    });
    chromiumProcess.once('exit', (code) => reject(new Error(`Chromium exited (${code}) before it listened for CDP: ${said.slice(-500)}`)));
  });
  const browser = await chromium.connectOverCDP(endpoint, { noDefaults: true });
  const [context] = browser.contexts();
  if (!context) throw new Error('Chromium started over CDP has no default context');
  return {
    context,
    async close() {
      await browser.close().catch(() => undefined);
      chromiumProcess.kill();
      await rm(profile, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}
