/**
 * `listAudioDevices()`: the microphones and speakers a page can offer for `audioDevices`, and whether this
 * browser can play a call on a chosen speaker at all. Touches the browser only when called.
 */

/** What {@link listAudioDevices} finds. */
export interface AudioDeviceList {
  /** The inputs the browser lists, for `audioDevices.microphoneId`. */
  microphones: MediaDeviceInfo[];
  /** The outputs the browser lists, for `audioDevices.speakerId`. */
  speakers: MediaDeviceInfo[];
  /**
   * Whether a speaker can be chosen: the browser can route an audio element's output (`setSinkId`) and lists at
   * least one output. False in Safari (no `setSinkId`) and in Firefox before the page has had the microphone
   * (it lists outputs only then): hide the speaker picker, the call plays on the system's output.
   */
  canChooseSpeaker: boolean;
  /**
   * The microphone permission (Permissions API): `granted`, `denied`, `prompt`, or `unknown` where the browser
   * cannot say. Until it is `granted`, browsers list devices without labels, and Firefox lists no outputs.
   */
  microphonePermission: PermissionState | 'unknown';
}

/**
 * Lists the audio devices and what can be chosen; call it again on `devicechange` and once a call has had the
 * microphone (the lists grow then).
 *
 * @remarks
 * Entries without a device id (a browser's placeholder before any permission) are left out. Never rejects: where
 * the browser lists nothing (no `mediaDevices` outside a secure context), the lists are empty.
 *
 * @example
 * ```ts
 * const { microphones, speakers, canChooseSpeaker } = await listAudioDevices();
 * speakerPicker.hidden = !canChooseSpeaker;
 * ```
 */
export async function listAudioDevices(): Promise<AudioDeviceList> {
  const devices = (await globalThis.navigator?.mediaDevices?.enumerateDevices().catch(() => undefined)) ?? [];
  const listed = (kind: MediaDeviceKind) => devices.filter((device) => device.kind === kind && device.deviceId);
  const speakers = listed('audiooutput');
  return {
    microphones: listed('audioinput'),
    speakers,
    canChooseSpeaker: speakers.length > 0 && !!globalThis.HTMLMediaElement?.prototype.setSinkId,
    microphonePermission: await microphonePermission(),
  };
}

/**
 * The microphone permission, or `unknown`: `navigator.permissions` is missing in some browsers, and older Firefox
 * and Safari reject the name `microphone` with a TypeError.
 */
async function microphonePermission(): Promise<PermissionState | 'unknown'> {
  try {
    return (await navigator.permissions.query({ name: 'microphone' })).state;
  } catch {
    return 'unknown';
  }
}
