import { errorAdvice } from 'voice-browser/advice';
import type { ShownError } from '../models/voice-actions.js';

export interface ErrorNoticeProps {
  shown: ShownError;
  onResumeAudio(): void;
}

/** The error beside what caused it: what to do next in words, then its code and the helper's message. */
export function ErrorNotice({ shown, onResumeAudio }: ErrorNoticeProps) {
  const { error, message } = shown;
  if (!error) {
    return (
      <div class="error" role="alert">
        <p>{message}</p>
      </div>
    );
  }
  return (
    <div class="error" role="alert">
      <p data-testid="error-advice">
        <strong>{errorAdvice(error.code)}</strong>
      </p>
      <p data-testid="error-code" class="error-detail">
        <code>{error.code}</code>: {error.message}
      </p>
      {error.code === 'audio_playback_blocked' && (
        <button type="button" onClick={onResumeAudio}>
          Resume audio
        </button>
      )}
    </div>
  );
}
