/** The one agent Hookgate runs: the only `agentId` a request or a mapping may name. */
const AGENT_ID = 'main';

/**
 * Why an `agentId` cannot be used, for a request (400) and a mapping (config error) alike:
 * another agent than `main` (compared exactly, as a store key would be), or one outside
 * hooks.allowedAgentIds (`*` = any; undefined = no list). Undefined when it can be used.
 */
export function agentIdProblem(agentId: string, allowed: readonly string[] | undefined): string | undefined {
  const shown = JSON.stringify(agentId.slice(0, 64));
  if (agentId !== AGENT_ID) return `agentId ${shown}: Hookgate runs one agent, "${AGENT_ID}"`;
  if (allowed !== undefined && !allowed.includes('*') && !allowed.includes(agentId)) return `agentId ${shown} is not in hooks.allowedAgentIds`;
  return undefined;
}
