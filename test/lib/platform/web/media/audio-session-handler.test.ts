// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AudioSessionHandler } from '../../../../../lib/platform/web/media/audio-session-handler.js';
import { FakeClock } from '../../../../../lib/testing/fake-clock.js';
import { fakeWebRtc } from '../../../../support/fake-webrtc.js';

/**
 * The call's remote stream, which the page's audio element plays from the moment the call is up. Answering an
 * offerless INVITE (RFC 3264 section 5), the page offers in its 2xx and the answer comes only in the ACK, after
 * the element was given the stream: the stream must hold the receiver's track by then, as an element playing a
 * stream with no track never starts (Chromium).
 */

afterEach(() => void vi.unstubAllGlobals());

describe('the remote stream of a call', () => {
  it("holds the receiver's track once the page offers, before any answer", async () => {
    fakeWebRtc();
    const handler = new AudioSessionHandler({ iceServers: [], iceGatheringTimeoutMs: 1000, clock: new FakeClock() });
    expect(handler.remoteMediaStream.getTracks()).toHaveLength(0);
    const offer = await handler.getDescription({ constraints: { audio: true } });
    expect(offer).toMatch(/^m=audio /m);
    expect(handler.peerConnection.signalingState).toBe('have-local-offer');
    expect(handler.remoteMediaStream.getTracks()).toHaveLength(1);
    // A second offer in the call (an ICE restart) adds no second track.
    await handler.setDescription(offer.replace('a=setup:actpass', 'a=setup:active'));
    await handler.getDescription({ offerOptions: { iceRestart: true } });
    expect(handler.remoteMediaStream.getTracks()).toHaveLength(1);
  });
});
