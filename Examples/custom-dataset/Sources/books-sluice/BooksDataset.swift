import SluiceCore

/// Books → `books`, keyed by ISBN-13: a dataset declared outside Sluice's catalog.
///
/// Everything a catalog dataset has: a DTO for the wire format, rules for the validate stage,
/// a mapper, the table as a declaration and the rows of a record. The engine derives the DDL
/// (`books-sluice schema books`) and writes the rows.
struct BooksDataset: Dataset {
  var name: String { "books" }
  var summary: String { "books by ISBN-13 (Examples/custom-dataset) → books" }

  static let books = Table(
    "books", key: ["isbn"],
    columns: [
      .text("isbn"), .text("title"), .text("author"), .integer("year"),
      .integer("pages", nullable: true, checks: [.atLeast(1)]),
    ])
  var schema: Schema { Schema([Self.books]) }

  /// Each rule says what it checks as data too, for `books-sluice contract books`.
  static let isbnIs13Digits = ValidationRule(
    "isbn is 13 digits", message: "must be an ISBN-13: 13 digits, no dashes",
    constraints: [.pattern("^[0-9]{13}$", at: "isbn")])
  static let titleNotBlank = ValidationRule(
    "title is not blank", message: "must not be blank", constraints: [.notBlank(at: "title")])
  var rules: [ValidationRule] { [Self.isbnIs13Digits, Self.titleNotBlank] }

  func validate(_ book: BookDTO, into validation: inout Validation) {
    validation.checkCharacters(
      Self.isbnIs13Digits, book.isbn, length: 13...13, where: { ("0"..."9").contains($0) }, at: "isbn")
    validation.checkNotBlank(Self.titleNotBlank, book.title, at: "title")
  }

  func map(_ book: BookDTO, context _: inout MappingContext) throws(MappingError) -> Book {
    Book(isbn: book.isbn, title: book.title, author: book.author, year: book.year, pages: book.pages)
  }

  func rows(for book: Book, into rows: inout RecordRows) {
    rows.add(Self.books, book.isbn, book.title, book.author, book.year, book.pages)
  }
}
