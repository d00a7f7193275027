import { PRESETS } from '../../presets/index.js';
import type { PresetDefinition } from '../../presets/define.js';
import { unknownPresetMessage } from '../mapping/mapping-records.js';
import { parseCommandLine, UsageError } from './args.js';
import type { CommandIo } from './io.js';

/** `hookgate presets [NAME] [--json]`: the built-in presets, their default events, options and noise rules. */
export async function runPresets(argv: string[], io: CommandIo): Promise<number> {
  const { values, chosen } = parsePresetsArgs(argv);
  if (values.json === true) io.stdout(`${JSON.stringify(chosen.map(presetJson), null, 2)}\n`);
  else io.stdout(`${chosen.map(presetText).join('\n')}`);
  return 0;
}

/** A wrong command line (an unknown preset name included) throws UsageError (src/cli.ts prints it with the usage, exit 2). */
export function parsePresetsArgs(argv: string[]) {
  const { values, positionals } = parseCommandLine({ args: argv, options: { json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  if (positionals.length > 1) throw new UsageError('give at most one preset name');
  const [only] = positionals;
  const chosen = only === undefined ? PRESETS : PRESETS.filter((preset) => preset.name === only);
  if (chosen.length === 0) throw new UsageError(unknownPresetMessage(only ?? '', PRESETS.map((preset) => preset.name)));
  return { values, chosen };
}

function presetJson(preset: PresetDefinition): Record<string, unknown> {
  return {
    name: preset.name,
    summary: preset.summary,
    scheme: preset.scheme ?? null,
    path: preset.name,
    defaultEvents: preset.defaultEvents ?? null,
    options: ['name', ...(preset.options ?? [])],
    maxBodyBytes: preset.maxBodyBytes ?? null,
    defaults: preset.defaultsExplained ?? [],
  };
}

function presetText(preset: PresetDefinition): string {
  const lines = [`${preset.name}${preset.scheme === undefined ? '' : ` (signature scheme ${preset.scheme}; needs secret or secrets)`}`, `  ${preset.summary}`];
  if (preset.defaultEvents !== undefined) lines.push(`  default events: ${preset.defaultEvents.join(', ')}`);
  lines.push(`  options: ${preset.options === undefined || preset.options.length === 0 ? 'none (settings in hooks.gmail)' : preset.options.join(', ')}`);
  if (preset.maxBodyBytes !== undefined) lines.push(`  body limit: ${preset.maxBodyBytes} bytes on its path (within hooks.bodyBudgetBytes)`);
  for (const rule of preset.defaultsExplained ?? []) lines.push(`  ${rule.events.join(', ')}: ${rule.rule}`, `    why: ${rule.reason}`);
  return `${lines.join('\n')}\n`;
}
