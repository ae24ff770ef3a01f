import { NavLink, Outlet, Route, Routes, useParams } from 'react-router';
import { GuildTextProvider } from './components/PlatformText';
import { Problem } from './components/Status';
import { allowedPages } from './nav';
import { CaseCreatePage } from './pages/CaseCreate';
import { CaseDetailPage } from './pages/CaseDetail';
import { CasesPage } from './pages/Cases';
import { ForumsPage } from './pages/Forums';
import { GuildsPage } from './pages/Guilds';
import { JournalPage } from './pages/Journal';
import { LogSettingsPage } from './pages/LogSettings';
import { MemberPage } from './pages/Member';
import { MessagesPage } from './pages/Messages';
import { NotFoundPage } from './pages/NotFound';
import { OverviewPage } from './pages/Overview';
import { PacksPage } from './pages/Packs';
import { PremiumPage } from './pages/Premium';
import { QueuesPage } from './pages/Queues';
import { SignInPage } from './pages/SignIn';
import { StaffPage } from './pages/Staff';
import { TicketPage } from './pages/Ticket';
import { TicketSettingsPage } from './pages/TicketSettings';
import { TicketsPage } from './pages/Tickets';
import { useGuild, useSession } from './session';

/** The app's routes: sign-in or the guild picker at `/`, then one guild's pages under `/guilds/:guild`. */
export function App() {
  const { me, loading, error } = useSession();
  if (loading && !me)
    return (
      <main className="center" aria-busy="true">
        <p className="muted">Loading…</p>
      </main>
    );
  if (error)
    return (
      <main className="center">
        <Problem error={error} />
      </main>
    );
  if (!me) return <SignInPage />;
  return (
    <Routes>
      <Route element={<Shell />}>
        <Route index element={<GuildsPage />} />
        <Route path="guilds/:guild" element={<GuildPages />}>
          <Route index element={<OverviewPage />} />
          <Route path="cases" element={<CasesPage />} />
          <Route path="cases/new" element={<CaseCreatePage />} />
          <Route path="cases/:number" element={<CaseDetailPage />} />
          <Route path="members/:user" element={<MemberPage />} />
          <Route path="queues" element={<QueuesPage />} />
          <Route path="tickets" element={<TicketsPage />} />
          <Route path="tickets/settings" element={<TicketSettingsPage />} />
          <Route path="tickets/:number" element={<TicketPage />} />
          <Route path="logs" element={<LogSettingsPage />} />
          <Route path="messages" element={<MessagesPage />} />
          <Route path="journal" element={<JournalPage />} />
          <Route path="staff" element={<StaffPage />} />
          <Route path="forums" element={<ForumsPage />} />
          <Route path="packs" element={<PacksPage />} />
          <Route path="premium" element={<PremiumPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

/** Header (home link, user, sign out) around every signed-in page. */
function Shell() {
  const { me, signOut } = useSession();
  return (
    <>
      <a className="skip" href="#content">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to="/" className="brand" end>
          Guildhall
        </NavLink>
        <span className="user">{me?.user.name}</span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <Outlet />
    </>
  );
}

/** One guild: its menu (pages the user's caps allow) and the page. */
function GuildPages() {
  const { guild: id } = useParams();
  const guild = useGuild(id);
  const pages = allowedPages(guild?.caps ?? []);
  return (
    <div className="guild">
      <nav className="sidenav" aria-label="Guild pages">
        <h2>{guild?.name ?? id}</h2>
        <ul>
          {pages.map((p) => (
            <li key={p.path}>
              <NavLink to={`/guilds/${id}${p.path ? `/${p.path}` : ''}`} end={p.path === ''}>
                {p.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="content" className="content">
        <GuildTextProvider guild={id ?? ''}>
          <Outlet />
        </GuildTextProvider>
      </main>
    </div>
  );
}
