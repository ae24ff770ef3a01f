import { useTitle } from '../hooks';
import { loginHref } from '../session';

/** Shown without a session: sign in with the platform (the gateway's OAuth login, back to this page). */
export function SignInPage() {
  useTitle('Sign in');
  return (
    <main className="center signin">
      <h1>Guildhall</h1>
      <p>Moderation cases, tickets, logs and community tools for your guild.</p>
      <a className="button primary" href={loginHref()}>
        Sign in with Discord
      </a>
    </main>
  );
}
