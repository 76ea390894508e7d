// swift-tools-version:6.0
// Sluice — a streaming batch import pipeline: gzip/plain JSON, NDJSON and XML dumps into SQLite or
// PostgreSQL.
//
// The only dependencies are the toolchain and six C and C++ libraries, installed from Debian's
// packages: libsqlite3-dev, zlib1g-dev, libxml2-dev, libssl-dev (libcrypto), libpq-dev,
// libre2-dev and libcurl4-openssl-dev (see README.md and .ci/run). The engine links zlib, libxml2, libcrypto and RE2 only; each database is a
// driver in a target of its own, so a program that loads into SQLite alone never needs libpq. A
// run's natural keys spill past a bound to a temporary SQLite file through SluiceKeySpill, which
// both drivers use and which is no driver: the PostgreSQL driver links libsqlite3, not SluiceSQLite.
// The engine runs pipelines; the tooling around them (`inspect`, `init`, `contract`) is
// SluiceInspect, over the engine, which the command line links and the engine does not.
import PackageDescription

let package = Package(
  name: "Sluice",
  products: [
    .executable(name: "sluice", targets: ["sluice"]),
    .library(name: "SluiceCore", targets: ["SluiceCore"]),
    // The store drivers: a program registers the ones it loads into.
    .library(name: "SluiceSQLite", targets: ["SluiceSQLite"]),
    .library(name: "SluicePostgreSQL", targets: ["SluicePostgreSQL"]),
    .library(name: "SluiceCatalog", targets: ["SluiceCatalog"]),
    // Remote inputs (`https://…`, `s3://…`) over libcurl: a program registers the transport.
    .library(name: "SluiceRemote", targets: ["SluiceRemote"]),
    // The tooling around the engine: `inspect`, `init`, `contract` and `validate --baseline`'s
    // comparison, for a program that offers them without the command line.
    .library(name: "SluiceInspect", targets: ["SluiceInspect"]),
    // The command line as a library: a package with datasets of its own runs
    // `Sluice.main(datasets:)` (see Examples/custom-dataset).
    .library(name: "SluiceCLI", targets: ["SluiceCLI"]),
  ],
  targets: [
    .systemLibrary(
      name: "CSQLite",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    .systemLibrary(
      name: "CZlib",
      providers: [.apt(["zlib1g-dev"])]
    ),
    .systemLibrary(
      name: "CLibXML2",
      pkgConfig: "libxml-2.0",
      providers: [.apt(["libxml2-dev"])]
    ),
    // PostgreSQL's client library, for `--db postgresql://…`; its headers are in
    // /usr/include/postgresql, which pkg-config names.
    .systemLibrary(
      name: "CLibPQ",
      pkgConfig: "libpq",
      providers: [.apt(["libpq-dev"])]
    ),
    // libcurl, for remote inputs (HTTP(S) and S3 with its own SigV4); only SluiceRemote links it.
    .systemLibrary(
      name: "CCurl",
      pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"])]
    ),
    // OpenSSL's libcrypto, for the SHA-256 of every input the ledger records (vectorized for the
    // CPU it runs on, SHA extensions included).
    .systemLibrary(
      name: "CLibCrypto",
      pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]
    ),
    // RE2, for a dataset file's `pattern` rules: linear-time matching whatever the pattern and
    // the text (Swift's Regex and glibc's regexec backtrack, and a 16 MiB field could hold a run
    // for hours). RE2 is C++; this target gives the engine a C face of four functions, so no
    // module that imports the engine needs C++ interoperability.
    .target(
      name: "CRE2",
      linkerSettings: [.linkedLibrary("re2")]
    ),
    // The engine: stages, policies, reports, the table model and the store protocols. It knows
    // no dataset and no database library.
    .target(
      name: "SluiceCore",
      dependencies: ["CZlib", "CLibXML2", "CLibCrypto", "CRE2"]
    ),
    // Where a run's natural keys spill past a bound (SQLiteKeySpill, the engine's KeySpill): a
    // private temporary SQLite file on this machine, over a few SQLite calls of its own, not the
    // SQLite driver's store. Both drivers give it to the engine; neither depends on the other.
    .target(
      name: "SluiceKeySpill",
      dependencies: ["SluiceCore", "CSQLite"]
    ),
    // The SQLite driver: a file, one writer, the run in one transaction.
    .target(
      name: "SluiceSQLite",
      dependencies: ["SluiceCore", "SluiceKeySpill", "CSQLite"]
    ),
    // The PostgreSQL driver: libpq, COPY, parallel lanes with two-phase commit, recovery. A run's
    // natural keys spill to the client (SluiceKeySpill), not to the server, where each look-up
    // would be a round trip.
    .target(
      name: "SluicePostgreSQL",
      dependencies: ["SluiceCore", "SluiceKeySpill", "CLibPQ"]
    ),
    // The tooling: `sluice inspect` (a dump's format, record paths and field shapes; DTOs and
    // scaffolds for `init`), `sluice contract` (a dataset's records as a JSON Schema) and the
    // comparison of `validate --baseline`. It reads with the engine's readers; the engine
    // depends on none of it.
    .target(
      name: "SluiceInspect",
      dependencies: ["SluiceCore", "CLibXML2"]
    ),
    // Remote inputs: the engine's `RemoteInputs` over libcurl's multi interface — HTTP(S) and
    // S3 (listings read with libxml2), retried and resumed by range. The engine names no
    // transport, so a program that reads only files links no libcurl.
    .target(
      name: "SluiceRemote",
      dependencies: ["SluiceCore", "CCurl", "CLibXML2"]
    ),
    // The datasets: DTOs, domain types, mappers and loaders plugged into the engine.
    .target(
      name: "SluiceCatalog",
      dependencies: ["SluiceCore"]
    ),
    // The command line: subcommands, options, messages and exit codes. It knows no dataset and
    // no database either: the executable hands it the catalog's datasets and the drivers.
    .target(
      name: "SluiceCLI",
      dependencies: ["SluiceCore", "SluiceInspect"]
    ),
    .executableTarget(
      name: "sluice",
      dependencies: ["SluiceCLI", "SluiceCatalog", "SluiceSQLite", "SluicePostgreSQL", "SluiceRemote"]
    ),
    // Deterministic orders shared by the benchmarks and the tests.
    .target(
      name: "OrderSamples",
      dependencies: ["SluiceCore"],
      path: "Benchmarks/OrderSamples"
    ),
    // `swift run -c release decoder-benchmark`: Sluice's decoder against JSONDecoder.
    .executableTarget(
      name: "decoder-benchmark",
      dependencies: ["SluiceCore", "OrderSamples"],
      path: "Benchmarks/DecoderBenchmark"
    ),
    // Buffered, optionally gzip-compressed files the generators write.
    .target(
      name: "GzipOutput",
      dependencies: ["CZlib"],
      path: "Benchmarks/GzipOutput"
    ),
    // `swift run -c release orders-generator --count N --out DIR`: benchmark data.
    .executableTarget(
      name: "orders-generator",
      dependencies: ["SluiceCore", "OrderSamples", "GzipOutput"],
      path: "Benchmarks/OrdersGenerator"
    ),
    // `swift run -c release messages-generator --count N --out DIR`: chat messages for the benchmark.
    .executableTarget(
      name: "messages-generator",
      dependencies: ["SluiceCore", "OrderSamples", "GzipOutput"],
      path: "Benchmarks/MessagesGenerator"
    ),
    // `swift run -c release devices-generator --devices N --alerts M --profiles P --patches Q --out DIR`:
    // devices with alerts and profiles with patches for the reference look-up benchmark.
    .executableTarget(
      name: "devices-generator",
      dependencies: ["SluiceCore", "OrderSamples", "GzipOutput"],
      path: "Benchmarks/DevicesGenerator"
    ),
    // `sluice` plus `run --test-kill-at POINT`, for the tests that kill a run at a chosen point;
    // the shipped binary has no test hook.
    .executableTarget(
      name: "sluice-faults",
      dependencies: ["SluiceCLI", "SluiceCatalog", "SluiceSQLite", "SluicePostgreSQL", "SluiceRemote"],
      path: "Tests/SluiceFaults"
    ),
    // `swift run sluice-docs > docs/reference/commands.md`: the command reference, generated from
    // the subcommands' declarations; `.ci/check-docs` runs it.
    .executableTarget(
      name: "sluice-docs",
      dependencies: ["SluiceCLI"],
      path: "Tests/SluiceDocs"
    ),
    // Files, gzip streams, corpus paths, datasets and the recording store shared by the test
    // targets; no PostgreSQL: the engine's tests (SluiceCoreTests) link no server driver.
    .target(
      name: "SluiceTestSupport",
      dependencies: ["SluiceCore", "SluiceSQLite", "SluiceCLI", "CZlib"],
      path: "Tests/SluiceTestSupport"
    ),
    // The test servers (PostgreSQLServer, CitusCluster), a run into SQLite and PostgreSQL at once
    // (TwinStores, over the catalog's datasets) and every driver registered (StoreDrivers.all),
    // for the targets that test against PostgreSQL.
    .target(
      name: "SluicePostgreSQLTestSupport",
      dependencies: ["SluiceCore", "SluiceSQLite", "SluicePostgreSQL", "SluiceCatalog", "SluiceTestSupport"],
      path: "Tests/SluicePostgreSQLTestSupport"
    ),
    .testTarget(
      name: "SluiceCoreTests",
      dependencies: [
        "SluiceCore", "SluiceInspect", "SluiceKeySpill", "SluiceSQLite", "SluiceTestSupport",
      ],
      // Reports written by earlier builds, read in place through #filePath.
      exclude: ["Fixtures"]
    ),
    .testTarget(
      name: "SluiceCatalogTests",
      dependencies: [
        "SluiceCatalog", "SluiceCore", "SluiceInspect", "SluiceSQLite", "SluicePostgreSQL", "SluiceTestSupport",
        "SluicePostgreSQLTestSupport", "OrderSamples",
      ],
      // Contract fixtures are read in place through #filePath, not bundled.
      exclude: ["Fixtures"]
    ),
    // The command line in process, over datasets of the test's own (no catalog), on SQLite and,
    // when a server is there, PostgreSQL and Citus (schema evolution).
    .testTarget(
      name: "SluiceCLITests",
      dependencies: [
        "SluiceCLI", "SluiceCore", "SluiceSQLite", "SluicePostgreSQL", "SluiceTestSupport",
        "SluicePostgreSQLTestSupport",
      ]
    ),
    // Each driver's own tests: its store, dialect, bulk writer and commit against a real database
    // (PostgreSQL's and Citus's started by .ci/with-postgres and .ci/with-citus; skipped without),
    // the catalog's datasets as their workload.
    .testTarget(
      name: "SluiceSQLiteTests",
      dependencies: ["SluiceSQLite", "SluiceCore", "SluiceTestSupport"]
    ),
    .testTarget(
      name: "SluicePostgreSQLTests",
      dependencies: [
        "SluicePostgreSQL", "SluiceSQLite", "SluiceCore", "SluiceCatalog", "SluiceTestSupport",
        "SluicePostgreSQLTestSupport",
      ]
    ),
    // The remote transport against real servers (nginx over TLS, moto's S3, the tests' fault
    // server), started by .ci/with-remote; skipped without.
    .testTarget(
      name: "SluiceRemoteTests",
      dependencies: ["SluiceRemote", "SluiceCore", "SluiceSQLite", "SluiceCLI", "SluiceTestSupport"]
    ),
    .testTarget(
      name: "SluiceEndToEndTests",
      dependencies: [
        "sluice", "sluice-faults", "orders-generator", "messages-generator", "devices-generator", "SluiceCLI",
        "SluiceCatalog",
        "SluiceCore", "SluiceInspect", "SluiceSQLite", "SluicePostgreSQL", "SluiceTestSupport",
        "SluicePostgreSQLTestSupport", "OrderSamples",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
