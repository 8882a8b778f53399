// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepAgreedCodecs } from '../../../../../lib/platform/web/media/agreed-codecs.js';
import { AudioSessionHandler } from '../../../../../lib/platform/web/media/audio-session-handler.js';
import { FakeClock } from '../../../../../lib/testing/fake-clock.js';

/**
 * An ICE restart's re-offer keeps to the codecs the call agreed (lib/platform/web/media/agreed-codecs.ts), as a gateway that does
 * not transcode needs: Chromium's re-offer lists all its audio codecs, the call's answer PCMU and telephone-event.
 */

const sdp = (...lines: string[]) => `${lines.join('\r\n')}\r\n`;

/** What the service offered in its INVITE, as a media gateway in front of plain RTP writes it. */
const SERVICE_OFFER = sdp(
  'v=0',
  'o=- 1700000000 1700000000 IN IP4 127.0.0.1',
  's=-',
  'c=IN IP4 127.0.0.1',
  't=0 0',
  'm=audio 30000 UDP/TLS/RTP/SAVPF 0 8 101',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:101 telephone-event/8000',
  'a=fmtp:101 0-16',
  'a=sendrecv',
  'a=rtcp-mux',
  'a=setup:actpass',
  'a=fingerprint:sha-256 6B:8B:5D:EA:59:04:20:23:29:C8:87:1C:CC:87:32:BE:DD:8C:66:A5:8E:50:55:EA:8C:D3:B6:5C:09:5E:D6:BC',
  'a=ice-ufrag:gw01',
  'a=ice-pwd:gatewaygatewaygatewaygate',
  'a=candidate:1 1 UDP 2130706431 127.0.0.1 30000 typ host',
);

/** The page's answer to it (Chromium): the call agreed PCMU and telephone-event/8000. */
const CALL_ANSWER = sdp(
  'v=0',
  'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=msid-semantic: WMS',
  'm=audio 9 UDP/TLS/RTP/SAVPF 0 101',
  'c=IN IP4 0.0.0.0',
  'a=rtcp:9 IN IP4 0.0.0.0',
  'a=ice-ufrag:pA7w',
  'a=ice-pwd:0fYhZ2hC4WgxqQ0m0s1O7R9c',
  'a=fingerprint:sha-256 1F:9C:2A:77:03:B4:48:D6:0A:6E:8B:F0:5C:3D:11:E9:7A:92:C4:08:5B:36:DE:21:70:AF:13:6C:88:E5:40:2B',
  'a=setup:active',
  'a=mid:0',
  'a=sendrecv',
  'a=msid:- 3b0e5d1c-6c2f-4c55-9a3e-2b7f5e8d9a10',
  'a=rtcp-mux',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:101 telephone-event/8000',
  'a=ssrc:1193046017 cname:q8dAhNFJ0bNwKlLx',
);

/** Chromium's offer for an ICE restart in that call: new credentials, and every audio codec it has. */
const CHROMIUM_RESTART_OFFER = sdp(
  'v=0',
  'o=- 4611731400430051336 3 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0',
  'a=extmap-allow-mixed',
  'a=msid-semantic: WMS',
  'm=audio 51424 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126',
  'c=IN IP4 127.0.0.1',
  'a=rtcp:9 IN IP4 0.0.0.0',
  'a=candidate:2917304826 1 udp 2122260223 127.0.0.1 51424 typ host generation 0 network-id 1',
  'a=ice-ufrag:Zx4q',
  'a=ice-pwd:Ue1yXb0vJq9m3YkH2cT8rW6s',
  'a=ice-options:trickle',
  'a=fingerprint:sha-256 1F:9C:2A:77:03:B4:48:D6:0A:6E:8B:F0:5C:3D:11:E9:7A:92:C4:08:5B:36:DE:21:70:AF:13:6C:88:E5:40:2B',
  'a=setup:actpass',
  'a=mid:0',
  'a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level',
  'a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time',
  'a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01',
  'a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid',
  'a=sendrecv',
  'a=msid:- 3b0e5d1c-6c2f-4c55-9a3e-2b7f5e8d9a10',
  'a=rtcp-mux',
  'a=rtcp-rsize',
  'a=rtpmap:111 opus/48000/2',
  'a=rtcp-fb:111 transport-cc',
  'a=fmtp:111 minptime=10;useinbandfec=1',
  'a=rtpmap:63 red/48000/2',
  'a=fmtp:63 111/111',
  'a=rtpmap:9 G722/8000',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:13 CN/8000',
  'a=rtpmap:110 telephone-event/48000',
  'a=rtpmap:126 telephone-event/8000',
  'a=ssrc:1193046017 cname:q8dAhNFJ0bNwKlLx',
  'a=ssrc:1193046017 msid:- 3b0e5d1c-6c2f-4c55-9a3e-2b7f5e8d9a10',
);

