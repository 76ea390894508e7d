/// Text from the report escaped for markup: the HTML page's (`HTMLReport.escape`) and the JUnit
/// XML's (`JUnitReport.escape`), one loop for both. `&`, `<`, `>` and `"` become character
/// references everywhere (text is put in content and double-quoted attributes alike); what the
/// two differ in is given: whether `'` is escaped too, and which characters the format forbids
/// and what stands for them (HTML: U+FFFD, visible; XML: nothing).
package enum MarkupText {
  package static func escape(
    _ text: String, apostrophe: Bool, forbids: (UInt32) -> Bool, replacement: Unicode.Scalar?
  ) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'" where apostrophe: result += "&#39;"
      case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
      default:
        if forbids(scalar.value) {
          if let replacement { result.unicodeScalars.append(replacement) }
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result
  }
}
