import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// Notes of two kinds — a text or a link — each kind's columns in an extension table of
/// `notes`; authors shared by notes, named by some records and merely mentioned by others.
private struct NotesDataset: Dataset {
  struct LinkDTO: Decodable { var url: String, title: String? }
  struct DTO: Decodable {
    var id: String, kind: String, author: String?, authorName: String?, editor: String?
    var text: String?, link: LinkDTO?
  }

  static let authors = Table(
    "authors", key: ["author_id"],
    columns: [.text("author_id", field: "author"), .text("name", field: "authorName", nullable: true)],
    onConflict: .upsert)
  static let notes = Table(
    "notes", key: ["note_id"],
    columns: [
      .text("note_id", field: "id"), .text("kind"),
      .reference("author_id", to: authors, field: "author", nullable: true),
      .reference("editor_id", to: authors, field: "editor", nullable: true),
    ])
  static let texts = Table("note_texts", extending: notes, columns: [.text("body", field: "text", checks: [.notEmpty])])
  static let links = Table(
    "note_links", extending: notes, field: "link",
    columns: [.text("url", checks: [.notEmpty]), .text("title", nullable: true)])

  var name: String { "notes" }
  var summary: String { "notes of two kinds" }
  var schema: Schema { Schema([Self.authors, Self.notes, Self.texts, Self.links]) }
  func validate(_ dto: DTO, into validation: inout Validation) {}
  func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> DTO { dto }

  func rows(for note: DTO, into rows: inout RecordRows) {
    if let author = note.author {
      rows.merge(Self.authors, author, note.authorName.map(Patch.set) ?? .unchanged)
    }
    rows.add(Self.notes, note.id, note.kind, note.author, note.editor)
    switch note.kind {
    case "text": rows.add(Self.texts, note.text ?? "")
    default: rows.add(Self.links, note.link?.url ?? "", note.link?.title)
    }
  }
}

/// Contacts whose fields some records give and others leave out (`Patch`): every record merges.
private struct ContactsDataset: Dataset {
  struct DTO: Decodable { var id: String, name: Patch<String>, email: Patch<String> }
  static let contacts = Table(
    "contacts", key: ["contact_id"],
    columns: [.text("contact_id", field: "id"), .text("name", nullable: true), .text("email", nullable: true)],
    onConflict: .upsert)

  var name: String { "contacts" }
  var summary: String { "contacts, merged" }
  var schema: Schema { Schema([Self.contacts]) }
  func validate(_ dto: DTO, into validation: inout Validation) {}
  func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> DTO { dto }
  func rows(for contact: DTO, into rows: inout RecordRows) {
    rows.merge(Self.contacts, contact.id, contact.name, contact.email)
  }
}

