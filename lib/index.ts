/**
 * voice-browser: put phone calls into a web page. The whole public surface, by name.
 *
 * @packageDocumentation
 * @module voice-browser
 */
export { createVoiceBrowser } from './voice-browser.js';
export { createFetchBackend } from './backend.js';
export type { FetchBackendOptions } from './backend.js';
export { listAudioDevices } from './audio-devices.js';
export type { AudioDeviceList } from './audio-devices.js';
export { VOICE_ERROR_CODES, VoiceBrowserError, isVoiceBrowserError } from './errors.js';
export type { VoiceErrorCode } from './errors.js';
export { canAnswerNext, canCall, canConnect, canRenew, canRetryCall, canSendDtmf } from './status-rules.js';
export { AUDIO_STATES, BROWSER_CALL_STATES, CONNECTION_STATES, RENEWABLE_CONNECTIONS, TERMINAL_CALL_STATES } from './types.js';
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
} from './types.js';
export type { CallbackOptions, QueueCall, Recording, VoiceBackend } from './backend-types.js';
export { AUDIO_TRANSITIONS, BROWSER_CALL_TRANSITIONS, CONNECTION_TRANSITIONS } from './state-transitions.js';
export type { StateTransition } from './state-transitions.js';
export type { PreflightCheck, PreflightReport, PreflightStatus, QueueCaller, VoiceBrowser, VoiceBrowserOptions } from './helper-types.js';
