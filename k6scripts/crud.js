// crud.js: sweep's bundled k6 load script.
//
// Each iteration creates nine linked FHIR-like resources (a Patient seen at
// a Location of an Organization by a Practitioner, with an Encounter, an
// Observation, a MedicationRequest, a Claim and its ExplanationOfBenefit),
// reads each, updates each, and deletes them in reverse order.
//
// Configured only through __ENV so one script serves every cell:
//   BASE_URL   target base URL (default http://127.0.0.1:8080)
//   TYPES      comma list of resource types (default all nine, in order)
//   MODEL      closed (constant-vus) | open (constant-arrival-rate)
//   VUS        closed: virtual users (default 10)
//   DURATION   phase length, e.g. 30s or 1m30s (default 30s)
//   RATE       open: iterations per second, may be fractional
//   PRE_VUS    open: pre-allocated VUs (default min(RATE, 10), at least 1)
//   MAX_VUS    open: VU bound (default max(PRE_VUS, 100))
//   GRACEFUL_STOP  time given to running iterations at the end (default 5s)
//
// Every request is tagged {op, type} and named "<Type> <op>" so the URL tag
// does not grow one series per id. The export of k6's --summary-export holds
// a tagged sub-metric only when a threshold names it, so each op gets
// thresholds that always hold (">= 0"); sweep ignores them when it lists
// crossed thresholds.
//
// A request that never reached an HTTP answer because the connection
// could not be made or was cut (status 0 with a DNS, TCP dial, reset or
// TLS error code) still counts in k6's http_reqs and http_req_failed; it
// is also added to the counter connect_errors (tagged op and kind), which
// sweep subtracts from both. A VU whose requests fail to connect backs
// off (50 ms doubling to 1 s) so a dead target is not hammered.
import http from 'k6/http';
import { check, sleep } from 'k6';
import { Counter } from 'k6/metrics';

const ALL_TYPES = [
  'Patient', 'Location', 'Organization', 'Practitioner', 'Encounter',
  'Observation', 'MedicationRequest', 'Claim', 'ExplanationOfBenefit',
];
const OPS = ['create', 'read', 'update', 'delete'];
const CONNECT_KINDS = ['refused', 'dns', 'timeout', 'reset', 'tls', 'other'];

const connectErrors = new Counter('connect_errors');
let backoff = 0; // seconds; per VU, as each VU has its own copy of the script

const BASE_URL = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
const TYPES = parseTypes(__ENV.TYPES);

function parseTypes(raw) {
  if (!raw) {
    return ALL_TYPES;
  }
  const types = raw.split(',').map((t) => t.trim()).filter((t) => t !== '');
  if (types.length === 0) {
    throw new Error(`TYPES=${raw}: no resource type`);
  }
  return types;
}

