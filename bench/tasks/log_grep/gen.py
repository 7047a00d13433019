#!/usr/bin/env python3
"""Generates input.log (deterministic): ~500 lines of a web service log with
the three target lines (in order) plus decoys in the wrong order."""
import random

rng = random.Random(20240517)
svc = ["api", "db", "cache", "auth", "worker", "main"]
paths = ["/v1/orders", "/v1/users", "/v1/cart", "/v1/search", "/healthz"]
methods = ["GET", "GET", "GET", "POST", "PUT", "DELETE"]
out = []
t = 8 * 3600


def ts():
    global t
    t += rng.randint(0, 3)
    return "2024-05-17T%02d:%02d:%02d.%03dZ" % (t // 3600, t // 60 % 60, t % 60, rng.randint(0, 999))


def noise():
    s = rng.choice(svc)
    r = rng.random()
    if s == "api":
        m, p = rng.choice(methods), rng.choice(paths)
        if p == "/v1/orders" and m != "GET":
            p += "/%d" % rng.randint(1000, 9999)
        return "INFO  [api] %s %s %d %dms" % (m, p, rng.choice([200, 200, 200, 201, 204, 404]), rng.randint(2, 300))
    if s == "db":
        if r < 0.15:
            return "WARN  [db] slow query (%dms): SELECT * FROM orders WHERE id = $1" % rng.randint(500, 3000)
        return "DEBUG [db] pool stats active=%d idle=%d waiting=%d" % (rng.randint(1, 32), rng.randint(0, 10), rng.randint(0, 4))
    if s == "cache":
        return "DEBUG [cache] %s key=user:%d ttl=%ds" % (rng.choice(["hit", "miss", "evict"]), rng.randint(1, 5000), rng.choice([60, 300, 3600]))
    if s == "auth":
        return "INFO  [auth] token %s for user %d" % (rng.choice(["issued", "refreshed", "revoked"]), rng.randint(1, 5000))
    if s == "worker":
        if r < 0.1:
            return "WARN  [worker] retry %d/3 for job email-%d" % (rng.randint(1, 3), rng.randint(1, 900))
        return "INFO  [worker] job %s-%d done in %dms" % (rng.choice(["email", "invoice", "thumbnail"]), rng.randint(1, 900), rng.randint(5, 900))
    return "INFO  [main] heartbeat ok uptime=%ds" % (t - 8 * 3600)


specials = {
    60: "WARN  [api] retry 3/3 for POST /v1/orders/4711 (upstream timeout)",   # decoy: before the ERROR
    95: "FATAL [worker] shutting down: out of memory in child 3 (restarted)",  # decoy: before the ERROR
    210: "ERROR [db] connection pool exhausted (max=32, waiting=17)",
    260: "WARN  [api] retry 2/3 for POST /v1/orders/5120 (upstream timeout)",
    305: "WARN  [api] retry 3/3 for PUT /v1/orders/5120 (upstream timeout)",
    350: "ERROR [api] 503 for POST /v1/orders/5120 after 3 retries",
    455: "FATAL [main] shutting down: health check failed 5 times",
}
for i in range(500):
    out.append("%s %s" % (ts(), specials.get(i) or noise()))
with open("input.log", "w") as f:
    f.write("\n".join(out) + "\n")
