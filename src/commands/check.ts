import { parseArgs } from 'node:util';
import { ConfigError } from '../errors.js';
import { configPathFrom, loadConfigFile, type ResolvedConfig } from '../config/load.js';
import type { CommandIo } from './io.js';

/** `hookgate check [--config FILE]`: every problem with its path (exit 1), or a one-screen summary (exit 0). */
export async function runCheck(argv: string[], io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string' } }, strict: true });
  const path = configPathFrom(values.config, io.env, io.cwd);
  try {
    const config = await loadConfigFile(path, io.env);
    io.stdout(summarise(config));
    return 0;
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

function summarise(config: ResolvedConfig): string {
  const { hooks, gateway, agents, storage } = config;
  const lines = [
    `config ${config.configPath ?? '(inline)'}: OK`,
    `listen        http://${gateway.bind}:${gateway.port}`,
    `hooks         ${hooks.enabled ? `enabled at ${hooks.path} (token set, body ≤ ${hooks.maxBodyBytes} bytes)` : 'disabled'}`,
    `mappings      ${hooks.mappings.length} custom; presets: ${hooks.presets.length === 0 ? 'none' : hooks.presets.join(', ')}`,
    `transforms    ${hooks.transformsDir ?? 'none'}`,
    `model         ${agents.defaults.model}${agents.defaults.models === undefined ? '' : ` (allow-list of ${agents.defaults.models.length})`}`,
    `providers     echo${Object.keys(config.models.providers).map((id) => `, ${id}`).join('')}`,
    `channels      log${Object.keys(config.channels).map((name) => `, ${name}`).join('')}`,
    `store         ${storage.path} (synchronous=${storage.synchronous})`,
  ];
  return `${lines.join('\n')}\n`;
}
