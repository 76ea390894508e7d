/* The physical limit of a Sluice orders import: the same rows, already parsed, inserted through
 * SQLite's C API with one prepared statement per table, in one transaction, foreign keys on —
 * what is left when JSON, decoding, validation and mapping cost nothing.
 *
 *   cc -O2 -o floor floor.c -lsqlite3 && ./floor SCHEMA.sql DATA_DIR DATABASE [records|batches]
 *
 * By default table by table, as `.import` loads the CSVs: every status, every customer (in key
 * order), every order, every item. With "records", Sluice's own statements in Sluice's order and
 * settings: per order, its customer upserted (`ON CONFLICT DO UPDATE … WHERE` the name differs),
 * the order, its items; 16 KiB pages, a 16 MiB page cache, and the schema's secondary indexes
 * built after the load, as a first load builds them — the SQLite work a Sluice run did on its
 * loading thread, with nothing else on it, before it wrote in bulk. With "batches", what it does
 * now (`MultiRowWriter`): per 1,024 orders, in a savepoint, the customers upserted, the orders
 * and their items inserted by multi-row statements of up to 256 rows.
 *
 * It reads the generator's CSVs into memory first, then times only the inserts and prints
 * "insert_seconds N". Benchmarks/run builds and runs it.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { char **fields; size_t rows; size_t columns; char *text; } Table;

static char *slurp(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  if (!file) { perror(path); exit(66); }
  fseek(file, 0, SEEK_END);
  long length = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)length + 1);
  if (!text || fread(text, 1, (size_t)length, file) != (size_t)length) { perror(path); exit(74); }
  text[length] = 0;
  fclose(file);
  *size = (size_t)length;
  return text;
}

/* Splits a header + rows CSV without quoting (the generator writes none) in place. */
static Table load(const char *directory, const char *name, size_t columns) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", directory, name);
  Table table = {0};
  size_t size;
  table.text = slurp(path, &size);
  table.columns = columns;
  size_t lines = 0;
  for (size_t i = 0; i < size; i++) if (table.text[i] == '\n') lines++;
  table.fields = malloc(sizeof(char *) * lines * columns);
  char *cursor = strchr(table.text, '\n') + 1; /* skip the header */
  while (*cursor) {
    for (size_t column = 0; column < columns; column++) {
      table.fields[table.rows * columns + column] = cursor;
      cursor += strcspn(cursor, column + 1 < columns ? "," : "\n");
      *cursor++ = 0;
    }
    table.rows++;
  }
  return table;
}

static void check(int status, sqlite3 *db, const char *what) {
  if (status != SQLITE_OK && status != SQLITE_DONE) {
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(74);
  }
}

/* Inserts every row; columns listed in `integers` are bound as integers, the rest as text. */
static void insert(sqlite3 *db, const char *sql, Table *table, const int *integers) {
  sqlite3_stmt *statement;
  check(sqlite3_prepare_v2(db, sql, -1, &statement, NULL), db, sql);
  for (size_t row = 0; row < table->rows; row++) {
    for (size_t column = 0; column < table->columns; column++) {
      const char *field = table->fields[row * table->columns + column];
      if (integers[column]) {
        sqlite3_bind_int64(statement, (int)column + 1, strtoll(field, NULL, 10));
      } else {
        sqlite3_bind_text(statement, (int)column + 1, field, -1, SQLITE_STATIC);
      }
    }
    check(sqlite3_step(statement), db, sql);
    sqlite3_reset(statement);
  }
  sqlite3_finalize(statement);
}

static void bind_row(sqlite3_stmt *statement, const Table *table, size_t row, const int *integers) {
  for (size_t column = 0; column < table->columns; column++) {
    const char *field = table->fields[row * table->columns + column];
    if (integers[column]) {
      sqlite3_bind_int64(statement, (int)column + 1, strtoll(field, NULL, 10));
    } else {
      sqlite3_bind_text(statement, (int)column + 1, field, -1, SQLITE_STATIC);
    }
  }
}

