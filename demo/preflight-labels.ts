import type { PreflightReport, PreflightStatus } from 'voice-browser';

/** The setup test's words (`preflight()`), as pure functions (tested directly in the demo's unit tests). */

/** The verdict of "Test my setup" in words. */
export function preflightVerdictLabel(verdict: PreflightReport['verdict']): string {
  if (verdict === 'ok') return 'Ready for calls';
  return verdict === 'warning' ? 'Calls will work, with a problem' : 'Calls will not work yet';
}

export function preflightStatusLabel(status: PreflightStatus): string {
  return { ok: 'OK', warning: 'Warning', failed: 'Failed', skipped: 'Not tested' }[status];
}

/** One line of the setup test: the part, how it did, its figures in words, and what to do. */
export interface PreflightRow {
  part: 'microphone' | 'signalling' | 'media';
  title: string;
  status: PreflightStatus;
  figures: string;
  advice: string | null;
}

/** A level (0 to 1, as `audioLevel`) in dBFS: "-24 dBFS". */
const dbfs = (level: number) => (level > 0 ? `${Math.round(20 * Math.log10(level))} dBFS` : 'silent');

/** The report as rows: "level -24 dBFS"; "session 12 ms, registration 20 ms"; "setup 90 ms, rtt 1 ms, jitter 0.4 ms, loss 0 %, MOS 4.4". */
export function preflightRows(report: PreflightReport): PreflightRow[] {
  const ms = (value: number | null) => (value === null ? '—' : `${value} ms`);
  const { microphone, signalling, media } = report;
  return [
    { part: 'microphone', title: 'Microphone', status: microphone.status, figures: microphone.level === null ? '—' : `level ${dbfs(microphone.level)}`, advice: microphone.advice },
    { part: 'signalling', title: 'Connection', status: signalling.status, figures: `session ${ms(signalling.sessionMs)}, registration ${ms(signalling.registrationMs)}`, advice: signalling.advice },
    {
      part: 'media',
      title: 'Call audio',
      status: media.status,
      figures: media.status === 'skipped' ? '—' : `setup ${ms(media.setupMs)}, rtt ${ms(media.rttMs)}, jitter ${ms(media.jitterMs)}, loss ${media.lossPercent ?? '—'} %, MOS ${media.mos ?? '—'}`,
      advice: media.advice,
    },
  ];
}
