import { VoiceBrowserError } from './errors.js';

/** getUserMedia failures, told apart. */
export function microphoneError(cause: unknown): VoiceBrowserError {
  const name = (cause as { name?: string } | undefined)?.name;
  if (name === 'NotAllowedError' || name === 'SecurityError') {
    return new VoiceBrowserError('microphone_permission_denied', 'the microphone permission was refused; allow it in the browser and try again', { cause });
  }
  // Media Capture and Streams, getUserMedia(): NotReadableError is a device the system would not give, most often
  // because another application holds it; Firefox rejects such a device with AbortError instead.
  if (name === 'NotReadableError' || name === 'AbortError') {
    return new VoiceBrowserError('microphone_in_use', 'the microphone is held by another application or tab; close it, then try again', { cause });
  }
  if (name === 'NotFoundError' || name === 'OverconstrainedError') {
    return new VoiceBrowserError('microphone_unavailable', 'no usable microphone was found; plug one in or pick another', { cause });
  }
  return new VoiceBrowserError('connection_failed', 'the call could not be answered in the browser', { cause });
}
