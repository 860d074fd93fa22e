// The Node.js example service: the demo's FHIR-like CRUD API (cmd/demoapp)
// on the same schema, so k6scripts/crud.js and sweep's built-in driver run
// unchanged. The primary creates the schema and forks BOX_WEB_THREAD
// cluster workers, each one event loop with a pg Pool of at most
// BOX_DB_POOL_MAXIMUM_POOL_SIZE connections: the database sees up to
// workers x pool sessions. /health reports them as the processes hold
// them: the worker answering asks the primary, which asks every live
// worker for its own pool's figures over the cluster's IPC channel.
'use strict';

const cluster = require('node:cluster');
const crypto = require('node:crypto');
const http = require('node:http');
const { Pool } = require('pg');

const types = ['Patient', 'Location', 'Organization', 'Practitioner', 'Encounter',
  'Observation', 'MedicationRequest', 'Claim', 'ExplanationOfBenefit'];
const maxBody = 1 << 20;
// how long a request waits for a pool connection before it is answered 503
// (cmd/demoapp's acquire timeout)
const acquireMs = 2000;
// how long the primary waits for the workers' pool figures for /health;
// a worker busier than that is counted in pools_missing
const gatherMs = 500;

function intEnv(name, def) {
  const v = parseInt(process.env[name] || String(def), 10);
  if (!(v >= 1)) {
    console.error(`${name}=${process.env[name]} is not a whole number >= 1`);
    process.exit(2);
  }
  return v;
}

const cfg = {
  workers: intEnv('BOX_WEB_THREAD', 2),
  pool: intEnv('BOX_DB_POOL_MAXIMUM_POOL_SIZE', 4),
  port: intEnv('PORT', 8080),
  instance: process.env.BOX_INSTANCE_NAME || '',
  dsn: process.env.DATABASE_URL || 'postgres://sweep:sweep@db:5432/sweep',
};

// migrate creates the nine tables, retrying every 500 ms for 60 s while
// the database is not up.
async function migrate() {
  const sql = types.map((t) =>
    `CREATE TABLE IF NOT EXISTS ${t.toLowerCase()} (id text PRIMARY KEY, resource jsonb NOT NULL);`).join('\n');
  const pool = new Pool({ connectionString: cfg.dsn, max: 1 });
  const until = Date.now() + 60000;
  for (;;) {
    try {
      await pool.query(sql);
      await pool.end();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

// gatherPools asks every live worker for its pool's figures and sends
// them to worker from (its request req) once all answered or gatherMs
// passed.
let gathers = 0;
const gathering = new Map();
function gatherPools(from, req) {
  const id = ++gathers;
  const live = Object.values(cluster.workers).filter((w) => w.isConnected());
  const g = { want: live.length, pools: [] };
  g.done = () => {
    clearTimeout(g.timer);
    gathering.delete(id);
    g.pools.sort((a, b) => a.worker - b.worker);
    if (from.isConnected()) {
      from.send({ type: 'pools', req, live: live.length, missing: live.length - g.pools.length, pools: g.pools });
    }
  };
  g.timer = setTimeout(g.done, gatherMs);
  gathering.set(id, g);
  for (const w of live) w.send({ type: 'pool?', gather: id });
}

function primary() {
  cluster.on('message', (w, msg) => {
    if (msg.type === 'pools?') return gatherPools(w, msg.req);
    const g = msg.type === 'pool' && gathering.get(msg.gather);
    if (!g) return;
    g.pools.push(msg.pool);
    if (g.pools.length === g.want) g.done();
  });
  console.log(`node ${process.version}: ${cfg.workers} worker(s) x pool ${cfg.pool} = ` +
    `up to ${cfg.workers * cfg.pool} database sessions`);
  migrate().then(() => {
    for (let i = 0; i < cfg.workers; i++) cluster.fork();
    cluster.on('exit', (w, code, signal) => {
      console.error(`worker ${w.process.pid} exited (${signal || code}); starting another`);
      cluster.fork();
    });
  }, (err) => {
    console.error(`create schema: ${err.message}`);
    process.exit(1);
  });
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
}

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(body);
}

function sendError(res, status, msg) { send(res, status, JSON.stringify({ error: msg })); }

function readObject(req) {
  return new Promise((resolve) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= maxBody) chunks.push(c);
    });
    req.on('end', () => {
      if (size > maxBody) return resolve(null);
      try {
        const v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        resolve(v !== null && typeof v === 'object' && !Array.isArray(v) ? v : null);
      } catch {
        resolve(null);
      }
    });
    req.on('error', () => resolve(null));
  });
}

// poolFigures is this worker's pool as pg's Pool holds it: its max, the
// clients it has open (totalCount), idle among them, and queries waiting
// for one.
function poolFigures(pool) {
  return { worker: cluster.worker.id, pid: process.pid, pool_max: pool.options.max,
    pool_total: pool.totalCount, pool_idle: pool.idleCount, pool_waiting: pool.waitingCount };
}

