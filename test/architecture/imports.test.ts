import { readFileSync, readdirSync } from 'node:fs';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The import graph of src/ as dependency-cruiser reads it. TypeScript 7 has no compiler API for it
 * yet, so it parses with swc; `tsPreCompilationDeps` keeps the imports the compiler erases
 * (`import type`, `export type … from`): a type-only cycle is a cycle of the design all the same.
 */
async function importGraph(forbidden: IForbiddenRuleType[]): Promise<ICruiseResult> {
  const result = await cruise(['src'], {
    parser: 'swc',
    tsPreCompilationDeps: true,
    moduleSystems: ['es6'],
    doNotFollow: { path: 'node_modules' },
    validate: true,
    ruleSet: { forbidden },
  });
  return result.output as ICruiseResult;
}

/** The directions docs/architecture.md forbids ("What may import what"), each a rule of its own so a failure names it. */
const FLOW_RULES: IForbiddenRuleType[] = [
  { name: 'no-cycle', severity: 'error', from: {}, to: { circular: true } },
  {
    name: 'leaves-import-nothing-of-ours',
    severity: 'error',
    from: { path: '^src/(errors|log|log-digest|retry|schema-errors|heartbeat-token|near-name|server-state|own-messages)[.]ts$' },
    to: { path: '^src/' },
  },
  { name: 'admission-below-mapping', severity: 'error', from: { path: '^src/admission/' }, to: { path: '^src/mapping/' } },
  // The runtime gets the run limits compiled by the engine (service.ts hands them over); it never compiles mappings itself.
  { name: 'runtime-below-mapping', severity: 'error', from: { path: '^src/runtime/' }, to: { path: '^(src/mapping/|presets/)' } },
  {
    name: 'nothing-below-http-imports-http',
    severity: 'error',
    from: { path: '^src/(actions|admission|auth|channels|config|envelope|mapping|metrics|providers|relay|runtime|sandbox|sources|store)/' },
    to: { path: '^src/http/' },
  },
  {
    name: 'only-the-composition-imports-commands-and-service',
    severity: 'error',
    from: { pathNot: '^src/(commands/|cli[.]ts$|main[.]ts$|service[.]ts$)' },
    to: { path: '^src/(commands/|cli[.]ts$|service[.]ts$)' },
  },
];

function describeViolation(violation: ICruiseResult['summary']['violations'][number]): string {
  const cycle = violation.cycle?.map((step) => step.name) ?? [];
  return cycle.length > 0 ? `${violation.rule.name}: ${[violation.from, ...cycle].join(' → ')}` : `${violation.rule.name}: ${violation.from} → ${violation.to}`;
}

describe('the import structure of src/', () => {
  let graph: ICruiseResult;
  beforeAll(async () => {
    graph = await importGraph(FLOW_RULES);
  });

  it('reads the whole of src/, type-only imports included', () => {
    const sources = graph.modules.filter((module) => module.source.startsWith('src/') && module.source.endsWith('.ts'));
    expect(sources.length).toBeGreaterThan(300);
    // A known type-only import: without tsPreCompilationDeps it would be missing.
    const ports = graph.modules.find((module) => module.source === 'src/runtime/ports.ts');
    const toStorePort = ports?.dependencies.find((dependency) => dependency.resolved === 'src/store/port.ts');
    expect(toStorePort?.dependencyTypes).toContain('type-only');
  });

  it('has no cycle and no import against the flow of docs/architecture.md', () => {
    expect(graph.summary.violations.map(describeViolation)).toEqual([]);
  });

  it('names every top-level part of src/ in the table of docs/architecture.md', () => {
    const doc = readFileSync('docs/architecture.md', 'utf8');
    const table = doc.slice(doc.indexOf('## What may import what'));
    const parts = readdirSync('src', { withFileTypes: true }).map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
    expect(parts.filter((part) => !table.includes(`\`${part}\``))).toEqual([]);
    expect(table).toContain('`runtime/gates/`');
  });
});
