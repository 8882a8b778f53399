import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { DemoUser } from '../api.js';
import { canConnect } from 'voice-browser';
import { isCleanupOnly } from '../connection-labels.js';
import type { ErrorArea } from '../labels.js';
import { PREFLIGHT_CALL } from '../models/voice-actions.js';
import { usePhone, type PhoneModel } from '../models/use-phone.js';
import { useWideScreen } from '../models/use-wide-screen.js';
import { CallCard } from './call-card.js';
import { ConnectionControls } from './connection-controls.js';
import { DevicePickers } from './device-pickers.js';
import { ErrorNotice } from './error-notice.js';
import { EventLog } from './event-log.js';
import { OfferCard } from './offer-card.js';
import { QueuePanel } from './queue-panel.js';
import { SetupTest } from './setup-test.js';
import { StateDiagrams } from './state-diagram.js';
import { StatusPanel } from './status-panel.js';
import { SupervisorPanel } from './supervisor-panel.js';
import { monitoredFrom } from '../supervision-labels.js';

/** Props of {@link Phone}. */
export interface PhoneProps {
  user: DemoUser;
  onLogout(): void;
}

/** The error notice shown in `area`, when the one error belongs there. */
type Notice = (area: ErrorArea) => ComponentChildren;

/** The ringing card while an offered caller rings, else the call card. */
function PhoneCard({ phone, notice }: { phone: PhoneModel; notice: Notice }) {
  const { voice, queues, callSeconds, supervision } = phone;
  const { status } = voice;
  if (status.offer) {
    return (
      <OfferCard
        offer={status.offer}
        queueName={status.offer.queueId ? queues.nameOf(status.offer.queueId) : null}
        error={notice('call')}
        onAccept={voice.accept}
        onDecline={voice.decline}
      />
    );
  }
  return (
    <CallCard
      status={status}
      callSeconds={callSeconds}
      recoveredFrom={voice.recoveredFrom}
      digitsSent={voice.digitsSent}
      queueName={queues.nameOf}
      error={notice('call')}
      onCall={voice.call}
      onHangUp={voice.hangup}
      onToggleMute={voice.toggleMute}
      onDigit={voice.sendDigit}
      onToggleRecording={voice.toggleRecording}
      monitored={monitoredFrom(status, supervision.rows)}
    />
  );
}

/** A supervisor's panel and the support queues, while the session is more than its cleanup. */
function DeskPanels({ phone, notice }: { phone: PhoneModel; notice: Notice }) {
  const { voice, queues, supervision, callers } = phone;
  const { status } = voice;
  if (isCleanupOnly(status)) return null;
  return (
    <>
      {supervision.supervisor && (
        <SupervisorPanel
          status={status}
          rows={supervision.rows}
          listError={supervision.error}
          now={supervision.now}
          recordings={supervision.recordings}
          onListen={voice.listen}
          onRecordings={supervision.loadRecordings}
        />
      )}
      <QueuePanel
        status={status}
        rows={queues.rows}
        listError={queues.error}
        error={notice('queue')}
        onAnswerNext={voice.answerNext}
        onAvailability={voice.setAvailability}
        callers={callers.available ? { note: callers.note, onSend: callers.send } : null}
      />
    </>
  );
}

/** The setup test, while it can run or has a report, and the device pickers, while the session is more than its cleanup. */
function SetupPanels({ phone }: { phone: PhoneModel }) {
  const { voice, devices } = phone;
  const { status } = voice;
  return (
    <>
      {(canConnect(status) || voice.preflight.report) && (
        <SetupTest
          enabled={canConnect(status) && !voice.recovering}
          running={voice.preflight.running}
          report={voice.preflight.report}
          number={PREFLIGHT_CALL.to}
          onTest={voice.testSetup}
        />
      )}
      {!isCleanupOnly(status) && (
        <DevicePickers
          microphones={devices.microphones}
          speakers={devices.speakers}
          canChooseSpeaker={devices.canChooseSpeaker}
          microphoneId={devices.microphoneId}
          speakerId={devices.speakerId}
          pending={voice.devicesPending}
          onMicrophone={devices.setMicrophone}
          onSpeaker={devices.setSpeaker}
        />
      )}
    </>
  );
}

/**
 * The phone and its diagnostics: on a wide screen side by side, on a phone one after the other. The call card
 * comes first (the ringing card in its place while an offered caller rings), the support queues right after it;
 * the one error shows beside what caused it.
 */
export function Phone({ user, onLogout }: PhoneProps) {
  const audioHost = useRef<HTMLDivElement>(null);
  const phone = usePhone(user.supervisor === true);
  const { voice } = phone;
  const { status, audio, error } = voice;
  const wide = useWideScreen();

  useEffect(() => {
    audioHost.current?.append(audio);
    return () => audio.remove();
  }, [audio]);

  const notice: Notice = (area) => (error?.area === area ? <ErrorNotice shown={error} onResumeAudio={voice.resumeAudio} /> : null);

  return (
    <div class="layout">
      <div class="phone-column">
        <PhoneCard phone={phone} notice={notice} />
        <DeskPanels phone={phone} notice={notice} />
        <ConnectionControls
          userName={user.name}
          status={status}
          recovering={voice.recovering}
          error={notice('connection')}
          onConnect={voice.connect}
          onDisconnect={voice.disconnect}
          onRenew={voice.renew}
          onLogout={onLogout}
        />
        <SetupPanels phone={phone} />
      </div>
      <div class="diagnostics-column">
        <StatusPanel status={status} />
        <StateDiagrams status={status} paths={voice.paths} shape={wide ? 'ring' : 'column'} />
        <EventLog timings={voice.timings} />
      </div>
      <div ref={audioHost} />
    </div>
  );
}