// askPools asks the primary for every worker's pool figures; it resolves
// to the primary's answer, or null after 2 x gatherMs without one.
let asks = 0;
const asking = new Map();
function askPools() {
  if (!process.connected) return Promise.resolve(null);
  return new Promise((resolve) => {
    const req = ++asks;
    const timer = setTimeout(() => {
      asking.delete(req);
      resolve(null);
    }, 2 * gatherMs);
    asking.set(req, (m) => {
      clearTimeout(timer);
      resolve(m);
    });
    process.send({ type: 'pools?', req });
  });
}

// health runs SELECT 1 on this worker's pool and reports the settings as
// the processes hold them: the workers the primary has (workers_live),
// each one's pool (pools; a worker that did not answer in time counts in
// pools_missing) and the settings read from the environment.
async function health(pool, res) {
  const [, m] = await Promise.all([pool.query('SELECT 1'), askPools()]);
  const h = { status: 'pass', workers: cfg.workers, pool: cfg.pool, worker: cluster.worker.id, pid: process.pid };
  if (m) Object.assign(h, { workers_live: m.live, pools_missing: m.missing, pools: m.pools });
  else h.pools_error = `no answer from the primary within ${2 * gatherMs} ms`;
  send(res, 200, JSON.stringify(h));
}

// route answers one request; pool errors become 503 (no connection in
// time) or 500.
async function route(pool, req, res) {
  const path = req.url.split('?')[0];
  if (req.method === 'GET' && path === '/health') return health(pool, res);
  const parts = path.split('/');
  const typ = parts[1];
  if (!types.includes(typ) || parts.length > 3) return sendError(res, 404, `unknown resource type ${typ}`);
  const table = typ.toLowerCase();
  const id = parts[2];
  if (id === undefined && req.method === 'POST') {
    const doc = await readObject(req);
    if (!doc) return sendError(res, 400, 'body must be a JSON object');
    doc.id = crypto.randomUUID();
    const body = JSON.stringify(doc);
    await pool.query(`INSERT INTO ${table} (id, resource) VALUES ($1, $2::jsonb)`, [doc.id, body]);
    res.setHeader('Location', `/${typ}/${doc.id}`);
    return send(res, 201, body);
  }
  if (!id) return sendError(res, 405, 'method not allowed');
  switch (req.method) {
    case 'GET': {
      const r = await pool.query(`SELECT resource::text AS doc FROM ${table} WHERE id = $1`, [id]);
      return r.rowCount ? send(res, 200, r.rows[0].doc) : sendError(res, 404, 'not found');
    }
    case 'PUT': {
      const doc = await readObject(req);
      if (!doc) return sendError(res, 400, 'body must be a JSON object');
      doc.id = id;
      const body = JSON.stringify(doc);
      const r = await pool.query(`UPDATE ${table} SET resource = $2::jsonb WHERE id = $1`, [id, body]);
      return r.rowCount ? send(res, 200, body) : sendError(res, 404, 'not found');
    }
    case 'DELETE': {
      const r = await pool.query(`DELETE FROM ${table} WHERE id = $1`, [id]);
      if (!r.rowCount) return sendError(res, 404, 'not found');
      res.writeHead(204);
      return res.end();
    }
    default:
      return sendError(res, 405, 'method not allowed');
  }
}

function worker() {
  const pool = new Pool({ connectionString: cfg.dsn, max: cfg.pool, connectionTimeoutMillis: acquireMs });
  pool.on('error', (err) => console.error(`idle connection: ${err.message}`));
  process.on('message', (msg) => {
    if (msg.type === 'pool?' && process.connected) {
      process.send({ type: 'pool', gather: msg.gather, pool: poolFigures(pool) });
      return;
    }
    const done = msg.type === 'pools' && asking.get(msg.req);
    if (!done) return;
    asking.delete(msg.req);
    done(msg);
  });
  const server = http.createServer((req, res) => {
    if (cfg.instance) res.setHeader('X-Instance', cfg.instance);
    route(pool, req, res).catch((err) => {
      if (res.headersSent) return res.destroy();
      const busy = /timeout exceeded when trying to connect/i.test(err.message);
      if (!busy) console.error(`${req.method} ${req.url}: ${err.message}`);
      sendError(res, busy ? 503 : 500, busy ? 'no pool connection within 2s' : 'database error');
    });
  });
  server.keepAliveTimeout = 65000;
  // answer a client that half-closes after its request (the healthcheck's
  // busybox nc does) instead of dropping it: Node's default aborts it
  server.httpAllowHalfOpen = true;
  server.listen(cfg.port);
  process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
}

if (cluster.isPrimary) primary();
else worker();
