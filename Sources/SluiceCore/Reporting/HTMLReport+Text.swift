extension HTMLReport {
  /// Escapes text for HTML content and quoted attribute values: `&`, `<`, `>`, `"` and `'`
  /// become character references, and control characters other than tab, line feed and
  /// carriage return — which HTML forbids — become U+FFFD, so they are visible, not dropped.
  ///
  /// Everything on the page that comes from the report (names, paths, messages, codes) goes
  /// through here, element content and attributes alike.
  public static func escape(_ text: String) -> String {
    MarkupText.escape(
      text, apostrophe: true, forbids: { $0 < 0x20 || (0x7F...0x9F).contains($0) }, replacement: "\u{FFFD}")
  }

  /// An SVG coordinate or length: at most one decimal, a dot as the separator whatever the
  /// locale, no trailing `.0`, never negative, NaN or infinite (those become 0).
  static func svgNumber(_ value: Double) -> String {
    guard value.isFinite, value > 0 else { return "0" }
    let tenths = Int64((min(value, 1e12) * 10).rounded())
    let whole = tenths / 10
    let fraction = tenths % 10
    return fraction == 0 ? "\(whole)" : "\(whole).\(fraction)"
  }

  /// `1234567` → `1,234,567`, the same in every locale.
  static func grouped<Number: BinaryInteger>(_ value: Number) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
      result.append(digit)
    }
    return value < 0 ? "-" + result : result
  }

  /// A byte count for people: `512 bytes`, `73.6 KiB`, `57.3 MiB`, `1.2 GiB`.
  static func size(_ bytes: Int64) -> String {
    let units = ["KiB", "MiB", "GiB", "TiB"]
    guard bytes >= 1024 else { return "\(grouped(bytes)) bytes" }
    var value = Double(bytes) / 1024
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    let tenths = Int64((value * 10).rounded())
    return "\(grouped(tenths / 10)).\(tenths % 10) \(units[unit])"
  }
}
