// The JVM example service: the demo's FHIR-like CRUD API (cmd/demoapp) on
// the same schema, so k6scripts/crud.js and sweep's built-in driver run
// unchanged. A thread-per-request server: Jetty 9.4's QueuedThreadPool runs
// every request on one of BOX_WEB_THREAD threads (the rest wait in the
// pool's queue), and each request borrows a JDBC connection from a HikariCP
// pool of exactly BOX_DB_POOL_MAXIMUM_POOL_SIZE connections (minimumIdle =
// maximumPoolSize: a fixed-size pool, opened in full before the server
// listens). The JSON work is PostgreSQL's: a body is cast to jsonb (an
// invalid one is a 400), the id set with ||, the stored document returned.
//
// Built by compose/demo/images.sh jvm with the javac of the image's own
// Debian JRE (the jdk.compiler module), against Debian's jars.

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.AbstractHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

public final class App extends AbstractHandler {
    static final List<String> TYPES = List.of("Patient", "Location", "Organization", "Practitioner",
            "Encounter", "Observation", "MedicationRequest", "Claim", "ExplanationOfBenefit");
    static final int MAX_BODY = 1 << 20;
    // how long a request waits for a pool connection before it is answered
    // 503 (cmd/demoapp's acquire timeout): HikariCP's connectionTimeout
    static final long ACQUIRE_MS = 2000;
    // Jetty threads that never run a request: the connector's acceptor and
    // its selector, each holding a thread of the pool for the server's life
    static final int ACCEPTORS = 1, SELECTORS = 1;
    // PostgreSQL's invalid_text_representation: the body is no JSON
    static final String BAD_JSON = "22P02";

    final HikariDataSource db;
    final QueuedThreadPool threads;
    final int web, pool;
    final String instance;

    App(HikariDataSource db, QueuedThreadPool threads, int web, int pool, String instance) {
        this.db = db;
        this.threads = threads;
        this.web = web;
        this.pool = pool;
        this.instance = instance;
    }

    static int intEnv(String name, int def) {
        String s = System.getenv(name);
        try {
            int v = s == null || s.isEmpty() ? def : Integer.parseInt(s.trim());
            if (v >= 1) return v;
        } catch (NumberFormatException e) {
            // reported below
        }
        System.err.println(name + "=" + s + " is not a whole number >= 1");
        System.exit(2);
        return 0;
    }

    // hikari turns DATABASE_URL (postgres://user:password@host:port/db) into
    // the pool's settings: JDBC URL, user, password and the pool's size.
    static HikariConfig hikari(String url, int size) {
        URI u = URI.create(url);
        String[] user = (u.getRawUserInfo() == null ? "" : u.getUserInfo()).split(":", 2);
        HikariConfig c = new HikariConfig();
        c.setPoolName("db");
        c.setJdbcUrl("jdbc:postgresql://" + u.getHost() + ":" + (u.getPort() < 0 ? 5432 : u.getPort())
                + u.getPath() + "?sslmode=disable&ApplicationName=sweep-example-jvm");
        c.setUsername(user[0]);
        if (user.length > 1) c.setPassword(user[1]);
        c.setMaximumPoolSize(size);
        c.setMinimumIdle(size);
        c.setConnectionTimeout(ACQUIRE_MS);
        // keep trying the first connection for 60 s while the database starts
        c.setInitializationFailTimeout(60_000);
        return c;
    }

    public static void main(String[] args) throws Exception {
        int web = intEnv("BOX_WEB_THREAD", 2);
        int pool = intEnv("BOX_DB_POOL_MAXIMUM_POOL_SIZE", 4);
        int port = intEnv("PORT", 8080);
        String url = System.getenv().getOrDefault("DATABASE_URL", "postgres://sweep:sweep@db:5432/sweep");
        HikariDataSource db = new HikariDataSource(hikari(url, pool));
        migrate(db);
        // minimumIdle = maximumPoolSize: HikariCP opens the rest in the
        // background; the server listens once all of them are open
        HikariPoolMXBean stats = db.getHikariPoolMXBean();
        long until = System.nanoTime() + 60_000_000_000L;
        while (stats.getTotalConnections() < pool) {
            if (System.nanoTime() > until) {
                System.err.println("the pool opened " + stats.getTotalConnections() + " of " + pool + " connections in 60 s");
                System.exit(1);
            }
            Thread.sleep(20);
        }

        int max = web + ACCEPTORS + SELECTORS;
        QueuedThreadPool threads = new QueuedThreadPool(max, max);
        threads.setName("web");
        // no reserved threads: the selector hands each request to a pool
        // thread, so exactly BOX_WEB_THREAD threads run requests
        threads.setReservedThreads(0);
        Server server = new Server(threads);
        ServerConnector http = new ServerConnector(server, ACCEPTORS, SELECTORS);
        http.setPort(port);
        http.setAcceptQueueSize(4096);
        server.addConnector(http);
        App app = new App(db, threads, web, pool, System.getenv().getOrDefault("BOX_INSTANCE_NAME", ""));
        server.setHandler(app);
        server.setStopAtShutdown(true);
        server.start();
        // the applied settings as the runtime holds them, read back live
        System.out.println(String.format(Locale.ROOT,
                "jvm %s, Jetty %s: thread pool max %d (%d request threads + %d acceptor + %d selector), "
                        + "HikariCP maximumPoolSize %d minimumIdle %d, %d connections open, %d CPU(s) seen",
                Runtime.version(), Server.getVersion(), threads.getMaxThreads(), web, ACCEPTORS, SELECTORS,
                db.getMaximumPoolSize(), db.getMinimumIdle(), stats.getTotalConnections(),
                Runtime.getRuntime().availableProcessors()));
        server.join();
        db.close();
    }

