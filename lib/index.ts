/**
 * voice-browser: put phone calls into a web page. The whole public surface, by name.
 *
 * @packageDocumentation
 * @module voice-browser
 */
export { createVoiceBrowser } from './voice-browser.js';
export { createFetchBackend } from './platform/web/backend.js';
export type { FetchBackendOptions } from './platform/web/backend.js';
export { listAudioDevices } from './platform/web/audio-devices.js';
export type { AudioDeviceList } from './platform/web/audio-devices.js';
export { VOICE_ERROR_CODES, VoiceBrowserError, isVoiceBrowserError } from './core/errors.js';
export type { VoiceErrorCode } from './core/errors.js';
export { canAnswerNext, canCall, canConnect, canRenew, canRetryCall, canSendDtmf } from './core/status-rules.js';
export { AUDIO_STATES, BROWSER_CALL_STATES, CONNECTION_STATES, RENEWABLE_CONNECTIONS, TERMINAL_CALL_STATES } from './core/types.js';
export type {
  Audio,
  Availability,
  BrowserCall,
  BrowserCallState,
  BrowserSession,
  CallAttempt,
  CallInput,
  CallQuality,
  CallWarning,
  Connection,
  Offer,
  SessionTransport,
  StatusError,
  TimingEvent,
  VoiceBrowserStatus,
} from './core/types.js';
export type { CallbackOptions, QueueCall, Recording, VoiceBackend } from './core/backend-types.js';
export { AUDIO_TRANSITIONS, BROWSER_CALL_TRANSITIONS, CONNECTION_TRANSITIONS } from './core/state-transitions.js';
export type { StateTransition } from './core/state-transitions.js';
export type { PreflightCheck, PreflightReport, PreflightStatus, QueueCaller, VoiceBrowser, VoiceBrowserOptions } from './core/helper-types.js';
