import type { Clock } from '../../../core/clock.js';

/**
 * Keeps a call's media path up. The path is down when it failed, when it is `disconnected`, or when no audio
 * came for {@link SILENT_DOWN_MS} while the far end sends: Chromium keeps a path whose every packet is lost
 * `connected` for some 10 s more, so the silence is what tells first. A path down for
 * {@link SILENT_DOWN_MS} (at once when it failed) gets an ICE restart by re-INVITE (RFC 8839 section
 * 4.4.1.1.1: the dialog and the call stay the same, never a redial). A restart that has not brought the audio
 * back within {@link RESTART_WAIT_MS} is followed by the next; after {@link MAX_RESTARTS} the path is given up.
 * Pure over the injected clock and samples, so tests drive it with fakes; the SIP session wires it to SIP.js.
 */

/** How often the path is looked at (and at once on each change of the connection's state). */
export const SAMPLE_MS = 500;
/** How long the path may be down (it may come back by itself) before ICE is restarted. */
export const SILENT_DOWN_MS = 2000;
/** How long one restart may take to bring the audio back before the next is tried. */
export const RESTART_WAIT_MS = 5000;
/** Restarts in a row that may fail before the path is given up. */
export const MAX_RESTARTS = 3;

/** One look at the path. */
export interface PathSample {
  /** The peer connection's `connectionState` (ICE and DTLS together). */
  state: RTCPeerConnectionState;
  /** Audio packets received since the call began. */
  received: number;
  /** The far end sends audio (its direction is `sendrecv` or `sendonly`): silence from it means a lost path. */
  farEndSends: boolean;
  /** The far end holds the call (RFC 3264 section 8.4): what flows or not then says nothing of the path. */
  held?: boolean;
}

/** What the watch needs from the call. */
export interface MediaPathOptions {
  /** Looks at the path; rejects once the connection is closed. */
  sample(): Promise<PathSample>;
  /** Subscribes to the connection's state changes, so a change is looked at at once; returns the unsubscribe. */
  onStateChange(listener: () => void): () => void;
  clock: Clock;
  /** Sends a re-INVITE that restarts ICE; resolves once answered 2xx, rejects when refused or unsent. */
  restartIce(): Promise<void>;
  /**
   * The audio flows: the path is connected and audio arrived over it (or the far end sends none), first or again
   * after a restart. A path connected that carries nothing is not told: ICE and DTLS up prove no audio.
   */
  onConnected(): void;
  /** The path is down and a restart is under way (told once until the audio flows again or is given up). */
  onReconnecting(): void;
  /** Every restart failed: no audio will flow on this call. Told once; the watch stops. */
  onFailed(): void;
}

/**
 * What one look at the path decides, as a pure function of the sample and of what the watch knows: `held`
 * (its silence is timed afresh), `up` (audio flows, or it is first connected), `restart`, or nothing.
 */
function verdict(sample: PathSample, flows: boolean, wasUp: boolean, deadline: number | undefined, lastUp: number, now: number): 'held' | 'up' | 'restart' | undefined {
  // On hold nothing is restarted; once off hold the path's silence is timed afresh.
  if (sample.held) return 'held';
  // A first connection counts as up even before its audio: its silence from then on is what tells a lost path.
  if (sample.state === 'connected' && (flows || !wasUp)) return 'up';
  // A restart under way is followed by the next only once its time is up.
  if (deadline !== undefined) return now >= deadline ? 'restart' : undefined;
  return sample.state === 'failed' || (wasUp && now - lastUp >= SILENT_DOWN_MS) ? 'restart' : undefined;
}

/**
 * Looks at the path at once, every {@link SAMPLE_MS} and at each change of the connection's state, one look at a
 * time, and gives each sample to `judge`; stops once the connection is closed, or, told so by `judge`, tells
 * `onFailed`. Returns the stop function.
 */
function lookAtPath(options: MediaPathOptions, judge: (sample: PathSample) => boolean): () => void {
  const { clock } = options;
  let stopped = false;
  let timer: unknown;
  let looking = false;

  async function look(): Promise<void> {
    if (looking || stopped) return;
    looking = true;
    clock.clearTimeout(timer);
    try {
      const sample = await options.sample();
      if (!stopped && judge(sample)) {
        stop();
        options.onFailed();
      }
      if (sample.state === 'closed') stop();
    } catch {
      // The connection closed under us: the call's end stops the watch.
    }
    looking = false;
    if (!stopped) timer = clock.setTimeout(() => void look(), SAMPLE_MS);
  }

  const unsubscribe = options.onStateChange(() => void look());
  function stop(): void {
    stopped = true;
    clock.clearTimeout(timer);
    unsubscribe();
  }
  void look();
  return stop;
}

/** Starts watching; returns the stop function (the call ended). */
export function watchMediaPath(options: MediaPathOptions): () => void {
  const { clock } = options;
  /** The path was up once: until then only a failure counts as down (ICE is still being set up). */
  let wasUp = false;
  /** onConnected was told, and no restart since: the audio is known to flow. */
  let flowing = false;
  let received = 0;
  /** When audio (or, while the far end does not send, a connected state) was last seen. */
  let lastUp = clock.now();
  /** Restarts since the audio last flowed: while any, the path is reconnecting. */
  let restarts = 0;
  /** When the restart in progress may be followed by the next; undefined when none is in progress. */
  let restartDeadline: number | undefined;

  /** Restarts ICE; true once {@link MAX_RESTARTS} failed and the path is given up. */
  function restart(): boolean {
    if (restarts >= MAX_RESTARTS) return true;
    if (restarts++ === 0) {
      flowing = false;
      options.onReconnecting();
    }
    restartDeadline = clock.now() + RESTART_WAIT_MS;
    // A refused re-INVITE is one failed restart: the deadline brings the next.
    options.restartIce().catch(() => undefined);
    return false;
  }

  /** Takes one look's news; true once the path is given up. */
  function judge(sample: PathSample): boolean {
    const now = clock.now();
    const flows = sample.received > received || !sample.farEndSends;
    received = sample.received;
    const next = verdict(sample, flows, wasUp, restartDeadline, lastUp, now);
    if (next === 'restart') return restart();
    if (!next) return false;
    if (next === 'up' && flows && !flowing) {
      flowing = true;
      options.onConnected();
    }
    wasUp ||= next === 'up';
    lastUp = now;
    restarts = 0;
    restartDeadline = undefined;
    return false;
  }

  return lookAtPath(options, judge);
}
