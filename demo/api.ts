/** The demo's login calls (DESIGN.md: `/auth/login`, `/auth/logout`, `/auth/me`). */

export interface DemoUser {
  name: string;
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
