import { useState } from 'preact/hooks';

export interface LoginFormProps {
  onLogin(username: string): void;
  error: string | null;
}

/** The demo user's login (any name: the demo's stand-in for a real app's login). */
export function LoginForm({ onLogin, error }: LoginFormProps) {
  const [username, setUsername] = useState('agent1');
  return (
    <section aria-label="Log in" class="login">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onLogin(username.trim());
        }}
      >
        <label>
          Username
          <input value={username} onInput={(event) => setUsername(event.currentTarget.value)} autoComplete="username" aria-describedby="login-roles" required />
        </label>
        <p class="hint" id="login-roles">
          Any name logs in as an agent. A name starting with <kbd>lead</kbd> (lead1) logs in as a supervisor: it sees the calls of
          everyone else who logged in to this demo server, listens in and plays their recordings.
        </p>
        <button type="submit">Log in</button>
        {error && <p class="error" role="alert">{error}</p>}
      </form>
    </section>
  );
}
