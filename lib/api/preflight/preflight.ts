import { LOSS_WARN_PERCENT, RTT_WARN_MS, SILENT_LEVEL } from '../../core/call-warnings.js';
import { checkStart } from '../../core/call-input.js';
import type { Clock } from '../../core/clock.js';
import { microphoneError } from '../../core/microphone-error.js';
import type { Phone } from '../../runtime/tab-ports.js';
import type { PreflightCheck, PreflightReport } from '../../core/helper-types.js';
import type { CallInput, CallQuality, TimingEvent, VoiceBrowserStatus } from '../../core/types.js';

/**
 * `preflight()`: whether calls will work in this browser, on this network, before the first one. It opens the
 * microphone, then runs a helper of its own through a whole call (connect, a short call to the number the
 * integrator names, disconnect) and reads the figures off its milestones and first quality sample, so what is
 * measured is exactly what a call does. Part of the SIP chunk: loaded with SIP.js, which its call needs.
 */

/** How long the checks may take together; the cleanup after them fits in the 10 s of the verdict. */
export const PREFLIGHT_BUDGET_MS = 8000;
/** Session and registration together slower than this make calls ring late. */
export const SLOW_SIGNALLING_MS = 1500;
/** Inbound jitter above which audio arrives unevenly enough to be heard. */
export const JITTER_WARN_MS = 30;

/** What preflight needs from the helper that runs it. */
export interface PreflightHost {
  /** A fresh helper of its own, over the page's backend and devices, telling its milestones and statuses here. */
  helper(report: { onTiming(event: TimingEvent): void; onStatus(status: VoiceBrowserStatus): void }): Phone;
  clock: Clock;
  microphoneId?: string;
  /** Opens the microphone (default: getUserMedia); a seam for tests. */
  openMicrophone?(constraints: MediaStreamConstraints): Promise<MediaStream>;
}

/** What to do about each thing a check can find, in words a page can show. */
const ADVICE: Readonly<Record<string, string>> = {
  microphone_permission_denied: "The browser blocked the microphone: allow it in this site's settings, then test again.",
  microphone_unavailable: 'No microphone could be opened: plug one in, or pick another, then test again.',
  microphone_in_use: 'Another application or tab is using the microphone: close it, then test again.',
  silent_microphone: 'The microphone sends silence: check it is not muted on the headset or in the system settings.',
  connection_failed: 'The voice service could not be reached: a firewall or proxy may block its WebSocket; try another network.',
  slow_signalling: 'The voice service answers slowly: calls will take longer to ring.',
  media_failed: 'The test call carried no audio: a firewall or VPN may block media (UDP); try another network.',
  high_packet_loss: 'The network loses audio: move closer to the Wi-Fi or use a cable, and pause large downloads.',
  high_rtt: 'The network answers slowly, so speech will lag: leave the VPN if you use one, or try another network.',
  high_jitter: 'Audio arrives unevenly: other traffic on this network competes with the call.',
  skipped: 'Not tested: the test call needs the microphone and the connection above.',
};

const OK: PreflightCheck = { status: 'ok', code: null, advice: null };
const finding = (status: 'warning' | 'failed', code: string, advice?: string): PreflightCheck => ({ status, code, advice: ADVICE[code] ?? advice ?? null });

/** Rejects with a timeout after `ms`, so a check that hangs ends in a verdict; its timer never outlives it. */
function within<T>(work: Promise<T>, ms: number, clock: Clock): Promise<T> {
  let timer: unknown;
  // The work may settle after the race is lost: its rejection is then nobody's, not an unhandled one.
  work.catch(() => undefined);
  const late = new Promise<never>((_, reject) => (timer = clock.setTimeout(() => reject(new Error('timed out')), Math.max(0, ms))));
  return Promise.race([work, late]).finally(() => clock.clearTimeout(timer));
}

/** Opens the microphone and lets it go at once: the test call opens it again and measures its level. */
async function checkMicrophone(host: PreflightHost): Promise<PreflightCheck> {
  const open = host.openMicrophone ?? ((constraints) => navigator.mediaDevices.getUserMedia(constraints));
  try {
    const stream = await open({ audio: host.microphoneId ? { deviceId: { exact: host.microphoneId } } : true });
    for (const track of stream.getTracks()) track.stop();
    return OK;
  } catch (cause) {
    // Every code microphoneError() gives has its advice in ADVICE, which the report shows instead of the message.
    return finding('failed', microphoneError(cause).code);
  }
}

/** The media's verdict from the test call's first quality sample. */
function judgeMedia(quality: CallQuality): PreflightCheck {
  if (quality.packetsReceived === 0) return finding('failed', 'media_failed');
  if ((quality.lossPercent ?? 0) > LOSS_WARN_PERCENT) return finding('warning', 'high_packet_loss');
  if ((quality.rttMs ?? 0) > RTT_WARN_MS) return finding('warning', 'high_rtt');
  if ((quality.jitterMs ?? 0) > JITTER_WARN_MS) return finding('warning', 'high_jitter');
  return OK;
}

