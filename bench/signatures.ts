/*
 * Micro-benchmark: what verifying a signature costs per request, by scheme and body size.
 * Run: node --import tsx bench/signatures.ts
 * For each registered scheme it signs a JSON body once, then verifies it N times with one secret and
 * with a rotation of three (the valid one last, the worst case), and prints the CPU time per
 * verification. A signed request pays this once, on top of reading and parsing the body.
 */
import { compileSignature, SIGNATURE_SCHEMES, type CompiledSignature } from '../src/auth/signatures/index.js';

const SIZES = [1_024, 16_384, 262_144];
const SECRET = 'whsec_YmVuY2gtc2lnbmluZy1zZWNyZXQtdmFsdWU=';
const OTHERS = ['whsec_b3RoZXItc2VjcmV0LW9uZS1iZW5jaA==', 'whsec_b3RoZXItc2VjcmV0LXR3by1iZW5jaA=='];

function compiled(scheme: string, secrets: string[]): CompiledSignature {
  const extra = scheme === 'hmac' ? { header: 'X-Signature', prefix: 'sha256=' } : {};
  const { signature, problems } = compileSignature({ scheme, secrets, ...extra });
  if (signature === undefined) throw new Error(problems.map((problem) => problem.message).join('; '));
  return signature;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

async function microsPerVerify(signature: CompiledSignature, body: Buffer, headers: Record<string, string>, now: number): Promise<number> {
  const iterations = Math.max(200, Math.floor(20_000_000 / body.length));
  for (let i = 0; i < 50; i++) await signature.scheme.verify(signature.settings, { body, headers, nowSeconds: now }); // warm-up
  const cpu = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    const verdict = await signature.scheme.verify(signature.settings, { body, headers, nowSeconds: now });
    if (!verdict.ok) throw new Error(`${signature.scheme.name}: ${verdict.reason}`);
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / iterations;
}

const now = Math.floor(Date.now() / 1000);
console.log('| scheme | body | µs CPU / verify (1 secret) | µs CPU / verify (3 secrets) |');
console.log('|---|---|---|---|');
for (const { name } of SIGNATURE_SCHEMES) {
  for (const size of SIZES) {
    const body = Buffer.from(JSON.stringify({ id: 'evt_1', event_id: 'Ev1', text: 'x'.repeat(size - 40) }).slice(0, size));
    const one = compiled(name, [SECRET]);
    const headers = lowerCased(await one.scheme.sign(one.settings, body, now, 'delivery-1'));
    const single = await microsPerVerify(one, body, headers, now);
    const rotating = await microsPerVerify(compiled(name, [...OTHERS, SECRET]), body, headers, now);
    console.log(`| ${name} | ${(size / 1024).toFixed(0)} KiB | ${single.toFixed(1)} | ${rotating.toFixed(1)} |`);
  }
}
