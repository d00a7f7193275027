// Regenerates the reference table in docs/configuration.md from the config schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderConfigReference } from '../src/config/reference.js';

const file = new URL('../docs/configuration.md', import.meta.url);
const text = readFileSync(file, 'utf8');
const start = '<!-- reference:start -->';
const end = '<!-- reference:end -->';
const before = text.slice(0, text.indexOf(start) + start.length);
const after = text.slice(text.indexOf(end));
writeFileSync(file, `${before}\n${renderConfigReference()}${after}`);
