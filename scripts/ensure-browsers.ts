import { CHROMIUM_PATH, FIREFOX_PATH } from '../e2e/browsers.js';
import { ensureDebianPackages, runWhenMain } from './ensure-debian-packages.js';

/**
 * The e2e suite and the bench drive Debian's Chromium and Firefox ESR (Playwright cannot download its own
 * browsers here). Installs whichever is missing when running as root, with the packages Debian recommends
 * beside them; otherwise stops with one line saying how.
 */
runWhenMain(import.meta.url, () =>
  ensureDebianPackages(
    'e2e',
    [
      { path: CHROMIUM_PATH, pkg: 'chromium' },
      { path: FIREFOX_PATH, pkg: 'firefox-esr' },
    ],
    { recommends: true },
  ),
);
