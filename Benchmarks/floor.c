/* The physical limit of a Sluice orders import: the same rows, already parsed, inserted through
 * SQLite's C API with one prepared statement per table, in one transaction, foreign keys on —
 * what is left when JSON, decoding, validation and mapping cost nothing.
 *
 *   cc -O2 -o floor floor.c -lsqlite3 && ./floor SCHEMA.sql DATA_DIR DATABASE [records]
 *
 * By default table by table, as `.import` loads the CSVs: every status, every customer (in key
 * order), every order, every item. With "records", Sluice's own statements in Sluice's order and
 * settings: per order, its customer upserted (`ON CONFLICT DO UPDATE … WHERE` the name differs),
 * the order, its items; 16 KiB pages, a 16 MiB page cache, and the schema's secondary indexes
 * built after the load, as a first load builds them — the SQLite work a Sluice run does on its
 * loading thread, with nothing else on it.
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

/* Per order, as Sluice writes a record: its customer upserted, the order, its items (the items'
 * CSV is in order key order, as the orders' is). */
static void insert_records(sqlite3 *db, const Table *customers, const Table *orders, const Table *items) {
  long long most = 0;
  for (size_t row = 0; row < customers->rows; row++) {
    long long id = strtoll(customers->fields[row * 2], NULL, 10);
    if (id > most) most = id;
  }
  size_t *customer_row = calloc((size_t)most + 1, sizeof(size_t));
  if (!customer_row) { perror("calloc"); exit(71); }
  for (size_t row = 0; row < customers->rows; row++) {
    customer_row[strtoll(customers->fields[row * 2], NULL, 10)] = row;
  }
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
  int records = argc == 5 && strcmp(argv[4], "records") == 0;
  if (argc != 4 && !records) { fprintf(stderr, "usage: floor SCHEMA.sql DATA_DIR DATABASE [records]\n"); return 64; }
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
    insert_records(db, &customers, &orders, &items);
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
