import type { PreflightReport } from 'voice-browser';
import { preflightRows, preflightStatusLabel, preflightVerdictLabel } from '../preflight-labels.js';

export interface SetupTestProps {
  /** The test may start: the helper is fresh (nothing connected, nothing to clean up). */
  enabled: boolean;
  running: boolean;
  report: PreflightReport | null;
  /** The number the test call goes to. */
  number: string;
  onTest(): void;
}

/**
 * "Test my setup": the helper's preflight() before connecting, its verdict in words, and each part with its
 * figures and what to do.
 */
export function SetupTest({ enabled, running, report, number, onTest }: SetupTestProps) {
  return (
    <section aria-label="Test my setup" class="setup-test">
      <h2>Test my setup</h2>
      <p class="hint">The microphone, the connection, and a short call to {number} (an echo), in under 10 s.</p>
      <div class="row">
        <button type="button" class="secondary" onClick={onTest} disabled={!enabled || running}>
          {running ? 'Testing…' : 'Test my setup'}
        </button>
        <span role="status" data-testid="preflight-verdict" data-verdict={report?.verdict ?? ''}>
          {running ? 'Testing…' : report ? preflightVerdictLabel(report.verdict) : ''}
        </span>
      </div>
      {report && !running && (
        <ul class="preflight" data-testid="preflight-parts" title={`tested in ${(report.durationMs / 1000).toFixed(1)} s`}>
          {preflightRows(report).map((row) => (
            <li key={row.part} data-testid={`preflight-${row.part}`} data-status={row.status} class={row.status}>
              <strong>{row.title}</strong> {preflightStatusLabel(row.status)} <span class="figures">{row.figures}</span>
              {row.advice && <p class="hint">{row.advice}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
