extension HTMLReport {
  /// The page's colours: the funnel's segments and the share bars use the same ones.
  enum Palette {
    static let passed = "#1e7b34"
    static let rejected = "#c5221f"
    static let skipped = "#80868b"
    /// Records a stage received and neither passed nor rejected: a run that stopped mid-stage.
    static let unaccounted = "#bdc1c6"
    static let track = "#f1f3f4"
    static let warning = "#b06000"
    static let text = "#202124"
    static let muted = "#5f6368"
  }

  /// The stage funnel as inline SVG: one row per stage, read → decode → validate → map → load,
  /// each a bar as long as the records the stage received, split into those it passed on
  /// (green), rejected (red) and skipped by design (grey), all to one scale — the most records
  /// any stage received — with the counts written beside the bar.
  ///
  /// The counts sit outside the bars so they stay readable however small a segment is; a
  /// segment that is not empty is at least 2 units wide, so one reject among millions shows.
  /// Coordinates are written with at most one decimal and a dot, whatever the locale; a report
  /// with no records draws empty tracks.
  static func funnel(_ report: RunReport) -> String {
    let width = 760.0
    let barX = 92.0
    let barWidth = 400.0
    let textX = barX + barWidth + 16
    let rowHeight = 46.0
    let barHeight = 22.0
    let top = 4.0
    let stages = Stage.allCases.map { report.statistics(for: $0) }
    let scale = Double(stages.map(\.recordsIn).max() ?? 0)
    func length(_ count: Int) -> Double {
      guard scale > 0, count > 0 else { return 0 }
      return max(Double(count) / scale * barWidth, 2)
    }
    let validates = report.mode == RunMode.validate.rawValue
    var rows: [String] = []
    for (index, statistics) in stages.enumerated() {
      let y = top + Double(index) * rowHeight
      let name = statistics.stage.rawValue
      var shapes = [
        rect(x: barX, y: y, width: barWidth, height: barHeight, fill: Palette.track),
        rect(x: barX, y: y, width: length(statistics.recordsIn), height: barHeight, fill: Palette.unaccounted),
      ]
      var x = barX
      for (count, fill, kind) in [
        (statistics.recordsOut, Palette.passed, "out"), (statistics.rejected, Palette.rejected, "rejected"),
        (statistics.skipped, Palette.skipped, "skipped"),
      ] where count > 0 {
        let segment = length(count)
        shapes.append(rect(x: x, y: y, width: segment, height: barHeight, fill: fill, kind: kind))
        x += segment
      }
      var first = "in \(grouped(statistics.recordsIn)) · out \(grouped(statistics.recordsOut))"
      var second: [String] = []
      if validates && statistics.stage == .load {
        first = "not run"
        second.append(tspan("validate writes nothing", fill: Palette.muted))
      } else if statistics.rejected > 0 {
        second.append(tspan("rejected \(grouped(statistics.rejected))", fill: Palette.rejected, bold: true))
      } else {
        second.append(tspan("no rejects", fill: Palette.muted))
      }
      if statistics.skipped > 0 { second.append(tspan("skipped \(grouped(statistics.skipped))", fill: Palette.muted)) }
      if statistics.kept > 0 { second.append(tspan("kept \(grouped(statistics.kept))", fill: Palette.muted)) }
      if statistics.warnings > 0 {
        second.append(tspan("warnings \(grouped(statistics.warnings))", fill: Palette.warning))
      }
      let summary =
        "\(name): \(statistics.recordsIn) in, \(statistics.recordsOut) out, \(statistics.rejected) rejected, "
        + "\(statistics.warnings) warnings"
      rows.append(
        """
        <g class="stage" data-stage="\(name)"><title>\(escape(summary))</title>
        <text x="0" y="\(svgNumber(y + 16))" class="name">\(name)</text>
        \(shapes.joined())
        <text x="\(svgNumber(textX))" y="\(svgNumber(y + 9))" class="count">\(escape(first))</text>
        <text x="\(svgNumber(textX))" y="\(svgNumber(y + 25))" class="count">\(second.joined(separator: tspan(" · ", fill: Palette.muted)))</text>
        </g>
        """)
    }
    let legendY = top + Double(stages.count) * rowHeight + 4
    var legend: [String] = []
    var legendX = barX
    var entries = [("passed on", Palette.passed), ("rejected", Palette.rejected)]
    if stages.contains(where: { $0.skipped > 0 }) { entries.append(("skipped by design", Palette.skipped)) }
    if stages.contains(where: { $0.recordsIn > $0.recordsOut + $0.rejected + $0.skipped }) {
      entries.append(("received, neither passed nor rejected", Palette.unaccounted))
    }
    for (label, fill) in entries {
      legend.append(rect(x: legendX, y: legendY, width: 12, height: 12, fill: fill))
      legend.append(
        "<text x=\"\(svgNumber(legendX + 17))\" y=\"\(svgNumber(legendY + 10))\" class=\"legend\">\(label)</text>")
      legendX += 17 + Double(label.count) * 6.6 + 18
    }
    let height = legendY + 18
    return """
      <svg class="funnel" role="img" aria-labelledby="funnel-title" width="\(svgNumber(width))" height="\(svgNumber(height))" viewBox="0 0 \(svgNumber(width)) \(svgNumber(height))">
      <title id="funnel-title">Records in, out and rejected per stage</title>
      \(rows.joined(separator: "\n"))
      <g class="legend">\(legend.joined())</g>
      </svg>
      """
  }

  private static func rect(
    x: Double, y: Double, width: Double, height: Double, fill: String, kind: String? = nil
  ) -> String {
    let kindAttribute = kind.map { " class=\"\($0)\"" } ?? ""
    return "<rect\(kindAttribute) x=\"\(svgNumber(x))\" y=\"\(svgNumber(y))\" width=\"\(svgNumber(width))\" "
      + "height=\"\(svgNumber(height))\" fill=\"\(fill)\"/>"
  }

  private static func tspan(_ text: String, fill: String, bold: Bool = false) -> String {
    "<tspan fill=\"\(fill)\"\(bold ? " font-weight=\"600\"" : "")>\(escape(text))</tspan>"
  }
}
