import Foundation
@_spi(Internals) import SluiceCore
import SluiceInspect

/// `sluice init DUMP NAME`: from a dump no dataset reads to a Swift package that builds and
/// imports it — the DTO `inspect --swift` writes, a `Dataset` with tables inferred from the
/// records' shape (`DatasetScaffold`), a pipeline spec, a contract fixture of the first records,
/// and an executable `NAME-sluice` that is the same command line through `SluiceCLI`. With
/// `--declarative`, the same fields and tables as a dataset file the stock binary runs, with a
/// spec and a README (`InitDeclarative`).
struct InitCommand: Subcommand {
  static let name = "init"
  static let synopsis = "sluice init DUMP NAME [--dir DIR]"
  static let abstract = "write a dataset package for a dump no dataset reads"
  static let help = CommandHelp(
    usage: """
      sluice init DUMP NAME [--dir DIR] [--sluice PATH|URL] [--force]
                         [--format json|ndjson|xml|csv|tsv] [--record-path PATH]
      sluice init DUMP NAME --declarative [--dir DIR] [--force]
                         [--format json|ndjson|xml|csv|tsv] [--record-path PATH]
                         [--delimiter C] [--no-header] [--columns A,B,C] [--encoding NAME]
      """,
    summary: """
      Reads the whole dump (as `sluice inspect --all` does) and writes a Swift package that
      imports it: Package.swift depending on Sluice, Sources/NAME-sluice/ with the DTO that
      `inspect --swift` prints, a Dataset whose tables are inferred from the records — their
      scalars in one table keyed by a field named like an id that is present, non-null and
      unique in every record (or one in an object every record holds, or two unique together;
      or else by the record's input and position), nested objects flattened into
      prefixed columns, arrays of objects as child tables, and theirs as children of those,
      arrays of scalars as tables of values, arrays of arrays as a table of the outer elements
      with the inner ones below it, up to 6 levels of objects (deeper fields, and fields no one
      type decodes, are left out, listed in the README and reported by each run) — and
      main.swift, the sluice command line over that dataset; Pipelines/NAME.json; a contract
      fixture of the first records; a README saying why it chose the records and the key. Then,
      in DIR: swift run NAME-sluice run Pipelines/NAME.json

      NAME names the dataset and its tables: lower-case letters, digits and hyphens, starting
      with a letter; not sluice, sqlite or pg (nor sluice-…, sqlite-…, pg-…), whose tables'
      prefixes are Sluice's own, SQLite's and PostgreSQL's. Keys that make one table name (x-y, x_y, xY) get _2, _3, ….

      With --declarative, the same tables as a dataset file instead of a package, which the stock
      sluice loads with no toolchain: DIR/NAME.dataset.json (docs/reference/dataset-files.md),
      DIR/NAME.json, a spec naming it, and a README. Then, in DIR: sluice run NAME.json

      A CSV or TSV dump's rows are its records: the dialect is sniffed (or given) as `inspect`
      does, and the spec carries it ("format", "dialect": delimiter, header or columns, empty,
      encoding) so that `sluice run` needs no option; each column's type is the one every value
      reads as (integer, decimal with its scale, boolean, timestamp with its format, enum, text).
      """,
    options: OptionList(
      column: 23,
      entries: [
        OptionEntry(.value("dir", "DIR"), "where to write (default: ./NAME); it must be empty"),
        OptionEntry(.flag("force"), "write into a directory that is not empty, replacing the files"),
        OptionEntry(
          .flag("declarative"),
          "write a dataset file, a spec and a README, not a Swift package: no build, the stock sluice runs it"),
        OptionEntry(
          .value("sluice", "PATH|URL"),
          """
          the Sluice package to depend on: a path, or a git URL (branch main);
          default: the checkout this sluice was built in
          """),
        OptionEntry(.value("format", "NAME"), "json, ndjson, xml, csv or tsv (default: detected)"),
        OptionEntry(
          .value("record-path", "PATH"),
          """
          where the records are (default: the outermost array of objects
          or repeated element, the longest of those; see the README)
          """),
      ] + RemoteOptionEntries.entries + DialectOptions.entries(sniffed: true) + [.help]))

  var dump: String
  /// The dump as messages and the written files name it: a URL without its query and userinfo.
  var shownDump: String { RemoteURL.redacted(dump) }
  var name: String
  var directory: String
  var sluice: String?
  var force: Bool
  var declarative: Bool
  var options: InspectOptions = {
    var options = InspectOptions(sampleSize: nil)
    options.prefersOutermost = true
    options.qualifiesXMLNames = true
    return options
  }()
  /// The name of the tool's first store driver, which the package registers.
  var driver: String

