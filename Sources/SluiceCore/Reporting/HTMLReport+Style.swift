extension HTMLReport {
  /// The page's inline stylesheet. Fonts are the reader's own (`system-ui` and friends): a
  /// report never fetches one. Colours come from `Palette`.
  static let stylesheet = """
    :root { color-scheme: light; }
    * { box-sizing: border-box; }
    body { margin: 0; background: #f8f9fa; color: \(Palette.text);
      font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; }
    main { max-width: 1120px; margin: 0 auto; padding: 20px 28px 32px; }
    header { margin: 4px 0 12px; }
    h1 { font-size: 26px; margin: 2px 0 4px; overflow-wrap: anywhere; }
    h2 { font-size: 17px; margin: 0 0 10px; }
    h3 { font-size: 14px; margin: 16px 0 6px; }
    h2 .count, h3 .count { color: \(Palette.muted); font-weight: 500; margin-left: 4px; }
    section { background: #fff; border: 1px solid #dadce0; border-radius: 8px; padding: 14px 20px; margin: 14px 0; }
    section.failure { border-left: 6px solid \(Palette.rejected); background: #fce8e6; }
    section.failure h2 { color: \(Palette.rejected); }
    section.failure .reason { font-weight: 600; overflow-wrap: anywhere; }
    section.notice { border-left: 6px solid \(Palette.warning); background: #fef7e0; }
    .eyebrow { margin: 0; color: \(Palette.muted); font-size: 12px; text-transform: uppercase; letter-spacing: .06em; }
    .meta { margin: 0; color: \(Palette.muted); overflow-wrap: anywhere; }
    .badge { display: inline-block; vertical-align: middle; font-size: 13px; font-weight: 600; padding: 2px 12px;
      border-radius: 999px; color: #fff; }
    .badge.ok { background: \(Palette.passed); }
    .badge.failed { background: \(Palette.rejected); }
    dl.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(130px, 1fr)); gap: 10px; margin: 0; }
    dl.cards div { background: #fff; border: 1px solid #dadce0; border-radius: 8px; padding: 10px 14px; }
    dl.cards dt { color: \(Palette.muted); font-size: 12px; }
    dl.cards dd { margin: 2px 0 0; font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
    dl.cards small { display: block; font-size: 12px; font-weight: 400; color: \(Palette.muted); }
    table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
    th, td { text-align: left; padding: 4px 12px 4px 0; border-bottom: 1px solid #e8eaed; vertical-align: top; }
    th { font-size: 12px; color: \(Palette.muted); font-weight: 600; }
    tbody th { color: \(Palette.text); font-size: 14px; }
    .n { text-align: right; white-space: nowrap; }
    table.stages, #tables table, #checks table { max-width: 760px; }
    td.share { width: 130px; }
    table.issues { table-layout: fixed; }
    table.issues .stage { width: 140px; }
    table.issues .input { width: 170px; }
    table.issues .n { width: 76px; }
    table.issues .field { width: 230px; }
    code, .path { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px;
      overflow-wrap: anywhere; }
    .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(400px, 1fr)); gap: 8px 28px; }
    .grid h3 { margin-top: 4px; }
    .none, .note { color: \(Palette.muted); }
    .note { font-size: 12px; margin: 6px 0 0; }
    .hidden { position: absolute; left: -10000px; }
    .tag { font-size: 11px; padding: 0 6px; border-radius: 4px; background: #fef7e0; color: \(Palette.warning); }
    .result { font-weight: 600; }
    .result.ok { color: \(Palette.passed); }
    .result.failed { color: \(Palette.rejected); }
    .result.warning { color: \(Palette.warning); }
    svg.funnel { display: block; width: 100%; max-width: 760px; height: auto; margin: 0 0 10px; }
    svg.funnel text { font-size: 12.5px; fill: \(Palette.text); }
    svg.funnel text.name { font-size: 14px; font-weight: 600; }
    svg.funnel text.legend { font-size: 12px; fill: \(Palette.muted); }
    dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 18px; margin: 0; }
    dl.facts dt { color: \(Palette.muted); }
    dl.facts dd { margin: 0; overflow-wrap: anywhere; }
    footer { color: \(Palette.muted); font-size: 12px; text-align: center; margin-top: 18px; }
    """
}
