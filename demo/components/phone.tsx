import { useEffect, useRef } from 'preact/hooks';
import type { DemoUser } from '../api.js';
import { BROWSER_CALL_STATES, CONNECTION_STATES } from '../../lib/index.js';
import { isCleanupOnly } from '../labels.js';
import { useCallTimer } from '../models/use-call-timer.js';
import { useDevices } from '../models/use-devices.js';
import { useVoice } from '../models/use-voice.js';
import { CallControls } from './call-controls.js';
import { ConnectionControls } from './connection-controls.js';
import { DevicePickers } from './device-pickers.js';
import { Dialer } from './dialer.js';
import { ErrorNotice } from './error-notice.js';
import { EventLog } from './event-log.js';
import { StateDiagram } from './state-diagram.js';
import { StatusPanel } from './status-panel.js';

export interface PhoneProps {
  user: DemoUser;
  onLogout(): void;
}

/** The phone: connection, dialer, call controls, devices, errors and the live status. */
export function Phone({ user, onLogout }: PhoneProps) {
  const audioHost = useRef<HTMLDivElement>(null);
  const devices = useDevices();
  const voice = useVoice({ microphoneId: devices.microphoneId, speakerId: devices.speakerId });
  const { status } = voice;
  const callSeconds = useCallTimer(status);
  const cleanupOnly = isCleanupOnly(status);

  // Device names appear once the page has used the microphone: list them again when a call's audio starts.
  const refreshDevices = devices.refresh;
  useEffect(() => {
    if (status.audio === 'playing') refreshDevices();
  }, [status.audio, refreshDevices]);

  const audio = voice.audio;
  useEffect(() => {
    audioHost.current?.append(audio);
    return () => audio.remove();
  }, [audio]);

  return (
    <>
      <ConnectionControls
        userName={user.name}
        status={status}
        recovering={voice.recovering}
        onConnect={voice.connect}
        onDisconnect={voice.disconnect}
        onRenew={voice.renew}
        onLogout={onLogout}
      />
      <ErrorNotice error={status.error} actionError={voice.actionError} onResumeAudio={voice.resumeAudio} />
      <Dialer status={status} onCall={voice.call} onHangUp={voice.hangup} />
      {!cleanupOnly && (
        <>
          <CallControls status={status} digitsSent={voice.digitsSent} onToggleMute={voice.toggleMute} onDigit={voice.sendDigit} />
          <DevicePickers
            microphones={devices.microphones}
            speakers={devices.speakers}
            microphoneId={devices.microphoneId}
            speakerId={devices.speakerId}
            pending={voice.devicesPending}
            onMicrophone={devices.setMicrophone}
            onSpeaker={devices.setSpeaker}
          />
        </>
      )}
      <StatusPanel status={status} callSeconds={callSeconds} />
      <section aria-label="State diagrams">
        <StateDiagram label="Connection states" states={CONNECTION_STATES} current={status.connection} path={voice.paths.connection} />
        <StateDiagram label="Call states" states={BROWSER_CALL_STATES} current={status.call?.state ?? null} path={voice.paths.call} />
      </section>
      <EventLog timings={voice.timings} />
      <div ref={audioHost} />
    </>
  );
}
