// swift-tools-version:6.0
// Sluice's fuzz targets: one libFuzzer executable per target, over the root package's libraries.
// Build and run them with `Fuzz/run TARGET SECONDS` (see Fuzz/README.md); the root package's
// `swift build` / `swift test` never see this package.
import PackageDescription

let targets = [
  "json-reader", "decoder", "gzip-input", "pipeline-spec", "replay", "xml-reader", "csv-reader", "pattern",
]

let package = Package(
  name: "SluiceFuzz",
  dependencies: [.package(name: "Sluice", path: "..")],
  targets: [
    .target(name: "FuzzSupport")
  ]
    + targets.map { name in
      .executableTarget(
        name: name,
        dependencies: [
          "FuzzSupport",
          .product(name: "SluiceCore", package: "Sluice"),
          .product(name: "SluiceCatalog", package: "Sluice"),
          .product(name: "SluiceSQLite", package: "Sluice"),
          .product(name: "SluicePostgreSQL", package: "Sluice"),
        ],
        // The entry point is libFuzzer's main; the target only exports LLVMFuzzerTestOneInput.
        swiftSettings: [.unsafeFlags(["-parse-as-library"])]
      )
    },
  swiftLanguageModes: [.v6]
)
