import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The files a command touches — its inputs and every other file it reads (the pipeline spec,
/// the dataset files it names and those they reference, a baseline, the report `sluice report`
/// renders), its SQLite database with the database's side
/// files and staging database, and its outputs — checked before anything is opened, so that no
/// output can replace the database, a file the command reads or another output.
///
/// A typo in a spec (`"report": "nightly.sqlite"`) would otherwise publish the report over the
/// committed database after a run that succeeded. Files are compared by identity, not by
/// spelling: an existing file by its device and inode (symbolic links followed, so `./db`,
/// `db` and a link to it are one file), a file that does not exist yet by its canonical path
/// (the real path of its folder plus its name, a dangling link's destination followed).
/// Character devices (`/dev/null`, a terminal) are never replaced or truncated by a write and
/// are left out; standard input (`-`) is not a path.
package struct RunFiles: Sendable {
  /// One file the run touches and what it is to the run, for messages.
  public struct Entry: Sendable, Hashable {
    public var role: String
    public var path: String
    /// Whether the run only reads the file: two inputs may be one file (loading it twice is
    /// idempotent); anything the run writes may be nothing else.
    public var isRead: Bool
    /// One of the database's own files, as its driver names them: which of those may be one
    /// file is the driver's concern (a staged first load killed between linking its side
    /// database into place and removing its other name leaves both names on one file).
    public var isDatabaseFile = false
    /// For an output: what names it, for the message that asks for another path
    /// (`--report, or the spec's "report"`).
    public var option: String?

    public init(role: String, path: String, isRead: Bool, option: String? = nil) {
      self.role = role
      self.path = path
      self.isRead = isRead
      self.option = option
    }
  }

  public private(set) var entries: [Entry] = []

  /// The files of `configuration`: the database's files, as its driver names them (a file
  /// database, its staging database and their journals; none for a server), unless the run
  /// only validates without `--db`; every input; the spec, its dataset files and the baseline;
  /// every output.
  public init(_ configuration: PipelineConfiguration) {
    if configuration.mode != .validate || configuration.checksDatabase {
      for file in configuration.database.driver.files(at: configuration.database.location) {
        var entry = Entry(role: file.role, path: file.path, isRead: configuration.mode == .validate)
        entry.isDatabaseFile = true
        entries.append(entry)
      }
    }
    for input in configuration.inputs where input.path != "-" {
      entries.append(
        Entry(
          role: configuration.mode == .replay ? "rejects file being replayed" : "input", path: input.path, isRead: true)
      )
    }
    let read: [(String, String?)] = [
      ("pipeline spec", configuration.specPath), ("baseline", configuration.baselinePath),
    ]
    for case (let role, let path?) in read { entries.append(Entry(role: role, path: path, isRead: true)) }
    for path in configuration.datasetFiles { entries.append(Entry(role: "dataset file", path: path, isRead: true)) }
    let outputs: [(String, String, String?)] = [
      ("rejects file", "rejects", configuration.rejectsPath), ("report", "report", configuration.reportPath),
      ("JUnit file", "junit", configuration.junitPath), ("HTML report", "html", configuration.htmlPath),
      ("metrics file", "metrics", configuration.metricsPath),
    ]
    // A plan writes only the outputs of its command line; a replay's rejects are its input.
    let specKeys = configuration.mode != .plan
    for case (let role, let key, let path?) in outputs {
      let option = specKeys ? "--\(key), or the spec's \"\(key)\"," : "--\(key)"
      entries.append(Entry(role: role, path: path, isRead: false, option: option))
    }
  }

  /// The files `entries` name, for a command that is not a pipeline run (`sluice report`).
  public init(_ entries: [Entry]) { self.entries = entries }

  /// Why the run's files cannot be used, before anything is opened; nil when they can: a file
  /// the run writes named `-` (standard input is only ever read), or two of its files that are
  /// one (`conflict()`).
  public func problem() -> String? {
    if let entry = entries.first(where: { !$0.isRead && $0.path == "-" }) {
      let instead =
        entry.role == "database"
        ? "name a database file" : "give it a file, or /dev/stdout to write it to standard output"
      return "the \(entry.role) cannot be '-': '-' is standard input, which only an input reads; \(instead)"
    }
    return conflict()?.description
  }

  /// The first file the run writes that is also another of its files (the database, an
  /// input, another output); nil when each has a file of its own.
  public func conflict() -> RunFilesConflict? {
    var seen: [Identity: Entry] = [:]
    for entry in entries {
      guard let identity = Identity(path: entry.path) else { continue }
      if let earlier = seen[identity], !(earlier.isRead && entry.isRead),
        !(earlier.isDatabaseFile && entry.isDatabaseFile)
      {
        return RunFilesConflict(first: earlier, second: entry)
      }
      if seen[identity] == nil { seen[identity] = entry }
    }
    return nil
  }

  /// What a path is on disk: an existing file's device and inode, or the canonical path where
  /// a new file would be created; nil for character devices.
  enum Identity: Hashable {
    case file(device: UInt64, inode: UInt64)
    case new(path: String)

    init?(path: String) {
      var status = stat()
      if stat(path, &status) == 0 {
        if status.st_mode & S_IFMT == S_IFCHR { return nil }
        self = .file(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
      } else {
        self = .new(path: Self.canonical(path))
      }
    }

    /// Where a file at `path` would be created: dangling links followed (a few hops), then
    /// the real path of the deepest existing folder, plus the rest as written.
    static func canonical(_ path: String) -> String {
      var target = path
      for _ in 0..<8 {
        guard let next = OutputFile.destination(ofDanglingLink: target) else { break }
        target = next
      }
      var missing: [String] = []
      var folder = target
      while !folder.isEmpty && folder != "/" {
        if let resolved = realpath(folder, nil) {
          defer { free(resolved) }
          return ([String(cString: resolved)] + missing.reversed()).joined(separator: "/")
        }
        missing.append(FilePaths.lastComponent(of: folder))
        folder = FilePaths.folder(of: folder)
      }
      return FilePaths.absolute(target)
    }
  }
}

/// Two of a run's files that are one file: an output that would replace the database, a file
/// the command reads or another output. The run is refused before anything is opened (exit 64).
package struct RunFilesConflict: Error, Sendable, CustomStringConvertible {
  public var first: RunFiles.Entry
  public var second: RunFiles.Entry

  public var description: String {
    let same = first.path == second.path ? "" : " (\(first.path))"
    return
      "the \(second.role) \(second.path) is the same file as the \(first.role)\(same): Sluice never writes an output over its database, a file it reads or another output; give \(second.option ?? "it") a path of its own"
  }
}
