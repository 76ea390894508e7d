/// A book in the domain: what the loader writes to `books`.
struct Book: Sendable {
  var isbn: String
  var title: String
  var author: String
  var year: Int
  var pages: Int?
}
