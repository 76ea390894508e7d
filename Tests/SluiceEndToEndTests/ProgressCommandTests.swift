import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

/// The progress line of the real binary: drawn when stderr is a terminal — a pseudo-terminal
/// made by `script(1)` — cut to its width and erased before the summary; never a byte of it when
/// stderr is a file, unless forced.
@Suite("sluice's progress line, end to end")
struct ProgressCommandTests {
  /// The escape sequence that clears to the end of the line; a drawn line ends with it.
  static let clear = "\u{1B}[K"

  /// Runs `sluice arguments` under a pseudo-terminal `columns` wide; returns what the terminal got.
  private func underTerminal(_ arguments: String, columns: Int = 200) throws -> SluiceBinary.Result {
    try SluiceBinary.shell(#"script -qec "stty cols \#(columns); \"$SLUICE\" \#(arguments)" /dev/null"#)
  }

  /// The progress lines drawn in `output`: each text between a carriage return and the clear.
  private func drawnLines(_ output: String) -> [String] {
    output.components(separatedBy: "\r").compactMap { piece in
      piece.hasSuffix(Self.clear) && piece.count > Self.clear.count ? String(piece.dropLast(Self.clear.count)) : nil
    }
  }

  @Test func aTerminalGetsTheLineRedrawnInPlaceAndErasedBeforeTheSummary() throws {
    let scratch = try TemporaryDirectory()
    let result = try underTerminal(
      "run Pipelines/orders.json --db \(scratch.file("o.sqlite")) --report \(scratch.file("r.json"))")
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let lines = drawnLines(result.stdout)
    #expect(!lines.isEmpty, "no progress line in \(result.stdout.debugDescription)")
    for line in lines {
      #expect(
        line.range(
          of: #"^\d+% \d+\.\d/\d+\.\d MiB · [\d,]+ read · [\d,]+ loaded · [\d,]+ rec/s · [\d,]+ rejected · \d+:\d\d"#,
          options: .regularExpression) != nil, "\(line)")
    }
    // Erased (a carriage return and a clear with nothing between) before the summary.
    let erase = try #require(result.stdout.range(of: "\r" + Self.clear + "sluice: orders (orders, strict) succeeded"))
    #expect(!result.stdout[erase.upperBound...].contains("\r" + "1"), "a line drawn after the summary")
    #expect(result.stdout.contains("orders: 2000 rows"))
  }

  @Test func aNarrowTerminalGetsLinesThatFit() throws {
    let scratch = try TemporaryDirectory()
    let result = try underTerminal(
      "run Pipelines/orders.json --db \(scratch.file("o.sqlite")) --report \(scratch.file("r.json"))", columns: 50)
    #expect(result.status == 0)
    let lines = drawnLines(result.stdout)
    #expect(!lines.isEmpty)
    #expect(lines.allSatisfy { $0.count <= 49 && $0.hasSuffix("…") }, "\(lines)")
  }

  @Test func noProgressOnATerminalDrawsNothing() throws {
    let scratch = try TemporaryDirectory()
    let result = try underTerminal(
      "run Pipelines/orders.json --no-progress --db \(scratch.file("o.sqlite")) --report \(scratch.file("r.json"))")
    #expect(result.status == 0)
    #expect(!result.stdout.contains(Self.clear))
    #expect(result.stdout.contains("sluice: orders (orders, strict) succeeded"))
  }

  @Test func aFileGetsNoProgressBytesUnlessForced() throws {
    let scratch = try TemporaryDirectory()
    for mode in ["run", "validate"] {
      let database = mode == "run" ? ["--db", scratch.file("orders.sqlite")] : []
      let plain = try SluiceCommand.run(
        [mode, "Pipelines/orders.json", "--report", scratch.file("\(mode).json")] + database)
      #expect(plain.status == 0, "\(plain.stderr)")
      #expect(!plain.stderr.contains("\r") && !plain.stderr.contains("\u{1B}"), "\(plain.stderr.debugDescription)")
      #expect(!plain.stdout.contains("\r") && !plain.stdout.contains("\u{1B}"))
    }
    let forced = try SluiceCommand.run([
      "validate", "Pipelines/orders.json", "--progress", "--report", scratch.file("forced.json"),
    ])
    #expect(forced.status == 0)
    let lines = drawnLines(forced.stderr)
    #expect(!lines.isEmpty)
    #expect(lines.allSatisfy { $0.contains(" checked · ") })
    #expect(forced.stderr.contains("\r" + Self.clear + "sluice: orders"))
  }

  @Test func contradictoryFlagsAreAUsageError() throws {
    let result = try SluiceCommand.run(["run", "Pipelines/orders.json", "--progress", "--no-progress"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--progress and --no-progress"))
  }
}
