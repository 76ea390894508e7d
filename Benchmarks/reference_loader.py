#!/usr/bin/env python3
"""The Python standard-library reference loader for orders: gzip + json + sqlite3.executemany,
normalized exactly as Sluice normalizes (same schema, customers upserted with the last name
winning, orders upserted with their items replaced, timestamps as UTC text with milliseconds).

    reference_loader.py --schema SCHEMA.sql --input orders.json.gz|orders.ndjson.gz --db DATABASE

It is both a benchmark contender (Benchmarks/run) and the oracle a test compares Sluice's tables
with, row for row. It does not stream a JSON array: json.load reads the whole document, which is
what such a loader does.
"""
import argparse
import datetime
import gzip
import json
import sqlite3

STATUSES = {"pending": (1, 0), "completed": (2, 1), "cancelled": (3, 1)}


def timestamp(text):
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(datetime.timezone.utc)
    milliseconds = round(moment.microsecond / 1000)
    moment = moment.replace(microsecond=0) + datetime.timedelta(milliseconds=milliseconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def records(path):
    with gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8") as file:
        if ".ndjson" in path:
            for line in file:
                if line.strip():
                    yield json.loads(line)
        else:
            yield from json.load(file)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schema", required=True)
    parser.add_argument("--input", required=True)
    parser.add_argument("--db", required=True)
    args = parser.parse_args()
    db = sqlite3.connect(args.db, isolation_level=None)
    db.execute("PRAGMA foreign_keys = ON")
    db.executescript(open(args.schema).read())
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO order_statuses (id, name, is_final) VALUES (?, ?, ?)",
        [(status_id, name, final) for name, (status_id, final) in STATUSES.items()])
    batch_customers, batch_orders, batch_items, batch_deletes = [], [], [], []

    def flush():
        db.executemany(
            "INSERT INTO customers (customer_id, name) VALUES (?, ?) "
            "ON CONFLICT (customer_id) DO UPDATE SET name = excluded.name", batch_customers)
        db.executemany("DELETE FROM order_items WHERE order_id = ?", batch_deletes)
        db.executemany(
            "INSERT INTO orders (order_id, amount_minor, currency, status_id, created_at, customer_id) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (order_id) DO UPDATE SET "
            "amount_minor = excluded.amount_minor, currency = excluded.currency, "
            "status_id = excluded.status_id, created_at = excluded.created_at, "
            "customer_id = excluded.customer_id", batch_orders)
        db.executemany(
            "INSERT INTO order_items (order_id, line, sku, qty, price_minor) VALUES (?, ?, ?, ?, ?)",
            batch_items)
        for batch in (batch_customers, batch_orders, batch_items, batch_deletes):
            batch.clear()

    seen = set()
    for order in records(args.input):
        order_id = order["orderId"]
        if order_id in seen:  # a repeated order replaces its items, as Sluice's upsert does
            flush()
            batch_deletes.append((order_id,))
        seen.add(order_id)
        customer = order["customer"]
        batch_customers.append((customer["id"], customer["name"]))
        batch_orders.append((
            order_id, order["amount"], order["currency"], STATUSES[order["status"]][0],
            timestamp(order["createdAt"]), customer["id"]))
        batch_items.extend(
            (order_id, line, item["sku"], item["qty"], item["priceMinor"])
            for line, item in enumerate(order["items"], start=1))
        if len(batch_orders) >= 10000:
            flush()
    flush()
    db.execute("COMMIT")
    db.close()


if __name__ == "__main__":
    main()
