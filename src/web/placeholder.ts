/**
 * The page served at `/` until the dashboard exists: what this is and where the API lives, so
 * that a new user who opens the -listen address in a browser is not left with a 404.
 */
export function placeholderPage(version: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Lookout</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem;color:#1d2430}
code{background:#eef1f5;padding:.1rem .3rem;border-radius:3px}</style></head>
<body>
<h1>Lookout</h1>
<p>Version <code>${escapeHtml(version)}</code>. The dashboard is not built yet.</p>
<ul>
<li><a href="/metrics">/metrics</a>: Prometheus metrics</li>
<li>API: <code>POST /svc.v1.QueryService/ListStatus</code> and friends, as Connect JSON, gRPC or gRPC-Web</li>
</ul>
</body>
</html>
`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