function positive(name, fallback) {
  const raw = __ENV[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  const n = Number(raw);
  if (!(n > 0)) {
    throw new Error(`${name}=${raw}: want a number > 0`);
  }
  return n;
}

function closedScenario(duration, gracefulStop) {
  return {
    executor: 'constant-vus',
    vus: Math.ceil(positive('VUS', 10)),
    duration: duration,
    gracefulStop: gracefulStop,
  };
}

// openScenario gives k6's integer rate a fractional RATE by stretching
// timeUnit: 2.5/s becomes 2500 per 1000s, exact to 0.001/s. A rate that
// rounds to 0 there is refused here: k6 would stop with "the iteration
// rate must be more than 0" (exit 104).
function openScenario(duration, gracefulStop) {
  const rate = positive('RATE', undefined);
  if (rate === undefined) {
    throw new Error('MODEL=open needs RATE');
  }
  const whole = Number.isInteger(rate);
  const perUnit = whole ? rate : Math.round(rate * 1000);
  if (perUnit < 1) {
    throw new Error(`RATE=${__ENV.RATE}: want at least 0.001 iterations/s`);
  }
  const pre = Math.ceil(positive('PRE_VUS', Math.max(1, Math.min(Math.ceil(rate), 10))));
  return {
    executor: 'constant-arrival-rate',
    rate: perUnit,
    timeUnit: whole ? '1s' : '1000s',
    duration: duration,
    preAllocatedVUs: pre,
    maxVUs: Math.max(pre, Math.ceil(positive('MAX_VUS', Math.max(pre, 100)))),
    gracefulStop: gracefulStop,
  };
}

function scenario() {
  const duration = __ENV.DURATION || '30s';
  const gracefulStop = __ENV.GRACEFUL_STOP || '5s';
  const model = __ENV.MODEL || 'closed';
  if (model === 'closed') {
    return closedScenario(duration, gracefulStop);
  }
  if (model === 'open') {
    return openScenario(duration, gracefulStop);
  }
  throw new Error(`MODEL=${model}: want closed or open`);
}

// opThresholds names every op's sub-metrics (and connect_errors by kind)
// so they reach the export; the expressions hold even for an empty sink.
function opThresholds() {
  const t = {};
  for (const op of OPS) {
    t[`http_req_duration{op:${op}}`] = ['max>=0'];
    t[`http_reqs{op:${op}}`] = ['count>=0'];
    t[`http_req_failed{op:${op}}`] = ['rate>=0'];
    t[`connect_errors{op:${op}}`] = ['count>=0'];
  }
  for (const kind of CONNECT_KINDS) {
    t[`connect_errors{kind:${kind}}`] = ['count>=0'];
  }
  return t;
}

export const options = {
  scenarios: { crud: scenario() },
  thresholds: opThresholds(),
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(75)', 'p(90)', 'p(95)', 'p(99)'],
};

function ref(refs, type) {
  return refs[type] ? { reference: `${type}/${refs[type]}` } : undefined;
}

const BUILDERS = {
  Patient: () => ({
    name: [{ family: 'Sweep', given: [`VU${__VU}`] }],
    gender: 'unknown',
    birthDate: '1970-01-01',
  }),
  Location: (r) => ({ name: 'Ward A', status: 'active', managingOrganization: ref(r, 'Organization') }),
  Organization: () => ({ name: 'Sweep Clinic', active: true }),
  Practitioner: () => ({ name: [{ family: 'Load', given: ['Doctor'] }], active: true }),
  Encounter: (r) => ({
    status: 'finished',
    class: { code: 'AMB' },
    subject: ref(r, 'Patient'),
    serviceProvider: ref(r, 'Organization'),
    participant: [{ individual: ref(r, 'Practitioner') }],
    location: [{ location: ref(r, 'Location') }],
  }),
  Observation: (r) => ({
    status: 'final',
    code: { text: 'heart rate' },
    subject: ref(r, 'Patient'),
    encounter: ref(r, 'Encounter'),
    valueQuantity: { value: 72, unit: '/min' },
  }),
  MedicationRequest: (r) => ({
    status: 'active',
    intent: 'order',
    medicationCodeableConcept: { text: 'paracetamol 500 mg' },
    subject: ref(r, 'Patient'),
    encounter: ref(r, 'Encounter'),
    requester: ref(r, 'Practitioner'),
  }),
  Claim: (r) => ({
    status: 'active',
    use: 'claim',
    patient: ref(r, 'Patient'),
    provider: ref(r, 'Practitioner'),
    insurer: ref(r, 'Organization'),
    created: '2024-01-01',
    total: { value: 120, currency: 'EUR' },
  }),
  ExplanationOfBenefit: (r) => ({
    status: 'active',
    use: 'claim',
    outcome: 'complete',
    patient: ref(r, 'Patient'),
    claim: ref(r, 'Claim'),
    insurer: ref(r, 'Organization'),
    provider: ref(r, 'Practitioner'),
  }),
};

function resource(type, refs) {
  const build = BUILDERS[type] || (() => ({}));
  return Object.assign({ resourceType: type }, build(refs));
}

function params(op, type) {
  return {
    headers: { 'Content-Type': 'application/json' },
    tags: { op: op, type: type, name: `${type} ${op}` },
  };
}

// connectKind names a connection-level failure by k6's error code
// (k6 docs, "Error codes"), or returns null for an HTTP answer or any
// other error (a request timeout, 1050, is a request that failed).
function connectKind(res) {
  const c = res.status === 0 ? res.error_code : 0;
  if (c === 1212) return 'refused';
  if (c === 1100 || c === 1101) return 'dns';
  if (c === 1211) return 'timeout';
  if (c === 1201 || c === 1220) return 'reset';
  if (c >= 1300 && c < 1400) return 'tls';
  if (c === 1010 || (c >= 1100 && c < 1300)) return 'other';
  return null;
}

// sent counts a connection-level failure and paces the VU: each one
// doubles its backoff (from 50 ms, at most 1 s), an answer resets it.
function sent(res, op) {
  const kind = connectKind(res);
  if (kind === null) {
    backoff = 0;
    return res;
  }
  connectErrors.add(1, { op: op, kind: kind });
  backoff = Math.min(1, backoff === 0 ? 0.05 : backoff * 2);
  sleep(backoff);
  return res;
}

function idOf(res) {
  try {
    return res.json('id') || null;
  } catch (e) {
    return null;
  }
}

export default function () {
  const refs = {};
  const created = [];
  for (const type of TYPES) {
    const res = sent(http.post(`${BASE_URL}/${type}`, JSON.stringify(resource(type, refs)), params('create', type)), 'create');
    check(res, { 'create status 201': (r) => r.status === 201 }, { op: 'create', type: type });
    const id = res.status === 201 ? idOf(res) : null;
    if (id) {
      refs[type] = id;
      created.push({ type: type, id: id });
    }
  }
  for (const c of created) {
    const res = sent(http.get(`${BASE_URL}/${c.type}/${c.id}`, params('read', c.type)), 'read');
    check(res, { 'read status 200': (r) => r.status === 200 }, { op: 'read', type: c.type });
  }
  for (const c of created) {
    const body = Object.assign(resource(c.type, refs), { id: c.id, meta: { tag: [{ code: 'updated' }] } });
    const res = sent(http.put(`${BASE_URL}/${c.type}/${c.id}`, JSON.stringify(body), params('update', c.type)), 'update');
    check(res, { 'update status 200': (r) => r.status === 200 }, { op: 'update', type: c.type });
  }
  for (const c of created.slice().reverse()) {
    const res = sent(http.del(`${BASE_URL}/${c.type}/${c.id}`, null, params('delete', c.type)), 'delete');
    check(res, { 'delete status 204': (r) => r.status === 204 }, { op: 'delete', type: c.type });
  }
}
