/* The physical limit of a Sluice orders import: the same rows, already parsed, inserted through
 * SQLite's C API with one prepared statement per table, in one transaction, foreign keys on —
 * what is left when JSON, decoding, validation and mapping cost nothing.
 *
 *   cc -O2 -o floor floor.c -lsqlite3 && ./floor SCHEMA.sql DATA_DIR DATABASE
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

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: floor SCHEMA.sql DATA_DIR DATABASE\n"); return 64; }
  size_t size;
  char *schema = slurp(argv[1], &size);
  Table statuses = load(argv[2], "order_statuses.csv", 4);
  Table customers = load(argv[2], "customers.csv", 2);
  Table orders = load(argv[2], "orders.csv", 6);
  Table items = load(argv[2], "order_items.csv", 5);

  sqlite3 *db;
  check(sqlite3_open(argv[3], &db), db, "open");
  check(sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL), db, "pragma");
  check(sqlite3_exec(db, schema, NULL, NULL, NULL), db, "schema");
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  check(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), db, "begin");
  insert(db, "INSERT INTO order_statuses (id, name, is_final, retired) VALUES (?, ?, ?, ?)", &statuses,
         (int[]){1, 0, 1, 1});
  insert(db, "INSERT INTO customers (customer_id, name) VALUES (?, ?)", &customers, (int[]){1, 0});
  insert(db,
         "INSERT INTO orders (order_id, amount_minor, currency, status_id, created_at, customer_id) "
         "VALUES (?, ?, ?, ?, ?, ?)",
         &orders, (int[]){0, 1, 0, 1, 0, 1});
  insert(db, "INSERT INTO order_items (order_id, line, sku, qty, price_minor) VALUES (?, ?, ?, ?, ?)",
         &items, (int[]){0, 1, 0, 1, 1});
  check(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), db, "commit");
  clock_gettime(CLOCK_MONOTONIC, &end);
  printf("insert_seconds %.3f\n", (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
  sqlite3_close(db);
  return 0;
}
