import Foundation

// The run configuration a spec describes, with its database named among the program's drivers.
extension PipelineSpec {
  /// The run configuration this spec describes, before command-line overrides.
  ///
  /// With `inputDirectory` (`--input-dir`: tonight's dump folder), the folder the spec's
  /// relative inputs live in — their deepest common folder — is replaced by it, so a spec
  /// written against `../SampleData/stackexchange/Users.xml`, `…/Posts.xml` reads
  /// `DIR/Users.xml`, `DIR/Posts.xml`, and subfolders below the common one are kept. Absolute
  /// inputs stay.
  ///
  /// The spec's `database` is named among `drivers` (a file's path resolved against the spec's
  /// folder, a server's connection string as written) unless `database` replaces it (`--db`);
  /// either way the spec's `databaseSchema` and `connectTimeout` must suit the database's kind.
  /// With neither, the spec is refused unless `needsDatabase` is false (`validate` without
  /// `--db`, which opens none): its configuration then names no database (an empty location).
  public func configuration(
    inputDirectory: String? = nil, drivers: StoreDrivers, database override: DatabaseTarget? = nil,
    needsDatabase: Bool = true
  ) throws(SpecError) -> PipelineConfiguration {
    var target: DatabaseTarget
    if let override {
      target = override
    } else {
      guard let database else {
        guard !needsDatabase,
          let driver = drivers.drivers.first(where: { !$0.connectsToServer }) ?? drivers.drivers.first
        else {
          throw SpecError(
            path: path,
            message:
              "no database to load into: name it with 'database' in the spec or with --db on the command line (a SQLite file, or a PostgreSQL URL)"
          )
        }
        return configuration(inputDirectory: inputDirectory, database: DatabaseTarget(location: "", driver: driver))
      }
      let driver: any StoreDriver
      do {
        driver = try drivers.driver(for: database)
      } catch {
        throw SpecError(path: path, message: "'database': \(error.message)")
      }
      if let problem = driver.misnaming(database) {
        throw SpecError(path: path, message: "'database' \(problem)")
      }
      target = DatabaseTarget(location: driver.connectsToServer ? database : resolve(database), driver: driver)
    }
    if let databaseSchema {
      guard let limit = target.driver.schemaNameLimit else {
        throw SpecError(
          path: path,
          message:
            "'databaseSchema' applies to a database with schemas (PostgreSQL), not the \(target.driver.name) file \(target)"
        )
      }
      guard databaseSchema.utf8.count <= limit else {
        throw SpecError(path: path, message: "'databaseSchema' must be a name of 1 to \(limit) bytes")
      }
      target.schema = target.schema ?? databaseSchema
    }
    if let connectTimeout, target.driver.connectsToServer {
      target.connectTimeoutSeconds = target.connectTimeoutSeconds ?? connectTimeout
    }
    return configuration(inputDirectory: inputDirectory, database: target)
  }

  /// The configuration with its database already named.
  func configuration(inputDirectory: String?, database target: DatabaseTarget) -> PipelineConfiguration {
    let specDirectory = FilePaths.folder(of: path)
    var paths = inputs.map { resolve($0.input, against: specDirectory) }
    let relative = inputs.indices.filter {
      !inputs[$0].input.hasPrefix("/") && inputs[$0].input != "-" && !RemoteURL.isURL(inputs[$0].input)
    }
    // Where each relative input's matches are named from (`PipelineInput.name`): the folder its
    // path is in now, and that folder's name relative to the spec's.
    var naming = Dictionary(uniqueKeysWithValues: relative.map { ($0, (folder: specDirectory, prefix: "")) })
    if let inputDirectory {
      let common = Self.commonFolder(of: relative.map { paths[$0] })
      let commonName = Self.name(of: common, below: specDirectory)
      for index in relative {
        let below = String(paths[index].dropFirst(common.count)).drop { $0 == "/" }
        // A folder in a bucket or on a server (`--input-dir s3://exports/2026-12-07/`) holds the
        // same relative names.
        paths[index] =
          RemoteURL.isURL(inputDirectory)
          ? FilePaths.joined(inputDirectory, String(below)) : FilePaths.absolute(String(below), in: inputDirectory)
        if !RemoteURL.isURL(inputDirectory) {
          naming[index] = (FilePaths.absolute(".", in: inputDirectory), commonName)
        } else {
          naming[index] = nil
        }
      }
    }
    var excluded: [PipelineConfiguration.ExcludedInput] = []
    var configuration = PipelineConfiguration(
      name: name,
      inputs: zip(inputs.indices, paths).flatMap { index, path in
        let input = inputs[index]
        let matches = Self.expand(path)
        let kept = matches.filter { match in
          guard !match.isUnmatchedPattern,
            let exclusion = input.exclusions.first(where: { Self.matches(FilePaths.lastComponent(of: match.path), $0) })
          else { return true }
          excluded.append(.init(path: match.path, dataset: input.dataset, pattern: path, exclusion: exclusion))
          return false
        }
        return (kept.isEmpty ? [(path, true)] : kept).map { match in
          var expanded = PipelineInput(
            dataset: input.dataset, path: match.path, format: input.format, recordPath: input.recordPath)
          expanded.dialect = input.dialect
          expanded.hasQualifiedXMLNames = input.hasQualifiedXMLNames
          expanded.isUnmatchedPattern = match.isUnmatchedPattern
          expanded.isOptional = input.isOptional
          expanded.isIncremental = input.isIncremental
          expanded.isSnapshot = input.isSnapshot
          if let naming = naming[index], !match.isUnmatchedPattern {
            let name = Self.name(of: match.path, below: naming.folder)
            expanded.relativeName = naming.prefix.isEmpty ? name : naming.prefix + "/" + name
          }
          if Self.isPattern(path) && !match.isUnmatchedPattern { expanded.pattern = path }
          if RemoteURL.isURL(match.path) {
            // Shown and recorded without its query and userinfo; opened with them.
            expanded.path = RemoteURL.redacted(match.path)
            expanded.requestURL = match.path
            expanded.pattern = expanded.pattern.map(RemoteURL.redacted)
            expanded.exclusions = input.exclusions
          }
          return expanded
        }
      },
      policy: policy, database: target,
      conflict: onConflict,
      reportPath: report.map(resolve), junitPath: junit.map(resolve),
      rejectsPath: rejects.map(resolve))
    configuration.excludedInputs = excluded
    if let busyTimeout { configuration.busyTimeoutSeconds = busyTimeout }
    if let memoryBudget { configuration.memoryBudget = memoryBudget }
    if let jobs { configuration.parallelism.jobs = jobs }
    configuration.countsTableRows = countsRows
    if let maxDeleteRate { configuration.snapshot.maxDeleteRate = maxDeleteRate }
    if checkpointEvery != nil || stages {
      configuration.checkpointing = .init(recordsPerChunk: checkpointEvery, staged: stages)
    }
    configuration.htmlPath = html.map(resolve)
    configuration.metricsPath = metrics.map(resolve)
    configuration.remote.options = remote
    return configuration
  }

  /// `path` relative to `folder` (`page-1.json`, `../dumps/page-1.json`; empty for the folder
  /// itself), both absolute.
  static func name(of path: String, below folder: String) -> String {
    let target = path.split(separator: "/", omittingEmptySubsequences: true)
    let base = folder.split(separator: "/", omittingEmptySubsequences: true)
    var shared = 0
    while shared < min(target.count, base.count), target[shared] == base[shared] { shared += 1 }
    let up = Array(repeating: "..", count: base.count - shared)
    return (up + target[shared...].map(String.init)).joined(separator: "/")
  }
}
