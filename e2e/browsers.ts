import { chromiumLaunchOptions } from '../simulator/chromium-flags.js';
import { firefoxLaunchOptions } from '../simulator/firefox-prefs.js';

/**
 * How every e2e browser starts: Debian's Chromium with the simulator package's flags, and Debian's Firefox ESR
 * with its preferences (fake media, nothing beyond loopback; `chromiumArgs` and `firefoxUserPrefs` say what each
 * closes): the launch options an integrator's tests get from `@voice-browser/simulator/playwright`.
 */

/** The Chromium binary: `CHROMIUM_PATH`, else Debian's. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The Firefox binary: `FIREFOX_PATH`, else Debian's ESR. */
export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** Chromium's launch options: simulator/chromium-flags.ts's flags on {@link CHROMIUM_PATH}. */
export const CHROMIUM_LAUNCH = chromiumLaunchOptions({ executablePath: CHROMIUM_PATH });

/** Firefox's launch options: simulator/firefox-prefs.ts's preferences on the `moz-firefox` channel at {@link FIREFOX_PATH}. */
export const FIREFOX_LAUNCH = firefoxLaunchOptions({ executablePath: FIREFOX_PATH });
