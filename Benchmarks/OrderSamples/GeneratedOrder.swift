/// An order as a generator makes it: the values it writes into a dump, kept so that callers can
/// also write the same rows as CSV or compute true answers to questions about them.
public struct GeneratedOrder: Sendable {
  public struct Item: Sendable {
    public var sku: String
    public var qty: Int
    public var priceMinor: Int64

    public init(sku: String, qty: Int, priceMinor: Int64) {
      self.sku = sku
      self.qty = qty
      self.priceMinor = priceMinor
    }
  }

  public var id: String
  public var currency: String
  public var status: String
  /// The timestamp exactly as the dump writes it (`2023-01-01T00:00:05Z`, `….123Z`).
  public var createdAt: String
  public var customerID: Int64
  public var customerName: String
  public var items: [Item]

  public init(
    id: String, currency: String, status: String, createdAt: String, customerID: Int64,
    customerName: String, items: [Item]
  ) {
    self.id = id
    self.currency = currency
    self.status = status
    self.createdAt = createdAt
    self.customerID = customerID
    self.customerName = customerName
    self.items = items
  }

  /// The sum of the lines, which is what the generators write as `amount`.
  public var amount: Int64 { items.reduce(0) { $0 + Int64($1.qty) * $1.priceMinor } }

  /// The record as a format-neutral tree: `orderId` and the customer's `id` are XML attributes,
  /// items are an `<items>` wrapper of `<item>` elements.
  public var record: DumpValue {
    let lines: [DumpValue] = items.map { item in
      let fields: [DumpField] = [
        DumpField("sku", .text(item.sku)), DumpField("qty", .number(String(item.qty))),
        DumpField("priceMinor", .number(String(item.priceMinor))),
      ]
      return .object(fields)
    }
    let customer: [DumpField] = [
      DumpField("id", .number(String(customerID)), isAttribute: true), DumpField("name", .text(customerName)),
    ]
    let fields: [DumpField] = [
      DumpField("orderId", .text(id), isAttribute: true),
      DumpField("amount", .number(String(amount))),
      DumpField("currency", .text(currency)),
      DumpField("status", .text(status)),
      DumpField("createdAt", .text(createdAt)),
      DumpField("customer", .object(customer)),
      DumpField("items", .list(item: "item", lines)),
    ]
    return .object(fields)
  }

  /// The record in the orders dataset's wire format, on one line.
  public var json: String { record.json }

  /// The record as one `<order>` element on one line, text XML-escaped.
  public var xml: String { record.xml(element: "order") }
}