  init(arguments: [String], context: CommandContext) throws {
    let parsed = try Self.help.parser.parse(arguments)
    guard parsed.positionals.count == 2 else { throw UsageError("expected a dump and a dataset name") }
    dump = parsed.positionals[0]
    name = parsed.positionals[1]
    directory = parsed.values["dir"] ?? name
    sluice = parsed.values["sluice"]
    force = parsed.flags.contains("force")
    declarative = parsed.flags.contains("declarative")
    if declarative && sluice != nil {
      throw UsageError("--sluice names the package a Swift dataset depends on; --declarative writes no package")
    }
    driver = context.drivers.drivers.first?.name ?? ""
    options.remote = RemoteAccess(
      transports: context.remote, options: try PipelineConfiguration.remoteOptions(parsed.values, spec: RemoteOptions())
    )
    if let format = parsed.values["format"] {
      guard let value = PipelineConfiguration.Format(rawValue: format) else {
        throw UsageError("--format must be json, ndjson, xml, csv or tsv, not '\(format)'")
      }
      options.format = value
    }
    options.dialect = try CSVDialectOptions.parse(parsed.values, flags: parsed.flags)
    if let path = parsed.values["record-path"] { options.recordPath = PipelineSpec.parseRecordPath(path) }
  }

  func validate() throws {
    let scalars = Array(name.unicodeScalars)
    guard let first = scalars.first, ("a"..."z").contains(first),
      scalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }), !name.hasSuffix("-")
    else {
      throw UsageError("NAME must be lower-case letters, digits and hyphens, starting with a letter, not '\(name)'")
    }
    // Every table the package declares starts with NAME's: `sluice` (and `sluice-…`) would
    // declare tables among Sluice's own (sluice_runs, sluice_inputs, …), `sqlite` among SQLite's,
    // `pg` among PostgreSQL's catalogs (`pg_items`, which a dataset file may not name).
    // NAME's own words (`DatasetScaffold.tableName` would put `c_` before a reserved prefix).
    let table = name.replacingOccurrences(of: "-", with: "_")
    let owners = [
      "sluice": "Sluice's own tables (sluice_runs, sluice_rejects, sluice_inputs, …)",
      "sqlite": "SQLite's internal tables", "pg": "PostgreSQL's system catalogs",
    ]
    for prefix in ["sluice", "sqlite", "pg"] where table == prefix || table.hasPrefix(prefix + "_") {
      throw UsageError(
        "NAME '\(name)' would name the dataset's tables \(prefix)_…, a prefix reserved for \(owners[prefix] ?? prefix): choose another name"
      )
    }
    if dump == "-" { throw UsageError("init reads a file (it reads it more than once), not standard input") }
    if driver.isEmpty && !declarative {
      throw UsageError("init needs a store driver to register in the package; this tool has none")
    }
  }

  func run() throws -> Int32 {
    let target = PipelineConfiguration.absolute(directory)
    if let existing = try? FileManager.default.contentsOfDirectory(atPath: target), !existing.isEmpty, !force {
      printError("sluice: \(directory) is not empty; init writes into an empty directory (or give --force)")
      return ExitCode.cannotCreate
    }
    let dependency = declarative ? nil : try sluiceDependency()
    guard declarative || dependency != nil else {
      throw UsageError("--sluice PATH|URL is needed: this sluice was not built in a Sluice checkout")
    }
    let inspection: Inspection
    do {
      inspection = try Inspector.inspect(path: PipelineConfiguration.absolute(dump), options: options)
    } catch var error as InputError {
      error.path = shownDump
      printError("sluice: \(error)")
      return ExitCode.of(error)
    } catch let error as InspectionError {
      if case .recordPathNotApplicable = error.code { throw UsageError(error.message) }
      if case .unknownEncoding = error.code {
        printError("sluice: \(shownDump): \(error)")
        return ExitCode.dataError
      }
      printError("sluice: \(error); \(Self.needs)")
      return ExitCode.dataError
    } catch {
      printError("sluice: \(shownDump): \(error); \(Self.needs)")
      return ExitCode.dataError
    }
    guard inspection.records > 0 else {
      printError(
        "sluice: \(shownDump) holds no records at \(inspection.recordPathText): init needs one to infer a dataset from")
      return ExitCode.dataError
    }
    guard inspection.record.kinds.object == inspection.records else {
      let kinds = inspection.record.kinds.nonNull.map(\.name).joined(separator: ", ")
      printError(
        "sluice: \(shownDump): the records at \(inspection.recordPathText) are \(kinds), not objects: init cannot infer fields"
      )
      return ExitCode.dataError
    }
    let typeName = DatasetScaffold.typeName(for: name)
    var generator = SwiftDTOGenerator(
      inspection: inspection, typeName: "\(typeName)DTO", maximumNesting: DatasetScaffold.maximumNesting)
    // A dataset file keeps a field of mixed types as JSON text; the Swift package's DTO, which
    // `inspect --swift` writes too, leaves it out and its README lists it.
    generator.keepsMixedAsJSONText = declarative
    let scaffold = DatasetScaffold(name: name, typeName: typeName, dto: generator.layout())
    let files =
      if let dependency {
        InitPackage(
          name: name, typeName: typeName, dump: PipelineConfiguration.absolute(shownDump), dependency: dependency,
          driver: driver,
          inspection: inspection, dtoSource: generator.source(), datePatterns: generator.datePatterns,
          scaffold: scaffold, fixture: try fixture(inspection)
        ).files()
      } else {
        InitDeclarative(
          name: name, dump: PipelineConfiguration.absolute(shownDump), directory: target, inspection: inspection,
          scaffold: scaffold
        ).files()
      }
    do {
      for (path, text) in files {
        let url = URL(fileURLWithPath: target).appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
      }
    } catch {
      printError(
        "sluice: cannot write \(declarative ? "the dataset file" : "the package") in \(directory): \(error.localizedDescription)"
      )
      return ExitCode.cannotCreate
    }
    printOutput("wrote \(directory): \(files.map(\.path).joined(separator: ", "))")
    let names = (declarative ? scaffold.fileTables : scaffold.tables).map(\.name)
    let tables =
      names.count <= 6
      ? names.joined(separator: ", ")
      : "\(names.count) tables: " + names.prefix(5).joined(separator: ", ") + ", …"
    let key = scaffold.keyField.map { "keyed by \($0)" } ?? "keyed by the record's input and its position there"
    printOutput("\(name): \(inspection.records) record(s) → \(tables) (\(key))")
    if let kept = InitFieldNotes.summary(scaffold) { printOutput(kept) }
    if declarative {
      printOutput("next: cd \(directory) && sluice run \(name).json")
    } else {
      printOutput("next: cd \(directory) && swift run \(name)-sluice run Pipelines/\(name).json")
    }
    return ExitCode.success
  }

  static let needs =
    "init needs records that are objects: a JSON array of objects (at any path), NDJSON objects, repeated XML elements or CSV/TSV rows"

  /// The package to depend on: `--sluice`, or the checkout whose build this executable is.
  private func sluiceDependency() throws -> InitPackage.Dependency? {
    if let sluice {
      if sluice.contains("://") || sluice.hasPrefix("git@") { return .url(sluice) }
      return .path(PipelineConfiguration.absolute(sluice))
    }
    var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
      .deletingLastPathComponent()
    if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
    }
    while directory.path != "/" {
      let manifest = directory.appendingPathComponent("Package.swift").path
      if let text = try? String(contentsOfFile: manifest, encoding: .utf8), text.contains("name: \"Sluice\"") {
        return .path(directory.path)
      }
      directory.deleteLastPathComponent()
    }
    return nil
  }

  /// The first three records: NDJSON (one line each) for a JSON or NDJSON dump; for XML, the
  /// record elements as libxml2 writes them, inside the elements of the record path.
  private func fixture(_ inspection: Inspection) throws -> InitPackage.Fixture? {
    if inspection.csv != nil {
      return try InitCSV.fixture(inspection, dump: PipelineConfiguration.absolute(dump), remote: options.remote)
    }
    let input = try Input(path: PipelineConfiguration.absolute(dump), remote: options.remote)
    if inspection.format == .xml {
      let excerpt = try XMLExcerpt(source: input, path: inspection.recordPath, limit: 3)
      return excerpt.text.map { InitPackage.Fixture(text: $0, fileExtension: "xml") }
    }
    let reader = RecordReaders.make(format: inspection.format, recordPath: inspection.recordPath, source: input)
    var lines: [String] = []
    while lines.count < 3, let record = try reader.next() {
      // Outside strings JSON's line breaks are whitespace; inside, they are escaped.
      let bytes = record.bytes.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }
      lines.append(String(decoding: bytes, as: UTF8.self))
    }
    return lines.isEmpty
      ? nil : InitPackage.Fixture(text: lines.joined(separator: "\n") + "\n", fileExtension: "ndjson")
  }
}
