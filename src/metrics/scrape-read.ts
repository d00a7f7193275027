/**
 * A store read shared by the gauges of one scrape (one read serves them all), that never fails the
 * scrape: while the store is closing or busy it resolves undefined and the gauges keep their last values.
 */
export function oneReadPerScrape<T>(read: () => Promise<T>): () => Promise<T | undefined> {
  let pending: Promise<T | undefined> | undefined;
  return () => {
    pending ??= read()
      .catch(() => undefined)
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