const audioLine = (text: string) => /^m=audio .*$/m.exec(text)?.[0].trimEnd();
const formatLines = (text: string) => text.split('\r\n').filter((line) => /^a=(rtpmap|fmtp|rtcp-fb):/.test(line));

describe('keepAgreedCodecs', () => {
  it("keeps Chromium's re-offer to PCMU and telephone-event/8000, matched by name whatever their numbers", () => {
    const offer = keepAgreedCodecs(CHROMIUM_RESTART_OFFER, CALL_ANSWER);
    expect(audioLine(offer)).toBe('m=audio 51424 UDP/TLS/RTP/SAVPF 0 126');
    expect(formatLines(offer)).toEqual(['a=rtpmap:0 PCMU/8000', 'a=rtpmap:126 telephone-event/8000']);
  });

  it('changes nothing else: the new ICE credentials, candidates, fingerprint, extensions and ssrc stay as the browser wrote them', () => {
    const offer = keepAgreedCodecs(CHROMIUM_RESTART_OFFER, CALL_ANSWER);
    const other = (text: string) => text.split('\r\n').filter((line) => !line.startsWith('m=audio') && !/^a=(rtpmap|fmtp|rtcp-fb):\d/.test(line));
    expect(other(offer)).toEqual(other(CHROMIUM_RESTART_OFFER));
    expect(offer.endsWith('a=ssrc:1193046017 msid:- 3b0e5d1c-6c2f-4c55-9a3e-2b7f5e8d9a10\r\n')).toBe(true);
  });

  it('takes a static payload type the answer names without an rtpmap (RFC 3551) for the codec it stands for', () => {
    const bare = CALL_ANSWER.replace('a=rtpmap:0 PCMU/8000\r\n', '');
    expect(audioLine(keepAgreedCodecs(CHROMIUM_RESTART_OFFER, bare))).toBe('m=audio 51424 UDP/TLS/RTP/SAVPF 0 126');
  });

  it('follows a call that agreed opus, and leaves an offer alone when nothing it lists was agreed', () => {
    const opus = sdp('v=0', 'm=audio 9 UDP/TLS/RTP/SAVPF 96', 'a=rtpmap:96 OPUS/48000/2', 'a=fmtp:96 useinbandfec=1');
    const offer = keepAgreedCodecs(CHROMIUM_RESTART_OFFER, opus);
    expect(audioLine(offer)).toBe('m=audio 51424 UDP/TLS/RTP/SAVPF 111');
    expect(formatLines(offer)).toEqual(['a=rtpmap:111 opus/48000/2', 'a=rtcp-fb:111 transport-cc', 'a=fmtp:111 minptime=10;useinbandfec=1']);
    expect(keepAgreedCodecs(CHROMIUM_RESTART_OFFER, sdp('v=0', 'm=audio 9 RTP/AVP 18', 'a=rtpmap:18 G729/8000'))).toBe(CHROMIUM_RESTART_OFFER);
    // Firefox's re-offer asks Opus in stereo: the call's stays mono, its in-band FEC on.
    const firefox = sdp('v=0', 'm=audio 9 UDP/TLS/RTP/SAVPF 109 0', 'a=rtpmap:109 opus/48000/2', 'a=fmtp:109 maxplaybackrate=48000;stereo=1;useinbandfec=1', 'a=rtpmap:0 PCMU/8000');
    expect(formatLines(keepAgreedCodecs(firefox, opus))).toEqual(['a=rtpmap:109 opus/48000/2', 'a=fmtp:109 maxplaybackrate=48000;stereo=0;useinbandfec=1']);
    expect(keepAgreedCodecs(CHROMIUM_RESTART_OFFER, '')).toBe(CHROMIUM_RESTART_OFFER);
  });
});

/**
 * A peer connection as the handler drives it, with the descriptions above: Chromium's answer to the INVITE and
 * its full offer for a restart; `icecandidate` null ends each gathering.
 */
