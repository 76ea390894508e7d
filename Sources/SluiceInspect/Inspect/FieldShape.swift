@_spi(Internals) import SluiceCore

/// What `sluice inspect` learned about one field path (`customer.name`, `items[].qty`) over the
/// records it read: the kinds of value seen, how often the field was present and null in the
/// objects that could hold it, text lengths, array sizes, and — only when asked — a few example
/// values.
///
/// Counts are relative to the field's *holders*: the records for a top-level field, the
/// `customer` objects for `customer.name`, the elements for `items[].qty`. That is the base a
/// DTO's optionality needs (a field missing from some `customer` objects is optional in
/// `Customer`). An array's elements have the path of the array plus `[]`; their `present` is the
/// number of elements.
package struct FieldShape: Sendable, Hashable {
  /// Value kinds as JSON has them; an integer is a number without fraction or exponent that
  /// fits `Int64`. XML values are all `string`s (see `TextTraits` for what they look like).
  public struct Kinds: Sendable, Hashable {
    public var string = 0
    public var integer = 0
    public var number = 0
    public var boolean = 0
    public var null = 0
    public var object = 0
    public var array = 0

    public init() {}

    /// The kinds seen, with their counts, most frequent first (ties in the order above); null
    /// is left out, since it is reported on its own.
    public var nonNull: [(name: String, count: Int)] {
      let all = [
        ("string", string), ("integer", integer), ("number", number), ("boolean", boolean), ("object", object),
        ("array", array),
      ]
      return all.filter { $0.1 > 0 }.enumerated()
        .sorted { $0.element.1 != $1.element.1 ? $0.element.1 > $1.element.1 : $0.offset < $1.offset }
        .map { (name: $0.element.0, count: $0.element.1) }
    }

    mutating func add(_ other: Kinds) {
      string += other.string
      integer += other.integer
      number += other.number
      boolean += other.boolean
      null += other.null
      object += other.object
      array += other.array
    }
  }

  /// What the text values (JSON strings, XML text and attributes) look like: how many of the
  /// non-empty ones would convert to each type the way Sluice's decoder converts XML text.
  public struct TextTraits: Sendable, Hashable {
    /// Text values, empty ones included.
    public var count = 0
    /// Empty text (an empty XML element is absent to the decoder).
    public var empty = 0
    /// `-`? digits, fitting `Int64`.
    public var integerLike = 0
    /// A JSON number's grammar, finite as a `Double`.
    public var numberLike = 0
    /// `true`/`false`, `True`/`False` or `1`/`0`: what the decoder reads as a boolean in XML.
    public var booleanLike = 0
    /// An RFC 3339 date-time Sluice's `iso8601` date strategy accepts.
    public var dateLike = 0
    /// Shortest and longest text, in Unicode scalars.
    public var minLength = Int.max
    public var maxLength = 0

    public init() {}

    /// The one type every non-empty text converts to, if any: `integer`, `boolean`, `number`
    /// or `date`, in that order of preference (`1`/`0` alone are integers).
    public var looksLike: String? {
      let nonEmpty = count - empty
      guard nonEmpty > 0 else { return nil }
      if integerLike == nonEmpty { return "integer" }
      if booleanLike == nonEmpty { return "boolean" }
      if numberLike == nonEmpty { return "number" }
      if dateLike == nonEmpty { return "date" }
      return nil
    }

    mutating func add(_ other: TextTraits) {
      count += other.count
      empty += other.empty
      integerLike += other.integerLike
      numberLike += other.numberLike
      booleanLike += other.booleanLike
      dateLike += other.dateLike
      minLength = min(minLength, other.minLength)
      maxLength = max(maxLength, other.maxLength)
    }
  }

  /// The display path: keys joined by `.`, `[]` after an array (`items[].qty`); "" for the
  /// record itself.
  public internal(set) var path: String
  /// The last step: a key, or `[]` for an array's elements.
  public internal(set) var name: String
  /// Steps below the record: 1 for a top-level field, 2 for `customer.name` or `items[]`.
  public internal(set) var depth = 0
  /// How many objects (or arrays, for `[]`) could hold the field: the base of `present`.
  public internal(set) var holders = 0
  /// Times the field was there (for `[]`: elements).
  public internal(set) var present = 0
  public internal(set) var kinds = Kinds()
  public internal(set) var text = TextTraits()
  /// Fewest and most elements, over the arrays seen.
  public internal(set) var minElements = Int.max
  public internal(set) var maxElements = 0
  /// Up to three distinct values, cut to 40 characters; only with `showsValues`.
  public internal(set) var examples: [String] = []
  /// Numbers of JSON integers that do not fit `Int64` (counted as `number`).
  public internal(set) var wideIntegers = 0
  /// For a field of the record itself named like an id (`looksLikeKey`): whether no two of the
  /// records checked (the first `ShapeCollector.uniquenessSample`) had the same text or number
  /// in it; nil for other fields. Only hashes of the values are kept while checking, never the
  /// values.
  public internal(set) var isUniqueInSample: Bool?
  /// For the record itself: the pairs of its id-like fields whose values, taken together, no
  /// two of the first `ShapeCollector.pairSample` records shared (by field name, in order of
  /// first appearance) — composite keys.
  package internal(set) var uniqueKeyPairs: [[String]] = []
  /// For a CSV or TSV column: what its text values look like, for the type they all read as
  /// (`TextColumnProfile.inferred`); nil for other inputs.
  package internal(set) var column: TextColumnProfile?

  /// A CSV column's inferred type, or nil for other fields.
  package var columnType: TextColumnType? {
    column?.inferred(isKeyLike: depth == 1 && Self.looksLikeKey(name))
  }

  /// Whether a key names an id: `id`, `uuid`, `guid`, `key`, or one ending in `_id`, `Id`, `ID`,
  /// `No`, `_no`, `_key` or `Key` (`orderId`, `customer_id`, `orderNo`, `sku_key`).
  package static func looksLikeKey(_ name: String) -> Bool {
    if ["id", "uuid", "guid", "key", "_id"].contains(name.lowercased()) { return true }
    let suffixes = [
      "Id", "ID", "No", "Key", "Num", "Number", "_id", "_ID", "_no", "_No", "_key", "_num", "_number", "-id",
    ]
    return suffixes.contains { name.hasSuffix($0) && name.count > $0.count }
  }

  // The tree, for the collector: parent index, children in order of first appearance, and the
  // last object that counted this field (so a key repeated in one JSON object counts once).
  var parent: Int
  var children: [Int] = []
  var childIndex: [String: Int] = [:]
  var lastHolder = -1
  /// False once an XML merge has folded this path into another.
  var isLive = true

  init(path: String, name: String, parent: Int) {
    self.path = path
    self.name = name
    self.parent = parent
  }

  /// The field is sometimes missing or null in its holders.
  public var isSometimesAbsent: Bool { present < holders || kinds.null > 0 }

  /// `name` is the elements of an array.
  public var isElement: Bool { name == "[]" }

  /// Adds the counts of another shape of the same field (an XML merge).
  mutating func absorb(_ other: FieldShape) {
    holders += other.holders
    present += other.present
    kinds.add(other.kinds)
    text.add(other.text)
    minElements = min(minElements, other.minElements)
    maxElements = max(maxElements, other.maxElements)
    wideIntegers += other.wideIntegers
    for example in other.examples where examples.count < 3 && !examples.contains(example) {
      examples.append(example)
    }
  }
}
