@_spi(Internals) import SluiceCore

// The Stack Exchange data dump (archive.org/details/stackexchange): one XML file per kind of
// row — Users, Posts, Tags, Comments, Votes, Badges, PostLinks, PostHistory — each a root
// element holding flat `<row …/>` elements whose every value is a string attribute.
//
// One dataset per file, all writing into one shared set of tables (`StackExchange.Tables`), so a
// comment names its post and a post its owner by natural key across files. The files load in
// the order their references need: users, tags, posts, then the rows about posts and users
// (`Pipelines/stackexchange.json`).
//
// What the dump's text means is decided here, not by the pipeline's policy:
// - timestamps carry no zone (`2018-02-06T20:19:50.957`) and are read as UTC (`timestamp(from:)`);
// - a post's `Tags` is `<a><b>` once the XML entities are decoded (`tagNames(from:)`);
// - ids are integers, `True`/`False` are booleans, HTML bodies are kept as they are.

/// The names the Stack Exchange datasets share: their tables and the dump's text conventions.
public enum StackExchange {}

extension StackExchange {
  /// The message of an `unsupportedEnumValue` issue for a type id: the ids this version knows.
  static func unknownType<E: LookupEnum>(_ type: E.Type) -> String {
    "not an id this version knows (" + E.allCases.map { "\($0.lookupID) \($0.rawValue)" }.joined(separator: ", ") + ")"
  }
}
