/// Writes a whole batch of records' rows in a few set-based statements, where a store can do
/// that faster than `RowWriter`'s statement per row (PostgreSQL's `COPY`).
///
/// It is a shortcut, never a second set of rules: it takes a batch only when every record is one
/// it can write with exactly `RowWriter`'s results (rows, counts, kept records), and when a row of
/// the batch breaks a constraint it takes nothing back but the batch — the caller then writes the
/// same batch through `RowWriter`, record by record, which finds the culprits and their issues.
package protocol BulkWriter: AnyObject {
  /// The most records it takes at once: the hand-off's batches waiting when the loading thread
  /// asks are joined up to this many.
  var recordsPerBatch: Int { get }
  /// Whether `rows` is a record this writer can write with `RowWriter`'s exact results.
  func accepts(_ rows: RecordRows) -> Bool
  /// Writes the records' rows, in order, as `RowWriter` would one by one: per record whether it
  /// kept the rows that were there (`ignore`). Nil when a row broke a constraint: nothing of the
  /// batch was written, and the caller writes it row by row instead.
  func write(_ records: [RecordRows]) throws -> [Bool]?
  /// Rows written by the batches this writer wrote, per table.
  var rowsWritten: [String: Int] { get }
  /// How it wrote the batches, counting those written row by row instead (`countRowByRow`).
  var batches: RunReport.BulkWrites { get }
  /// A batch it did not take went row by row.
  func countRowByRow()
}
