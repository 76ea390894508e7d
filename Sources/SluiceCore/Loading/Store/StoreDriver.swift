/// A kind of database Sluice can load into, in a target of its own (`SluiceSQLite`,
/// `SluicePostgreSQL`): how it is named, opened, described and read back.
///
/// The engine names no database: a run's `DatabaseTarget` carries the driver that opens it, and
/// the command line picks the driver from the `--db` text among those the executable registered
/// (`StoreDrivers`). A program that loads into SQLite alone links SQLite alone.
///
/// ```swift
/// let drivers = StoreDrivers(registered)                  // the drivers a program links
/// let target = try drivers.target(for: "nightly.sqlite")  // a file: the file driver's
/// ```
public protocol StoreDriver: Sendable {
  /// A short name for messages: `SQLite`, `PostgreSQL`.
  var name: String { get }
  /// How surely `location` names a database of this driver: a server's connection string is
  /// claimed `.certainly` by its driver; a file driver takes what nobody else claims (`.asFile`).
  func claim(_ location: String) -> StoreDriverClaim
  /// What is wrong with `location` before anything is opened (a malformed connection string), in
  /// words without secrets; nil when nothing is.
  func problem(in location: String) -> String?
  /// `location` as messages, reports and the audit tables print it: never a password.
  func redacted(_ location: String) -> String
  /// Whether `location` carries a password, which other users can see in the process list.
  func hasPassword(_ location: String) -> Bool
  /// How the driver spells SQL.
  var dialect: any SQLDialect { get }
  /// The layouts a database of this driver may give a dataset beyond its DDL (Citus for
  /// PostgreSQL), which `sluice schema --dialect NAME` prints; none by default.
  var layouts: [any SchemaLayout] { get }
  /// The longest schema name the database takes, in bytes; nil when it has no schemas.
  var schemaNameLimit: Int? { get }
  /// Whether the database is a server a run connects to (a connect timeout applies).
  var connectsToServer: Bool { get }
  /// The files a run at `location` writes besides its outputs — the database file, a staged
  /// run's side database, and their journals — so no output can be one of them (`RunFiles`);
  /// none for a server.
  func files(at location: String) -> [(role: String, path: String)]
  /// Opens the store a run writes into, creating the database when the store can. Throws
  /// `StoreOpenError` when it cannot, and a `StoreError` of kind busy when it waited too long.
  func openForRun(_ target: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> any Store
  /// Opens the audit trail for reading only (`sluice runs`); throws `RunHistoryError`.
  func openHistory(_ target: DatabaseTarget) throws -> any RunHistory
  /// Opens an existing database for reading only, inside a read-only transaction that sees one
  /// state of it throughout (`validate --db`): nothing can be created, changed or locked for
  /// writing. Throws `StoreOpenError` when it cannot.
  func openForReading(_ target: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> any Store
}

extension StoreDriver {
  public func problem(in location: String) -> String? { nil }

  /// `problem(in:)` as the end of a sentence about where the name came from (`--db …`,
  /// `'database' …`): a server's connection string or a file's name.
  package func misnaming(_ location: String) -> String? {
    problem(in: location).map {
      "is not a \(name) \(connectsToServer ? "connection string" : "database file name") it can use: \($0)"
    }
  }
  public func hasPassword(_ location: String) -> Bool { false }
  public var schemaNameLimit: Int? { nil }
  public var layouts: [any SchemaLayout] { [] }
  public var connectsToServer: Bool { false }
  public func files(at location: String) -> [(role: String, path: String)] { [] }
  public func openForReading(_ target: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> any Store {
    throw StoreOpenError(kind: .unreachable, message: "\(name) databases cannot be opened for reading only")
  }
}

/// How surely a driver takes a database's name (`StoreDriver.claim`).
public enum StoreDriverClaim: Int, Sendable, Comparable {
  /// Not this driver's.
  case no
  /// A file's path: this driver's unless another claims it for certain.
  case asFile
  /// This driver's syntax (a URL scheme, a connection string).
  case certainly

  public static func < (a: StoreDriverClaim, b: StoreDriverClaim) -> Bool { a.rawValue < b.rawValue }
}

/// The drivers a program registered, in order: picks the one a database's name belongs to.
public struct StoreDrivers: Sendable {
  public let drivers: [any StoreDriver]

  public init(_ drivers: [any StoreDriver]) {
    self.drivers = drivers
  }

  /// The driver that claims `location` most surely (the first of equals).
  public func driver(for location: String) throws(DatabaseTargetError) -> any StoreDriver {
    var best: (claim: StoreDriverClaim, driver: any StoreDriver)?
    for driver in drivers {
      let claim = driver.claim(location)
      if claim > (best?.claim ?? .no) { best = (claim, driver) }
    }
    guard let best else {
      let names = drivers.map(\.name).joined(separator: ", ")
      throw DatabaseTargetError(
        message:
          "no store driver of this program takes this database (drivers: \(names.isEmpty ? "none" : names)); a server's connection string needs the driver of its kind"
      )
    }
    return best.driver
  }

  /// The target `location` names, checked by its driver before anything is opened.
  public func target(
    for location: String, schema: String? = nil, connectTimeoutSeconds: Int? = nil
  ) throws(DatabaseTargetError) -> DatabaseTarget {
    let driver = try driver(for: location)
    if let problem = driver.misnaming(location) {
      throw DatabaseTargetError(message: problem)
    }
    return DatabaseTarget(
      location: location, driver: driver, schema: schema, connectTimeoutSeconds: connectTimeoutSeconds)
  }
}

/// A database's name that no registered driver takes, or that its driver cannot read.
public struct DatabaseTargetError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public init(message: String) { self.message = message }
  public var description: String { message }
}

/// A database a run loads into: where it is, the driver that opens it, and the settings a
/// database of that kind takes.
public struct DatabaseTarget: Sendable, CustomStringConvertible {
  /// A file's path or a server's connection string, as given: the driver connects with all of
  /// it. Print `description`, which never shows a password.
  public var location: String
  public let driver: any StoreDriver
  /// The schema the tables live in (created when missing), where the database has schemas;
  /// nil: the database's default.
  public var schema: String?
  /// Seconds to wait for a server's connection; nil: the driver's default.
  public var connectTimeoutSeconds: Int?

  public init(location: String, driver: any StoreDriver, schema: String? = nil, connectTimeoutSeconds: Int? = nil) {
    self.location = location
    self.driver = driver
    self.schema = schema
    self.connectTimeoutSeconds = connectTimeoutSeconds
  }

  /// The database as messages and reports name it: without a password.
  public var description: String { driver.redacted(location) }
}

/// A store that cannot be opened for a run: it cannot be created (exit 73), or its server
/// cannot be reached or refuses the login (exit 74).
public struct StoreOpenError: Error, Sendable, CustomStringConvertible {
  public enum Kind: Sendable {
    case cannotCreate
    case unreachable
    /// A database that must exist (one opened for reading only) is not there.
    case missing
  }
  public var kind: Kind
  public var message: String
  public init(kind: Kind, message: String) {
    self.kind = kind
    self.message = message
  }
  public var description: String { message }
}
