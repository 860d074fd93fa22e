// Loads crud.mjs (crud.js with its k6 imports pointed at the fakes) with
// __ENV from argv[2], runs one iteration (every request failing with the
// k6 error code argv[3], when given), prints what it did as JSON.
globalThis.__ENV = JSON.parse(process.argv[2]);
globalThis.__VU = 1;

const script = await import('./crud.mjs');
const http = await import('./fake-http.mjs');
const k6 = await import('./fake-k6.mjs');
const metrics = await import('./fake-metrics.mjs');
http.failAll(Number(process.argv[3] || 0));
script.default();
console.log(JSON.stringify({
  options: script.options,
  requests: http.requests,
  checks: k6.checks,
  sleeps: k6.sleeps,
  added: metrics.added,
}));
