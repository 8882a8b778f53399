// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { microphoneError } from '../../../../../lib/core/microphone-error.js';
import { createMediaControls, type MediaControlsOptions } from '../../../../../lib/platform/web/media/media-controls.js';
import { FakeClock } from '../../../../../lib/testing/fake-clock.js';
import { rejection } from '../../../../support/rejection.js';

/**
 * The page's media controls against a fake peer connection whose audio sender has a DTMF sender that plays
 * tones as Chromium's does (tonechange with the digit, then with '' when the buffer is empty).
 */

class FakeDtmfSender extends EventTarget {
  readonly inserted: Array<{ tones: string; duration: number; gap: number }> = [];
  constructor(public canInsertDTMF: boolean) {
    super();
  }
  insertDTMF(tones: string, duration: number, gap: number): void {
    this.inserted.push({ tones, duration, gap });
    queueMicrotask(() => {
      this.dispatchEvent(Object.assign(new Event('tonechange'), { tone: tones }));
      queueMicrotask(() => this.dispatchEvent(Object.assign(new Event('tonechange'), { tone: '' })));
    });
  }
}

const SDP_WITH_EVENTS = 'v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0 101\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:101 telephone-event/8000\r\n';

/** A peer connection as far as the controls look at it: senders, state, descriptions and its state event. */
class FakePeerConnection extends EventTarget {
  connectionState: RTCPeerConnectionState = 'connected';
  currentRemoteDescription: { sdp: string } | null = null;
  currentLocalDescription: { sdp: string } | null = null;
  constructor(private readonly senders: unknown[]) {
    super();
  }
  getSenders() {
    return this.senders;
  }
  /** ICE and DTLS come up: Chromium's DTMF sender can send from now on. */
  connect(dtmf: FakeDtmfSender) {
    this.connectionState = 'connected';
    dtmf.canInsertDTMF = true;
    this.dispatchEvent(new Event('connectionstatechange'));
  }
}

function world(options: { rfc4733?: boolean; infoFails?: boolean; playFails?: boolean } = {}) {
  const clock = new FakeClock();
  const track = { kind: 'audio', enabled: true };
  const dtmf = new FakeDtmfSender(options.rfc4733 ?? true);
  const fakePc = new FakePeerConnection([{ track, dtmf }]);
  const pc = fakePc as unknown as RTCPeerConnection;
  const infos: Array<[string, string]> = [];
  const audioStates: string[] = [];
  const sinks: string[] = [];
  let plays = 0;
  const remoteAudio = {
    srcObject: null as unknown,
    play: () => (++plays === 1 && options.playFails ? Promise.reject(new DOMException('no gesture', 'NotAllowedError')) : Promise.resolve()),
    setSinkId: (id: string) => {
      sinks.push(id);
      return Promise.resolve();
    },
  } as unknown as HTMLAudioElement;
  let current: RTCPeerConnection | undefined = pc;
  const controlOptions: MediaControlsOptions = {
    peerConnection: () => current,
    sendInfo: (type, content) => {
      infos.push([type, content]);
      return options.infoFails ? Promise.reject(new Error('408 Request Timeout')) : Promise.resolve();
    },
    remoteAudio,
    speakerId: 'speaker-2',
    onAudio: (state) => audioStates.push(state),
    clock,
  };
  const controls = createMediaControls(controlOptions);
  return { controls, clock, fakePc, track, dtmf, infos, audioStates, sinks, remoteAudio, endCall: () => (current = undefined) };
}

