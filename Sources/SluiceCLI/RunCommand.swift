@_spi(Internals) import SluiceCore

/// `sluice run`: loads the pipeline's inputs into its database in one transaction.
struct RunCommand: PipelineSubcommand {
  static let runMode = RunMode.run
  static let synopsis = "sluice run PIPELINE.json [options]"
  static let abstract = "import the pipeline's input(s) into its database"
  static let rejects = RejectsFile.written
  static let writesDatabase = true
  static let help = makeHelp(
    usage: "sluice run PIPELINE.json [options]",
    summary: """
      Runs the pipeline: reads its input (gzip detected by content), decodes, validates, maps and
      loads every record into the database in one transaction, then prints a per-stage summary on
      stderr and where the database is and what it holds on stdout. A spec that lists several
      inputs loads them in order, all in that one transaction: a failure in any rolls back all,
      and a missing one fails the run (exit 66) before the database is opened.
      """,
    options: specInputOptions + [
      OptionEntry(
        .value("on-conflict", "upsert|replace|ignore|fail"),
        """
        a record whose key exists: update it and replace its children
        (upsert), delete and insert it (replace: rows that reference it
        with ON DELETE CASCADE, such as a device's alerts, go too),
        keep the existing row (ignore), or reject it (fail)
        """),
      OptionEntry(
        .value("db", "PATH|URL"),
        """
        the SQLite database to create or update, or a PostgreSQL
        server: postgresql://user@host:port/db (any libpq URL; the
        password from ~/.pgpass or PGPASSWORD, not the URL)
        """),
      OptionEntry(.value("db-schema", "NAME"), "PostgreSQL: the schema of the tables (default public)"),
      OptionEntry(
        .value("connect-timeout", "SECONDS"), "PostgreSQL: how long to wait for the server (default 10)"),
      OptionEntry(
        .value("jobs", "N"),
        """
        PostgreSQL: load inputs whose tables do not depend on each
        other over up to N connections at once (default 1); still
        one all-or-nothing run with one report. Inputs that share or
        reference tables (the files of one glob, devices and their
        alerts) load in order on one connection; SQLite and
        validate runs load one input after another
        """),
      OptionEntry(
        .value("lane-commit", "automatic|two-phase|ordered"),
        """
        how a --jobs run commits its connections: two-phase
        (PREPARE TRANSACTION, atomic) when the server allows it
        (automatic, the default), or one after another (ordered)
        """),
      OptionEntry(
        .value("share", "K/N"),
        """
        load share K of N of the files each glob in the spec matches
        (sorted by path, every Nth from the Kth), so N processes — on
        one machine or N — load one dump together, each its own
        all-or-nothing run; the spec's other inputs are read by each
        """),
      OptionEntry(.value("rejects", "PATH"), "write every rejected record (raw text and issues) as NDJSON here"),
      countRowsOption,
      OptionEntry(
        .flag("incremental"),
        """
        skip every input whose content the database already holds,
        under any name (the input ledger, sluice_inputs); a path it
        loaded with other content is refused (exit 65)
        """),
      OptionEntry(.flag("reload-changed"), "with --incremental: load such a changed file again instead"),
      OptionEntry(
        .flag("verify-content"),
        """
        with --incremental: hash every input, even one whose
        fingerprint (inode, size, modification and change times) is
        the one the ledger recorded, instead of trusting it: a file
        rewritten in place through a shared mapping can keep it
        """),
      OptionEntry(
        .flag("snapshot"),
        """
        the inputs are a full dump: after the load, delete the top-level
        rows whose keys were not in them (their children with them)
        """),
      OptionEntry(
        .value("max-delete-rate", "R"),
        """
        the largest share of a table a snapshot may delete (default
        0.05); a run that would delete more fails (exit 65)
        """),
      OptionEntry(
        .value("checkpoint-every", "N"),
        """
        commit the run in chunks of about N records, each with a
        checkpoint: a run that crashed or failed resumes from the last
        one (--resume). Not all-or-nothing: the committed chunks stay
        """),
      OptionEntry(
        .flag("resume"),
        """
        continue the last unfinished checkpointed run of this pipeline
        in this database where its last chunk ended; refused (exit 65)
        when an input changed since; with none, it starts the run
        """),
      OptionEntry(
        .flag("stage"),
        """
        with checkpoints, into a staging area readers never see (a
        side database; on PostgreSQL a schema of the run), published
        in one transaction at the end: resumable and all-or-nothing
        """),
      OptionEntry(
        .flag("restart"),
        """
        start a checkpointed run over although an unfinished one of
        this pipeline is in the database (otherwise refused, exit 65):
        its checkpoint is dropped, the chunks it committed stay
        """),
      evolveOption,
      busyTimeoutOption,
      memoryBudgetOption,
      failOnRejectsOption,
    ])

  /// `--evolve`, as run lists it.
  static var evolveOption: OptionEntry {
    OptionEntry(
      .flag("evolve"),
      """
      evolve every dataset file as if it said "evolution": "evolve":
      new fields become nullable columns and child tables, integers
      widen to decimals, in the run's transaction; the file is
      rewritten after the commit (the old one kept beside it)
      """)
  }

  /// `--count-rows`, as run and replay list it.
  static var countRowsOption: OptionEntry {
    OptionEntry(
      .flag("count-rows"),
      """
      count every table's rows after the commit (a full scan of each
      table; the report's tableRows): by default the rows written
      """)
  }

  /// `--memory-budget`, as run, plan and replay list it.
  static var memoryBudgetOption: OptionEntry {
    OptionEntry(
      .value("memory-budget", "SIZE"),
      """
      the memory the run may take, shared by the page cache, the key
      caches and the hand-off between threads: a number of MiB, or
      512MiB, 2GiB (default 64MiB; at least 56MiB)
      """)
  }

  /// `--busy-timeout`, as run and replay list it.
  static var busyTimeoutOption: OptionEntry {
    OptionEntry(
      .value("busy-timeout", "SECONDS"),
      """
      how long to wait for another process's lock, or for a FIFO
      given as an input or output to be opened at its other end
      (default 5)
      """)
  }

  var invocation: PipelineInvocation
}
