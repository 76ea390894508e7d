"""DuckDB loading the orders dump (gzip JSON array) into the orders schema's four tables, as a
user who picked DuckDB instead of Sluice would: `read_json` of the same file, the statuses as the
catalog's lookup numbers them, the customers once each, the orders, and their items numbered
from 1, in one transaction. Run by Benchmarks/run in its virtual environment (duckdb and
duckdb-extension-sqlite-scanner from PyPI):

    python duckdb_orders.py DATA_DIR TARGET [SCHEMA.sql]

With SCHEMA.sql (Sluice's DDL, `sluice schema orders`), TARGET is a SQLite file: the DDL is run
there, then DuckDB writes the rows through its sqlite extension (foreign keys not enforced), so
that the tables can be checked equal to Sluice's row for row. Without, TARGET is a DuckDB file
with the same tables, typed, with the same primary keys. Timestamps are written as Sluice writes
them (UTC, milliseconds, `Z`).
"""
import glob
import os
import sqlite3
import sys

import duckdb

data, target = sys.argv[1], sys.argv[2]
schema = sys.argv[3] if len(sys.argv) > 3 else None
if schema:
    import duckdb_extension_sqlite_scanner as extension

    connection = sqlite3.connect(target)
    with open(schema) as file:
        connection.executescript(file.read())
    connection.close()
    db = duckdb.connect()
    db.execute("LOAD '%s'" % glob.glob(os.path.join(os.path.dirname(extension.__file__), "extensions", "*",
                                                    "*.duckdb_extension"))[0])
    db.execute(f"ATTACH '{target}' AS t (TYPE sqlite)")
    prefix = "t."
else:
    db = duckdb.connect(target)
    prefix = ""
db.execute("SET TimeZone = 'UTC'")
db.execute("BEGIN")
if not schema:
    db.execute("CREATE TABLE order_statuses (id BIGINT PRIMARY KEY, name VARCHAR, is_final BIGINT, retired BIGINT)")
    db.execute("CREATE TABLE customers (customer_id BIGINT PRIMARY KEY, name VARCHAR)")
    db.execute("CREATE TABLE orders (order_id VARCHAR PRIMARY KEY, amount_minor BIGINT, currency VARCHAR, "
               "status_id BIGINT, created_at VARCHAR, customer_id BIGINT)")
    db.execute("CREATE TABLE order_items (order_id VARCHAR, line BIGINT, sku VARCHAR, qty BIGINT, price_minor BIGINT, "
               "PRIMARY KEY (order_id, line))")
db.execute(f"""CREATE TEMP TABLE source AS SELECT * FROM read_json('{data}/orders.json.gz', format = 'array',
  columns = {{orderId: 'VARCHAR', amount: 'BIGINT', currency: 'VARCHAR', status: 'VARCHAR',
  createdAt: 'TIMESTAMPTZ', customer: 'STRUCT(id BIGINT, name VARCHAR)',
  items: 'STRUCT(sku VARCHAR, qty BIGINT, priceMinor BIGINT)[]'}})""")
db.execute(f"INSERT INTO {prefix}order_statuses VALUES (1, 'pending', 0, 0), (2, 'completed', 1, 0), "
           "(3, 'cancelled', 1, 0)")
db.execute(f"INSERT INTO {prefix}customers SELECT customer.id, any_value(customer.name) FROM source GROUP BY customer.id")
db.execute(f"""INSERT INTO {prefix}orders SELECT orderId, amount, currency,
  CASE status WHEN 'pending' THEN 1 WHEN 'completed' THEN 2 WHEN 'cancelled' THEN 3 END,
  strftime(createdAt, '%Y-%m-%dT%H:%M:%S.%gZ'), customer.id FROM source""")
db.execute(f"""INSERT INTO {prefix}order_items
  SELECT orderId, line, items[line].sku, items[line].qty, items[line].priceMinor
  FROM (SELECT orderId, items, unnest(range(1, len(items) + 1)) AS line FROM source)""")
db.execute("COMMIT")
db.close()
