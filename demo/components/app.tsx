import { useEffect, useState } from 'preact/hooks';
import { currentUser, login, logout, type DemoUser } from '../api.js';
import { LoginForm } from './login-form.js';
import { Phone } from './phone.js';

/** The page: log in, then the phone. */
export function App() {
  const [user, setUser] = useState<DemoUser | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    currentUser().then(setUser, () => setUser(null));
  }, []);

  const onLogin = (username: string) => {
    setError(null);
    login(username).then(setUser, (e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  };
  const onLogout = () => void logout().then(() => setUser(null));

  return (
    <>
      <h1>voice-browser demo</h1>
      {user === undefined ? <p>Loading…</p> : user === null ? <LoginForm onLogin={onLogin} error={error} /> : <Phone user={user} onLogout={onLogout} />}
    </>
  );
}
