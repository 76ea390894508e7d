#!/usr/bin/env python3
"""Deterministic order dumps in the shape of the orders dataset, for samples, tests and benchmarks.

    generate_orders.py --count N [--seed S] [--format json|ndjson] [--gzip] [--broken] OUT

`json` is a top-level array with one order per line, `ndjson` one order per line.
`--broken` (ndjson only) replaces a dozen records with every kind of damage the orders contract
names: null, missing field, unknown status, amount beyond Int64, fractional amount, numeric id,
empty items, zero quantity, negative price, bad currency, impossible date, malformed JSON.
Output streams to the file, so any N runs in constant memory; gzip output has mtime 0, so the same
arguments always give the same bytes.
"""
import argparse
import datetime
import gzip
import json
import random

STATUSES = ["pending", "completed", "completed", "completed", "cancelled"]
CURRENCIES = ["EUR", "EUR", "USD", "GBP", "JPY", "CHF"]
FIRST = ["Zoë", "Ana", "李", "Olu", "Søren", "Chloé", "Mateus", "Aiko", "Ngozi", "Émile", "Ingrid", "Rahul"]
LAST = ["Müller", "Lima", "雷", "Adeyemi", "Kierkegaard", "Martin", "Souza", "Tanaka", "Okafor", "Zola", "Berg", "Mehta"]
EPOCH = datetime.datetime(2023, 1, 1, tzinfo=datetime.timezone.utc)


def order(index, rng, customers):
    customer_id = rng.randrange(1, customers + 1)
    name = f"{FIRST[customer_id % len(FIRST)]} {LAST[(customer_id * 7) % len(LAST)]}"
    items = [
        {"sku": f"SKU-{rng.randrange(100000):05d}", "qty": rng.randint(1, 9), "priceMinor": rng.randrange(50, 500000)}
        for _ in range(rng.randint(1, 5))
    ]
    created = EPOCH + datetime.timedelta(seconds=index * 37 + rng.randrange(37))
    stamp = created.strftime("%Y-%m-%dT%H:%M:%S")
    if index % 3 == 0:
        stamp += f".{rng.randrange(1000):03d}"
    return {
        "orderId": f"{index + 1:010d}",
        "amount": sum(item["qty"] * item["priceMinor"] for item in items),
        "currency": rng.choice(CURRENCIES),
        "status": rng.choice(STATUSES),
        "createdAt": stamp + "Z",
        "customer": {"id": customer_id, "name": name},
        "items": items,
    }


DAMAGE = [
    "null-status", "missing-currency", "unknown-status", "amount-beyond-int64", "fractional-amount",
    "numeric-id", "empty-items", "zero-quantity", "negative-price", "bad-currency", "impossible-date",
    "malformed",
]


def damaged(record, kind):
    if kind == "null-status":
        record["status"] = None
    elif kind == "missing-currency":
        del record["currency"]
    elif kind == "unknown-status":
        record["status"] = "refunded"
    elif kind == "amount-beyond-int64":
        record["amount"] = 9223372036854775808
    elif kind == "fractional-amount":
        record["amount"] = 1234.5
    elif kind == "numeric-id":
        record["orderId"] = int(record["orderId"])
    elif kind == "empty-items":
        record["items"] = []
    elif kind == "zero-quantity":
        record["items"][0]["qty"] = 0
    elif kind == "negative-price":
        record["items"][-1]["priceMinor"] = -100
    elif kind == "bad-currency":
        record["currency"] = "eur"
    elif kind == "impossible-date":
        record["createdAt"] = "2023-02-30T10:00:00Z"
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    if kind == "malformed":
        text = text[: len(text) // 2]
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--customers", type=int, default=0, help="distinct customers (default count/4)")
    parser.add_argument("--format", choices=["json", "ndjson"], default="json")
    parser.add_argument("--gzip", action="store_true")
    parser.add_argument("--broken", action="store_true")
    parser.add_argument("out")
    args = parser.parse_args()
    if args.broken and args.format != "ndjson":
        parser.error("--broken needs --format ndjson")
    rng = random.Random(args.seed)
    customers = args.customers or max(args.count // 4, 1)
    raw = open(args.out, "wb")
    out = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) if args.gzip else raw
    damage = {}
    if args.broken:
        step = max(args.count // (len(DAMAGE) + 1), 1)
        damage = {step * (n + 1) - 1: kind for n, kind in enumerate(DAMAGE)}
    if args.format == "json":
        out.write(b"[\n")
    for index in range(args.count):
        record = order(index, rng, customers)
        if index in damage:
            text = damaged(record, damage[index])
        else:
            text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        if args.format == "ndjson":
            out.write(text.encode() + b"\n")
        else:
            out.write(text.encode() + (b",\n" if index + 1 < args.count else b"\n"))
    if args.format == "json":
        out.write(b"]\n")
    if out is not raw:
        out.close()
    raw.close()


if __name__ == "__main__":
    main()
