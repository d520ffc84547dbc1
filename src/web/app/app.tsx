import { useCallback, useEffect, useState } from "preact/hooks";
import type { View } from "../../api/gen/svc/v1/query_service_pb.js";
import { access, loginWanted, probeAdmin } from "./access.js";
import { connection, logout, query, session, token } from "./api.js";
import { ActionDialog, type PendingAction } from "./components/action-dialog.js";
import { AuditPage } from "./pages/audit.js";
import { ConfigPage } from "./pages/config.js";
import { ConfigHistoryPage } from "./pages/config-history.js";
import { DowntimesPage } from "./pages/downtimes.js";
import { HistoryPage } from "./pages/history.js";
import { LoginPage } from "./pages/login.js";
import { ObjectPage } from "./pages/object.js";
import { OverviewPage } from "./pages/overview.js";
import { StatusPage } from "./pages/status.js";
import { type Route, useRoute } from "./router.js";
import { useStore } from "./store.js";

/** Configured views from ListViews, re-read every 30 s (a config apply may change them). */
function useViews(): readonly View[] | undefined {
  const [views, setViews] = useState<readonly View[] | undefined>(undefined);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        setViews((await query.listViews({})).views);
        timer = setTimeout(read, 30_000);
      } catch {
        timer = setTimeout(read, 3000);
      }
    };
    void read();
    return () => clearTimeout(timer);
  }, []);
  return views;
}

function Banner() {
  const c = useStore(connection);
  if (c.up) return null;
  return (
    <div class="banner" role="alert">
      The server is unreachable{c.error ? ` (${c.error})` : ""}. Showing what was last read; retrying by
      itself.
    </div>
  );
}

function Nav(props: { route: Route }) {
  const a = useStore(access);
  const t = useStore(token);
  const who = useStore(session);
  const link = (page: string, title: string) => (
    <a href={`#/${page}`} aria-current={props.route.page === page ? "page" : undefined}>
      {title}
    </a>
  );
  return (
    <header class="top">
      <a class="brand" href="#/">
        Lookout
      </a>
      <nav aria-label="Pages">
        {link("", "Overview")}
        {link("status", "Status")}
        {link("history", "History")}
        {link("downtimes", "Downtimes")}
        {a.admin === "yes" && link("config", "Config")}
        {a.admin === "yes" && link("config-history", "Config history")}
        {a.admin === "yes" && link("audit", "Audit")}
      </nav>
      <span class="who">
        {t !== "" || who !== undefined ? (
          <>
            {who !== undefined && (
              <span class="muted">
                {who.name} ({who.role})
              </span>
            )}
            <button type="button" onClick={() => void logout()}>
              Sign out
            </button>
          </>
        ) : (
          loginWanted(a) && link("login", "Sign in")
        )}
      </span>
    </header>
  );
}

/** The whole dashboard: header, unreachable banner, the page of the current address, the action dialog. */
export function App() {
  const route = useRoute();
  const views = useViews();
  const a = useStore(access);
  const [action, setAction] = useState<PendingAction | undefined>(undefined);
  const onAction = useCallback((p: PendingAction) => setAction(p), []);
  const close = useCallback(() => setAction(undefined), []);
  useEffect(() => {
    void probeAdmin();
  }, []);
  const act = a.commands === "yes" ? onAction : undefined;
  let page: preact.ComponentChildren;
  switch (route.page) {
    case "":
      page = <OverviewPage route={route} views={views} onAction={act} />;
      break;
    case "status":
      page = <StatusPage route={route} views={views} onAction={act} />;
      break;
    case "object":
      page = (
        <ObjectPage
          host={route.args[0] ?? ""}
          service={route.args[1]}
          range={route.params.get("range") ?? ""}
          onAction={act}
        />
      );
      break;
    case "history":
      page = <HistoryPage route={route} />;
      break;
    case "downtimes":
      page = <DowntimesPage route={route} canDelete={act !== undefined} />;
      break;
    case "config":
      page = <ConfigPage />;
      break;
    case "config-history":
      page = <ConfigHistoryPage route={route} />;
      break;
    case "audit":
      page = <AuditPage />;
      break;
    case "login":
      page = <LoginPage />;
      break;
    default:
      page = <p>No such page.</p>;
  }
  return (
    <>
      <button type="button" class="skip" onClick={() => document.getElementById("main")?.focus()}>
        Skip to content
      </button>
      <Nav route={route} />
      <Banner />
      {a.reads === "login" && route.page !== "login" && (
        <p class="banner notice">
          The server wants an identity for reads. <a href="#/login">Sign in</a>.
        </p>
      )}
      <main id="main" tabIndex={-1}>
        {page}
      </main>
      <ActionDialog action={action} onClose={close} />
    </>
  );
}
