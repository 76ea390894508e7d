import SluiceCLI
import SluiceCatalog
import SluicePostgreSQL
import SluiceSQLite

Sluice.main(datasets: Catalog.datasets, drivers: [SQLiteDriver(), PostgreSQLDriver()])
