#!/usr/bin/env python3
"""Generates input.json (deterministic): an order export with one order per
line, in which one item's quantity was serialised as a string ("2")."""
import json
import random

rng = random.Random(42)
skus = [("SKU-1001", 9.99), ("SKU-1002", 49.5), ("SKU-1003", 24.9), ("SKU-1040", 289.0),
        ("SKU-1041", 79.0), ("SKU-1042", 59.95)]
N = 190
lines = ['{', '  "export": {"version": 3, "generated_at": "2024-05-12T06:00:00Z", "source": "shop-eu-1"},',
         '  "currency": "EUR",', '  "orders": [']
for i in range(N):
    items = [{"sku": s, "qty": rng.randint(1, 5), "unit_price": p} for s, p in rng.sample(skus, rng.randint(1, 2))]
    if i == 117:
        items[-1]["qty"] = "2"
    order = {"id": "ORD-%05d" % (20310 + i), "customer": "cus_%04d" % rng.randint(1, 9999),
             "ship": rng.choice(["DE", "FR", "NL"]), "items": items}
    lines.append("    " + json.dumps(order) + ("," if i < N - 1 else ""))
lines += ['  ]', '}']
text = "\n".join(lines) + "\n"
json.loads(text)
with open("input.json", "w") as f:
    f.write(text)
