#!/usr/bin/env python3
"""Generates input.json (deterministic): an order export in which one item's
quantity was serialised as a string ("2") instead of a number."""
import json
import random

rng = random.Random(42)
products = [("SKU-1001", "USB-C cable 2m", 9.99), ("SKU-1002", "Laptop stand", 49.5),
            ("SKU-1003", "Wireless mouse", 24.9), ("SKU-1040", "27in monitor", 289.0),
            ("SKU-1041", "Keyboard (DE)", 79.0), ("SKU-1042", "Webcam 1080p", 59.95)]
orders = []
for i in range(7):
    items = []
    for sku, name, price in rng.sample(products, rng.randint(1, 3)):
        items.append({"sku": sku, "name": name, "qty": rng.randint(1, 5), "unit_price": price})
    orders.append({
        "id": "ORD-%05d" % (20310 + i),
        "placed_at": "2024-05-%02dT%02d:%02d:00Z" % (i + 3, rng.randint(8, 20), rng.randint(0, 59)),
        "customer": {"id": "cus_%04d" % rng.randint(1, 9999), "email": "buyer%d@example.com" % i,
                     "vip": rng.random() < 0.3},
        "shipping": {"method": rng.choice(["standard", "express"]), "country": rng.choice(["DE", "FR", "NL"])},
        "items": items,
        "tags": rng.sample(["gift", "b2b", "repeat", "promo"], rng.randint(0, 2)),
    })
orders[5]["items"][-1]["qty"] = "2"
doc = {"export": {"version": 3, "generated_at": "2024-05-12T06:00:00Z", "source": "shop-eu-1"},
       "currency": "EUR", "orders": orders}
with open("input.json", "w") as f:
    f.write(json.dumps(doc, indent=2) + "\n")
