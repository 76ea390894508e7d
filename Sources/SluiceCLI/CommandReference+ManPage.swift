import Foundation

/// The man page `sluice(1)`, `docs/reference/sluice.1`, made from the same declarations as
/// `--help` and `commands.md`: a section per subcommand with its options, then the exit codes
/// and the environment. Written in plain man(7) macros, so groff alone formats it.
///
/// `swift run sluice-docs --man` prints it; `.ci/check-docs` and `CommandReferenceTests` fail
/// when the committed page differs, and check it with `man --warnings`.
extension CommandReference {
  /// The page `docs/reference/sluice.1` holds.
  package static var manPage: String {
    var lines = [
      #".\" Generated from the subcommands' declarations (CommandHelp, Sources/SluiceCLI) by"#,
      #".\" `swift run sluice-docs --man > docs/reference/sluice.1`: edit those, not this page."#,
      #".TH SLUICE 1 "" "Sluice \#(SluiceVersion.number)" "User Commands""#,
      ".SH NAME",
      #"sluice \- stream JSON, NDJSON, XML and CSV dumps into SQLite, PostgreSQL or Citus"#,
      ".SH SYNOPSIS",
      ".nf",
    ]
    lines += Sluice.subcommands.map { escaped($0.synopsis) }
    lines += [
      escaped("sluice --help | sluice COMMAND --help"),
      ".fi",
      ".SH DESCRIPTION",
      escaped(joined(Sluice.description.replacingOccurrences(of: "sluice — ", with: "Sluice: "))),
      ".PP",
      escaped(
        "sluice --help lists the datasets the program was built with; a pipeline may also name a "
          + "dataset file (NAME.dataset.json). The full documentation is in the docs folder of "
          + "Sluice's source, beside this page (docs/reference/commands.md)."),
      ".SH COMMANDS",
    ]
    for command in Sluice.subcommands {
      lines += manSection(command)
    }
    lines += [".SH EXIT STATUS", ".nf"]
    lines += Sluice.exitCodes.split(separator: "\n").map { escaped(String($0.dropFirst(2))) }
    lines += [".fi", ".SH ENVIRONMENT"]
    for (names, text) in environment {
      lines += [".TP", ".B " + escaped(names), escaped(text)]
    }
    lines += [
      ".SH SEE ALSO",
      ".BR sqlite3 (1),",
      ".BR psql (1)",
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  /// The variables Sluice, or a library for it, reads.
  static let environment: [(String, String)] = [
    (
      "PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE, PGCONNECT_TIMEOUT, …",
      "libpq's: what a PostgreSQL connection string (--db postgresql://…) leaves out, as for psql."
    ),
    (
      "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN",
      "The credentials s3:// inputs are signed with; without them, those of the profile."
    ),
    (
      "AWS_PROFILE, AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE, HOME",
      "The profile, and the files ~/.aws/credentials and ~/.aws/config it is read from."
    ),
    (
      "AWS_REGION, AWS_DEFAULT_REGION, AWS_ENDPOINT_URL",
      "The region of s3:// inputs, and an S3-compatible server instead of AWS."
    ),
    (
      "SQLITE_TMPDIR, TMPDIR",
      "Where a run's natural keys spill past their memory bound (else /var/tmp or /tmp)."
    ),
  ]

  /// One subcommand: its usage, what it does, its options as tagged paragraphs.
  private static func manSection(_ command: any Subcommand.Type) -> [String] {
    let help = command.help
    var lines = [".SS \(command.name)", ".nf"]
    lines += help.usage.split(separator: "\n").map { escaped($0.trimmingPrefix(" ").description) }
    lines.append(".fi")
    lines += manParagraphs(help.summary)
    for entry in help.options.entries {
      let names =
        entry.label.map { $0.split(separator: ", ").map(String.init) } ?? entry.options.map(\.synopsis)
      lines += [".TP", names.map(manOption).joined(separator: ", ")]
      lines.append(escaped(entry.text.isEmpty ? "" : joined(entry.text)))
    }
    if let epilogue = help.epilogue {
      lines += manParagraphs(epilogue)
    }
    return lines.filter { !$0.isEmpty }
  }

  /// `--name VALUE` as bold name, italic value.
  private static func manOption(_ synopsis: String) -> String {
    let parts = synopsis.split(separator: " ", maxSplits: 1).map(String.init)
    let name = #"\fB"# + escaped(parts[0]).replacingOccurrences(of: "-", with: #"\-"#) + #"\fR"#
    return parts.count > 1 ? name + #" \fI"# + escaped(parts[1]) + #"\fR"# : name
  }

  /// Help paragraphs as `.PP` paragraphs, each one's lines joined.
  private static func manParagraphs(_ text: String) -> [String] {
    text.components(separatedBy: "\n\n").flatMap { [".PP", escaped(joined($0))] }
  }

  /// A paragraph's lines as one.
  private static func joined(_ text: String) -> String {
    text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
  }

  /// Text roff prints as it is: a backslash escaped, and a line that would start with a control
  /// character (`.`, `'`) kept from being read as a request.
  private static func escaped(_ text: String) -> String {
    let text = text.replacingOccurrences(of: #"\"#, with: #"\e"#)
    return text.hasPrefix(".") || text.hasPrefix("'") ? #"\&"# + text : text
  }
}
