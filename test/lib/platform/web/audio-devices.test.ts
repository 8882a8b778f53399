// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listAudioDevices } from '../../../../lib/platform/web/audio-devices.js';

/**
 * `listAudioDevices()` (lib/platform/web/audio-devices.ts) over the device lists and permission answers browsers give: Chromium
 * with the microphone allowed, Firefox before it (one placeholder input, no outputs), Safari (no setSinkId).
 */

const device = (kind: MediaDeviceKind, deviceId: string, label = ''): MediaDeviceInfo => ({ kind, deviceId, label, groupId: 'g1', toJSON: () => ({}) });

function browser(devices: MediaDeviceInfo[] | Error | undefined, permissions?: { query(descriptor: { name: string }): Promise<{ state: string }> }) {
  const enumerateDevices = () => (devices instanceof Error ? Promise.reject(devices) : Promise.resolve(devices ?? []));
  vi.stubGlobal('navigator', { ...(devices === undefined ? {} : { mediaDevices: { enumerateDevices } }), ...(permissions ? { permissions } : {}) });
}

const granting = (state: string) => ({ query: ({ name }: { name: string }) => (name === 'microphone' ? Promise.resolve({ state }) : Promise.reject(new TypeError(`'${name}' is not a valid PermissionName`))) });

afterEach(() => void vi.unstubAllGlobals());

describe('listAudioDevices()', () => {
  it('lists microphones and speakers, and a speaker can be chosen where the browser lists outputs and has setSinkId (Chromium)', async () => {
    browser([device('audioinput', 'default', 'Default'), device('audioinput', 'mic-2', 'Headset'), device('audiooutput', 'default', 'Default'), device('audiooutput', 'spk-2', 'Headset'), device('videoinput', 'cam-1')], granting('granted'));
    const found = await listAudioDevices();
    expect(found.microphones.map((d) => d.deviceId)).toEqual(['default', 'mic-2']);
    expect(found.speakers.map((d) => d.deviceId)).toEqual(['default', 'spk-2']);
    expect(found).toMatchObject({ canChooseSpeaker: true, microphonePermission: 'granted' });
  });

  it('says no speaker can be chosen in Firefox before the microphone was allowed: it lists no output, and a placeholder input', async () => {
    browser([device('audioinput', '')], granting('prompt'));
    expect(await listAudioDevices()).toEqual({ microphones: [], speakers: [], canChooseSpeaker: false, microphonePermission: 'prompt' });
  });

  it('says no speaker can be chosen where audio elements have no setSinkId, whatever is listed', async () => {
    vi.stubGlobal('HTMLMediaElement', class {});
    browser([device('audiooutput', 'spk-1', 'Speakers')], granting('granted'));
    expect(await listAudioDevices()).toMatchObject({ speakers: [{ deviceId: 'spk-1' }], canChooseSpeaker: false });
  });

  it("tells the permission as unknown where the Permissions API is missing, or refuses the name 'microphone' (older Firefox, Safari)", async () => {
    browser([device('audioinput', 'mic-1')]);
    expect((await listAudioDevices()).microphonePermission).toBe('unknown');
    browser([device('audioinput', 'mic-1')], { query: () => Promise.reject(new TypeError("'microphone' (value of 'name' member of PermissionDescriptor) is not a valid value for enumeration PermissionName.")) });
    expect((await listAudioDevices()).microphonePermission).toBe('unknown');
    browser([device('audioinput', 'mic-1')], {
      query: () => {
        throw new TypeError('Illegal invocation');
      },
    });
    expect(await listAudioDevices()).toMatchObject({ microphones: [{ deviceId: 'mic-1' }], microphonePermission: 'unknown' });
  });

  it('never rejects: without mediaDevices (an insecure page) or with a failing list, the lists are empty', async () => {
    browser(undefined);
    expect(await listAudioDevices()).toEqual({ microphones: [], speakers: [], canChooseSpeaker: false, microphonePermission: 'unknown' });
    browser(new DOMException('the document is not fully active', 'InvalidStateError'));
    expect(await listAudioDevices()).toMatchObject({ microphones: [], speakers: [], canChooseSpeaker: false });
  });
});
