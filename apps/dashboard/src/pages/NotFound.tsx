import { Link } from 'react-router';
import { useTitle } from '../hooks';

/** A client route that does not exist. */
export function NotFoundPage() {
  useTitle('Not found');
  return (
    <section className="content">
      <h1>Page not found</h1>
      <p>
        <Link to="/">Back to your guilds</Link>
      </p>
    </section>
  );
}
