import { listAudioDevices } from './platform/web/audio-devices.js';
import { createFetchBackend } from './platform/web/backend.js';
import { isVoiceBrowserError, VoiceBrowserError } from './core/errors.js';
import { createVoiceBrowser } from './voice-browser.js';

/**
 * Entry of the script-tag build: one self-contained file that sets `window.VoiceBrowser`.
 * Loading a script is the side effect a script tag asks for; the ES module entry has none.
 */
const api = Object.freeze({ createVoiceBrowser, createFetchBackend, listAudioDevices, VoiceBrowserError, isVoiceBrowserError });

declare global {
  interface Window {
    VoiceBrowser: typeof api;
  }
}

window.VoiceBrowser = api;
