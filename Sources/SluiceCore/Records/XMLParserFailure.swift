package import CLibXML2
import Foundation

/// What Sluice says about an error libxml2 reports, chosen by the error's code alone.
///
/// libxml2's own messages quote the document: the attribute a value is missing for
/// ("Specification mandates value for attribute HIVpositive" — a word of a record, after a stray
/// quote), the names of tags that do not match, the entity that is not defined, the encoding
/// declared. Element and attribute names can be data too. None of it may reach stderr, a report
/// or an audit table, so the message is Sluice's own, picked by `xmlError.code` (codes are unique
/// across libxml2's domains), and only the position is kept: the line (in the error's location),
/// the column (in the message) and the byte offset.
package struct XMLParserFailure {
  package var code: IssueCode
  /// One line, no word of the document: what is wrong, then the column.
  package var message: String

  /// libxml2's text for the bound it keeps without `XML_PARSE_HUGE`; compared, never copied.
  static let hugeInputLookup = "Huge input lookup"

  package init(_ error: UnsafePointer<xmlError>) {
    let isHugeInput =
      error.pointee.code == Int32(XML_ERR_INTERNAL_ERROR.rawValue)
      && error.pointee.str1.map { strcmp($0, Self.hugeInputLookup) == 0 } == true
    self.init(
      code: Int(error.pointee.code), domain: Int(error.pointee.domain), column: Int(error.pointee.int2),
      isHugeInput: isHugeInput)
  }

  init(code libxml2Code: Int, domain: Int, column: Int, isHugeInput: Bool = false) {
    let place = column > 0 ? " (column \(column))" : ""
    if isHugeInput {
      // parser.c refuses to look further ahead than XML_MAX_LOOKUP_LIMIT (10,000,000 bytes) for
      // the end of a start tag, CDATA section, comment or processing instruction.
      code = .valueTooLarge
      message =
        "a start tag (with its attribute values), CDATA section, comment or processing instruction longer than 10,000,000 bytes, libxml2's bound; the document is not read further\(place)"
      return
    }
    code = .syntax
    let what = Self.description(of: libxml2Code) ?? "libxml2 error \(libxml2Code) (domain \(domain))"
    message = "malformed XML: \(what)\(place)"
  }

  /// Why the parser stopped, from `xmlParseChunk`'s status (an `xmlParserErrors` code, or -1).
  package static func stopMessage(status: Int32) -> String {
    // A failed conversion returns XML_ERR_INVALID_ENCODING, or XML_PARSER_EOF (-1) when pushing the
    // bytes into the converter failed.
    if status == Int32(XML_ERR_INVALID_ENCODING.rawValue) || status == -1 {
      return "malformed XML: the input is not valid in its encoding (the declared one, or UTF-8)"
    }
    return "malformed XML: the parser stopped: " + (description(of: Int(status)) ?? "libxml2 error \(status)")
  }

  /// What the common codes of `xmlParserErrors` mean, in words that quote nothing.
  private static func description(of code: Int) -> String? {
    guard let code = UInt32(exactly: code) else { return nil }
    return switch xmlParserErrors(rawValue: code) {
    case XML_ERR_INTERNAL_ERROR: "libxml2 internal error"
    case XML_ERR_NO_MEMORY: "libxml2 ran out of memory"
    case XML_ERR_DOCUMENT_START: "no document: the input does not start with an XML declaration or an element"
    case XML_ERR_DOCUMENT_EMPTY: "the document is empty"
    case XML_ERR_DOCUMENT_END, XML_ERR_EXTRA_CONTENT: "content after the end of the root element"
    case XML_ERR_INVALID_HEX_CHARREF, XML_ERR_INVALID_DEC_CHARREF, XML_ERR_INVALID_CHARREF:
      "an invalid character reference"
    case XML_ERR_INVALID_CHAR: "a character not allowed in XML"
    case XML_ERR_CHARREF_AT_EOF, XML_ERR_ENTITYREF_AT_EOF, XML_ERR_PEREF_AT_EOF:
      "a reference cut short by the end of the input"
    case XML_ERR_CHARREF_IN_PROLOG, XML_ERR_CHARREF_IN_EPILOG, XML_ERR_CHARREF_IN_DTD, XML_ERR_ENTITYREF_IN_PROLOG,
      XML_ERR_ENTITYREF_IN_EPILOG, XML_ERR_ENTITYREF_IN_DTD, XML_ERR_PEREF_IN_PROLOG, XML_ERR_PEREF_IN_EPILOG,
      XML_ERR_PEREF_IN_INT_SUBSET:
      "a reference where none is allowed (outside the root element)"
    case XML_ERR_ENTITYREF_NO_NAME: "an '&' that starts no entity reference (a bare '&' is written '&amp;')"
    case XML_ERR_ENTITYREF_SEMICOL_MISSING: "an entity reference without its ';'"
    case XML_ERR_PEREF_NO_NAME, XML_ERR_PEREF_SEMICOL_MISSING: "a malformed parameter-entity reference"
    case XML_ERR_UNDECLARED_ENTITY, XML_WAR_UNDECLARED_ENTITY:
      "a reference to an undefined entity (only &lt; &gt; &amp; &quot; &apos; and character references are known)"
    case XML_ERR_UNPARSED_ENTITY, XML_ERR_ENTITY_IS_EXTERNAL, XML_ERR_ENTITY_IS_PARAMETER, XML_ERR_ENTITY_PROCESSING:
      "a reference to an entity that cannot be used here"
    case XML_ERR_UNKNOWN_ENCODING, XML_ERR_UNSUPPORTED_ENCODING, XML_ERR_ENCODING_NAME:
      "an unknown or unsupported encoding declared"
    case XML_ERR_INVALID_ENCODING: "the input is not valid in its encoding (the declared one, or UTF-8)"
    case XML_ERR_MISSING_ENCODING: "an encoding declaration without a name"
    case XML_ERR_STRING_NOT_STARTED, XML_ERR_LITERAL_NOT_STARTED: "a quoted value that does not start with a quote"
    case XML_ERR_STRING_NOT_CLOSED, XML_ERR_LITERAL_NOT_FINISHED: "a quoted value without its closing quote"
    case XML_ERR_LT_IN_ATTRIBUTE: "an unescaped '<' in an attribute value (it is written '&lt;')"
    case XML_ERR_ATTRIBUTE_NOT_STARTED: "an attribute value that does not start with a quote"
    case XML_ERR_ATTRIBUTE_NOT_FINISHED: "an attribute value without its closing quote"
    case XML_ERR_ATTRIBUTE_WITHOUT_VALUE: "an attribute without a value (a stray quote or space inside a start tag?)"
    case XML_ERR_ATTRIBUTE_REDEFINED, XML_NS_ERR_ATTRIBUTE_REDEFINED: "an attribute given twice on one element"
    case XML_ERR_COMMENT_NOT_FINISHED: "a comment not closed"
    case XML_ERR_HYPHEN_IN_COMMENT: "'--' inside a comment"
    case XML_ERR_PI_NOT_STARTED, XML_ERR_PI_NOT_FINISHED: "a malformed processing instruction"
    case XML_ERR_XMLDECL_NOT_STARTED, XML_ERR_XMLDECL_NOT_FINISHED: "a malformed XML declaration"
    case XML_ERR_DOCTYPE_NOT_FINISHED: "a document type declaration not closed"
    case XML_ERR_MISPLACED_CDATA_END: "']]>' outside a CDATA section"
    case XML_ERR_CDATA_NOT_FINISHED: "a CDATA section not closed"
    case XML_ERR_RESERVED_XML_NAME: "a processing instruction named 'xml' where none is allowed"
    case XML_ERR_SPACE_REQUIRED: "a space missing (between attributes, or in a declaration)"
    case XML_ERR_NAME_REQUIRED: "a name expected (of an element, attribute or entity)"
    case XML_ERR_GT_REQUIRED: "a start tag without its closing '>'"
    case XML_ERR_LTSLASH_REQUIRED: "an end tag expected"
    case XML_ERR_EQUAL_REQUIRED: "an attribute without '='"
    case XML_ERR_TAG_NAME_MISMATCH: "an end tag that does not match its start tag"
    case XML_ERR_TAG_NOT_FINISHED: "an element not closed before the input ends"
    case XML_ERR_NOT_WELL_BALANCED: "unbalanced elements"
    case XML_ERR_ENTITY_LOOP: "an entity that refers to itself"
    case XML_ERR_VERSION_MISSING, XML_WAR_UNKNOWN_VERSION, XML_ERR_UNKNOWN_VERSION, XML_ERR_VERSION_MISMATCH:
      "a missing or unsupported XML version"
    case XML_ERR_NAME_TOO_LONG: "a name longer than 50,000 bytes, libxml2's bound"
    case XML_NS_ERR_XML_NAMESPACE: "a misuse of the reserved xml namespace"
    case XML_NS_ERR_UNDEFINED_NAMESPACE: "a namespace prefix that is not declared"
    case XML_NS_ERR_QNAME: "a malformed qualified name"
    case XML_NS_ERR_EMPTY, XML_NS_ERR_COLON: "an invalid namespace declaration"
    default: nil
    }
  }
}
