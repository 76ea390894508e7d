import SluiceCLI
import SluiceCatalog
import SluiceCore

// The whole sluice command line — run, validate, replay, schema, runs — over this package's
// dataset and the catalog's.
Sluice.main(datasets: [AnyDataset(BooksDataset())] + Catalog.datasets)
