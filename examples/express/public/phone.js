// The page: voice-browser's script-tag file has set window.VoiceBrowser.
const { createVoiceBrowser, createFetchBackend } = window.VoiceBrowser;
const $ = (id) => document.getElementById(id);

function render(status) {
  const call = status.call;
  const phone = $('status');
  phone.dataset.connection = status.connection;
  phone.dataset.callState = call ? call.state : '';
  phone.dataset.callId = call ? call.id : '';
  phone.textContent = call ? `Call to ${call.to ?? 'the number'}: ${call.state.replaceAll('_', ' ')}` : `Phone: ${status.connection}`;
  $('problem').hidden = !status.error;
  $('problem').textContent = status.error ? `${status.error.message} (${status.error.code})` : '';
  $('connect').disabled = status.connection !== 'disconnected';
  $('call').disabled = status.connection !== 'ready' || status.busy;
  $('hangup').disabled = !status.busy;
  $('disconnect').disabled = status.connection === 'disconnected';
}

const voice = createVoiceBrowser({ backend: createFetchBackend(), remoteAudio: $('remote-audio'), onStatus: render });
// A rejected action shows in status.error, which render() puts on the page.
const run = (action) => () => action().catch(() => undefined);

$('connect').addEventListener('click', run(() => voice.connect()));
$('call').addEventListener('click', run(() => voice.startCall({ from: $('from').value.trim(), to: $('to').value.trim() }, { idempotencyKey: crypto.randomUUID() })));
$('hangup').addEventListener('click', run(() => voice.hangup()));
$('disconnect').addEventListener('click', run(() => voice.disconnect()));

const { user } = await fetch('/me').then((response) => response.json());
$('login').hidden = Boolean(user);
$('phone').hidden = !user;
if (user) {
  $('user').textContent = user.name;
  // After a reload mid-call the session and call are still at the service: show them.
  await voice.recover().catch(() => undefined);
}
