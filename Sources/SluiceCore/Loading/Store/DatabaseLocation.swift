/// Where a run's database is: a SQLite file, or a PostgreSQL server named by a libpq URL
/// (`postgresql://user@host:5432/db`, `postgres://…`, `postgresql://user@/db?host=/run/dir`).
///
/// The configuration keeps the text as given, so the store can connect with everything in it;
/// whatever Sluice prints — messages, reports, `sluice_runs` — uses `redacted`, which keeps the
/// host, port and database and never a password.
public enum DatabaseLocation: Sendable, Hashable {
  case sqlite(path: String)
  case postgreSQL(url: String)

  /// A URL whose scheme is `postgresql` or `postgres` (any case) names a server; anything else is
  /// a SQLite file's path.
  public init(_ text: String) {
    self = Self.isPostgreSQLURL(text) ? .postgreSQL(url: text) : .sqlite(path: text)
  }

  public static func isPostgreSQLURL(_ text: String) -> Bool {
    let lowered = text.prefix(14).lowercased()
    return lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://")
  }

  public var isPostgreSQL: Bool {
    if case .postgreSQL = self { return true }
    return false
  }

  /// The location as Sluice prints it: a path as it is; a URL with its password, if it has one,
  /// replaced by `***` — in the user information (`user:secret@`) and in a `password=` parameter.
  public var redacted: String {
    switch self {
    case .sqlite(let path): return path
    case .postgreSQL(let url): return Self.redact(url)
    }
  }

  /// Whether the URL carries a password (which `ps` shows to every user when it is an argument).
  public var hasPassword: Bool {
    guard case .postgreSQL(let url) = self else { return false }
    return Self.redact(url) != url
  }

  /// The password a URL carries, decoded; nil when it has none.
  public static func password(in url: String) -> String? {
    passwordRanges(in: url).first.map { String(url[$0]).removingPercentEncoding ?? String(url[$0]) }
  }

  static func redact(_ url: String) -> String {
    var redacted = url
    for range in passwordRanges(in: url).reversed() { redacted.replaceSubrange(range, with: "***") }
    return redacted
  }

  /// Where a URL's passwords are, by libpq's URI grammar:
  /// `scheme://[user[:password]@][host][:port][,…][/dbname][?key=value&…]`. libpq ends the user
  /// information at the first `@` before any `/`, and the password at the first `:` in it.
  static func passwordRanges(in url: String) -> [Range<String.Index>] {
    guard let schemeEnd = url.range(of: "://") else { return [] }
    var ranges: [Range<String.Index>] = []
    let rest = url[schemeEnd.upperBound...]
    if let at = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[at] == "@",
      let colon = rest[..<at].firstIndex(of: ":")
    {
      ranges.append(rest.index(after: colon)..<at)
    }
    guard let question = rest.firstIndex(of: "?") else { return ranges }
    var start = rest.index(after: question)
    while start < rest.endIndex {
      let end = rest[start...].firstIndex(of: "&") ?? rest.endIndex
      let parameter = rest[start..<end]
      if parameter.hasPrefix("password=") {
        ranges.append(parameter.index(parameter.startIndex, offsetBy: 9)..<end)
      }
      start = end < rest.endIndex ? rest.index(after: end) : end
    }
    return ranges
  }
}
