// Stand-in for k6's "k6" module: check() records every named check,
// sleep() every pause.
export const checks = [];
export const sleeps = [];

export function check(value, sets, tags) {
  let ok = true;
  for (const [name, fn] of Object.entries(sets)) {
    const passed = fn(value);
    checks.push({ name, passed, tags });
    ok = ok && passed;
  }
  return ok;
}

export function sleep(seconds) {
  sleeps.push(seconds);
}
