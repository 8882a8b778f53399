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
export { BROWSER_CALL_STATES, BROWSER_CALL_TRANSITIONS, CONNECTION_STATES, CONNECTION_TRANSITIONS, RENEWABLE_CONNECTIONS, TERMINAL_CALL_STATES } from './types.js';
export type {
  BrowserCall,
  BrowserCallState,
  BrowserSession,
  CallAttempt,
  CallbackOptions,
  CallInput,
  CallQuality,
  CallWarning,
  Connection,
  PreflightCheck,
  PreflightReport,
  PreflightStatus,
  QueueCall,
  QueueCaller,
  SessionTransport,
  StateTransition,
  StatusError,
  TimingEvent,
  VoiceBackend,
  VoiceBrowser,
  VoiceBrowserOptions,
  VoiceBrowserStatus,
} from './types.js';
