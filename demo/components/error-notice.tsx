import type { StatusError } from '../../lib/index.js';
import { errorAdvice } from '../../lib/error-advice.js';

export interface ErrorNoticeProps {
  error: StatusError | null;
  actionError: string | null;
  onResumeAudio(): void;
}

/** The last error: its code, the helper's message, and what to do next in words (spec 7). */
export function ErrorNotice({ error, actionError, onResumeAudio }: ErrorNoticeProps) {
  if (!error) return actionError ? <p class="error" role="alert">{actionError}</p> : null;
  return (
    <div class="error" role="alert">
      <p data-testid="error-code">
        <strong>{error.code}</strong>: {error.message}
      </p>
      <p data-testid="error-advice">{errorAdvice(error.code)}</p>
      {error.code === 'audio_playback_blocked' && (
        <button type="button" onClick={onResumeAudio}>
          Resume audio
        </button>
      )}
    </div>
  );
}
