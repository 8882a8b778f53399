/**
 * `voice-browser/advice`: what to tell the user about an error, in words a page can show as they are: one line
 * per code the helper gives (complete by type: a new code without advice does not compile), and the service
 * codes a page meets most. The demo shows these; the README's error table says the same at more length.
 *
 * @remarks
 * Its own entry, `voice-browser/advice`, outside the main one: a page with words of its own loads none of these.
 *
 * @example
 * ```ts
 * import { errorAdvice } from 'voice-browser/advice';
 * if (status.error) hint.textContent = errorAdvice(status.error.code);
 * ```
 *
 * @packageDocumentation
 * @module voice-browser/advice
 */

import type { VoiceErrorCode } from './core/errors.js';

/** Advice for every code the helper itself gives. */
export const VOICE_ERROR_ADVICE: Readonly<Record<VoiceErrorCode, string>> = {
  browser_voice_unavailable: 'Browser calling is unavailable: the voice service refused this server, or could not be read. Nothing was placed. Try again later; if it lasts, tell your administrator.',
  browser_agent_busy: 'A call is still active. Wait until busy is false, or hang up first.',
  browser_session_unavailable: 'This session cannot take calls now. Renew it if it expired or the connection was lost; after a reload, end the session first; otherwise connect.',
  connection_failed: 'The voice service could not be reached. Connect again, or renew if the connection was lost.',
  audio_path_failed:
    "No audio can flow between this browser and the voice service: the network path for the call's audio (ICE) did not connect. Check the network: a VPN or firewall may block it (UDP); the service may need a TURN server in its ICE servers. If calls from other networks work, tell the voice service's operator. The call itself may still be up.",
  turn_refused:
    "The call's TURN server refused the session's credentials, and no other path was allowed: no audio can flow. Renew the session for new credentials; if it lasts, the server's TURN secret and the service's differ: tell your administrator.",
  call_outcome_unknown: 'The call may have been placed. Press Retry call: it repeats the same attempt and never dials twice.',
  dequeue_outcome_unknown: 'Taking the next caller got no answer. If a caller was claimed for you, the call shows here in a moment; otherwise press Answer next again.',
  monitor_outcome_unknown: 'Listening in got no answer. If the call rings you, it shows here in a moment; otherwise press Listen again.',
  recording_outcome_unknown: 'The recording may not have started or stopped. Press Record or Stop recording again: the call shows what the service said.',
  cleanup_unknown: 'Cleanup was not confirmed: a call may still run. Press Hang up or Disconnect again.',
  audio_playback_blocked: 'The browser blocked the call audio. Press Resume audio to hear the call.',
  microphone_permission_denied: "The microphone was refused. Allow it in the browser's site settings, then call again.",
  microphone_unavailable: 'No usable microphone was found. Plug one in or pick another microphone, then call again.',
  microphone_in_use: 'Another application or tab is using the microphone. Close it, then try again.',
  dtmf_outcome_unknown: 'The digit may not have arrived. Press it again only if the far end did not react.',
  no_active_call: 'Digits and recording need a call answered in this page and still in progress; accept and decline need a caller ringing. Wait until the call rings here and is answered.',
  invalid_argument: 'The input was refused. Numbers are E.164, like +12025550100.',
  network_error: 'Reading the call failed; the page keeps trying. Check the network.',
};

/** Advice for the service's codes a page meets most, passed on as the service sent them. */
const SERVICE_ERROR_ADVICE: Readonly<Record<string, string>> = {
  rate_limited: 'Too many requests. Wait a moment, then try again.',
  queue_empty: 'Nobody is waiting in this queue now.',
  concurrency_limit: 'The account has too many active calls. Try again when one ends.',
  provider_error: 'The voice provider failed. Try again in a moment.',
  recording_not_enabled: 'This account does not record calls. Ask your administrator to enable recording.',
  recording_already_running: 'This call is being recorded already.',
  call_not_answered: 'The call is not answered yet. Try again once it is connected.',
};

/** What to do next about an error code, in words (the service's voice client errors and the service's). */
export function errorAdvice(code: string): string {
  if (code.startsWith('compliance_')) return 'This number is blocked for compliance (for example do-not-call). Call another number.';
  return (VOICE_ERROR_ADVICE as Readonly<Record<string, string>>)[code] ?? SERVICE_ERROR_ADVICE[code] ?? 'Something unexpected failed. Try again; if it keeps failing, disconnect and connect.';
}
