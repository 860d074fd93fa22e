// Loads crud.mjs (crud.js with its k6 imports pointed at the fakes) with
// __ENV from argv[2], runs one iteration, prints what it did as JSON.
globalThis.__ENV = JSON.parse(process.argv[2]);
globalThis.__VU = 1;

const script = await import('./crud.mjs');
const http = await import('./fake-http.mjs');
const k6 = await import('./fake-k6.mjs');
script.default();
console.log(JSON.stringify({
  options: script.options,
  requests: http.requests,
  checks: k6.checks,
}));