static void step(sqlite3 *db, sqlite3_stmt *statement) {
  check(sqlite3_step(statement), db, sqlite3_sql(statement));
  sqlite3_reset(statement);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *statement;
  check(sqlite3_prepare_v2(db, sql, -1, &statement, NULL), db, sql);
  return statement;
}

/* A prepared INSERT of `rows` rows of `columns` parameters each: `head` then the tuples, then
 * `tail` (an upsert's conflict clause, or ""). */
static sqlite3_stmt *prepare_rows(sqlite3 *db, const char *head, int columns, int rows, const char *tail) {
  size_t size = strlen(head) + strlen(tail) + (size_t)rows * (size_t)columns * 3 + (size_t)rows * 4 + 16;
  char *sql = malloc(size);
  if (!sql) { perror("malloc"); exit(71); }
  size_t length = (size_t)snprintf(sql, size, "%s", head);
  for (int row = 0; row < rows; row++) {
    length += (size_t)snprintf(sql + length, size - length, "%s(", row ? ", " : " ");
    for (int column = 0; column < columns; column++) {
      length += (size_t)snprintf(sql + length, size - length, column ? ",?" : "?");
    }
    length += (size_t)snprintf(sql + length, size - length, ")");
  }
  snprintf(sql + length, size - length, "%s", tail);
  sqlite3_stmt *statement;
  check(sqlite3_prepare_v2(db, sql, -1, &statement, NULL), db, sql);
  free(sql);
  return statement;
}

/* Binds row `row` of `table` as the statement's row `slot`. */
static void bind_row_at(sqlite3_stmt *statement, int slot, const Table *table, size_t row, const int *integers) {
  int base = slot * (int)table->columns;
  for (size_t column = 0; column < table->columns; column++) {
    const char *field = table->fields[row * table->columns + column];
    if (integers[column]) {
      sqlite3_bind_int64(statement, base + (int)column + 1, strtoll(field, NULL, 10));
    } else {
      sqlite3_bind_text(statement, base + (int)column + 1, field, -1, SQLITE_STATIC);
    }
  }
}

/* Each customer's row in customers.csv by its id (ids run from 0 to `*most`). */
static size_t *index_customers(const Table *customers, long long *most) {
  *most = 0;
  for (size_t row = 0; row < customers->rows; row++) {
    long long id = strtoll(customers->fields[row * 2], NULL, 10);
    if (id > *most) *most = id;
  }
  size_t *customer_row = calloc((size_t)*most + 1, sizeof(size_t));
  if (!customer_row) { perror("calloc"); exit(71); }
  for (size_t row = 0; row < customers->rows; row++) {
    customer_row[strtoll(customers->fields[row * 2], NULL, 10)] = row;
  }
  return customer_row;
}

enum { BATCH_ORDERS = 1024, STATEMENT_ROWS = 256 };
/* The rows of the statements a table's rows of a batch go in: 256, and for the rest 32, 4, 1. */
static const int statement_sizes[4] = {STATEMENT_ROWS, STATEMENT_ROWS / 8, STATEMENT_ROWS / 64, 1};

/* One table's rows of a batch, listed by row number, in statements of 256 rows, the rest in
 * statements of 32, 4 and 1 rows (`statements` holds them by those sizes). */
static void insert_rows(sqlite3 *db, sqlite3_stmt *statements[4], const Table *table, const size_t *rows, size_t count,
                        const int *integers) {
  size_t next = 0;
  while (next < count) {
    int size = 0;
    while (statement_sizes[size] > (int)(count - next)) size++;
    for (int slot = 0; slot < statement_sizes[size]; slot++) bind_row_at(statements[size], slot, table, rows[next + slot], integers);
    step(db, statements[size]);
    next += (size_t)statement_sizes[size];
  }
}

/* As Sluice writes batches now: per 1,024 orders, in a savepoint, their customers upserted, the
 * orders inserted, their items inserted, each table by multi-row statements. */
