/**
 * voice-browser: put phone calls into a web page. The whole public surface, by name.
 *
 * @packageDocumentation
 */
export { createVoiceBrowser } from './voice-browser.js';
export type { VoiceBrowser } from './voice-browser.js';
export { createFetchBackend } from './backend.js';
export type { FetchBackendOptions } from './backend.js';
export { VoiceBrowserError, isVoiceBrowserError } from './errors.js';
export type { VoiceErrorCode } from './errors.js';
export type {
  BrowserCall,
  BrowserCallState,
  BrowserSession,
  CallAttempt,
  CallbackOptions,
  CallInput,
  CallQuality,
  Connection,
  SessionTransport,
  StatusError,
  TimingEvent,
  VoiceBackend,
  VoiceBrowserOptions,
  VoiceBrowserStatus,
} from './types.js';
