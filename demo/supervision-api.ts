/**
 * A supervisor's reads through the proxy (spec 4.8: list calls, monitor, recordings): the calls in progress of
 * the agents and queues they supervise, and a call's recordings, whose audio the page plays from
 * `/voice/recordings/<id>/audio`.
 */

/** A call in progress a supervisor sees: the supervised user's id (null for a queue's caller bridged to another agent) and the call. */
export interface SupervisedCall {
  agent: string | null;
  call: { id: string; from?: string; to?: string; state: string; queueId?: string; answeredAt?: string | null; createdAt?: string; [field: string]: unknown };
}

/** A recording of a call, as the service lists it. */
export interface CallRecording {
  id: string;
  callId: string;
  state: string;
  durationMs?: number | null;
  startedAt?: string;
  [field: string]: unknown;
}

async function readJson<T>(path: string, what: string): Promise<T | null> {
  const response = await fetch(path, { credentials: 'same-origin' });
  // 404: this user supervises nobody, or the call is not theirs to see.
  if (response.status === 404) return null;
  const body = (await response.json().catch(() => null)) as (T & { code?: string; message?: string }) | null;
  if (!response.ok || body === null) throw new Error(`${what} could not be read (${body?.code ?? response.status}${body?.message ? `: ${body.message}` : ''})`);
  return body;
}

/** `GET /voice/supervised-calls`: the calls, or null when the user is no supervisor (the proxy's 404). */
export async function listSupervisedCalls(): Promise<SupervisedCall[] | null> {
  const body = await readJson<{ calls?: SupervisedCall[] }>('/voice/supervised-calls', 'the supervised calls');
  return body && Array.isArray(body.calls) ? body.calls : null;
}

/** `GET /voice/recordings?callId=`: the call's recordings, oldest first (none when the call is not the user's to see). */
export async function listRecordings(callId: string): Promise<CallRecording[]> {
  const body = await readJson<{ recordings?: CallRecording[] }>(`/voice/recordings?callId=${encodeURIComponent(callId)}`, 'the recordings');
  return body?.recordings ?? [];
}

/** Where a recording's WAV file is played and downloaded from. */
export const recordingAudioUrl = (id: string): string => `/voice/recordings/${encodeURIComponent(id)}/audio`;