class FakePeerConnection extends EventTarget {
  signalingState: RTCSignalingState = 'stable';
  iceGatheringState: RTCIceGatheringState = 'complete';
  localDescription: RTCSessionDescriptionInit | null = null;
  currentLocalDescription: RTCSessionDescriptionInit | null = null;
  currentRemoteDescription: RTCSessionDescriptionInit | null = null;
  /** False: no end of candidates comes, as when a TURN server does not answer. */
  endsGathering = true;
  private pendingRemote: RTCSessionDescriptionInit | null = null;
  addTrack(): void {}
  getTransceivers(): RTCRtpTransceiver[] {
    return [];
  }
  close(): void {}
  createAnswer(): Promise<RTCSessionDescriptionInit> {
    return Promise.resolve({ type: 'answer', sdp: CALL_ANSWER });
  }
  createOffer(): Promise<RTCSessionDescriptionInit> {
    return Promise.resolve({ type: 'offer', sdp: CHROMIUM_RESTART_OFFER });
  }
  setLocalDescription(description: RTCSessionDescriptionInit): Promise<void> {
    this.localDescription = description;
    if (description.type === 'answer') this.settle(description, this.pendingRemote);
    else this.signalingState = 'have-local-offer';
    if (this.endsGathering) setTimeout(() => this.dispatchEvent(Object.assign(new Event('icecandidate'), { candidate: null })));
    return Promise.resolve();
  }
  setRemoteDescription(description: RTCSessionDescriptionInit): Promise<void> {
    if (description.type === 'answer') this.settle(this.localDescription, description);
    else [this.pendingRemote, this.signalingState] = [description, 'have-remote-offer'];
    return Promise.resolve();
  }
  private settle(local: RTCSessionDescriptionInit | null, remote: RTCSessionDescriptionInit | null): void {
    [this.currentLocalDescription, this.currentRemoteDescription, this.signalingState] = [local, remote, 'stable'];
  }
}

afterEach(() => void vi.unstubAllGlobals());

describe('an ICE restart in a call', () => {
  it('sends a re-offer with only the agreed codecs, while the browser keeps the offer it made', async () => {
    const track = { kind: 'audio', addEventListener: () => undefined };
    vi.stubGlobal('RTCPeerConnection', FakePeerConnection);
    vi.stubGlobal('navigator', { mediaDevices: { getUserMedia: () => Promise.resolve({ getTracks: () => [track] }) } });
    const clock = new FakeClock();
    const handler = new AudioSessionHandler({ iceServers: [], iceGatheringTimeoutMs: 1000, clock });
    await handler.setDescription(SERVICE_OFFER);
    const answer = await handler.getDescription({ constraints: { audio: true } });
    expect(answer).toBe(CALL_ANSWER);

    const reOffer = await handler.getDescription({ offerOptions: { iceRestart: true } });
    expect(audioLine(reOffer)).toBe('m=audio 51424 UDP/TLS/RTP/SAVPF 0 126');
    expect(reOffer).toContain('a=ice-ufrag:Zx4q');
    expect(handler.peerConnection.localDescription?.sdp).toBe(CHROMIUM_RESTART_OFFER);

    // The far end answers from what it was sent; the browser takes that answer to its own offer. A second restart
    // keeps to the same codecs, now read from that answer.
    await handler.setDescription(CALL_ANSWER.replace('a=setup:active', 'a=setup:passive'));
    expect(handler.peerConnection.signalingState).toBe('stable');
    expect(audioLine(await handler.getDescription({ offerOptions: { iceRestart: true } }))).toBe('m=audio 51424 UDP/TLS/RTP/SAVPF 0 126');
    // Each gathering ended by itself, and took its timer with it.
    expect(clock.pendingTimers).toBe(0);
  });

  it('goes with the candidates found so far when the gathering has not ended by its timeout', async () => {
    const track = { kind: 'audio', addEventListener: () => undefined };
    vi.stubGlobal('RTCPeerConnection', FakePeerConnection);
    vi.stubGlobal('navigator', { mediaDevices: { getUserMedia: () => Promise.resolve({ getTracks: () => [track] }) } });
    const clock = new FakeClock();
    const handler = new AudioSessionHandler({ iceServers: [], iceGatheringTimeoutMs: 1000, clock });
    (handler.peerConnection as unknown as FakePeerConnection).endsGathering = false;
    await handler.setDescription(SERVICE_OFFER);
    await handler.getDescription({ constraints: { audio: true } });

    let sent: string | undefined;
    void handler.getDescription({ offerOptions: { iceRestart: true } }).then((body) => (sent = body));
    await clock.advance(999);
    expect(sent).toBeUndefined();
    await clock.advance(1);
    expect(audioLine(sent ?? '')).toBe('m=audio 51424 UDP/TLS/RTP/SAVPF 0 126');
  });
});