static void insert_batches(sqlite3 *db, const Table *customers, const Table *orders, const Table *items) {
  long long most;
  size_t *customer_row = index_customers(customers, &most);
  size_t *customer_rows = malloc(sizeof(size_t) * BATCH_ORDERS);
  size_t *order_rows = malloc(sizeof(size_t) * BATCH_ORDERS);
  size_t *item_rows = malloc(sizeof(size_t) * items->rows);
  if (!customer_rows || !order_rows || !item_rows) { perror("malloc"); exit(71); }
  sqlite3_stmt *upserts[4], *inserts[4], *item_inserts[4];
  for (int size = 0; size < 4; size++) {
    upserts[size] = prepare_rows(db, "INSERT INTO customers (customer_id, name) VALUES", 2, statement_sizes[size],
                                 " ON CONFLICT (customer_id) DO UPDATE SET name = excluded.name "
                                 "WHERE customers.name IS NOT excluded.name");
    inserts[size] = prepare_rows(db, "INSERT INTO orders (order_id, amount_minor, currency, status_id, created_at, "
                                     "customer_id) VALUES", 6, statement_sizes[size], "");
    item_inserts[size] = prepare_rows(db, "INSERT INTO order_items (order_id, line, sku, qty, price_minor) VALUES", 5,
                                      statement_sizes[size], "");
  }
  size_t next_item = 0;
  for (size_t first = 0; first < orders->rows; first += BATCH_ORDERS) {
    size_t count = orders->rows - first < BATCH_ORDERS ? orders->rows - first : BATCH_ORDERS;
    size_t items_in_batch = 0;
    for (size_t order = 0; order < count; order++) {
      size_t row = first + order;
      long long id = strtoll(orders->fields[row * 6 + 5], NULL, 10);
      if (id < 0 || id > most) { fprintf(stderr, "order %zu: customer %lld not in customers.csv\n", row, id); exit(65); }
      customer_rows[order] = customer_row[id];
      order_rows[order] = row;
      const char *key = orders->fields[row * 6];
      while (next_item < items->rows && strcmp(items->fields[next_item * 5], key) == 0) {
        item_rows[items_in_batch++] = next_item++;
      }
    }
    check(sqlite3_exec(db, "SAVEPOINT batch", NULL, NULL, NULL), db, "savepoint");
    insert_rows(db, upserts, customers, customer_rows, count, (int[]){1, 0});
    insert_rows(db, inserts, orders, order_rows, count, (int[]){0, 1, 0, 1, 0, 1});
    insert_rows(db, item_inserts, items, item_rows, items_in_batch, (int[]){0, 1, 0, 1, 1});
    check(sqlite3_exec(db, "RELEASE batch", NULL, NULL, NULL), db, "release");
  }
  if (next_item != items->rows) {
    fprintf(stderr, "%zu items follow no order of orders.csv in its order\n", items->rows - next_item);
    exit(65);
  }
  for (int size = 0; size < 4; size++) {
    sqlite3_finalize(upserts[size]);
    sqlite3_finalize(inserts[size]);
    sqlite3_finalize(item_inserts[size]);
  }
  free(customer_row);
  free(customer_rows);
  free(order_rows);
  free(item_rows);
}

/* Per order, as Sluice writes a record: its customer upserted, the order, its items (the items'
 * CSV is in order key order, as the orders' is). */
static void insert_records(sqlite3 *db, const Table *customers, const Table *orders, const Table *items) {
  long long most;
  size_t *customer_row = index_customers(customers, &most);
  sqlite3_stmt *customer = prepare(db, "INSERT INTO customers (customer_id, name) VALUES (?1, ?2) "
                                       "ON CONFLICT (customer_id) DO UPDATE SET name = excluded.name "
                                       "WHERE customers.name IS NOT excluded.name");
  sqlite3_stmt *order = prepare(db, "INSERT INTO orders (order_id, amount_minor, currency, status_id, created_at, "
                                    "customer_id) VALUES (?, ?, ?, ?, ?, ?)");
  sqlite3_stmt *item = prepare(db, "INSERT INTO order_items (order_id, line, sku, qty, price_minor) VALUES (?, ?, ?, ?, ?)");
  size_t next_item = 0;
  for (size_t row = 0; row < orders->rows; row++) {
    long long id = strtoll(orders->fields[row * 6 + 5], NULL, 10);
    if (id < 0 || id > most) { fprintf(stderr, "order %zu: customer %lld not in customers.csv\n", row, id); exit(65); }
    bind_row(customer, customers, customer_row[id], (int[]){1, 0});
    step(db, customer);
    bind_row(order, orders, row, (int[]){0, 1, 0, 1, 0, 1});
    step(db, order);
    const char *key = orders->fields[row * 6];
    while (next_item < items->rows && strcmp(items->fields[next_item * 5], key) == 0) {
      bind_row(item, items, next_item, (int[]){0, 1, 0, 1, 1});
      step(db, item);
      next_item++;
    }
  }
  if (next_item != items->rows) {
    fprintf(stderr, "%zu items follow no order of orders.csv in its order\n", items->rows - next_item);
    exit(65);
  }
  sqlite3_finalize(customer);
  sqlite3_finalize(order);
  sqlite3_finalize(item);
  free(customer_row);
}

