import { useEffect, useRef } from 'preact/hooks';
import type { DemoUser } from '../api.js';
import { announcementLabel, isCleanupOnly } from '../labels.js';
import type { DevicesModel } from '../models/use-devices.js';
import { usePhone } from '../models/use-phone.js';
import type { VoiceModel } from '../models/use-voice.js';
import { CallControls } from './call-controls.js';
import { ConnectionControls } from './connection-controls.js';
import { DevicePickers } from './device-pickers.js';
import { Dialer } from './dialer.js';
import { ErrorNotice } from './error-notice.js';
import { EventLog } from './event-log.js';
import { StateDiagrams } from './state-diagram.js';
import { StatusPanel } from './status-panel.js';

/** Props of {@link Phone}. */
export interface PhoneProps {
  user: DemoUser;
  onLogout(): void;
}

/** The panels of a call this page can use: mute and keypad, and the device pickers. */
function InCallPanels({ voice, devices }: { voice: VoiceModel; devices: DevicesModel }) {
  return (
    <>
      <CallControls status={voice.status} digitsSent={voice.digitsSent} onToggleMute={voice.toggleMute} onDigit={voice.sendDigit} />
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
  );
}

/** The phone: connection, dialer, call controls, devices, errors and the live status. */
export function Phone({ user, onLogout }: PhoneProps) {
  const audioHost = useRef<HTMLDivElement>(null);
  const { devices, voice, callSeconds } = usePhone();
  const { status, audio } = voice;

  useEffect(() => {
    audioHost.current?.append(audio);
    return () => audio.remove();
  }, [audio]);

  return (
    <>
      {/* State changes, announced by screen readers as they happen. */}
      <p class="visually-hidden" role="status" aria-live="polite" data-testid="announcement">
        {announcementLabel(status)}
      </p>
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
      <Dialer status={status} recoveredFrom={voice.recoveredFrom} onCall={voice.call} onHangUp={voice.hangup} />
      {!isCleanupOnly(status) && <InCallPanels voice={voice} devices={devices} />}
      <StatusPanel status={status} callSeconds={callSeconds} />
      <StateDiagrams status={status} paths={voice.paths} />
      <EventLog timings={voice.timings} />
      <div ref={audioHost} />
    </>
  );
}
