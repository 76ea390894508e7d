/// A book as the export carries it: every field required but the page count.
struct BookDTO: Decodable, Sendable {
  let isbn: String
  let title: String
  let author: String
  let year: Int
  /// Absent (or null) when the export does not know it.
  let pages: Int?
}
