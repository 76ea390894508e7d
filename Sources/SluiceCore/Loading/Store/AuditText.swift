/// Text as the audit tables keep it: always storable, on every store, whatever a record's keys
/// were.
///
/// An issue's field path holds the record's own key names, and a failure's message may quote
/// that path: a key with a NUL character (`"bad\u0000key"`) is valid JSON, and PostgreSQL's
/// `text` cannot hold a NUL (SQLSTATE 22021) — the run's audit row would fail to insert and the
/// run would end without one. So a NUL is written as JSON writes it in the report, `\u0000`, and
/// text longer than its column's limit here is cut on a character boundary with a marker that
/// says how long it was. Both stores write the same text, so `sluice runs` shows the same.
package enum AuditText {
  /// Field paths (`sluice_rejects.path`), grouped and printed by `sluice runs`.
  static let pathLimit = 1_024
  /// Issue messages, rule names, input paths.
  static let messageLimit = 4_096
  /// A failed run's reason (`sluice_runs.failure`), which may name a statement.
  package static let failureLimit = 16_384

  /// `text` with each NUL written `\u0000`, cut to at most `limit` bytes of UTF-8 (the marker
  /// included) when longer.
  package static func storable(_ text: String, limit: Int) -> String {
    var text = text
    if text.utf8.contains(0) {
      text = text.replacingOccurrences(of: "\u{0}", with: "\\u0000")
    }
    let size = text.utf8.count
    guard size > limit else { return text }
    let marker = "…[cut: \(size) bytes]"
    var kept = ""
    var used = 0
    let room = max(limit - marker.utf8.count, 0)
    for character in text {
      let weight = character.utf8.count
      if used + weight > room { break }
      kept.append(character)
      used += weight
    }
    return kept + marker
  }
}
