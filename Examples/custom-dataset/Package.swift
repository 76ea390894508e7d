// swift-tools-version:6.0
// A downstream package with a dataset of its own: `books`, run by the same `sluice` command line
// (SluiceCLI) next to every dataset of the catalog. Build and run it from this folder:
//
//   swift run books-sluice run Pipelines/books.json
//
// It depends on Sluice by path; a real project would name Sluice's repository and a version.
import PackageDescription

let package = Package(
  name: "CustomDataset",
  dependencies: [
    // `name:` fixes the package's identity, whatever the folder the checkout lives in is called.
    .package(name: "Sluice", path: "../..")
  ],
  targets: [
    .executableTarget(
      name: "books-sluice",
      dependencies: [
        .product(name: "SluiceCLI", package: "Sluice"),
        .product(name: "SluiceCore", package: "Sluice"),
        .product(name: "SluiceCatalog", package: "Sluice"),
        // SQLite only: the build links no libpq (.ci/run checks it).
        .product(name: "SluiceSQLite", package: "Sluice"),
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)
