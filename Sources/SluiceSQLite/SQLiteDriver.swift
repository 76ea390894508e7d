internal import CSQLite
import Foundation
@_spi(Internals) import SluiceCore
import SluiceKeySpill

#if canImport(Glibc)
  import Glibc
#endif

/// The SQLite driver: a database is a file, written by one connection in one transaction.
///
/// It takes every database name no other registered driver claims for certain — a path, as
/// given — except one that looks like a server's (`scheme://…`, `key=value …`), so a program
/// without a server's driver says it has none rather than create a file named after a URL.
///
/// ```swift
/// var configuration = PipelineConfiguration(
///   name: "books", input: "books.json", database: .sqlite("books.sqlite"))
/// let report = try Pipeline(dataset: BooksDataset(), configuration: configuration).run()
/// ```
public struct SQLiteDriver: StoreDriver, KeySpillingDriver {
  public init() {}

  public var name: String { "SQLite" }

  /// The SQLite it runs against (`sqlite3_libversion`).
  public var linkedLibraries: [LinkedLibrary] {
    [LinkedLibrary(name: "SQLite", version: String(cString: sqlite3_libversion()))]
  }

  public func claim(_ location: String) -> StoreDriverClaim {
    Self.looksLikeServer(location) ? .no : .asFile
  }

  public func redacted(_ location: String) -> String { location }

  /// `-` names standard input on Sluice's command line; a database is a file.
  public func problem(in location: String) -> String? {
    location == "-" ? "'-' is standard input, not a database file: name a file (nightly.sqlite)" : nil
  }

  public var dialect: any SQLDialect { SQLiteDialect() }

  /// The database, the side database of a staged run (`stagingTarget`, which every later
  /// `--stage` run would take for an unfinished one's), and the journals of each.
  public func files(at location: String) -> [(role: String, path: String)] {
    let stage = stagingTarget(for: DatabaseTarget(location: location, driver: self)).location
    return [("database", location), ("staging database", stage)].flatMap { role, path in
      [(role, path)] + ["-journal", "-wal", "-shm"].map { ("\(role)'s \($0.dropFirst()) file", path + $0) }
    }
  }

  /// SQLite's own tables (`sqlite_schema`, `sqlite_sequence`): "Table names that begin with
  /// "sqlite_" are reserved for internal use" (the CREATE TABLE documentation).
  public var reservedNamePrefixes: [String] { ["sqlite_"] }

  /// A run's spilled natural keys go to a private temporary SQLite file (SluiceKeySpill's `SQLiteKeySpill`).
  package func makeKeySpill() throws(KeySpillError) -> any KeySpill { try SQLiteKeySpill() }

  public func openForRun(_ target: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> any Store {
    let path = target.location
    var status = stat()
    if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
      // SQLite would open a device as an empty database and create `/dev/null-journal`.
      throw StoreOpenError(
        kind: .cannotCreate,
        message:
          "cannot open or create database \(path): \(Self.describe(fileType: status.st_mode)), not a database file")
    }
    if let problem = Self.writeProblem(path, exists: stat(path, &status) == 0) {
      throw StoreOpenError(kind: .cannotCreate, message: "cannot write database \(path): \(problem)")
    }
    do {
      return try SQLiteConnection.openForImport(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    } catch let error as SQLiteError where error.failure == .busy {
      throw error
    } catch let error as SQLiteError {
      throw StoreOpenError(kind: .cannotCreate, message: "cannot open or create database \(path): \(error.message)")
    }
  }

  /// `mode=ro` (and immutable for an idle WAL database, as `sluice runs` reads it), in a
  /// deferred transaction whose first read fixes the state it sees.
  public func openForReading(_ target: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> any Store {
    let path = target.location
    var status = stat()
    guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      throw StoreOpenError(kind: .missing, message: "cannot read database \(path): no such database file")
    }
    do {
      let connection = try SQLiteConnection(
        path: path,
        options: .init(
          readOnly: true, create: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds,
          immutable: SQLiteRunHistory.isIdleWALDatabase(path)))
      try connection.execute("BEGIN")
      _ = try connection.scalarInt("SELECT count(*) FROM sqlite_schema")
      return connection
    } catch let error as SQLiteError where error.failure == .busy {
      throw error
    } catch let error as SQLiteError {
      throw StoreOpenError(kind: .unreachable, message: "cannot read database \(path): \(error.message)")
    }
  }

  /// Why this user cannot write the database at `path`, or nil. Asked before opening: SQLite
  /// opens a read-only file read-only without a word, and its first write — a plan's too, which
  /// rolls everything back — fails with the statement's SQL (`UPDATE order_statuses …`).
  static func writeProblem(_ path: String, exists: Bool) -> String? {
    let directory = FilePaths.folder(of: path)
    let readOnly = "(a plan writes too, then rolls it all back; 'sluice validate --db' and 'sluice runs' only read)"
    if exists && access(path, W_OK) != 0 {
      return "the file is read-only to this user, and every run writes into it \(readOnly)"
    }
    if access(directory.isEmpty ? "." : directory, W_OK) != 0 {
      let journal = FilePaths.lastComponent(of: path) + "-journal"
      return
        "its directory is read-only to this user, and SQLite writes a journal beside the database (\(journal)) in every write transaction \(readOnly)"
    }
    return nil
  }

  public func openHistory(_ target: DatabaseTarget) throws -> any RunHistory {
    try SQLiteRunHistory(path: target.location)
  }

  /// A URL's scheme (`postgresql://`), or connection keywords (`host=db dbname=shop`): a
  /// server's name, not a file's. A file may hold `=` in its name (`a=b.sqlite`): only words
  /// that name a server (`host`, `dbname`, `service`, …), or two `keyword=value` pairs, count.
  static func looksLikeServer(_ location: String) -> Bool {
    if let scheme = location.range(of: "://"), location.first?.isLetter == true,
      location[..<scheme.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+.-".contains($0) })
    {
      return true
    }
    let pairs = location.split(whereSeparator: \.isWhitespace).filter { word in
      guard let equals = word.firstIndex(of: "=") else { return false }
      return !word[..<equals].isEmpty && word[..<equals].allSatisfy { $0.isLetter || $0 == "_" }
    }
    guard let first = pairs.first, let equals = first.firstIndex(of: "=") else { return false }
    let serverWords: Set<String> = ["host", "hostaddr", "dbname", "user", "port", "service", "password"]
    return pairs.count >= 2 || serverWords.contains(String(first[..<equals]))
  }

  /// What kind of file a `stat` mode says a path is, for messages.
  static func describe(fileType mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFDIR: "it is a directory"
    case S_IFCHR: "it is a character device"
    case S_IFBLK: "it is a block device"
    case S_IFIFO: "it is a FIFO"
    case S_IFSOCK: "it is a socket"
    default: "it is not a regular file"
    }
  }
}

extension DatabaseTarget {
  /// A SQLite database file at `path` (created by the first run).
  public static func sqlite(_ path: String) -> DatabaseTarget {
    DatabaseTarget(location: path, driver: SQLiteDriver())
  }
}
