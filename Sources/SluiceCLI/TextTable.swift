@_spi(Internals) import SluiceCore

/// Rows of text in aligned columns, for results a person reads on a terminal: text columns
/// flush left, number columns flush right, two spaces between, no trailing blanks.
struct TextTable {
  enum Alignment { case left, right }

  var columns: [(title: String, alignment: Alignment)]
  var rows: [[String]] = []

  init(_ columns: [(title: String, alignment: Alignment)]) {
    self.columns = columns
  }

  mutating func append(_ row: [String]) {
    precondition(row.count == columns.count, "a row has one cell per column")
    // Cells come from the data (paths, names, a `runs` database's rows): escaped before they
    // are measured, so no control character reaches the terminal and the columns stay aligned.
    rows.append(row.map(TerminalText.escape))
  }

  /// The header and the rows, each line starting with `indent`.
  func lines(indent: String = "") -> [String] {
    let all = [columns.map(\.title)] + rows
    let widths = columns.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
    return all.map { row in
      let cells = row.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        return columns[column].alignment == .left ? cell + padding : padding + cell
      }
      var line = indent + cells.joined(separator: "  ")
      while line.last == " " { line.removeLast() }
      return line
    }
  }
}
