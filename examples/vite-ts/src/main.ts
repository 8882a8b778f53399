import { createFetchBackend, createVoiceBrowser } from 'voice-browser';
import { mountPhone } from './phone.js';

const root = document.querySelector<HTMLElement>('#phone');
const remoteAudio = document.querySelector<HTMLAudioElement>('#remote-audio');
if (!root || !remoteAudio) throw new Error('index.html lacks #phone or #remote-audio');

mountPhone(root, (onStatus) => createVoiceBrowser({ backend: createFetchBackend(), remoteAudio, onStatus }));
