import { HistoryList } from "../components/history-list.js";

/** The global history feed: every object's events, newest first, live. */
export function HistoryPage() {
  return (
    <section aria-labelledby="history-title">
      <h1 id="history-title">History</h1>
      <HistoryList />
    </section>
  );
}
