import SluiceCLI
import SluiceCatalog

Sluice.main(datasets: Catalog.datasets)
