import SluiceCLI
import SluiceCatalog
import SluicePostgreSQL
import SluiceRemote
import SluiceSQLite

Sluice.main(datasets: Catalog.datasets, drivers: [SQLiteDriver(), PostgreSQLDriver()], remote: [CurlRemoteInputs()])
