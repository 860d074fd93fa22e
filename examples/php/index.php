<?php
// The PHP example service: the demo's FHIR-like CRUD API (cmd/demoapp) on
// the same schema, so k6scripts/crud.js and sweep's built-in driver run
// unchanged. Every request is one PHP-FPM child (pm.max_children of them,
// BOX_WEB_THREAD) opening its own connection to PgBouncer: PHP has no pool
// of its own, the pool is PgBouncer's default_pool_size.
declare(strict_types=1);

const TYPES = ['Patient', 'Location', 'Organization', 'Practitioner', 'Encounter',
    'Observation', 'MedicationRequest', 'Claim', 'ExplanationOfBenefit'];
const SCHEMA_DONE = '/tmp/schema-created';

function reply(int $status, string $body): void
{
    http_response_code($status);
    header('Content-Type: application/json');
    echo $body;
}

function fail(int $status, string $msg): void
{
    reply($status, json_encode(['error' => $msg]));
}

function db()
{
    $dsn = getenv('PG_CONNINFO') ?: 'host=pgbouncer port=6432 dbname=sweep user=sweep password=sweep';
    $c = @pg_connect($dsn . ' connect_timeout=2', PGSQL_CONNECT_FORCE_NEW);
    if ($c === false) {
        throw new RuntimeException('connect: ' . (error_get_last()['message'] ?? 'failed'));
    }
    return $c;
}

function query($c, string $sql, array $args)
{
    $r = @pg_query_params($c, $sql, $args);
    if ($r === false) {
        throw new RuntimeException(pg_last_error($c));
    }
    return $r;
}

// readObject is the request body as a JSON object, or null.
function readObject(): ?stdClass
{
    $v = json_decode(file_get_contents('php://input', false, null, 0, 1 << 20) ?: '');
    return $v instanceof stdClass ? $v : null;
}

function uuid(): string
{
    $b = random_bytes(16);
    $b[6] = chr(ord($b[6]) & 0x0f | 0x40);
    $b[8] = chr(ord($b[8]) & 0x3f | 0x80);
    return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($b), 4));
}

// health answers once the database answers; the first one creates the
// tables (IF NOT EXISTS), so a healthy service has its schema.
function health(): void
{
    $c = db();
    if (!file_exists(SCHEMA_DONE)) {
        foreach (TYPES as $t) {
            query($c, 'CREATE TABLE IF NOT EXISTS ' . strtolower($t) . ' (id text PRIMARY KEY, resource jsonb NOT NULL)', []);
        }
        touch(SCHEMA_DONE);
    }
    query($c, 'SELECT 1', []);
    reply(200, json_encode(['status' => 'pass', 'max_children' => (int) getenv('BOX_WEB_THREAD')]));
}

function route(string $method, string $path): void
{
    if ($method === 'GET' && $path === '/health') {
        health();
        return;
    }
    $parts = explode('/', $path);
    $typ = $parts[1] ?? '';
    if (!in_array($typ, TYPES, true) || count($parts) > 3) {
        fail(404, "unknown resource type $typ");
        return;
    }
    $table = strtolower($typ);
    $id = $parts[2] ?? null;
    if ($id === null && $method === 'POST') {
        $doc = readObject();
        if ($doc === null) {
            fail(400, 'body must be a JSON object');
            return;
        }
        $doc->id = uuid();
        $body = json_encode($doc);
        query(db(), "INSERT INTO $table (id, resource) VALUES ($1, $2::jsonb)", [$doc->id, $body]);
        header("Location: /$typ/{$doc->id}");
        reply(201, $body);
        return;
    }
    if ($id === null || $id === '') {
        fail(405, 'method not allowed');
        return;
    }
    switch ($method) {
        case 'GET':
            $r = query(db(), "SELECT resource::text FROM $table WHERE id = $1", [$id]);
            $row = pg_fetch_row($r);
            $row ? reply(200, $row[0]) : fail(404, 'not found');
            return;
        case 'PUT':
            $doc = readObject();
            if ($doc === null) {
                fail(400, 'body must be a JSON object');
                return;
            }
            $doc->id = $id;
            $body = json_encode($doc);
            $r = query(db(), "UPDATE $table SET resource = $2::jsonb WHERE id = $1", [$id, $body]);
            pg_affected_rows($r) ? reply(200, $body) : fail(404, 'not found');
            return;
        case 'DELETE':
            $r = query(db(), "DELETE FROM $table WHERE id = $1", [$id]);
            if (pg_affected_rows($r)) {
                http_response_code(204);
            } else {
                fail(404, 'not found');
            }
            return;
    }
    fail(405, 'method not allowed');
}

$instance = getenv('BOX_INSTANCE_NAME');
if ($instance) {
    header("X-Instance: $instance");
}
try {
    route($_SERVER['REQUEST_METHOD'], parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?: '/');
} catch (Throwable $e) {
    error_log($_SERVER['REQUEST_METHOD'] . ' ' . $_SERVER['REQUEST_URI'] . ': ' . $e->getMessage());
    fail(503, 'database: ' . $e->getMessage());
}
