import { randomInt } from 'node:crypto';
import type { BodyAndContentType, SessionDescriptionHandler, SessionDescriptionHandlerFactory, SessionDescriptionHandlerOptions } from 'sip.js';
import { RTCPeerConnection, RtpHeader, RtpPacket, type RTCRtpTransceiver } from 'werift';
import { encodeMulaw } from '../../../simulator/media/g711.js';
import { disableStun, loopbackPeerConfig, PCMU_PAYLOAD_TYPE, TELEPHONE_EVENT_PAYLOAD_TYPE } from '../../../simulator/media/loopback-webrtc.js';

/** 20 ms of a 400 Hz tone: exactly 8 periods, so repeating it stays phase-continuous. */
const VOICED_FRAME = encodeMulaw(Array.from({ length: 160 }, (_, i) => 6000 * Math.sin((2 * Math.PI * 400 * i) / 8000)));

/**
 * A SessionDescriptionHandler backed by werift, for SIP.js in Node: a real WebRTC answerer (ICE, DTLS, SRTP)
 * confined to 127.0.0.1 like the simulator's own peer, that sends DTMF as RFC 4733 telephone-events and, once
 * told to, a microphone's worth of PCMU (50 packets a second), counting what it receives.
 */
export class WeriftSessionDescriptionHandler implements SessionDescriptionHandler {
  readonly pc = new RTCPeerConnection(loopbackPeerConfig());
  /** RTP packets received from the far end (the simulator's tone, then its echo). */
  packetsReceived = 0;
  /** PCMU packets sent by {@link startAudio}. */
  packetsSent = 0;
  /** The payloads of the PCMU packets received, in arrival order, once {@link keepAudio} is set. */
  readonly payloads: Buffer[] = [];
  /** Keep what arrives in {@link payloads}, to look at the audio itself. */
  keepAudio = false;
  /**
   * Keep the ICE role across an ICE restart this handler offers, as Firefox does (the answerer of the INVITE stays
   * controlled), rather than take the controlling role as the restart's offerer, as werift and Chromium do.
   */
  keepIceRoleOnRestart = false;
  private transceiver: RTCRtpTransceiver | undefined;
  private audio: ReturnType<typeof setInterval> | undefined;
  // RFC 3550 section 5.1: random initial sequence number and timestamp.
  private sequence = randomInt(0x10000);
  private timestamp = randomInt(0x100000000);

  constructor() {
    // Before setDescription: werift fires onTrack inside setRemoteDescription.
    this.pc.onTrack.subscribe((track) =>
      track.onReceiveRtp.subscribe((rtp) => {
        this.packetsReceived++;
        if (this.keepAudio && rtp.header.payloadType === PCMU_PAYLOAD_TYPE) this.payloads.push(Buffer.from(rtp.payload));
      }),
    );
  }

  close(): void {
    this.stopAudio();
    void this.pc.close();
  }

  /** Sends a 400 Hz PCMU frame every 20 ms while media is connected, until {@link stopAudio} or close(). */
  startAudio(): void {
    let first = true;
    this.audio ??= setInterval(() => {
      const transceiver = this.transceiver;
      if (!transceiver || this.pc.connectionState !== 'connected') return;
      // RFC 3551 section 4.1: the first packet of a talkspurt carries the marker.
      const header = new RtpHeader({ payloadType: PCMU_PAYLOAD_TYPE, sequenceNumber: this.sequence, timestamp: this.timestamp, marker: first });
      first = false;
      this.sequence = (this.sequence + 1) & 0xffff;
      this.timestamp = (this.timestamp + VOICED_FRAME.length) >>> 0;
      this.packetsSent++;
      transceiver.sender.sendRtp(new RtpPacket(header, VOICED_FRAME)).catch(() => undefined);
    }, 20);
  }

  /** Stops sending audio, as a page whose microphone went away would. */
  stopAudio(): void {
    if (this.audio !== undefined) clearInterval(this.audio);
    this.audio = undefined;
  }

  /** The answer to the INVITE's offer; in an established call, a new offer (a re-INVITE, with an ICE restart if asked). */
  async getDescription(options?: SessionDescriptionHandlerOptions & { offerOptions?: { iceRestart?: boolean } }): Promise<BodyAndContentType> {
    const answering = this.pc.signalingState === 'have-remote-offer';
    if (!answering && !this.transceiver) {
      // The first offer of the call (an offerless INVITE, RFC 3261 section 13.2.1): the page's microphone goes in.
      this.transceiver = this.pc.addTransceiver('audio', { direction: 'sendrecv' });
    }
    const roles = this.pc.iceTransports.map((transport) => transport.connection.iceControlling);
    const description = answering ? await this.pc.createAnswer() : await this.pc.createOffer({ iceRestart: options?.offerOptions?.iceRestart });
    if (!answering) disableStun(this.pc);
    // Non-trickle: werift's setLocalDescription waits for gathering, so the description carries its candidates.
    await this.pc.setLocalDescription(description);
    if (!answering && options?.offerOptions?.iceRestart && this.keepIceRoleOnRestart) {
      this.pc.iceTransports.forEach((transport, i) => (transport.connection.iceControlling = roles[i] ?? transport.connection.iceControlling));
    }
    const sdp = this.pc.localDescription?.sdp;
    if (!sdp) throw new Error('werift produced no description');
    return { body: sdp, contentType: 'application/sdp' };
  }

  hasDescription(contentType: string): boolean {
    return contentType === 'application/sdp';
  }

  async setDescription(sdp: string): Promise<void> {
    if (this.pc.signalingState === 'have-local-offer') {
      await this.pc.setRemoteDescription({ type: 'answer', sdp });
      // werift runs no new checks after an ICE restart while its DTLS is up (the simulator's media peer says more).
      for (const transport of this.pc.iceTransports) if (transport.state === 'new') void transport.start().catch(() => undefined);
      return;
    }
    await this.pc.setRemoteDescription({ type: 'offer', sdp });
    disableStun(this.pc); // the transports exist now; gathering starts with setLocalDescription
    this.transceiver = this.pc.getTransceivers()[0];
    this.transceiver?.setDirection('sendrecv');
  }

  /**
   * Sends each tone as one RFC 4733 event: a start packet, then the end packet three times (section 2.5.1.4),
   * all with the event's own timestamp. False when media is not connected yet.
   */
  sendDtmf(tones: string): boolean {
    const transceiver = this.transceiver;
    if (!transceiver || this.pc.connectionState !== 'connected') return false;
    for (const tone of tones) {
      const event = '0123456789*#ABCD'.indexOf(tone.toUpperCase());
      if (event < 0) return false;
      const eventTimestamp = this.timestamp;
      this.timestamp = (this.timestamp + 1600) >>> 0;
      for (const [end, duration] of [[false, 160], [true, 800], [true, 800], [true, 800]] as const) {
        const header = new RtpHeader({
          payloadType: TELEPHONE_EVENT_PAYLOAD_TYPE,
          sequenceNumber: this.sequence,
          timestamp: eventTimestamp,
          ssrc: transceiver.sender.ssrc,
          marker: !end, // RFC 4733: the first packet of an event carries the marker
        });
        this.sequence = (this.sequence + 1) & 0xffff;
        // Straight to DTLS: werift's sender.sendRtp would rewrite the payload type to PCMU's.
        void transceiver.dtlsTransport.sendRtp(Buffer.from([event, (end ? 0x80 : 0) | 10, duration >> 8, duration & 0xff]), header);
      }
    }
    return true;
  }
}

export const weriftSdhFactory: SessionDescriptionHandlerFactory = () => new WeriftSessionDescriptionHandler();
