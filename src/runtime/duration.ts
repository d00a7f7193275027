const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `500ms`, `45s`, `30m`, `1h` → milliseconds (the config schema's pattern); throws on anything else or zero. */
export function parseDuration(text: string): number {
  const match = /^([0-9]+)(ms|s|m|h)$/.exec(text.trim());
  if (match === null) throw new Error(`invalid duration "${text}": expected a number and ms, s, m or h (e.g. 30m)`);
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new Error(`invalid duration "${text}": must be greater than zero`);
  return ms;
}
