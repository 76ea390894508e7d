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
