// Written for OpenClaw: a wake result with OpenClaw's `mode`.
export default function alert(input) {
  return { kind: 'wake', text: 'Alert: ' + input.payload.title, mode: 'next-heartbeat' };
}
