/// The options of every command that reads inputs, for remote ones (`https://…`, `s3://…`).
enum RemoteOptionEntries {
  /// How remote inputs (`https://…`, `s3://…`) are reached, for every command that reads them.
  static var entries: [OptionEntry] {
    [
      OptionEntry(
        .value("retries", "N"),
        """
        try a remote input's failed request N more times, with growing
        waits, resuming a broken transfer from the byte it reached
        (default 5; the spec's 'retries')
        """),
      OptionEntry(
        .value("ca-bundle", "FILE"),
        """
        verify https:// servers against the certificate authorities in
        this PEM file instead of the system's (the spec's 'caBundle')
        """),
    ]
  }
}
