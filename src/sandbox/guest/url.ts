/**
 * `input.url` as OpenClaw's transforms use it (a `URL`: `.pathname`, `.searchParams.get()`) while
 * staying the string it always was: a String object carrying the URL's parts, so `startsWith`,
 * template literals, `String(url)` and JSON keep the path-and-query text. Isolates have no `URL`;
 * the text is always a path with an optional query (never a scheme or a host), parsed here.
 */
type Pairs = Array<[string, string]>;

const decode = (text: string): string => {
  try { return decodeURIComponent(text.replace(/\+/g, ' ')); } catch { return text; }
};

function parseQuery(search: string): Pairs {
  const pairs: Pairs = [];
  for (const part of search.replace(/^\?/, '').split('&')) {
    if (part === '') continue;
    const at = part.indexOf('=');
    pairs.push(at === -1 ? [decode(part), ''] : [decode(part.slice(0, at)), decode(part.slice(at + 1))]);
  }
  return pairs;
}

function searchParamsOf(pairs: Pairs, search: string): Record<string | symbol, unknown> {
  const params = {
    get: (name: string) => pairs.find(([key]) => key === String(name))?.[1] ?? null,
    getAll: (name: string) => pairs.filter(([key]) => key === String(name)).map(([, value]) => value),
    has: (name: string) => pairs.some(([key]) => key === String(name)),
    keys: () => pairs.map(([key]) => key)[Symbol.iterator](),
    values: () => pairs.map(([, value]) => value)[Symbol.iterator](),
    entries: () => pairs.map(([key, value]): [string, string] => [key, value])[Symbol.iterator](),
    forEach: (visit: (value: string, key: string) => void) => { for (const [key, value] of pairs) visit(value, key); },
    toString: () => search.replace(/^\?/, ''),
    size: pairs.length,
    [Symbol.iterator]: () => params.entries(),
  };
  return params;
}

export function urlValue(url: string): string {
  const text = new String(url) as unknown as Record<string, unknown>;
  const hashAt = url.indexOf('#');
  const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const search = queryAt === -1 || queryAt === beforeHash.length - 1 ? '' : beforeHash.slice(queryAt);
  const parts: Record<string, unknown> = {
    href: url,
    pathname: queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt),
    search,
    hash: hashAt === -1 || hashAt === url.length - 1 ? '' : url.slice(hashAt),
    searchParams: searchParamsOf(parseQuery(search), search),
  };
  for (const [name, value] of Object.entries(parts)) Object.defineProperty(text, name, { value, enumerable: false });
  return text as unknown as string;
}
