@_spi(Internals) import SluiceCore

/// A PostgreSQL server's libpq connection string — a URL (`postgresql://user@host:5432/db`,
/// `postgres://…`, `postgresql://user@/db?host=/run/dir`) or keyword/value pairs
/// (`host=db dbname=shop user=ann`) — read as far as Sluice needs: whether a `--db` text is one,
/// and where its passwords are, so that whatever Sluice prints (messages, reports, `sluice_runs`)
/// keeps the host, port and database and never a password. libpq reads the rest.
enum PostgreSQLConnectionString {
  static func isPostgreSQLURL(_ text: String) -> Bool {
    let lowered = text.prefix(14).lowercased()
    return lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://")
  }

  /// Whether `text` is a libpq connection string rather than a file's path: a URL, or keyword/
  /// value pairs (`host=db.example dbname=shop`) — never a SQLite file named after them, which
  /// would print a password given among them as the file's name.
  static func namesPostgreSQL(_ text: String) -> Bool {
    isPostgreSQLURL(text) || isKeywordValueString(text)
  }

  /// libpq's connection keywords (PostgreSQL 15–17). A string whose first word, before `=`, is one
  /// of them is a connection string; libpq judges the rest (`PostgreSQLStore.problem(in:)`).
  static let connectionKeywords: Set<String> = [
    "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth", "channel_binding",
    "connect_timeout", "client_encoding", "options", "application_name", "fallback_application_name", "keepalives",
    "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode",
    "sslmode", "sslnegotiation", "requiressl", "sslcompression", "sslcert", "sslkey", "sslcertmode", "sslpassword",
    "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
    "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation", "service", "target_session_attrs",
    "load_balance_hosts",
  ]

  /// Whether `text` starts, after blanks, with `keyword =` for a keyword libpq knows.
  static func isKeywordValueString(_ text: String) -> Bool {
    let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    guard let equals = trimmed.firstIndex(of: "=") else { return false }
    let keyword = trimmed[..<equals].trimmingCharacters(in: .whitespacesAndNewlines)
    return connectionKeywords.contains(keyword)
  }

  /// The password a URL carries, decoded; nil when it has none.
  static func password(in url: String) -> String? {
    if !isPostgreSQLURL(url) {
      return keywordValuePairs(in: url).first { $0.keyword == "password" }?.value
    }
    return passwordRanges(in: url).first.map { String(url[$0]).removingPercentEncoding ?? String(url[$0]) }
  }

  /// Every secret of a connection string as it may appear in a message: as written, and as
  /// meant (percent-decoded, unquoted) — what a message quoting the string must never show.
  static func secrets(in url: String) -> [String] {
    var secrets: [String] = []
    for range in passwordRanges(in: url) {
      let written = String(url[range])
      secrets += [written, written.removingPercentEncoding ?? ""]
    }
    if !isPostgreSQLURL(url) {
      secrets += keywordValuePairs(in: url).filter { secretKeywords.contains($0.keyword) }.map(\.value)
    }
    // Longest first, so a secret that contains another is masked whole.
    return Array(Set(secrets.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
  }

  static func redact(_ url: String) -> String {
    var redacted = url
    for range in passwordRanges(in: url).reversed() { redacted.replaceSubrange(range, with: "***") }
    return redacted
  }

  /// Where a connection string's passwords are. In a URL, by libpq's URI grammar:
  /// `scheme://[user[:password]@][host][:port][,…][/dbname][?key=value&…]` — libpq ends the user
  /// information at the first `@` before any `/`, and the password at the first `:` in it; and
  /// any `password=` or `sslpassword=` parameter. In keyword/value pairs, the values of those
  /// two keywords, quotes included.
  static func passwordRanges(in url: String) -> [Range<String.Index>] {
    if !isPostgreSQLURL(url) {
      return keywordValuePairs(in: url).filter { secretKeywords.contains($0.keyword) }.map(\.range)
    }
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
      for keyword in secretKeywords where parameter.hasPrefix(keyword + "=") {
        ranges.append(parameter.index(parameter.startIndex, offsetBy: keyword.count + 1)..<end)
      }
      start = end < rest.endIndex ? rest.index(after: end) : end
    }
    return ranges
  }

  /// The keywords whose values are secrets.
  static let secretKeywords = ["password", "sslpassword"]

  /// The `keyword = value` pairs of a keyword/value connection string, as libpq reads them: blanks
  /// around `=` allowed, a value single-quoted (with `\'` and `\\` inside) or running to the next
  /// blank. `range` is the value as written (quotes included), `value` what it means. Stops at the
  /// first thing that is not a pair: libpq refuses such a string anyway.
  static func keywordValuePairs(in text: String) -> [(keyword: String, range: Range<String.Index>, value: String)] {
    var pairs: [(keyword: String, range: Range<String.Index>, value: String)] = []
    var index = text.startIndex
    func skipBlanks() {
      while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
    }
    while true {
      skipBlanks()
      guard index < text.endIndex else { return pairs }
      let keywordStart = index
      while index < text.endIndex, text[index] != "=", !text[index].isWhitespace { index = text.index(after: index) }
      let keyword = String(text[keywordStart..<index])
      skipBlanks()
      guard index < text.endIndex, text[index] == "=" else { return pairs }
      index = text.index(after: index)
      skipBlanks()
      let valueStart = index
      var value = ""
      if index < text.endIndex, text[index] == "'" {
        index = text.index(after: index)
        while index < text.endIndex, text[index] != "'" {
          if text[index] == "\\", text.index(after: index) < text.endIndex { index = text.index(after: index) }
          value.append(text[index])
          index = text.index(after: index)
        }
        if index < text.endIndex { index = text.index(after: index) }
      } else {
        while index < text.endIndex, !text[index].isWhitespace {
          if text[index] == "\\", text.index(after: index) < text.endIndex { index = text.index(after: index) }
          value.append(text[index])
          index = text.index(after: index)
        }
      }
      pairs.append((keyword, valueStart..<index, value))
    }
  }
}
