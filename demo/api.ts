/**
 * The demo's login calls (the demo server's `/auth/login`, `/auth/logout`, `/auth/me`) and the list of the user's
 * support queues (`GET /voice/queues`).
 */

export interface DemoUser {
  name: string;
  /** The demo login made this user a supervisor: the page then reads their agents' calls. */
  supervisor?: boolean;
}

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
}

/** Who is logged in: `null` for nobody (the server answers `200 {user: null}`); rejects when it cannot tell. */
export async function currentUser(): Promise<DemoUser | null> {
  const response = await fetch('/auth/me', { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`could not read who is logged in (${response.status})`);
  return ((await response.json()) as { user: DemoUser | null }).user;
}

export async function login(username: string): Promise<DemoUser> {
  const response = await post('/auth/login', { username });
  const body = (await response.json()) as { user?: DemoUser; error?: string };
  if (!response.ok || !body.user) throw new Error(body.error ?? `login failed (${response.status})`);
  return body.user;
}

export async function logout(): Promise<void> {
  await post('/auth/logout', {});
}

/** A support queue the user may answer (the demo server makes "Support" and "Sales"). */
export interface DemoQueue {
  id: string;
  name: string;
}

/** The logged-in user's queues, `GET /voice/queues`; rejects with the proxy's code and message when refused. */
export async function listQueues(): Promise<DemoQueue[]> {
  const response = await fetch('/voice/queues', { credentials: 'same-origin' });
  const body = (await response.json().catch(() => null)) as { queues?: DemoQueue[]; code?: string; message?: string } | null;
  if (!response.ok || !Array.isArray(body?.queues)) {
    throw new Error(`the queues could not be read (${body?.code ?? response.status}${body?.message ? `: ${body.message}` : ''})`);
  }
  return body.queues;
}
