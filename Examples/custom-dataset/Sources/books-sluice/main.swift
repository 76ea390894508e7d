import SluiceCLI
import SluiceCatalog
import SluiceCore
import SluiceSQLite

// The whole sluice command line — run, validate, replay, schema, runs — over this package's
// dataset and the catalog's, into SQLite: the one store driver this program links.
Sluice.main(datasets: [AnyDataset(BooksDataset())] + Catalog.datasets, drivers: [SQLiteDriver()])