    static void migrate(HikariDataSource db) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            for (String t : TYPES) {
                s.execute("CREATE TABLE IF NOT EXISTS " + t.toLowerCase(Locale.ROOT)
                        + " (id text PRIMARY KEY, resource jsonb NOT NULL)");
            }
        }
    }

    @Override
    public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse res)
            throws IOException {
        base.setHandled(true);
        if (!instance.isEmpty()) res.setHeader("X-Instance", instance);
        String method = req.getMethod();
        try {
            route(method, target, req, res);
        } catch (SQLTransientConnectionException e) {
            error(res, 503, "no pool connection within 2s");
        } catch (SQLException e) {
            if (BAD_JSON.equals(e.getSQLState())) {
                error(res, 400, "body must be a JSON object");
                return;
            }
            System.err.println(method + " " + target + ": " + e.getMessage());
            error(res, 500, "database error");
        }
    }

    void route(String method, String path, HttpServletRequest req, HttpServletResponse res)
            throws IOException, SQLException {
        if (path.equals("/health") && method.equals("GET")) {
            health(res);
            return;
        }
        String[] parts = path.split("/", -1);
        String typ = parts.length > 1 ? parts[1] : "";
        if (!TYPES.contains(typ) || parts.length > 3) {
            error(res, 404, "unknown resource type " + typ);
            return;
        }
        String table = typ.toLowerCase(Locale.ROOT);
        String id = parts.length > 2 ? parts[2] : null;
        if (id == null && method.equals("POST")) {
            String body = readObject(req);
            if (body == null) {
                error(res, 400, "body must be a JSON object");
                return;
            }
            id = UUID.randomUUID().toString();
            String doc = one("INSERT INTO " + table + " (id, resource) VALUES (?, ?::jsonb || jsonb_build_object('id', ?::text)) "
                    + "RETURNING resource::text", id, body, id);
            res.setHeader("Location", "/" + typ + "/" + id);
            send(res, 201, doc);
            return;
        }
        if (id == null || id.isEmpty()) {
            error(res, 405, "method not allowed");
            return;
        }
        switch (method) {
            case "GET": {
                String doc = one("SELECT resource::text FROM " + table + " WHERE id = ?", id);
                if (doc == null) error(res, 404, "not found");
                else send(res, 200, doc);
                return;
            }
            case "PUT": {
                String body = readObject(req);
                if (body == null) {
                    error(res, 400, "body must be a JSON object");
                    return;
                }
                String doc = one("UPDATE " + table + " SET resource = ?::jsonb || jsonb_build_object('id', ?::text) "
                        + "WHERE id = ? RETURNING resource::text", body, id, id);
                if (doc == null) error(res, 404, "not found");
                else send(res, 200, doc);
                return;
            }
            case "DELETE": {
                if (one("DELETE FROM " + table + " WHERE id = ? RETURNING id", id) == null) error(res, 404, "not found");
                else res.setStatus(204);
                return;
            }
            default:
                error(res, 405, "method not allowed");
        }
    }

    // health answers once a pool connection runs SELECT 1, with the live
    // thread pool's and connection pool's figures.
    void health(HttpServletResponse res) throws IOException, SQLException {
        one("SELECT 1");
        HikariPoolMXBean p = db.getHikariPoolMXBean();
        send(res, 200, String.format(Locale.ROOT,
                "{\"status\":\"pass\",\"web_threads\":%d,\"threads_max\":%d,\"threads\":%d,\"threads_busy\":%d,"
                        + "\"pool\":%d,\"pool_max\":%d,\"pool_min_idle\":%d,\"pool_total\":%d,\"pool_active\":%d,"
                        + "\"pool_idle\":%d,\"pool_waiting\":%d}",
                web, threads.getMaxThreads(), threads.getThreads(), threads.getBusyThreads(), pool,
                db.getMaximumPoolSize(), db.getMinimumIdle(), p.getTotalConnections(), p.getActiveConnections(),
                p.getIdleConnections(), p.getThreadsAwaitingConnection()));
    }

    // one runs sql with args on a pool connection and returns the first
    // column of its first row, or null when there is none.
    String one(String sql, String... args) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) ps.setString(i + 1, args[i]);
            try (ResultSet r = ps.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        }
    }

    // readObject returns the body when it can be a JSON object (its first
    // character is '{'; PostgreSQL's cast rejects the rest) and is at most
    // MAX_BODY bytes, else null.
    static String readObject(HttpServletRequest req) throws IOException {
        byte[] b = req.getInputStream().readNBytes(MAX_BODY + 1);
        if (b.length > MAX_BODY) return null;
        String s = new String(b, StandardCharsets.UTF_8).strip();
        return s.startsWith("{") ? s : null;
    }

    static void send(HttpServletResponse res, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        res.setStatus(status);
        res.setContentType("application/json");
        res.setContentLength(b.length);
        res.getOutputStream().write(b);
    }

    static void error(HttpServletResponse res, int status, String msg) throws IOException {
        StringBuilder b = new StringBuilder("{\"error\":\"");
        for (char ch : msg.toCharArray()) {
            if (ch == '"' || ch == '\\') b.append('\\').append(ch);
            else if (ch < 0x20) b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
            else b.append(ch);
        }
        send(res, status, b.append("\"}").toString());
    }
}
