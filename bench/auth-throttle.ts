/**
 * Guesses per address the failed-auth throttle lets through (docs/security.md), for the default
 * configuration and a stricter one: `node --import tsx bench/auth-throttle.ts`.
 */
import { guessesAllowed } from './lib/throttle-rate.js';

const CONFIGS = [
  { label: 'default (20 / 60 s, max block 3600 s)', maxFailures: 20, windowSeconds: 60, maxBlockSeconds: 3600 },
  { label: 'strict (5 / 300 s, max block 86400 s)', maxFailures: 5, windowSeconds: 300, maxBlockSeconds: 86_400 },
];
const SPANS = [
  ['1 min', 60_000],
  ['1 h', 3_600_000],
  ['24 h', 86_400_000],
  ['30 d', 30 * 86_400_000],
] as const;

console.log(`| configuration | ${SPANS.map(([label]) => `guesses in ${label}`).join(' | ')} | steady rate |`);
console.log(`|---|${SPANS.map(() => '---:').join('|')}|---|`);
for (const { label, ...options } of CONFIGS) {
  const counts = SPANS.map(([, ms]) => guessesAllowed(options, ms));
  const perMinute = 60 / options.maxBlockSeconds;
  console.log(`| ${label} | ${counts.join(' | ')} | ${perMinute.toPrecision(2)} guesses/min (1 per ${options.maxBlockSeconds} s) |`);
}