@Suite("Extension tables, merge rows and nullable references")
struct ExtensionTableTests {
  static func text(_ id: String, _ body: String, author: String? = nil, name: String? = nil, editor: String? = nil)
    -> String
  {
    var fields = [#""id":"\#(id)""#, #""kind":"text""#, #""text":"\#(body)""#]
    if let author { fields.append(#""author":"\#(author)""#) }
    if let name { fields.append(#""authorName":"\#(name)""#) }
    if let editor { fields.append(#""editor":"\#(editor)""#) }
    return "{" + fields.joined(separator: ",") + "}"
  }

  static func link(_ id: String, _ url: String, title: String? = nil) -> String {
    let title = title.map { #","title":"\#($0)""# } ?? ""
    return #"{"id":"\#(id)","kind":"link","link":{"url":"\#(url)"\#(title)}}"#
  }

  private func contents(_ db: ProjectsDatabase) -> [String] {
    db.rows(["note_id", "kind"], from: "notes ORDER BY note_id")
      + db.rows(["note_id", "body"], from: "note_texts ORDER BY note_id")
      + db.rows(["note_id", "url", "title"], from: "note_links ORDER BY note_id")
  }

  @Test func anExtensionIsKeyedByItsParentsKeyAndCascades() {
    let ddl = Dictionary(
      uniqueKeysWithValues: NotesDataset().schema.migrations(dialect: SQLiteDialect()).map { ($0.identifier, $0.sql) })
    let links = ddl["create table note_links"] ?? ""
    #expect(links.contains("note_id TEXT NOT NULL,"))
    #expect(links.contains("PRIMARY KEY (note_id)"))
    #expect(links.contains("FOREIGN KEY (note_id) REFERENCES notes (note_id) ON DELETE CASCADE"))
    #expect(!links.contains("position"))
    #expect(links.hasSuffix(") STRICT;"))
    #expect(NotesDataset.links.key == ["note_id"])
    #expect(NotesDataset.links.allColumns.map(\.name) == ["note_id", "url", "title"])
    // Nullable references that reject orphans.
    let notes = ddl["create table notes"] ?? ""
    #expect(notes.contains("author_id TEXT REFERENCES authors,"))
    #expect(notes.contains("editor_id TEXT REFERENCES authors,"))
  }

  @Test(arguments: [ConflictPolicy.upsert, .replace])
  func reimportedParentKeepsOnlyItsNewExtension(conflict: ConflictPolicy) throws {
    let db = try ProjectsDatabase()
    #expect(try db.run(NotesDataset(), [Self.text("n1", "first"), Self.link("n2", "u2", title: "T")]).exitCode == 0)
    // n1 becomes a link, n2 stays a link with a new URL: one extension row each, never two.
    let report = try db.run(NotesDataset(), [Self.link("n1", "u1"), Self.link("n2", "u3")], conflict: conflict)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(contents(db) == ["n1|link", "n2|link", "n1|u1|∅", "n2|u3|∅"])
    #expect(report.rowsWritten == ["authors": 0, "notes": 2, "note_texts": 0, "note_links": 2])
    // Re-importing the same notes changes nothing.
    let again = try db.run(NotesDataset(), [Self.link("n1", "u1"), Self.link("n2", "u3")], conflict: conflict)
    #expect(again.exitCode == 0)
    #expect(contents(db) == ["n1|link", "n2|link", "n1|u1|∅", "n2|u3|∅"])
    #expect(db.scalar("SELECT count(*) FROM pragma_foreign_key_check") == 0)
  }

  @Test func deletingTheParentDeletesItsExtension() throws {
    let db = try ProjectsDatabase()
    #expect(try db.run(NotesDataset(), [Self.text("n1", "first"), Self.link("n2", "u2")]).exitCode == 0)
    let connection = try db.connection()
    try connection.execute("PRAGMA foreign_keys = ON")
    try connection.execute("DELETE FROM notes")
    #expect(try connection.scalarInt("SELECT count(*) FROM note_texts") == 0)
    #expect(try connection.scalarInt("SELECT count(*) FROM note_links") == 0)
  }

  @Test func anIssueAboutAnExtensionColumnPointsAtItsField() throws {
    let db = try ProjectsDatabase()
    let report = try db.run(
      NotesDataset(), [Self.text("n1", ""), Self.link("n2", ""), Self.text("n3", "ok")], policy: .lenient)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(
      report.issues.map(\.place) == ["load error constraint text line 1", "load error constraint link.url line 2"])
    #expect(contents(db) == ["n3|text", "n3|ok"])
  }

  @Test func aMergeCreatesTheRowOrSetsOnlyTheColumnsItGives() throws {
    let db = try ProjectsDatabase()
    let first = try db.run(
      NotesDataset(),
      [
        Self.text("n1", "a", author: "ana", name: "Ana"),
        // Mentions Ana without her name: the name stays.
        Self.text("n2", "b", author: "ana"),
        // Mentions Bo, whom no record named yet: created with no name.
        Self.text("n3", "c", author: "bo"),
      ])
    #expect(first.exitCode == 0, "\(first.failure?.message ?? "")")
    #expect(db.rows(["author_id", "name"], from: "authors ORDER BY author_id") == ["ana|Ana", "bo|∅"])
    #expect(first.rowsWritten["authors"] == 2)

    // A later run names Bo and renames Ana; mentions change nothing, and only changes count.
    let second = try db.run(
      NotesDataset(),
      [
        Self.text("n4", "d", author: "bo", name: "Bo"), Self.text("n5", "e", author: "ana"),
        Self.text("n6", "f", author: "ana", name: "Anna"), Self.text("n7", "g", author: "ana", name: "Anna"),
        Self.text("n8", "h", author: "ana"),
      ])
    #expect(second.exitCode == 0, "\(second.failure?.message ?? "")")
    #expect(db.rows(["author_id", "name"], from: "authors ORDER BY author_id") == ["ana|Anna", "bo|Bo"])
    #expect(second.rowsWritten["authors"] == 2)

    // An upsert after a merge of the same key in one run is written, not taken from the cache.
    let third = try db.run(
      NotesDataset(),
      [
        Self.text("n9", "i", author: "cy", name: "Cy"), Self.text("n10", "j", author: "cy", name: "Cyd"),
        Self.text("n11", "k", author: "cy"), Self.text("n12", "l", author: "cy", name: "Cy"),
      ])
    #expect(third.exitCode == 0)
    #expect(db.rows(["name"], from: "authors WHERE author_id = 'cy'") == ["Cy"])
  }

  @Test func aMergeOfSomeColumnsSetsThemOnTheRowThisRunWroteOrFound() throws {
    let db = try ProjectsDatabase()
    let lines = [
      #"{"id": "p", "name": "A", "email": "a@"}"#,
      #"{"id": "p", "email": "b@"}"#,  // the name stays
      #"{"id": "p", "email": "b@"}"#,  // nothing differs: nothing written
      #"{"id": "p", "name": "Z", "email": "b@"}"#,
      #"{"id": "q", "name": "Q"}"#,  // new: the email is NULL
      #"{"id": "q", "email": "q@"}"#,
      #"{"id": "r", "name": "R", "email": null}"#,
    ]
    let report = try db.run(ContactsDataset(), lines)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(
      db.rows(["contact_id", "name", "email"], from: "contacts ORDER BY contact_id") == ["p|Z|b@", "q|Q|q@", "r|R|∅"])
    #expect(report.rowsWritten["contacts"] == 6)

    // A later run finds the rows in the table, not in a cache: the same merges change nothing.
    let again = try db.run(ContactsDataset(), [lines[1], #"{"id": "q", "name": "Q"}"#, #"{"id": "r"}"#])
    #expect(again.exitCode == 0)
    #expect(again.rowsWritten["contacts"] == 0)
    let renamed = try db.run(ContactsDataset(), [#"{"id": "q", "name": "Quinn"}"#, #"{"id": "r", "email": "r@"}"#])
    #expect(renamed.rowsWritten["contacts"] == 2)
    #expect(
      db.rows(["contact_id", "name", "email"], from: "contacts ORDER BY contact_id") == [
        "p|Z|b@", "q|Quinn|q@", "r|R|r@",
      ])
  }

  @Test func aNullableReferenceIsNullWithoutALookUpAndStillRejectsOrphans() throws {
    let db = try ProjectsDatabase()
    let report = try db.run(
      NotesDataset(),
      [Self.text("n1", "a"), Self.text("n2", "b", author: "ana", editor: "ana"), Self.text("n3", "c", editor: "zed")],
      policy: .lenient)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(report.issues.map(\.place) == ["load error orphanReference editor line 3"])
    #expect(
      db.rows(["note_id", "author_id", "editor_id"], from: "notes ORDER BY note_id") == ["n1|∅|∅", "n2|ana|ana"])
  }

  @Test func aMergeCannotLeaveANotNullColumnToAMissingRow() {
    let people = Table(
      "merge_people", key: ["person_id"], columns: [.text("person_id"), .text("name")], onConflict: .upsert)
    var rows = RecordRows()
    rows.merge(people, "p1", Patch<String>.unchanged)
    #expect(rows.violations.map(\.path) == ["name"])
    #expect(rows.violations.map(\.code) == [.nullValue])
    var named = RecordRows()
    named.merge(people, "p1", Patch<String>.set("P"))
    #expect(named.violations.isEmpty)
  }
}