describe('media controls', () => {
  it('sends a digit by RFC 4733 when telephone-event was negotiated, one after the other', async () => {
    const { controls, dtmf, infos } = world();
    await expect(Promise.all([controls.sendDtmf('1'), controls.sendDtmf('#')])).resolves.toEqual(['rfc4733', 'rfc4733']);
    expect(dtmf.inserted.map((i) => i.tones)).toEqual(['1', '#']);
    expect(dtmf.inserted[0]).toMatchObject({ duration: 120, gap: 70 });
    expect(infos).toEqual([]);
  });

  it('falls back to SIP INFO dtmf-relay when RFC 4733 is not negotiated', async () => {
    const { controls, dtmf, infos } = world({ rfc4733: false });
    await expect(controls.sendDtmf('5')).resolves.toBe('sip-info');
    expect(infos).toEqual([['application/dtmf-relay', 'Signal=5\r\nDuration=120']]);
    expect(dtmf.inserted).toEqual([]);
  });

  it('reports an INFO without a 2xx as dtmf_outcome_unknown and does not send it again', async () => {
    const { controls, infos } = world({ rfc4733: false, infoFails: true });
    expect((await rejection(controls.sendDtmf('9'))).code).toBe('dtmf_outcome_unknown');
    expect(infos).toHaveLength(1);
    // The queue goes on with the next digit.
    expect((await rejection(controls.sendDtmf('8'))).code).toBe('dtmf_outcome_unknown');
    expect(infos.map(([, content]) => content.split('\r\n')[0])).toEqual(['Signal=9', 'Signal=8']);
  });

  it('waits for the media transport when telephone-event was agreed, instead of falling back to INFO early', async () => {
    const { controls, fakePc, dtmf, infos, clock } = world({ rfc4733: false });
    fakePc.connectionState = 'connecting';
    fakePc.currentRemoteDescription = { sdp: SDP_WITH_EVENTS };
    fakePc.currentLocalDescription = { sdp: SDP_WITH_EVENTS };
    const sent = controls.sendDtmf('4');
    await clock.advance(500);
    // Connected, and a little later the DTMF sender is ready (Chromium fires no event for that).
    fakePc.connect(dtmf);
    await clock.advance(50);
    await expect(sent).resolves.toBe('rfc4733');
    expect(infos).toEqual([]);
  });

  it('sends by INFO when the transport never comes up within its wait', async () => {
    const { controls, fakePc, clock, infos } = world({ rfc4733: false });
    fakePc.connectionState = 'connecting';
    fakePc.currentRemoteDescription = { sdp: SDP_WITH_EVENTS };
    fakePc.currentLocalDescription = { sdp: SDP_WITH_EVENTS };
    const sent = controls.sendDtmf('4');
    await clock.advance(3000);
    await expect(sent).resolves.toBe('sip-info');
    expect(infos).toHaveLength(1);
  });

  it("never plays a tone into a path that is not up, though the sender says it can insert (Firefox's does): INFO after the wait", async () => {
    const { controls, fakePc, dtmf, clock, infos } = world({ rfc4733: true });
    fakePc.connectionState = 'connecting';
    fakePc.currentRemoteDescription = { sdp: SDP_WITH_EVENTS };
    fakePc.currentLocalDescription = { sdp: SDP_WITH_EVENTS };
    const sent = controls.sendDtmf('5');
    await clock.advance(3000);
    await expect(sent).resolves.toBe('sip-info');
    expect(dtmf.inserted).toEqual([]);
    expect(infos).toEqual([['application/dtmf-relay', 'Signal=5\r\nDuration=120']]);
  });

  it('refuses DTMF without a live call', async () => {
    const { controls, endCall } = world();
    endCall();
    expect((await rejection(controls.sendDtmf('1'))).code).toBe('no_active_call');
  });

  it('mutes by disabling the outgoing track, and applies the wish to a call that starts later', () => {
    const { controls, track } = world();
    controls.setMuted(true);
    expect(track.enabled).toBe(false);
    track.enabled = true; // a new call's track
    controls.applyMute();
    expect(track.enabled).toBe(false);
    controls.setMuted(false);
    expect(track.enabled).toBe(true);
  });

  it('plays on the chosen speaker, reports a blocked play, and resumes it', async () => {
    const { controls, audioStates, sinks, remoteAudio } = world({ playFails: true });
    const stream = {} as MediaStream;
    await controls.play(stream);
    expect(remoteAudio.srcObject).toBe(stream);
    expect(sinks).toEqual(['speaker-2']);
    expect(audioStates).toEqual(['blocked']);
    await controls.resumeAudio();
    expect(audioStates).toEqual(['blocked', 'playing']);
  });
});

describe('microphoneError', () => {
  it('tells a refused permission from a missing or busy microphone (spec 4.9)', () => {
    const named = (name: string) => new DOMException('getUserMedia failed', name);
    expect(microphoneError(named('NotAllowedError')).code).toBe('microphone_permission_denied');
    expect(microphoneError(named('SecurityError')).code).toBe('microphone_permission_denied');
    expect(microphoneError(named('NotFoundError')).code).toBe('microphone_unavailable');
    expect(microphoneError(named('OverconstrainedError')).code).toBe('microphone_unavailable');
    expect(microphoneError(new Error('SDP negotiation failed')).code).toBe('connection_failed');
  });

  it('tells a microphone held by another application or tab apart, as Chromium (NotReadableError) and Firefox (AbortError) report it', () => {
    for (const name of ['NotReadableError', 'AbortError']) {
      const error = microphoneError(new DOMException('Could not start audio source', name));
      expect(error.code, name).toBe('microphone_in_use');
      expect(error.message).toMatch(/another application or tab; close it/);
    }
  });
});