/** The probe helper's first report of each milestone. */
type Told = Map<TimingEvent['name'], TimingEvent>;

/** The time from one milestone to another, null unless both were told. */
function since(told: Told, from: TimingEvent['name'], to: TimingEvent['name']): number | null {
  const [a, b] = [told.get(from), told.get(to)];
  return a && b ? b.at - a.at : null;
}

/** Signalling's verdict once the probe connected: slow when making its session and registering took too long. */
function judgeSignalling(told: Told): PreflightCheck {
  const took = since(told, 'session_created', 'registered') ?? 0;
  return (told.get('session_created')?.sinceStartMs ?? 0) + took > SLOW_SIGNALLING_MS ? finding('warning', 'slow_signalling') : OK;
}

/** The report of the three checks: the worst of them, with the figures read off the milestones and the sample. */
function reportOf(told: Told, microphone: PreflightReport['microphone'], signalling: PreflightCheck, media: PreflightCheck, quality: CallQuality | undefined, durationMs: number): PreflightReport {
  // A skipped check counts as ok (the check it depends on says what failed).
  const statuses = [microphone, signalling, media].map((check) => check.status);
  return {
    verdict: statuses.includes('failed') ? 'failed' : statuses.includes('warning') ? 'warning' : 'ok',
    microphone,
    signalling: {
      ...signalling,
      sessionMs: told.get('session_created')?.sinceStartMs ?? null,
      registrationMs: since(told, 'session_created', 'registered'),
    },
    media: {
      ...media,
      setupMs: since(told, 'invite_received', 'media_connected'),
      rttMs: quality?.rttMs ?? null,
      jitterMs: quality?.jitterMs ?? null,
      lossPercent: quality?.lossPercent ?? null,
      mos: quality?.mos ?? null,
    },
    durationMs,
  };
}

/**
 * Runs the checks and cleans up after them; resolves with the report. Rejects at once `invalid_argument` for
 * numbers that are not E.164, and only else when the cleanup could not be proven (`cleanup_unknown`:
 * `recover()` finds what is left). The checks share the probe helper and what it told.
 */
export async function runPreflight(call: CallInput, host: PreflightHost): Promise<PreflightReport> {
  const invalid = checkStart(call, 'preflight');
  if (invalid) throw invalid;
  const { clock } = host;
  const started = clock.now();
  const told: Told = new Map();
  let sampled: ((quality: CallQuality) => void) | undefined;
  let callEnded: ((status: VoiceBrowserStatus) => void) | undefined;
  const probe = host.helper({
    onTiming: (event) => {
      if (!told.has(event.name)) told.set(event.name, event);
      if (event.quality) sampled?.(event.quality);
    },
    onStatus: (status) => {
      if (status.call && !status.busy) callEnded?.(status);
    },
  });
  const left = () => PREFLIGHT_BUDGET_MS - (clock.now() - started);

  const microphone = { ...(await checkMicrophone(host)), level: null as number | null };
  let signalling: PreflightCheck;
  try {
    await within(probe.connect(), left(), clock);
    signalling = judgeSignalling(told);
  } catch (cause) {
    const error = cause as { code?: string; message?: string };
    signalling = finding('failed', error.code ?? 'connection_failed', error.message);
  }

  let media: PreflightCheck = { status: 'skipped', code: null, advice: ADVICE.skipped ?? null };
  let quality: CallQuality | undefined;
  if (microphone.status === 'ok' && signalling.status !== 'failed') {
    const sample = new Promise<CallQuality>((resolve, reject) => {
      sampled = resolve;
      callEnded = (status) => reject(status.call?.error ?? status.error ?? undefined);
    });
    try {
      await within(probe.startCall(call, { idempotencyKey: `preflight-${started}-${Math.random().toString(36).slice(2)}` }), left(), clock);
      quality = await within(sample, left(), clock);
      media = judgeMedia(quality);
      microphone.level = quality.microphoneLevel;
      if (quality.microphoneLevel !== null && quality.microphoneLevel < SILENT_LEVEL) Object.assign(microphone, finding('warning', 'silent_microphone'));
    } catch (cause) {
      const error = cause as { code?: string; message?: string } | undefined;
      // A refusal of the call says why; a call whose audio never came (in time, or at all) is the network's doing.
      media = finding('failed', error?.code && error.code !== 'connection_failed' ? error.code : 'media_failed', error?.message);
    }
  }

  await probe.disconnect().catch(() => probe.disconnect());
  return reportOf(told, microphone, signalling, media, quality, clock.now() - started);
}
