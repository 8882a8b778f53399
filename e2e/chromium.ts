import { chromiumArgs } from '../simulator/chromium-flags.js';

/**
 * How every e2e browser starts: Debian's Chromium with the simulator package's flags (fake media, nothing
 * beyond loopback; `chromiumArgs` says what each closes), the flags an integrator's tests get from
 * `@voice-browser/simulator/playwright`.
 */

/** The browser binary: `CHROMIUM_PATH`, else Debian's. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The one list of flags, simulator/chromium-flags.ts. */
export const CHROMIUM_ARGS = [...chromiumArgs];