int main(int argc, char **argv) {
  int batches = argc == 5 && strcmp(argv[4], "batches") == 0;
  int records = batches || (argc == 5 && strcmp(argv[4], "records") == 0);
  if (argc != 4 && !records) {
    fprintf(stderr, "usage: floor SCHEMA.sql DATA_DIR DATABASE [records|batches]\n");
    return 64;
  }
  size_t size;
  char *schema = slurp(argv[1], &size);
  Table statuses = load(argv[2], "order_statuses.csv", 4);
  Table customers = load(argv[2], "customers.csv", 2);
  Table orders = load(argv[2], "orders.csv", 6);
  Table items = load(argv[2], "order_items.csv", 5);

  sqlite3 *db;
  check(sqlite3_open(argv[3], &db), db, "open");
  if (records) {
    check(sqlite3_exec(db, "PRAGMA page_size = 16384; PRAGMA cache_size = -16384", NULL, NULL, NULL), db, "pragma");
  }
  check(sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL), db, "pragma");
  check(sqlite3_exec(db, schema, NULL, NULL, NULL), db, "schema");
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  check(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), db, "begin");
  insert(db, "INSERT INTO order_statuses (id, name, is_final, retired) VALUES (?, ?, ?, ?)", &statuses,
         (int[]){1, 0, 1, 1});
  if (records) {
    /* The secondary indexes, dropped and made again after the load. */
    sqlite3_stmt *listing = prepare(db, "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL");
    char *names[64], *creates[64];
    size_t indexes = 0;
    while (sqlite3_step(listing) == SQLITE_ROW && indexes < 64) {
      names[indexes] = strdup((const char *)sqlite3_column_text(listing, 0));
      creates[indexes++] = strdup((const char *)sqlite3_column_text(listing, 1));
    }
    sqlite3_finalize(listing);
    for (size_t index = 0; index < indexes; index++) {
      char drop[512];
      snprintf(drop, sizeof drop, "DROP INDEX \"%s\"", names[index]);
      check(sqlite3_exec(db, drop, NULL, NULL, NULL), db, drop);
    }
    if (batches) {
      insert_batches(db, &customers, &orders, &items);
    } else {
      insert_records(db, &customers, &orders, &items);
    }
    for (size_t index = 0; index < indexes; index++) {
      check(sqlite3_exec(db, creates[index], NULL, NULL, NULL), db, creates[index]);
    }
  } else {
    insert(db, "INSERT INTO customers (customer_id, name) VALUES (?, ?)", &customers, (int[]){1, 0});
    insert(db,
           "INSERT INTO orders (order_id, amount_minor, currency, status_id, created_at, customer_id) "
           "VALUES (?, ?, ?, ?, ?, ?)",
           &orders, (int[]){0, 1, 0, 1, 0, 1});
    insert(db, "INSERT INTO order_items (order_id, line, sku, qty, price_minor) VALUES (?, ?, ?, ?, ?)",
           &items, (int[]){0, 1, 0, 1, 1});
  }
  check(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), db, "commit");
  clock_gettime(CLOCK_MONOTONIC, &end);
  printf("insert_seconds %.3f\n", (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
  sqlite3_close(db);
  return 0;
}
